/*
 * block_model.c — the exact block-level model of one neighbourhood of a
 * plan (block_model.h), built into plain arrays and solved with GLPK.
 *
 * Variables (maximise):
 *
 *   x   binary per freed job, size, aligned block of the range and start
 *       step of the range (release, deadline, usable GPUs, windows and
 *       reservations over the run lengthened by the overrun margin, cells
 *       the rest of the plan leaves idle, the protect rule and the tenant
 *       quota each checked for the job alone).  Value: the job's priority
 *       on its GPUs over its run with the decay, its tail past the horizon
 *       (ga_job_tail_value), less the terminal charge it adds to what the
 *       rest of the plan holds after the horizon.
 *   z   binary per service of the pool, GPU of the range and step of the
 *       range whose cell is usable and open to services.
 *   f   flip of a service's GPU between two steps where both are z
 *       variables (a flip against a fixed cell is the variable itself, or
 *       one minus it).
 *   u   shortfall of a service at a step of the range, charged at
 *       penalty * priority * decay as in the objective.
 *
 * Rows: one workload per cell; each job at most once; per service and step
 * of the range its demand (with u), max_gpus and churn limit, counting its
 * GPUs outside the range of GPUs as the plan has them; its churn budget
 * over the horizon; the protect rule's two tiers (ga_protect_room at
 * priority 0, every service protected: never looser than the fast mode's
 * per-job rooms) over the batch work of the rest of the plan; tenant
 * limits (R9).
 */
#include "solve/block_model_internal.h"
#include "solve/glpk_guard.h"
#include "model/advance_reservation.h"
#include "model/tenant_quota.h"
#include "model/terminal.h"
#include "model/validate.h"

#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * What the model charges a service's handover of one GPU: nothing in the
 * objective does, so without it every way of seating the services in the
 * range is worth the same and GLPK moves them for nothing (each move is a
 * handover the executors carry out, and a step of lost serving in
 * practice).  Far below any job's value per GPU and step, it only breaks
 * ties, in favour of the GPUs the services hold.
 */
#define FLIP_COST 1e-4

/*
 * The same for a job: among starts worth the same, the one the plan has,
 * so a neighbourhood re-solved for a gain elsewhere does not reshuffle
 * jobs between equal blocks and steps.
 */
#define KEEP_BONUS 1e-4

/* ----------------------------------------------------------------------
 * Growing arrays.
 * ----------------------------------------------------------------------
 */
static bool
grow(void **arr, int *cap, int need, size_t elem)
{
	int			n = *cap > 0 ? *cap : 256;
	void	   *p;

	if (need < *cap)
		return true;
	while (n <= need)
		n *= 2;
	p = realloc(*arr, elem * (size_t) (n + 1));
	if (p == NULL)
		return false;
	*arr = p;
	*cap = n;
	return true;
}

static int
add_var(block_model *m, bm_var v, double hi, double obj)
{
	int			cap = m->cap_vars;

	if (m->oom)
		return 0;
	if (!grow((void **) &m->var, &cap, m->n_vars + 1, sizeof(bm_var)) ||
		(cap = m->cap_vars, !grow((void **) &m->obj, &cap, m->n_vars + 1, sizeof(double))) ||
		(cap = m->cap_vars, !grow((void **) &m->hi, &cap, m->n_vars + 1, sizeof(double))))
	{
		m->oom = true;
		return 0;
	}
	m->cap_vars = cap;
	m->n_vars++;
	m->var[m->n_vars] = v;
	m->obj[m->n_vars] = obj;
	m->hi[m->n_vars] = hi;
	return m->n_vars;
}

static int
add_row(block_model *m, double lo, double hi)
{
	int			cap = m->cap_rows;

	if (m->oom)
		return 0;
	if (!grow((void **) &m->row_lo, &cap, m->n_rows + 1, sizeof(double)) ||
		(cap = m->cap_rows, !grow((void **) &m->row_hi, &cap, m->n_rows + 1, sizeof(double))))
	{
		m->oom = true;
		return 0;
	}
	m->cap_rows = cap;
	m->n_rows++;
	m->row_lo[m->n_rows] = lo;
	m->row_hi[m->n_rows] = hi;
	return m->n_rows;
}

static void
add_nz(block_model *m, int row, int col, double val)
{
	int			cap = m->cap_nnz;

	if (m->oom || row == 0 || col == 0)
		return;
	if (!grow((void **) &m->ia, &cap, m->nnz + 1, sizeof(int)) ||
		(cap = m->cap_nnz, !grow((void **) &m->ja, &cap, m->nnz + 1, sizeof(int))) ||
		(cap = m->cap_nnz, !grow((void **) &m->ar, &cap, m->nnz + 1, sizeof(double))))
	{
		m->oom = true;
		return;
	}
	m->cap_nnz = cap;
	m->nnz++;
	m->ia[m->nnz] = row;
	m->ja[m->nnz] = col;
	m->ar[m->nnz] = val;
}

void
block_model_free(block_model *m)
{
	ga_plan_destroy(m->resid);
	free(m->var);
	free(m->obj);
	free(m->hi);
	free(m->row_lo);
	free(m->row_hi);
	free(m->ia);
	free(m->ja);
	free(m->ar);
	free(m->cell_row);
	free(m->protect_row);
	free(m->protect_cap);
	free(m->tail_from);
	free(m->tail_to);
	free(m->limit_row);
	free(m->zcol);
	ga_terminal_destroy(m->tm);
	free(m->held_after);
	ga_quota_destroy(m->quota);
	free(m->quota_use);
}

/* ----------------------------------------------------------------------
 * The rest of the plan.
 * ----------------------------------------------------------------------
 */
static int
job_end(const ga_problem *p, const ga_plan *plan, int j)
{
	const ga_job *job = &p->jobs[j];

	if (job->pinned)
		return job->pinned_end;
	return plan->job_start[j] +
		ga_job_duration(job, ga_pool_of_gpu(p, plan->job_first_gpu[j]), plan->job_size[j]);
}

/* Take the freed jobs and the services' cells of the range out of a copy. */
static bool
make_residual(block_model *m)
{
	const ga_problem *p = m->p;

	m->resid = ga_plan_copy(m->plan);
	if (m->resid == NULL)
		return false;
	for (int j = 0; j < p->n_jobs; j++)
	{
		int			start = m->resid->job_start[j];

		if (!m->nb->freed[j] || p->jobs[j].pinned || (start < 0 && m->resid->job_size[j] <= 0))
			continue;
		if (m->resid->job_size[j] > 0)
		{
			int			end = job_end(p, m->resid, j);

			for (int g = m->resid->job_first_gpu[j]; g < m->resid->job_first_gpu[j] + m->resid->job_size[j]; g++)
				for (int t = start > 0 ? start : 0; t < end && t < m->T; t++)
					if (ga_plan_get(m->resid, g, t) == j)
						ga_plan_set(m->resid, g, t, GA_IDLE);
		}
		m->resid->job_start[j] = -1;
		m->resid->job_size[j] = -1;
		m->resid->job_first_gpu[j] = -1;
	}
	for (int g = m->g0; g < m->g1; g++)
		for (int t = m->t0; t < m->t1; t++)
			if (ga_plan_get(m->resid, g, t) >= p->n_jobs)
				ga_plan_set(m->resid, g, t, GA_IDLE);
	return true;
}

/* GPUs of [first, first + size) at step t that the protect rule counts. */
static int
counted_gpus(const ga_problem *p, int first, int size, int t)
{
	int			n = 0;

	for (int g = first; g < first + size; g++)
		n += p->gpu_usable[g] &&
			(p->n_reservations == 0 || ga_advance_reservation_at(p, g, t) == NULL);
	return n;
}

/*
 * GPUs of the block the rule counts for a job at step t in a tier.  The
 * bound's second tier counts as the fast mode does (heuristic.c,
 * uncounted_overlap): a GPU under a pinned job's lengthened run past its
 * estimated end counts once, for the pinned job, since a job placed there
 * waits for it.  The planners' own model counts it twice, which is only
 * more careful.
 */
static int
tier_gpus(const block_model *m, int tier, int first, int size, int t)
{
	int			n = counted_gpus(m->p, first, size, t);

	if (tier == 1 && m->relaxed)
		for (int g = first; g < first + size; g++)
			n -= t >= m->tail_from[g - m->g0] && t < m->tail_to[g - m->g0] &&
				counted_gpus(m->p, g, 1, t);
	return n;
}

/* Count job j of plan over its two tiers into caps (sign -1) or usage (+1). */
static void
count_tiers(block_model *m, const ga_plan *plan, int j, int *into, int sign)
{
	const ga_problem *p = m->p;
	int			start = plan->job_start[j];
	int			size = plan->job_size[j];
	int			first = plan->job_first_gpu[j];
	int			duration = job_end(p, plan, j) - start;

	for (int tier = 0; tier < 2; tier++)
	{
		int			steps = tier ? ga_protect_steps(p, &p->jobs[j], duration) : duration;

		for (int t = start > 0 ? start : 0; t < m->T && t - start < steps; t++)
			into[tier * m->T + t] += sign * counted_gpus(p, first, size, t);
	}
}

/*
 * The protect rule's room left by the rest of the plan, per tier and step:
 * room at priority 0 minus every other job of the pool over its estimated
 * and its lengthened run, but never less than the freed jobs hold there in
 * the plan (placed by the planner's own finer accounting), so the plan
 * stays a point of the model.
 */
static void
protect_caps(block_model *m)
{
	const ga_problem *p = m->p;
	int			q = m->nb->pool;
	int		   *room = malloc(sizeof(int) * (size_t) p->n_pools * m->T);
	int		   *inc;

	m->protect = false;
	for (int s = 0; s < p->n_services && (!m->relaxed || m->protect_bound); s++)
		m->protect = m->protect || p->services[s].pool == q;
	if (!m->protect)
	{
		free(room);
		return;
	}
	if (room == NULL)
	{
		m->oom = true;
		return;
	}
	for (int tier = 0; tier < 2; tier++)
	{
		ga_protect_room(p, 0, tier == 1, room);
		for (int t = 0; t < m->T; t++)
			m->protect_cap[tier * m->T + t] = room[q * m->T + t];
	}
	free(room);
	inc = calloc(2 * (size_t) m->T, sizeof(int));
	if (inc == NULL)
	{
		m->oom = true;
		return;
	}
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_plan *r = m->resid;

		if (r->job_size[j] > 0 && ga_pool_of_gpu(p, r->job_first_gpu[j]) == q)
			count_tiers(m, r, j, m->protect_cap, -1);
		else if (m->nb->freed[j] && m->plan->job_size[j] > 0 && !p->jobs[j].pinned)
			count_tiers(m, m->plan, j, inc, 1);
	}
	for (int i = 0; i < 2 * m->T; i++)
		if (inc[i] > m->protect_cap[i])
			m->protect_cap[i] = inc[i];
	free(inc);
}

/* ----------------------------------------------------------------------
 * Job variables.
 * ----------------------------------------------------------------------
 */
static bool
cells_idle(const block_model *m, int first, int size, int start, int end)
{
	for (int g = first; g < first + size; g++)
	{
		if (!m->p->gpu_usable[g])
			return false;
		for (int t = start; t < end && t < m->T; t++)
			if (ga_plan_get(m->resid, g, t) != GA_IDLE)
				return false;
	}
	return true;
}

/*
 * Whether the model holds job j to the protect rule, and over how many
 * tiers.  The planners' model holds every job over both (at the room of
 * priority 0).  The bound's model must be a relaxation of what any
 * planner's plan keeps: there the rule holds only jobs that every service
 * of the pool is protected from (the room of the others grows by the
 * curves of the services they may displace), over both tiers, the second
 * counted as the fast mode counts it (tier_gpus).  Each such job was
 * placed where the work already placed, itself included, fits the room,
 * so the sum over them does too.
 */
static int
protect_tiers(const block_model *m, const ga_job *job)
{
	const ga_problem *p = m->p;

	if (!m->protect)
		return 0;
	if (!m->relaxed)
		return 2;
	for (int s = 0; s < p->n_services; s++)
		if (p->services[s].pool == m->nb->pool &&
			!ga_service_protected_from(p, &p->services[s], job->priority))
			return 0;
	return 2;
}

/* The protect rule for the job alone: its run fits what the rest leaves. */
static bool
protect_fits(const block_model *m, const ga_job *job, int first, int size, int start,
			 int duration)
{
	int			tiers = protect_tiers(m, job);

	for (int tier = 0; tier < tiers; tier++)
	{
		int			steps = tier ? ga_protect_steps(m->p, job, duration) : duration;

		for (int t = start; t < m->T && t - start < steps; t++)
		{
			int			n = tier_gpus(m, tier, first, size, t);

			/*
			 * Where the rest already takes more than the room, the fast mode
			 * still starts a job that adds nothing there on reserved GPUs:
			 * the bound's model keeps such a start.
			 */
			if (n > m->protect_cap[tier * m->T + t] && (n > 0 || !m->relaxed))
				return false;
		}
	}
	return true;
}

static int
cell_row(block_model *m, int g, int t)
{
	int		   *r = &m->cell_row[(size_t) (g - m->g0) * (m->T - m->t0) + (t - m->t0)];

	if (*r == 0)
		*r = add_row(m, -HUGE_VAL, 1);
	return *r;
}

static int
protect_row(block_model *m, int tier, int t)
{
	int		   *r = &m->protect_row[tier * m->T + t];

	if (*r == 0)
		*r = add_row(m, -HUGE_VAL, m->protect_cap[tier * m->T + t]);
	return *r;
}

/* Rows of one job variable: its cells and the protect rule's tiers. */
static void
job_var_rows(block_model *m, const ga_job *job, int col, int first, int size, int start,
			 int duration)
{
	int			end = start + duration < m->T ? start + duration : m->T;
	int			tiers = protect_tiers(m, job);

	for (int g = first; g < first + size; g++)
		for (int t = start; t < end; t++)
			add_nz(m, cell_row(m, g, t), col, 1);
	for (int tier = 0; tier < tiers; tier++)
	{
		int			steps = tier ? ga_protect_steps(m->p, job, duration) : duration;

		for (int t = start; t < m->T && t - start < steps; t++)
		{
			int			n = tier_gpus(m, tier, first, size, t);

			if (n > 0)
				add_nz(m, protect_row(m, tier, t), col, n);
		}
	}
}

/* The job's value on its GPUs over its run, its tail past the horizon included. */
static double
start_value(const block_model *m, const ga_job *job, int size, int start, int duration)
{
	const ga_problem *p = m->p;
	double		value = ga_job_tail_value(p, job, size, start, start + duration);

	for (int t = start; t < start + duration && t < m->T; t++)
		value += job->priority * size * p->decay[t];
	return value;
}

static bool
start_allowed(const block_model *m, const ga_job *job,
			  int first, int size, int start, int duration)
{
	const ga_problem *p = m->p;

	return cells_idle(m, first, size, start, start + duration) &&
		!ga_block_closed(p, job->tenant, first, size, start,
						 start + (m->relaxed ? duration : ga_protect_steps(p, job, duration))) &&
		protect_fits(m, job, first, size, start, duration) &&
		(m->quota == NULL ||
		 ga_quota_fits(m->quota, m->quota_use, job->tenant, m->nb->pool, start,
					   start + duration, size));
}

/* Last start of job on `size` GPUs within the range and its deadline. */
static int
last_start(const block_model *m, const ga_job *job, int duration)
{
	int			last = m->t1 - 1;

	if (job->deadline_step >= 0 && job->deadline_step - duration < last)
		last = job->deadline_step - duration;
	return last;
}

static bool var_in_plan(const block_model *m, const bm_var *v);

static void
job_vars(block_model *m, int j)
{
	const ga_problem *p = m->p;
	const ga_job *job = &p->jobs[j];
	const ga_pool *pool = &p->pools[m->nb->pool];
	int			row = 0;

	for (int size = job->gpus_min; size <= job->gpus_max && size <= m->g1 - m->g0; size *= 2)
	{
		int			d = ga_job_duration(job, m->nb->pool, size);
		int			from = job->release_step > m->t0 ? job->release_step : m->t0;
		int			last = last_start(m, job, d);

		for (int first = m->g0; first + size <= m->g1; first += size)
		{
			if ((first - pool->first_gpu) % size != 0)
				continue;
			for (int s = from; s <= last; s++)
			{
				bm_var		v = {'x', j, size, first, s};
				int			col;

				if (!start_allowed(m, job, first, size, s, d))
					continue;
				col = add_var(m, v, 1, start_value(m, job, size, s, d) +
							  (!m->relaxed && var_in_plan(m, &v) ? KEEP_BONUS : 0));
				if (row == 0)
					row = add_row(m, -HUGE_VAL, 1);
				add_nz(m, row, col, 1);
				job_var_rows(m, job, col, first, size, s, d);
				m->n_x++;
			}
		}
		if (size > job->gpus_max / 2)
			break;
	}
}

/* Tenant limits (R9) over the freed jobs of each tenant with one. */
static void
limit_rows(block_model *m)
{
	const ga_problem *p = m->p;
	int			q = m->nb->pool;

	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		const ga_tenant_policy *pol;
		bool		first_of_tenant = true;

		if (!m->nb->freed[j] || job->tenant < 0)
			continue;
		for (int k = 0; k < j && first_of_tenant; k++)
			first_of_tenant = !(m->nb->freed[k] && p->jobs[k].tenant == job->tenant);
		pol = ga_tenant_policy_of(p, job->tenant, q);
		if (!first_of_tenant || pol == NULL || pol->limit == GA_NO_LIMIT)
			continue;
		for (int t = 0; t < m->T; t++)
			m->limit_row[t] = pol->limit;
		for (int k = 0; k < p->n_jobs; k++)
		{
			const ga_plan *r = m->resid;

			if (p->jobs[k].tenant != job->tenant || r->job_size[k] <= 0 ||
				ga_pool_of_gpu(p, r->job_first_gpu[k]) != q)
				continue;
			for (int t = r->job_start[k] > 0 ? r->job_start[k] : 0; t < job_end(p, r, k) && t < m->T; t++)
				m->limit_row[t] -= r->job_size[k];
		}
		for (int t = 0; t < m->T; t++)
		{
			int			row = 0;

			for (int c = 1; c <= m->n_vars; c++)
			{
				const bm_var *v = &m->var[c];
				int			d;

				if (v->kind != 'x' || p->jobs[v->a].tenant != job->tenant)
					continue;
				d = ga_job_duration(&p->jobs[v->a], q, v->b);
				if (t < v->d || t >= v->d + d)
					continue;
				if (row == 0)
					row = add_row(m, -HUGE_VAL, m->limit_row[t] > 0 ? m->limit_row[t] : 0);
				add_nz(m, row, c, v->b);
			}
		}
	}
}

/* Tenant quotas of the pool, with the rest of the plan counted. */
static bool
quota_init(block_model *m)
{
	const ga_problem *p = m->p;
	const ga_plan *r = m->resid;

	m->quota = ga_quota_create(p);
	if (m->quota == NULL)
		return false;
	if (!ga_quota_pool_active(m->quota, m->nb->pool))
	{
		ga_quota_destroy(m->quota);
		m->quota = NULL;
		return true;
	}
	m->quota_use = calloc(ga_quota_use_len(m->quota), sizeof(int));
	if (m->quota_use == NULL)
		return false;
	for (int j = 0; j < p->n_jobs; j++)
		if (r->job_size[j] > 0)
			ga_quota_count(m->quota, m->quota_use, p->jobs[j].tenant,
						   ga_pool_of_gpu(p, r->job_first_gpu[j]), r->job_start[j],
						   job_end(p, r, j), r->job_size[j], p->jobs[j].pinned, 1);
	return true;
}

/* ----------------------------------------------------------------------
 * The terminal charge.
 *
 * At each step T + k past the horizon the charge is a convex function of
 * the GPUs jobs hold in the pool (more held GPUs displace ever higher
 * priorities), so with h[k] the freed jobs' GPUs there it is the upper
 * envelope of one line per slope: w[k] >= a + slope * h[k], w[k] costing 1.
 * Several long jobs that each fit beside the rest alone are thus charged
 * together for what they displace together.
 * ----------------------------------------------------------------------
 */
static bool
terminal_init(block_model *m)
{
	const ga_problem *p = m->p;
	const ga_plan *r = m->resid;

	m->tm = ga_terminal_create(p);
	if (m->tm == NULL)
		return false;
	m->held_after = calloc(m->tm->steps > 0 ? m->tm->steps : 1, sizeof(int));
	if (m->held_after == NULL)
		return false;
	for (int j = 0; j < p->n_jobs; j++)
	{
		int			from;
		int			to;

		if (r->job_size[j] <= 0 || ga_pool_of_gpu(p, r->job_first_gpu[j]) != m->nb->pool)
			continue;
		ga_terminal_range(m->tm, r->job_start[j], job_end(p, r, j), &from, &to);
		ga_terminal_hold(m->tm, m->held_after, from, to, r->job_first_gpu[j], r->job_size[j], 1);
	}
	return true;
}

/* The charge at T + k with h more GPUs held, less the charge without them. */
static double
terminal_extra(const block_model *m, int k, int h)
{
	return ga_terminal_step_cost(m->tm, m->nb->pool, k, m->held_after[k] + h) -
		ga_terminal_step_cost(m->tm, m->nb->pool, k, m->held_after[k]);
}

/* The steps past the horizon, [*from, *to) in k, that job variable c holds. */
static void
x_terminal_range(const block_model *m, int c, int *from, int *to)
{
	const bm_var *v = &m->var[c];

	ga_terminal_range(m->tm, v->d, v->d + ga_job_duration(&m->p->jobs[v->a], m->nb->pool, v->b),
					  from, to);
}

/* h[k] and w[k] with w's lines; returns the row h[k] is defined by. */
static int
terminal_step(block_model *m, int k)
{
	int			hmax = m->p->pools[m->nb->pool].n_gpus;
	int			h_row = add_row(m, 0, 0);
	bm_var		hv = {'h', k, h_row, 0, 0};
	bm_var		wv = {'w', k, 0, 0, 0};
	int			h = add_var(m, hv, hmax, 0);
	int			w = add_var(m, wv, terminal_extra(m, k, hmax) + 1, -1);

	add_nz(m, h_row, h, -1);
	for (int h0 = 0; h0 < hmax;)
	{
		double		slope = terminal_extra(m, k, h0 + 1) - terminal_extra(m, k, h0);
		int			h1 = h0 + 1;
		int			row;

		while (h1 < hmax &&
			   fabs(terminal_extra(m, k, h1 + 1) - terminal_extra(m, k, h1) - slope) < 1e-12)
			h1++;
		if (slope > 0)
		{
			/* w - slope * h >= extra(h0) - slope * h0 */
			row = add_row(m, terminal_extra(m, k, h0) - slope * h0, HUGE_VAL);
			add_nz(m, row, w, 1);
			add_nz(m, row, h, -slope);
		}
		h0 = h1;
	}
	return h_row;
}

static bool
terminal_rows(block_model *m)
{
	int			last = 0;
	int			n_x_vars = m->n_vars;
	int		   *h_row;
	int		   *open;
	int			from;
	int			to;

	if (!terminal_init(m))
		return false;
	for (int c = 1; c <= n_x_vars; c++)
	{
		if (m->var[c].kind != 'x')
			continue;
		x_terminal_range(m, c, &from, &to);
		if (to > last)
			last = to;
	}
	h_row = calloc(last > 0 ? last : 1, sizeof(int));
	open = calloc(last > 0 ? last : 1, sizeof(int));
	if (h_row == NULL || open == NULL)
	{
		free(h_row);
		free(open);
		return false;
	}
	for (int k = 0; k < last; k++)
		if (terminal_extra(m, k, m->p->pools[m->nb->pool].n_gpus) > 0)
			h_row[k] = terminal_step(m, k);
	for (int c = 1; c <= n_x_vars; c++)
	{
		if (m->var[c].kind != 'x')
			continue;
		x_terminal_range(m, c, &from, &to);
		/* the block's open GPUs per step, its usable ones counted once */
		ga_terminal_hold(m->tm, open, from, to, m->var[c].c, m->var[c].b, 1);
		for (int k = from; k < to; k++)
		{
			if (h_row[k] > 0 && open[k] > 0)
				add_nz(m, h_row[k], c, open[k]);
			open[k] = 0;
		}
	}
	free(h_row);
	free(open);
	return true;
}

/* ----------------------------------------------------------------------
 * Service variables.
 * ----------------------------------------------------------------------
 */
static int *
zcol_at(const block_model *m, int s, int g, int t)
{
	size_t		nG = m->g1 - m->g0;
	size_t		W = m->t1 - m->t0;

	return &m->zcol[((size_t) s * nG + (g - m->g0)) * W + (t - m->t0)];
}

/*
 * Whether service s holds GPU g at step t where that is fixed (outside the
 * range or before step 0), or -1 when it is a variable of the model (*col,
 * 0 when the cell is closed to it inside the range).
 */
static int
fixed_state(const block_model *m, int s, int g, int t, int *col)
{
	const ga_service *svc = &m->p->services[s];

	*col = 0;
	if (t < 0)
	{
		for (int i = 0; i < svc->n_held; i++)
			if (svc->held_gpus[i] == g)
				return 1;
		return 0;
	}
	if (g >= m->g0 && g < m->g1 && t >= m->t0 && t < m->t1)
	{
		*col = *zcol_at(m, s, g, t);
		return *col ? -1 : 0;
	}
	return ga_plan_get(m->resid, g, t) == ga_service_workload(m->p, s);
}

/*
 * Churn of service s at step t as a row expression: variables with their
 * coefficients go into row, the constant part is returned.
 */
static int
churn_terms(block_model *m, int s, int t, int row)
{
	const ga_pool *pool = &m->p->pools[m->p->services[s].pool];
	int			constant = 0;
	int			lost = 0;

	for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
	{
		int			cc;
		int			pc;
		int			cur = fixed_state(m, s, g, t, &cc);
		int			prev = fixed_state(m, s, g, t - 1, &pc);

		/* a GPU taken from the service is no churn (ga_service_churn) */
		if (cur == 0 && prev != 0 && !ga_service_may_hold(m->p, m->plan, s, g, t))
		{
			lost += t == 0;
			continue;
		}
		if (cur >= 0 && prev >= 0)
			constant += cur != prev;
		else if (cur < 0 && prev < 0)
		{
			bm_var		v = {'f', s, g, t, 0};
			int			f = add_var(m, v, 1, 0);
			int			up = add_row(m, 0, HUGE_VAL);
			int			down = add_row(m, 0, HUGE_VAL);

			add_nz(m, up, f, 1);
			add_nz(m, up, cc, -1);
			add_nz(m, up, pc, 1);
			add_nz(m, down, f, 1);
			add_nz(m, down, cc, 1);
			add_nz(m, down, pc, -1);
			add_nz(m, row, f, 1);
			m->obj[f] -= m->relaxed ? 0 : FLIP_COST;
		}
		else
		{
			/* one side fixed at k: the flip is the variable, or 1 minus it */
			int			k = cur >= 0 ? cur : prev;
			int			col = cur >= 0 ? pc : cc;

			add_nz(m, row, col, k ? -1 : 1);
			if (!m->relaxed)	/* the bound counts the objective alone */
				m->obj[col] -= k ? -FLIP_COST : FLIP_COST;
			constant += k;
		}
	}
	/* at step 0, held GPUs beyond max_gpus go uncharged too */
	if (t == 0 && m->p->services[s].held_known)
		constant -= ga_service_forced_handovers(m->p, m->plan, s, 0) - lost;
	return constant;
}

static void
service_vars(block_model *m, int s)
{
	const ga_problem *p = m->p;
	const ga_service *svc = &p->services[s];
	int			w = ga_service_workload(p, s);

	for (int t = m->t0; t < m->t1; t++)
	{
		int			outside = 0;
		int			count_row;
		int			max_row;
		bm_var		uv = {'u', s, 0, t, 0};
		int			u;

		for (int g = m->g0; g < m->g1; g++)
		{
			bm_var		v = {'z', s, g, t, 0};

			if (!p->gpu_usable[g] || ga_gpu_closed(p, g, t) ||
				ga_plan_get(m->resid, g, t) != GA_IDLE)
				continue;
			*zcol_at(m, s, g, t) = add_var(m, v, 1, 0);
			add_nz(m, cell_row(m, g, t), *zcol_at(m, s, g, t), 1);
		}
		for (int g = 0; g < p->n_gpus; g++)
			outside += ga_plan_get(m->resid, g, t) == w;
		u = add_var(m, uv, svc->demand[t],
					-p->params.penalty * svc->priority * ga_shortfall_decay(p, t));
		count_row = add_row(m, svc->demand[t] - outside, HUGE_VAL);
		max_row = add_row(m, -HUGE_VAL, svc->max_gpus - outside);
		add_nz(m, count_row, u, 1);
		for (int g = m->g0; g < m->g1; g++)
		{
			add_nz(m, count_row, *zcol_at(m, s, g, t), 1);
			add_nz(m, max_row, *zcol_at(m, s, g, t), 1);
		}
	}
}

/*
 * Add to `row` the entries of the rows `rows` (the churn rows just built,
 * found among the matrix's entries (from, to], where the rows defining the
 * flips lie too), each variable once with its coefficients summed (a GPU's
 * variable appears in the churn of two consecutive steps): where[col] is
 * the entry of `row` that holds col, found in one pass.
 */
static void
merge_terms_into(block_model *m, int row, int from, int to, const int *rows, int n_rows)
{
	int		   *where = calloc((size_t) m->n_vars + 1, sizeof(int));
	bool	   *churn_row = calloc((size_t) m->n_rows + 1, sizeof(bool));

	if (where == NULL || churn_row == NULL)
	{
		free(where);
		free(churn_row);
		m->oom = true;
		return;
	}
	for (int i = 0; i < n_rows; i++)
		churn_row[rows[i]] = true;
	for (int k = from + 1; k <= to && !m->oom; k++)
	{
		int			col = m->ja[k];

		if (!churn_row[m->ia[k]])
			continue;
		if (where[col] != 0)
			m->ar[where[col]] += m->ar[k];
		else
		{
			add_nz(m, row, col, m->ar[k]);
			where[col] = m->nnz;
		}
	}
	free(where);
	free(churn_row);
}

/* Churn limit per step of the range (and the step after), churn budget. */
static void
service_churn_rows(block_model *m, int s)
{
	const ga_service *svc = &m->p->services[s];
	int			last = m->t1 < m->T ? m->t1 : m->T - 1;
	int			budget_const = 0;
	int			first = m->t0 > 0 || svc->held_known ? m->t0 : 1;
	int		   *rows = calloc(last - first + 2 > 0 ? last - first + 2 : 1, sizeof(int));
	int		   *consts = calloc(last - first + 2 > 0 ? last - first + 2 : 1, sizeof(int));
	int			begin = m->nnz;

	if (rows == NULL || consts == NULL)
	{
		free(rows);
		free(consts);
		m->oom = true;
		return;
	}
	for (int t = first; t <= last && !m->oom; t++)
	{
		rows[t - first] = add_row(m, -HUGE_VAL, 0);
		consts[t - first] = churn_terms(m, s, t, rows[t - first]);
		if (!m->oom)
			m->row_hi[rows[t - first]] = svc->churn_limit - consts[t - first];
	}
	if (svc->churn_budget >= 0 && !m->oom)
	{
		int			budget_row = add_row(m, -HUGE_VAL, 0);
		int			end = m->nnz;

		for (int t = 0; t < m->T; t++)
			budget_const += t < first || t > last ? ga_service_churn(m->p, m->plan, s, t)
				: consts[t - first];
		merge_terms_into(m, budget_row, begin, end, rows, last - first + 1);
		if (!m->oom)
			m->row_hi[budget_row] = svc->churn_budget - budget_const;
	}
	free(rows);
	free(consts);
}

/* ----------------------------------------------------------------------
 * Building.
 * ----------------------------------------------------------------------
 */
long
ga_block_size_estimate(const ga_problem *p, const ga_neighbourhood *nb)
{
	int			T = p->params.n_steps;
	long		n = 0;

	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		int			from = job->release_step > nb->from_step ? job->release_step : nb->from_step;

		if (!nb->freed[j] || job->pinned)
			continue;
		for (int size = job->gpus_min; size <= job->gpus_max && size <= nb->n_gpus; size *= 2)
		{
			int			d = ga_job_duration(job, nb->pool, size);

			for (int s = from; s < nb->to_step; s++)
				n += (long) (nb->n_gpus / size) * (1 + size * (d < T - s ? d : T - s));
			if (size > job->gpus_max / 2)
				break;
		}
	}
	return n;
}

ga_status
block_model_build(block_model *m, ga_error *err)
{
	const ga_problem *p = m->p;
	size_t		nG = m->g1 - m->g0;

	m->cell_row = calloc(nG * (m->T - m->t0) + 1, sizeof(int));
	m->protect_row = calloc(2 * (size_t) m->T, sizeof(int));
	m->protect_cap = calloc(2 * (size_t) m->T, sizeof(int));
	m->tail_from = calloc(m->g1 - m->g0 + 1, sizeof(int));
	m->tail_to = calloc(m->g1 - m->g0 + 1, sizeof(int));
	m->limit_row = calloc(m->T, sizeof(int));
	m->zcol = calloc((size_t) (p->n_services > 0 ? p->n_services : 1) * nG * (m->t1 - m->t0) + 1,
					 sizeof(int));
	if (!m->cell_row || !m->protect_row || !m->protect_cap || !m->tail_from || !m->tail_to ||
		!m->limit_row || !m->zcol || !make_residual(m))
		return ga_error_set(err, GA_ENOMEM, "out of memory in the block model");
	if (m->relaxed)				/* only the bound's second tier reads them */
		ga_pinned_tails(p, m->T, m->g0, m->g1, m->tail_from, m->tail_to);
	protect_caps(m);
	if (!m->relaxed && !quota_init(m))
		return ga_error_set(err, GA_ENOMEM, "out of memory in the block model");
	for (int j = 0; j < p->n_jobs; j++)
		if (m->nb->freed[j] && !p->jobs[j].pinned)
			job_vars(m, j);
	limit_rows(m);
	if (!terminal_rows(m))
		return ga_error_set(err, GA_ENOMEM, "out of memory in the block model");
	for (int s = 0; s < p->n_services; s++)
		if (p->services[s].pool == m->nb->pool)
			service_vars(m, s);
	for (int s = 0; s < p->n_services; s++)
		if (p->services[s].pool == m->nb->pool)
			service_churn_rows(m, s);
	if (m->oom)
		return ga_error_set(err, GA_ENOMEM, "out of memory in the block model");
	return GA_OK;
}

/* ----------------------------------------------------------------------
 * The incumbent as a point of the model, and the plan of a solution.
 * ----------------------------------------------------------------------
 */
static bool
var_in_plan(const block_model *m, const bm_var *v)
{
	const ga_plan *pl = m->plan;

	switch (v->kind)
	{
		case 'x':
			return pl->job_start[v->a] == v->d && pl->job_size[v->a] == v->b &&
				pl->job_first_gpu[v->a] == v->c;
		case 'z':
			return ga_plan_get(pl, v->b, v->c) == ga_service_workload(m->p, v->a);
		default:
			return false;
	}
}

/*
 * The plan's own decisions as values of the model's columns (flips and
 * shortfalls derived); false when the plan is not a point of the model
 * (its placements break the stricter protect accounting, say).
 */
bool
block_model_point_of_plan(const block_model *m, double *x)
{
	double	   *act = calloc(m->n_rows + 1, sizeof(double));
	bool		ok = act != NULL;

	for (int c = 1; c <= m->n_vars; c++)
		x[c] = var_in_plan(m, &m->var[c]) ? 1 : 0;
	for (int c = 1; ok && c <= m->n_vars; c++)
	{
		const bm_var *v = &m->var[c];

		if (v->kind == 'f')
		{
			int			cc = *zcol_at(m, v->a, v->b, v->c);
			int			pc = *zcol_at(m, v->a, v->b, v->c - 1);

			x[c] = fabs(x[cc] - x[pc]);
		}
		else if (v->kind == 'u')
		{
			int			held = ga_plan_service_gpus(m->p, m->plan, v->a, v->c);
			int			short_by = m->p->services[v->a].demand[v->c] - held;

			x[c] = short_by > 0 ? short_by : 0;
		}
	}
	for (int k = 1; ok && k <= m->nnz; k++)
		act[m->ia[k]] += m->ar[k] * x[m->ja[k]];
	for (int c = 1; ok && c <= m->n_vars; c++)
		if (m->var[c].kind == 'h')
			x[c] = act[m->var[c].b];	/* its own -1 was at 0 */
	for (int c = 1; ok && c <= m->n_vars; c++)
		if (m->var[c].kind == 'w')
			x[c] = terminal_extra(m, m->var[c].a, (int) lround(x[c - 1]));
	for (int i = 1; ok && i <= m->n_rows; i++)
		act[i] = 0;
	for (int k = 1; ok && k <= m->nnz; k++)
		act[m->ia[k]] += m->ar[k] * x[m->ja[k]];
	for (int i = 1; ok && i <= m->n_rows; i++)
		ok = act[i] >= m->row_lo[i] - 1e-9 && act[i] <= m->row_hi[i] + 1e-9;
	free(act);
	return ok;
}

/*
 * The plan of a solution.  Where the pool has tenant quotas, the chosen
 * starts are admitted one by one as the planners admit them
 * (ga_quota_fits, which also holds rule R10 that the model leaves out); a
 * start it refuses is left out and its job waits.
 */
static ga_plan *
plan_of_solution(const block_model *m, const double *x)
{
	ga_plan    *out = ga_plan_copy(m->resid);
	int		   *use = NULL;

	if (out == NULL)
		return NULL;
	if (m->quota != NULL)
	{
		use = malloc(sizeof(int) * ga_quota_use_len(m->quota));
		if (use == NULL)
		{
			ga_plan_destroy(out);
			return NULL;
		}
		memcpy(use, m->quota_use, sizeof(int) * ga_quota_use_len(m->quota));
	}
	for (int c = 1; c <= m->n_vars; c++)
	{
		const bm_var *v = &m->var[c];

		if (x[c] < 0.5)
			continue;
		if (v->kind == 'z')
			ga_plan_set(out, v->b, v->c, ga_service_workload(m->p, v->a));
		if (v->kind != 'x')
			continue;
		if (use != NULL)
		{
			const ga_job *job = &m->p->jobs[v->a];
			int			end = v->d + ga_job_duration(job, m->nb->pool, v->b);

			if (!ga_quota_fits(m->quota, use, job->tenant, m->nb->pool, v->d, end, v->b))
				continue;
			ga_quota_count(m->quota, use, job->tenant, m->nb->pool, v->d, end, v->b, false, 1);
		}
		ga_plan_place_job(out, m->p, v->a, v->d, v->c, v->b);
	}
	free(use);
	return out;
}

/* ----------------------------------------------------------------------
 * GLPK.
 * ----------------------------------------------------------------------
 */
typedef struct block_run
{
	block_model *m;
	const ga_solve_options *options;
	double		t_end;
	glp_prob   *lp;
	double	   *x;				/* [n_vars + 1] */
	bool		offer;			/* x holds the incumbent, to be offered */
	bool		found;
	bool		optimal;
	bool		cancelled;
	char		message[160];
} block_run;

int
block_model_ms_left(double t_end)
{
	double		ms = t_end - ga_now_ms();

	return ms < 1 ? 1 : ms > 1e9 ? 1000000000 : (int) ms;
}

void
block_model_iocp(glp_iocp *iocp, double t_end, void (*callback) (glp_tree *, void *),
				 void *info)
{
	glp_init_iocp(iocp);
	iocp->msg_lev = GLP_MSG_OFF;
	iocp->presolve = GLP_OFF;	/* the LP is solved already */
	iocp->cb_func = callback;
	iocp->cb_info = info;
	iocp->tm_lim = block_model_ms_left(t_end);
	iocp->clq_cuts = GLP_ON;
	iocp->cov_cuts = GLP_ON;
}

static void
on_tree(glp_tree *tree, void *info)
{
	block_run  *run = info;

	if (run->options != NULL && run->options->cancel != NULL &&
		run->options->cancel(run->options->cancel_arg))
	{
		run->cancelled = true;
		glp_ios_terminate(tree);
		return;
	}
	if (glp_ios_reason(tree) == GLP_IHEUR && run->offer)
	{
		run->offer = false;
		glp_ios_heur_sol(tree, run->x);
	}
}

void
block_model_load(const block_model *m, glp_prob *lp)
{
	glp_set_obj_dir(lp, GLP_MAX);
	glp_add_rows(lp, m->n_rows);
	glp_add_cols(lp, m->n_vars);
	for (int i = 1; i <= m->n_rows; i++)
	{
		bool		lo = m->row_lo[i] > -HUGE_VAL;
		bool		hi = m->row_hi[i] < HUGE_VAL;

		int			type = lo && hi ? (m->row_lo[i] == m->row_hi[i] ? GLP_FX : GLP_DB)
			: lo ? GLP_LO : hi ? GLP_UP : GLP_FR;

		glp_set_row_bnds(lp, i, type,
						 lo ? m->row_lo[i] : 0, hi ? m->row_hi[i] : 0);
	}
	for (int c = 1; c <= m->n_vars; c++)
	{
		char		k = m->var[c].kind;

		glp_set_col_bnds(lp, c, m->hi[c] > 0 ? GLP_DB : GLP_FX, 0, m->hi[c]);
		glp_set_obj_coef(lp, c, m->obj[c]);
		if (k == 'x' || k == 'z')
			glp_set_col_kind(lp, c, GLP_BV);
		else if (k == 'u')
			glp_set_col_kind(lp, c, GLP_IV);
	}
	if (m->nnz > 0)
		glp_load_matrix(lp, m->nnz, m->ia, m->ja, m->ar);
}

static ga_status
solve_body(void *arg)
{
	block_run  *run = arg;
	glp_smcp	smcp;
	glp_iocp	iocp;
	int			status;

	run->lp = glp_create_prob();
	block_model_load(run->m, run->lp);
	glp_init_smcp(&smcp);
	smcp.msg_lev = GLP_MSG_OFF;
	smcp.tm_lim = block_model_ms_left(run->t_end);
	glp_scale_prob(run->lp, GLP_SF_AUTO);
	glp_adv_basis(run->lp, 0);
	if (glp_simplex(run->lp, &smcp) != 0 || glp_get_status(run->lp) != GLP_OPT)
		return GA_OK;
	block_model_iocp(&iocp, run->t_end, on_tree, run);
	iocp.mip_gap = 1e-6;
	status = glp_intopt(run->lp, &iocp);
	if (run->cancelled)
		return GA_ECANCEL;
	if (glp_mip_status(run->lp) == GLP_OPT || glp_mip_status(run->lp) == GLP_FEAS)
	{
		run->found = true;
		run->optimal = status == 0 && glp_mip_status(run->lp) == GLP_OPT;
		for (int c = 1; c <= run->m->n_vars; c++)
			run->x[c] = glp_mip_col_val(run->lp, c);
	}
	return GA_OK;
}

bool
block_model_fits(long nnz, double ms)
{
	return nnz <= ms * BLOCK_SETUP_NONZEROS_PER_MS;
}

ga_status
ga_block_resolve(const ga_problem *problem, const ga_plan *plan,
				 const ga_neighbourhood *nb, double time_limit_ms, long max_size,
				 const ga_solve_options *options, ga_plan **out,
				 ga_block_result *result, ga_error *err)
{
	block_model m = {0};
	block_run	run = {0};
	ga_status	rc;

	*out = NULL;
	memset(result, 0, sizeof(*result));
	if (ga_block_size_estimate(problem, nb) > max_size)
		return ga_error_set(err, GA_EINVAL,
							"the neighbourhood's model would exceed %ld nonzeros",
							max_size);
	m.p = problem;
	m.nb = nb;
	m.plan = plan;
	m.T = problem->params.n_steps;
	m.t0 = nb->from_step;
	m.t1 = nb->to_step;
	m.g0 = nb->first_gpu;
	m.g1 = nb->first_gpu + nb->n_gpus;
	run.t_end = ga_now_ms() + time_limit_ms;
	rc = block_model_build(&m, err);
	/*
	 * The estimate can be several times short of the model built (long
	 * runs cross many rows): the model's own size decides whether GLPK
	 * can get to it in time.  Beyond that, no plan, as when GLPK finds
	 * none.
	 */
	if (rc == GA_OK && m.n_vars > 0 && block_model_fits(m.nnz, time_limit_ms))
	{
		run.m = &m;
		run.options = options;
		run.x = calloc(m.n_vars + 1, sizeof(double));
		if (run.x == NULL)
			rc = ga_error_set(err, GA_ENOMEM, "out of memory in the block model");
		else
		{
			run.offer = block_model_point_of_plan(&m, run.x);
			rc = ga_glpk_solve_guarded(&run.lp, run.message, sizeof(run.message),
									   solve_body, &run, "the block model", err);
		}
	}
	if (rc == GA_OK && run.found)
	{
		*out = plan_of_solution(&m, run.x);
		if (*out == NULL)
			rc = ga_error_set(err, GA_ENOMEM, "out of memory in the block model");
		result->found = true;
		result->optimal = run.optimal;
	}
	free(run.x);
	block_model_free(&m);
	return rc;
}
