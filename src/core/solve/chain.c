/*
 * chain.c — ready jobs to the planner, waiting jobs placed after (chain.h).
 */
#include "solve/chain.h"
#include "model/advance_reservation.h"
#include "model/tenant_quota.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool
ga_chain_needed(const ga_problem *p)
{
	for (int j = 0; j < p->n_jobs; j++)
		if (!p->jobs[j].pinned && p->jobs[j].n_preds > 0)
			return true;
	return false;
}

/* A job is ready when it is pinned or every predecessor is. */
static bool
is_ready(const ga_problem *p, int j)
{
	const ga_job *job = &p->jobs[j];

	if (job->pinned)
		return true;
	for (int i = 0; i < job->n_preds; i++)
		if (!p->jobs[job->preds[i]].pinned)
			return false;
	return true;
}

/* A ready job without its links, released no earlier than its predecessors' ends. */
static ga_job
ready_job(const ga_problem *p, int j)
{
	ga_job		job = p->jobs[j];

	if (!job.pinned)
		for (int i = 0; i < job.n_preds; i++)
		{
			int			end = p->jobs[job.preds[i]].pinned_end;

			if (end > job.release_step)
				job.release_step = end;
		}
	job.n_preds = 0;
	return job;
}

static ga_status
copy_services(const ga_problem *p, ga_problem *sub, ga_error *err)
{
	int			T = p->params.n_steps;

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *from = &p->services[s];
		ga_service *svc = &sub->services[s];
		int		   *demand = svc->demand;
		int		   *protect = svc->protect;

		*svc = *from;
		svc->demand = demand;
		svc->protect = protect;
		memcpy(demand, from->demand, sizeof(int) * T);
		memcpy(protect, from->protect, sizeof(int) * T);
		svc->n_held = 0;
		svc->held_gpus = NULL;
		if (from->held_known)
		{
			ga_status	rc = ga_problem_set_held(sub, s, from->held_gpus, from->n_held, err);

			if (rc != GA_OK)
				return rc;
		}
	}
	return GA_OK;
}

/* The problem of the ready jobs; map[k] is the whole's index of its job k. */
static ga_status
ready_problem(const ga_problem *p, int *map, ga_problem **out, ga_error *err)
{
	int			n = 0;
	ga_problem *sub;
	ga_status	rc;

	*out = NULL;
	for (int j = 0; j < p->n_jobs; j++)
		if (is_ready(p, j))
			map[n++] = j;
	sub = ga_problem_create(p->n_pools, p->n_gpus, n, p->n_services, &p->params);
	if (sub == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory planning job dependencies");
	memcpy(sub->pools, p->pools, sizeof(ga_pool) * p->n_pools);
	memcpy(sub->gpu_usable, p->gpu_usable, sizeof(bool) * p->n_gpus);
	for (int k = 0; k < n; k++)
		sub->jobs[k] = ready_job(p, map[k]);
	rc = copy_services(p, sub, err);
	if (rc == GA_OK)
		rc = ga_problem_set_tenant_policies(sub, p->policies, p->n_policies, err);
	/* the ready jobs keep out of windows and others' reservations as the whole's would */
	if (rc == GA_OK)
		rc = ga_problem_set_windows(sub, p->windows, p->n_windows, err);
	if (rc == GA_OK)
		rc = ga_problem_set_advance_reservations(sub, p->reservations, p->n_reservations, err);
	if (rc == GA_OK)
		rc = ga_problem_set_tenant_needs(sub, p->needs, p->n_needs, err);
	if (rc == GA_OK)
		rc = ga_problem_finish(sub, err);
	if (rc != GA_OK)
	{
		ga_problem_destroy(sub);
		return rc;
	}
	*out = sub;
	return GA_OK;
}

/* The ready problem's plan as a plan of the whole, waiting jobs unplaced. */
static ga_plan *
widen_plan(const ga_problem *p, const ga_problem *sub, const int *map,
		   const ga_plan *from)
{
	ga_plan    *to = ga_plan_create(p);

	if (to == NULL)
		return NULL;
	for (int g = 0; g < p->n_gpus; g++)
		for (int t = 0; t < p->params.n_steps; t++)
		{
			int32_t		w = ga_plan_get(from, g, t);

			if (w != GA_IDLE)
				w = w < sub->n_jobs ? map[w] : ga_service_workload(p, w - sub->n_jobs);
			ga_plan_set(to, g, t, w);
		}
	for (int k = 0; k < sub->n_jobs; k++)
	{
		to->job_start[map[k]] = from->job_start[k];
		to->job_size[map[k]] = from->job_size[k];
		to->job_first_gpu[map[k]] = from->job_first_gpu[k];
	}
	to->mode = from->mode;
	to->bound = from->bound;
	return to;
}

static bool
placed(const ga_plan *plan, int j)
{
	return plan->job_size[j] > 0;
}

static int
planned_end(const ga_problem *p, const ga_plan *plan, int j)
{
	const ga_job *job = &p->jobs[j];

	return job->pinned ? job->pinned_end
		: plan->job_start[j] + ga_job_duration(job, ga_pool_of_gpu(p, plan->job_first_gpu[j]),
											   plan->job_size[j]);
}

/*
 * Every GPU of the block usable and idle over [start, end) inside the
 * horizon, and no maintenance window nor other tenant's reservation on it
 * over the run, past the horizon too (rules R6 and R8): the ready jobs'
 * planner keeps windows in its own state, not in the plan's cells.
 */
static bool
block_free(const ga_problem *p, const ga_plan *plan, int tenant, int first, int size,
		   int start, int end)
{
	int			last = end < plan->n_steps ? end : plan->n_steps;

	if (ga_block_closed(p, tenant, first, size, start, end))
		return false;
	for (int g = first; g < first + size; g++)
	{
		if (!p->gpu_usable[g])
			return false;
		for (int t = start; t < last; t++)
			if (ga_plan_get(plan, g, t) != GA_IDLE)
				return false;
	}
	return true;
}

/* Tenant quotas (model/tenant_quota.h) and the tenants' GPUs in the plan. */
typedef struct quota_tally
{
	ga_quota   *quota;
	int		   *use;
} quota_tally;

/* Count every job the plan places; false on out of memory. */
static bool
tally_plan(const ga_problem *p, const ga_plan *plan, quota_tally *qt)
{
	qt->quota = ga_quota_create(p);
	qt->use = qt->quota ? calloc(ga_quota_use_len(qt->quota), sizeof(int)) : NULL;
	if (qt->use == NULL)
		return false;
	for (int j = 0; j < p->n_jobs; j++)
		if (plan->job_size[j] > 0)
			ga_quota_count(qt->quota, qt->use, p->jobs[j].tenant,
						   ga_pool_of_gpu(p, plan->job_first_gpu[j]), plan->job_start[j],
						   planned_end(p, plan, j), plan->job_size[j], p->jobs[j].pinned, 1);
	return true;
}

/*
 * Place job j at step t on pool q, largest size first, where its tenant's
 * quota admits it (rules R9 and R10); false when it does not fit.
 */
static bool
place_on_pool(const ga_problem *p, ga_plan *plan, quota_tally *qt, int j, int q, int t)
{
	const ga_job *job = &p->jobs[j];
	const ga_pool *pool = &p->pools[q];
	int			top = ga_pow2_floor(pool->n_gpus);

	if (top > job->gpus_max)
		top = job->gpus_max;
	for (int size = top; size >= job->gpus_min; size /= 2)
	{
		int			end = t + ga_job_duration(job, q, size);

		if ((job->deadline_step >= 0 && end > job->deadline_step) ||
			!ga_quota_fits(qt->quota, qt->use, job->tenant, q, t, end, size))
			continue;
		for (int off = 0; off + size <= pool->n_gpus; off += size)
			if (block_free(p, plan, job->tenant, pool->first_gpu + off, size, t, end))
			{
				ga_plan_place_job(plan, p, j, t, pool->first_gpu + off, size);
				ga_quota_count(qt->quota, qt->use, job->tenant, q, t, end, size, false, 1);
				return true;
			}
	}
	return false;
}

/*
 * Place waiting job j at the earliest step it fits, on its pools in
 * preference order, largest size first.
 */
static void
place_waiting(const ga_problem *p, ga_plan *plan, quota_tally *qt, int j)
{
	const ga_job *job = &p->jobs[j];
	int			earliest = job->release_step;

	for (int i = 0; i < job->n_preds; i++)
	{
		if (!placed(plan, job->preds[i]))
			return;
		if (planned_end(p, plan, job->preds[i]) > earliest)
			earliest = planned_end(p, plan, job->preds[i]);
	}
	for (int t = earliest; t < plan->n_steps; t++)
		for (int i = 0; i < ga_job_n_pools(job); i++)
			if (place_on_pool(p, plan, qt, j, ga_job_pool_at(job, i), t))
				return;
}

/* Waiting job a before b: higher priority first, then problem order. */
static bool
goes_first(const ga_problem *p, int a, int b)
{
	if (p->jobs[a].priority != p->jobs[b].priority)
		return p->jobs[a].priority > p->jobs[b].priority;
	return a < b;
}

/*
 * Decide the waiting jobs in topological order: each round takes, among
 * the undecided jobs whose predecessors are all decided, the one that goes
 * first.  Quadratic in the waiting jobs, which are few.
 */
static void
place_all_waiting(const ga_problem *p, ga_plan *plan, quota_tally *qt, bool *decided)
{
	for (;;)
	{
		int			next = -1;

		for (int j = 0; j < p->n_jobs; j++)
		{
			bool		free_to_go = !decided[j];

			for (int i = 0; free_to_go && i < p->jobs[j].n_preds; i++)
				free_to_go = decided[p->jobs[j].preds[i]];
			if (free_to_go && (next < 0 || goes_first(p, j, next)))
				next = j;
		}
		if (next < 0)
			return;
		place_waiting(p, plan, qt, next);
		decided[next] = true;
	}
}

/* More than waiting job j can earn in any plan: its run is at most work + size GPU-steps. */
static double
waiting_bound(const ga_problem *p, const bool *ready)
{
	double		sum = 0;

	for (int j = 0; j < p->n_jobs; j++)
	{
		double		rate = 0;

		/* a run on pool i earns rate_i * (work_i + size) = priority * work_0 + rate_i * size */
		for (int i = 0; i < ga_job_n_pools(&p->jobs[j]); i++)
			rate = fmax(rate, ga_job_rate(&p->jobs[j], i));
		if (!ready[j])
			sum += p->jobs[j].priority * p->jobs[j].work_gpu_steps + rate * p->jobs[j].gpus_max;
	}
	return sum;
}

ga_status
ga_chain_solve(const ga_problem *p, ga_chain_planner planner, void *arg,
			   ga_plan **out, ga_error *err)
{
	double		t0 = ga_now_ms();
	int		   *map = malloc(sizeof(int) * (p->n_jobs > 0 ? p->n_jobs : 1));
	bool	   *decided = calloc(p->n_jobs > 0 ? p->n_jobs : 1, sizeof(bool));
	ga_problem *sub = NULL;
	ga_plan    *inner = NULL;
	ga_plan    *plan = NULL;
	quota_tally qt = {NULL, NULL};
	ga_status	rc = GA_OK;

	*out = NULL;
	if (map == NULL || decided == NULL)
		rc = ga_error_set(err, GA_ENOMEM, "out of memory planning job dependencies");
	if (rc == GA_OK)
		rc = ready_problem(p, map, &sub, err);
	if (rc == GA_OK)
		rc = planner(sub, arg, &inner, err);
	if (rc == GA_OK && ((plan = widen_plan(p, sub, map, inner)) == NULL ||
						!tally_plan(p, plan, &qt)))
	{
		ga_plan_destroy(plan);
		plan = NULL;
		rc = ga_error_set(err, GA_ENOMEM, "out of memory planning job dependencies");
	}
	if (rc == GA_OK)
	{
		for (int k = 0; k < sub->n_jobs; k++)
			decided[map[k]] = true;
		plan->bound += waiting_bound(p, decided);
		place_all_waiting(p, plan, &qt, decided);
		plan->objective = ga_plan_objective(p, plan);
		plan->gap = isfinite(plan->bound)
			? (plan->bound - plan->objective) / fmax(fabs(plan->bound), 1e-9) : NAN;
		plan->solve_ms = ga_now_ms() - t0;
		*out = plan;
	}
	ga_plan_destroy(inner);
	ga_problem_destroy(sub);
	ga_quota_destroy(qt.quota);
	free(qt.use);
	free(map);
	free(decided);
	return rc;
}
