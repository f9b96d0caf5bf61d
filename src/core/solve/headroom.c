/*
 * headroom.c — a service's headroom handed to it from the plan's idle GPUs
 * (see headroom.h).
 *
 * Steps are visited in order.  While a service holds fewer GPUs than its
 * target at step t, it takes one idle GPU for the run of steps from t on
 * where the GPU stays idle and the service stays below its target, then
 * gives it back.  Taking a GPU the service held at t-1 costs no handover at
 * t (it only delays giving it back), so those come first; then the idle GPU
 * nearest to the service's own GPUs, so the headroom sits next to the
 * service and batch blocks elsewhere stay whole; then the highest, where
 * services pack.  Each candidate is checked against the churn already spent
 * at both ends of its run, so the plan's own handovers always come first.
 */
#include "solve/headroom.h"
#include "model/validate.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

typedef struct hr_ctx
{
	const ga_problem *p;
	ga_plan    *plan;
	const ga_service *svc;
	int			s;				/* its index */
	const ga_pool *pool;
	int32_t		w;				/* the service's workload */
	int			T;
	int		   *target;			/* [T] */
	int		   *count;			/* [T] GPUs the service holds */
	int		   *churn;			/* [T] handovers counted at each step
								 * (ga_service_churn) */
	bool	   *held;			/* [pool size] held now (before step 0) */
	int		   *dist;			/* [pool size] scratch: to a service GPU */
	bool	   *tried;			/* [pool size] scratch: candidates tried */
} hr_ctx;

int
ga_headroom_target(const ga_problem *p, int s, int t)
{
	const ga_service *svc = &p->services[s];
	int			d = svc->demand[t] < svc->max_gpus ? svc->demand[t] : svc->max_gpus;
	int			top = ga_service_protect(svc, t);
	int			above = top > d ? (int) ceil(p->params.headroom * (top - d) - 1e-9) : 0;

	/* a service scaled to zero stays there: the minimum hedges a demand */
	if (d > 0 && above < p->params.headroom_min)
		above = p->params.headroom_min;
	return d + above < svc->max_gpus ? d + above : svc->max_gpus;	/* d <= max_gpus */
}

static bool
is_member(const hr_ctx *c, int g, int t)
{
	return ga_plan_get(c->plan, g, t) == c->w;
}

/* Whether the service holds g just before step t (the held GPUs at t = 0). */
static bool
was_member(const hr_ctx *c, int g, int t)
{
	return t > 0 ? is_member(c, g, t - 1) : c->held[g - c->pool->first_gpu];
}

/* Handovers at step t are counted from step 1, and at step 0 against known held GPUs. */
static bool
counted(const hr_ctx *c, int t)
{
	return t > 0 || c->svc->held_known;
}

/* Targets ramped ahead of their rises; counts and churn of the plan as it is. */
static void
measure(hr_ctx *c, int s)
{
	int			L = c->svc->churn_limit;
	int			first = c->pool->first_gpu;

	for (int t = 0; t < c->T; t++)
		c->target[t] = ga_headroom_target(c->p, s, t);
	for (int t = c->T - 2; t >= 0; t--)
		if (c->target[t] < c->target[t + 1] - L)
			c->target[t] = c->target[t + 1] - L;
	for (int i = 0; i < c->pool->n_gpus; i++)
		c->held[i] = false;
	for (int i = 0; i < c->svc->n_held; i++)
		c->held[c->svc->held_gpus[i] - first] = true;
	for (int t = 0; t < c->T; t++)
	{
		c->count[t] = 0;
		for (int g = first; g < first + c->pool->n_gpus; g++)
			c->count[t] += is_member(c, g, t);
		c->churn[t] = counted(c, t) ? ga_service_churn(c->p, c->plan, s, t) : 0;
	}
}

/*
 * Take GPU g from step t for as long as it stays idle, outside maintenance
 * windows, and the service below its target, if both handovers fit the
 * churn limit.
 */
static bool
try_take(hr_ctx *c, int g, int t)
{
	int			L = c->svc->churn_limit;
	int			end = t + 1;
	int			at_start;
	int			at_end = 0;

	while (end < c->T && ga_plan_get(c->plan, g, end) == GA_IDLE &&
		   !ga_gpu_closed(c->p, g, end) && c->count[end] < c->target[end])
		end++;
	at_start = !counted(c, t) ? 0 : was_member(c, g, t) ? -1 : 1;
	/* given back where something closes it, the GPU leaves uncounted */
	if (end < c->T && ga_service_may_hold(c->p, c->plan, c->s, g, end))
		at_end = is_member(c, g, end) ? -1 : 1;
	if (c->churn[t] + at_start > L || (end < c->T && c->churn[end] + at_end > L))
		return false;
	for (int u = t; u < end; u++)
	{
		ga_plan_set(c->plan, g, u, c->w);
		c->count[u]++;
	}
	c->churn[t] += at_start;
	if (end < c->T)
		c->churn[end] += at_end;
	return true;
}

/* Distance of every GPU of the pool to the nearest GPU the service holds at t. */
static void
distances(hr_ctx *c, int t)
{
	int			n = c->pool->n_gpus;
	int			first = c->pool->first_gpu;
	int			last = -1;

	for (int i = 0; i < n; i++)
	{
		if (is_member(c, first + i, t) || was_member(c, first + i, t))
			last = i;
		c->dist[i] = last < 0 ? INT_MAX : i - last;
	}
	last = -1;
	for (int i = n - 1; i >= 0; i--)
	{
		if (is_member(c, first + i, t) || was_member(c, first + i, t))
			last = i;
		if (last >= 0 && last - i < c->dist[i])
			c->dist[i] = last - i;
	}
}

/*
 * The next idle GPU to try at step t, or -1: one the service held at t-1,
 * else the nearest to its GPUs, the highest on ties.
 */
static int
next_candidate(const hr_ctx *c, int t)
{
	int			first = c->pool->first_gpu;
	int			pick = -1;

	for (int i = c->pool->n_gpus - 1; i >= 0; i--)
	{
		if (c->tried[i] || !c->p->gpu_usable[first + i] || ga_gpu_closed(c->p, first + i, t) ||
			ga_plan_get(c->plan, first + i, t) != GA_IDLE)
			continue;
		if (was_member(c, first + i, t))
			return i;
		if (pick < 0 || c->dist[i] < c->dist[pick])
			pick = i;
	}
	return pick;
}

/* One more GPU for the service at step t; false when none can be had. */
static bool
take_one(hr_ctx *c, int t)
{
	int			i;

	for (int k = 0; k < c->pool->n_gpus; k++)
		c->tried[k] = false;
	distances(c, t);
	while ((i = next_candidate(c, t)) >= 0)
	{
		/*
		 * Candidates the service held at t-1 come first; past them every
		 * candidate is a handover at t, and none fits once t's churn is at
		 * its limit.
		 */
		if (counted(c, t) && !was_member(c, c->pool->first_gpu + i, t) &&
			c->churn[t] + 1 > c->svc->churn_limit)
			return false;
		c->tried[i] = true;
		if (try_take(c, c->pool->first_gpu + i, t))
			return true;
	}
	return false;
}

static void
add_service_headroom(hr_ctx *c, int s)
{
	measure(c, s);
	for (int t = 0; t < c->T; t++)
		while (c->count[t] < c->target[t] && take_one(c, t))
			;
}

bool
ga_plan_add_headroom(const ga_problem *p, ga_plan *plan)
{
	int			T = p->params.n_steps;
	int			max_pool = 1;
	hr_ctx		c = {.p = p, .plan = plan, .T = T};
	bool		ok;

	for (int q = 0; q < p->n_pools; q++)
		if (p->pools[q].n_gpus > max_pool)
			max_pool = p->pools[q].n_gpus;
	c.target = malloc(sizeof(int) * T);
	c.count = malloc(sizeof(int) * T);
	c.churn = malloc(sizeof(int) * T);
	c.held = malloc(sizeof(bool) * max_pool);
	c.dist = malloc(sizeof(int) * max_pool);
	c.tried = malloc(sizeof(bool) * max_pool);
	ok = c.target && c.count && c.churn && c.held && c.dist && c.tried;
	for (int s = 0; ok && s < p->n_services; s++)
	{
		c.svc = &p->services[s];
		c.s = s;
		c.pool = &p->pools[c.svc->pool];
		c.w = ga_service_workload(p, s);
		if (c.svc->churn_budget < 0 && c.pool->n_gpus > 0)
			add_service_headroom(&c, s);
	}
	if (ok)
		plan->objective = ga_plan_objective(p, plan);
	free(c.target);
	free(c.count);
	free(c.churn);
	free(c.held);
	free(c.dist);
	free(c.tried);
	return ok;
}
