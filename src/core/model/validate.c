/*
 * validate.c — the plan validator (see validate.h for the rules).
 *
 * The validator reads only the grid, the placement arrays and the problem;
 * it shares no code with the solvers beyond ga_job_duration and
 * ga_pool_of_gpu, so a solver bug
 * cannot hide itself here.  Work is linear in the grid size on legal plans;
 * the extra scans that explain a violation run only once one is found.
 */
#include "model/validate.h"
#include "model/validate_quota.h"

#include <stdio.h>
#include <stdlib.h>

static bool
in_pool(const ga_pool *pool, int gpu)
{
	return gpu >= pool->first_gpu && gpu < pool->first_gpu + pool->n_gpus;
}

/*
 * R2 for a service's cell: inside its pool, on a usable GPU.  Checked in the
 * one pass over the grid, so that the per-service checks after it need to
 * look at the service's own pool only.
 */
static ga_status
check_service_cell(const ga_problem *p, int s, int g, int t, ga_error *err)
{
	const ga_service *svc = &p->services[s];
	const ga_pool *pool = &p->pools[svc->pool];

	if (!in_pool(pool, g))
		return ga_error_set(err, GA_EILLEGAL,
							"service \"%s\" uses GPU %d at step %d, outside its pool \"%s\"",
							svc->name, g, t, pool->name);
	if (!p->gpu_usable[g])
		return ga_error_set(err, GA_EILLEGAL,
							"service \"%s\" uses unusable GPU %d at step %d",
							svc->name, g, t);
	return GA_OK;
}

/*
 * R1: every cell is idle or names a job or service; counts cells per
 * workload.  Also R2's pool and usability rules for services' cells.
 */
static ga_status
check_cells(const ga_problem *p, const ga_plan *plan, long *count,
			ga_error *err)
{
	int			n_workloads = p->n_jobs + p->n_services;
	ga_status	rc;

	for (int g = 0; g < plan->n_gpus; g++)
		for (int t = 0; t < plan->n_steps; t++)
		{
			int32_t		w = ga_plan_get(plan, g, t);

			if (w == GA_IDLE)
				continue;
			if (w < 0 || w >= n_workloads)
				return ga_error_set(err, GA_EILLEGAL,
									"GPU %d at step %d holds unknown workload %d (valid: %d jobs, %d services)",
									g, t, (int) w, p->n_jobs, p->n_services);
			if (w >= p->n_jobs &&
				(rc = check_service_cell(p, w - p->n_jobs, g, t, err)) != GA_OK)
				return rc;
			count[w]++;
		}
	return GA_OK;
}

static ga_status
check_unscheduled_job(const ga_problem *p, const ga_plan *plan, int j,
					  long count, ga_error *err)
{
	const ga_job *job = &p->jobs[j];

	if (job->pinned)
		return ga_error_set(err, GA_EILLEGAL,
							"pinned job \"%s\" is not kept at its pin (GPU %d, size %d, steps %d..%d)",
							job->name, job->pinned_first_gpu, job->pinned_size,
							job->pinned_start, job->pinned_end);
	if (count == 0)
		return GA_OK;
	for (int g = 0; g < plan->n_gpus; g++)
		for (int t = 0; t < plan->n_steps; t++)
			if (ga_plan_get(plan, g, t) == j)
				return ga_error_set(err, GA_EILLEGAL,
									"job \"%s\" is not scheduled but holds GPU %d at step %d",
									job->name, g, t);
	return GA_OK;
}

/*
 * The pool the rules hold job's block to: the one of its pools that holds
 * the block's first GPU, else its first pool (so the block is reported as
 * lying outside it).
 */
static int
block_pool(const ga_problem *p, const ga_job *job, int first)
{
	int			q = ga_pool_of_gpu(p, first);

	return q >= 0 && ga_job_pool_rank(job, q) >= 0 ? q : job->pool;
}

/* R2 for jobs: size, block shape and a pool of the job. */
static ga_status
check_job_block(const ga_problem *p, const ga_plan *plan, int j,
				ga_error *err)
{
	const ga_job *job = &p->jobs[j];
	int			size = plan->job_size[j];
	int			first = plan->job_first_gpu[j];
	const ga_pool *pool = &p->pools[block_pool(p, job, first)];
	int			offset = first - pool->first_gpu;

	if (job->pinned && size != job->pinned_size)
		return ga_error_set(err, GA_EILLEGAL,
							"pinned job \"%s\" has size %d, not its pinned size %d",
							job->name, size, job->pinned_size);
	if (!ga_is_pow2(size))
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\": size %d is not a power of two", job->name, size);
	if (!job->pinned && (size < job->gpus_min || size > job->gpus_max))
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\": size %d is outside its range [%d, %d]",
							job->name, size, job->gpus_min, job->gpus_max);
	if (job->n_alt_pools > 0 && ga_job_pool_rank(job, ga_pool_of_gpu(p, first)) < 0)
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\": block at GPU %d lies in none of its %d pools",
							job->name, first, ga_job_n_pools(job));
	if (offset < 0 || offset + size > pool->n_gpus)
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\": block of %d GPUs at GPU %d lies outside pool \"%s\" (GPUs %d..%d)",
							job->name, size, first, pool->name, pool->first_gpu,
							pool->first_gpu + pool->n_gpus - 1);
	if (offset % size != 0)
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\": block of %d GPUs at GPU %d is misaligned (offset %d in pool \"%s\" is not a multiple of %d)",
							job->name, size, first, offset, pool->name, size);
	if (!job->pinned)
		for (int g = first; g < first + size; g++)
			if (!p->gpu_usable[g])
				return ga_error_set(err, GA_EILLEGAL,
									"job \"%s\" is placed on unusable GPU %d", job->name, g);
	return GA_OK;
}

/* R3 (placement arrays) and R4: pin, horizon, release and deadline. */
static ga_status
check_job_timing(const ga_problem *p, const ga_plan *plan, int j,
				 ga_error *err)
{
	const ga_job *job = &p->jobs[j];
	int			start = plan->job_start[j];
	int			first = plan->job_first_gpu[j];
	int			end = ga_plan_job_end(p, plan, j);

	if (job->pinned)
	{
		if (start != job->pinned_start || first != job->pinned_first_gpu)
			return ga_error_set(err, GA_EILLEGAL,
								"pinned job \"%s\" moved: the plan has it at step %d on GPU %d, its pin is step %d on GPU %d",
								job->name, start, first, job->pinned_start,
								job->pinned_first_gpu);
		return GA_OK;
	}
	if (start < 0)
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\" starts at step %d, before the first step of the plan",
							job->name, start);
	if (start >= p->params.n_steps)
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\" starts at step %d, outside the horizon of %d steps",
							job->name, start, p->params.n_steps);
	if (start < job->release_step)
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\" starts at step %d, before its release step %d",
							job->name, start, job->release_step);
	if (job->deadline_step >= 0 && end > job->deadline_step)
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\" ends at step %d, after its deadline step %d",
							job->name, end, job->deadline_step);
	return GA_OK;
}

/* Some GPU outside [first, first+size) carrying job j at step t, or -1. */
static int
job_elsewhere_at(const ga_plan *plan, int j, int first, int size, int t)
{
	for (int g = 0; g < plan->n_gpus; g++)
		if ((g < first || g >= first + size) && ga_plan_get(plan, g, t) == j)
			return g;
	return -1;
}

static bool
block_empty_of_job_from(const ga_plan *plan, int j, int first, int size,
						int from, int to)
{
	for (int g = first; g < first + size; g++)
		for (int t = from; t < to; t++)
			if (ga_plan_get(plan, g, t) == j)
				return false;
	return true;
}

/* Explain why cell (g, t) of job j's block during its run is not j. */
static ga_status
explain_missing_cell(const ga_problem *p, const ga_plan *plan, int j,
					 int g, int t, int to, ga_error *err)
{
	const ga_job *job = &p->jobs[j];
	int			first = plan->job_first_gpu[j];
	int			size = plan->job_size[j];
	int			end = ga_plan_job_end(p, plan, j);
	int			other = job_elsewhere_at(plan, j, first, size, t);

	if (other >= 0)
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\" moved mid-run: at step %d it holds GPU %d outside its block (GPUs %d..%d)",
							job->name, t, other, first, first + size - 1);
	if (block_empty_of_job_from(plan, j, first, size, t, to))
		return ga_error_set(err, GA_EILLEGAL,
							"job \"%s\" stops at step %d, before its end step %d (duration %d steps at %d GPUs)",
							job->name, t, end, end - plan->job_start[j], size);
	return ga_error_set(err, GA_EILLEGAL,
						"job \"%s\" is interrupted on GPU %d at step %d (no preemption: it must run until step %d)",
						job->name, g, t, end);
}

/* Explain a cell carrying job j outside its block or run. */
static ga_status
explain_stray_cell(const ga_problem *p, const ga_plan *plan, int j,
				   int from, int to, ga_error *err)
{
	const ga_job *job = &p->jobs[j];
	int			first = plan->job_first_gpu[j];
	int			size = plan->job_size[j];
	int			start = plan->job_start[j];
	int			end = ga_plan_job_end(p, plan, j);

	for (int g = 0; g < plan->n_gpus; g++)
		for (int t = 0; t < plan->n_steps; t++)
		{
			bool		in_block = g >= first && g < first + size;

			if (ga_plan_get(plan, g, t) != j || (in_block && t >= from && t < to))
				continue;
			if (in_block && t >= to)
				return ga_error_set(err, GA_EILLEGAL,
									"job \"%s\" runs past its end step %d on GPU %d at step %d (duration %d steps at %d GPUs)",
									job->name, end, g, t, end - start, size);
			if (in_block)
				return ga_error_set(err, GA_EILLEGAL,
									"job \"%s\" runs on GPU %d at step %d, before its start step %d",
									job->name, g, t, start);
			return ga_error_set(err, GA_EILLEGAL,
								"job \"%s\" holds GPU %d at step %d outside its block (GPUs %d..%d)",
								job->name, g, t, first, first + size - 1);
		}
	return GA_OK;
}

/* R3 on the grid: the block is held for the whole run and nothing else is. */
static ga_status
check_job_cells(const ga_problem *p, const ga_plan *plan, int j, long count,
				ga_error *err)
{
	int			start = plan->job_start[j];
	int			size = plan->job_size[j];
	int			first = plan->job_first_gpu[j];
	int			end = ga_plan_job_end(p, plan, j);
	int			from = start > 0 ? start : 0;
	int			to = end < plan->n_steps ? end : plan->n_steps;
	long		expected = to > from ? (long) size * (to - from) : 0;

	for (int t = from; t < to; t++)
		for (int g = first; g < first + size; g++)
			if (ga_plan_get(plan, g, t) != j)
				return explain_missing_cell(p, plan, j, g, t, to, err);
	if (count != expected)
		return explain_stray_cell(p, plan, j, from, to, err);
	return GA_OK;
}

/*
 * R7, time limits: a placed job that is not pinned holds no cell of its
 * block at or past start + time_limit_steps.  Pinned jobs are exempt: one
 * that outlives its limit is being stopped outside the plan, which keeps
 * it where it really is until it has stopped.
 */
static ga_status
check_job_time_limit(const ga_problem *p, const ga_plan *plan, int j,
					 ga_error *err)
{
	const ga_job *job = &p->jobs[j];
	int			start = plan->job_start[j];
	int			first = plan->job_first_gpu[j];

	if (job->pinned || job->time_limit_steps <= 0)
		return GA_OK;
	for (int t = start + job->time_limit_steps; t < plan->n_steps; t++)
		for (int g = first; g < first + plan->job_size[j]; g++)
			if (g >= 0 && g < plan->n_gpus && ga_plan_get(plan, g, t) == j)
				return ga_error_set(err, GA_EILLEGAL,
									"job \"%s\" holds GPU %d at step %d, past its time limit of %d steps from its start at step %d",
									job->name, g, t, job->time_limit_steps, start);
	return GA_OK;
}

/*
 * R7, dependencies: job j, not pinned and placed, has every predecessor
 * placed and starts at or after each one's planned end.
 */
static ga_status
check_job_order(const ga_problem *p, const ga_plan *plan, int j,
				ga_error *err)
{
	const ga_job *job = &p->jobs[j];

	if (job->pinned || plan->job_size[j] <= 0)
		return GA_OK;
	for (int i = 0; i < job->n_preds; i++)
	{
		int			q = job->preds[i];
		const ga_job *pred = &p->jobs[q];
		int			end;

		if (plan->job_size[q] <= 0)
			return ga_error_set(err, GA_EILLEGAL,
								"job \"%s\" is placed but its predecessor \"%s\" is not",
								job->name, pred->name);
		end = ga_plan_job_end(p, plan, q);
		if (plan->job_start[j] < end)
			return ga_error_set(err, GA_EILLEGAL,
								"job \"%s\" starts at step %d, before its predecessor \"%s\" ends at step %d",
								job->name, plan->job_start[j], pred->name, end);
	}
	return GA_OK;
}

static ga_status
check_job(const ga_problem *p, const ga_plan *plan, int j, long count,
		  ga_error *err)
{
	ga_status	rc;

	if (plan->job_size[j] <= 0)
		return check_unscheduled_job(p, plan, j, count, err);
	if ((rc = check_job_block(p, plan, j, err)) != GA_OK)
		return rc;
	if ((rc = check_job_timing(p, plan, j, err)) != GA_OK)
		return rc;
	if ((rc = check_job_time_limit(p, plan, j, err)) != GA_OK)
		return rc;
	return check_job_cells(p, plan, j, count, err);
}

/*
 * The cap of R5 for service s at step t.  Its cells outside its pool were
 * refused by check_cells, so its pool holds all it uses.
 */
static ga_status
check_service_step(const ga_problem *p, const ga_plan *plan, int s, int t,
				   ga_error *err)
{
	const ga_service *svc = &p->services[s];
	const ga_pool *pool = &p->pools[svc->pool];
	int32_t		w = ga_service_workload(p, s);
	int			count = 0;

	for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
		count += ga_plan_get(plan, g, t) == w;
	if (count > svc->max_gpus)
		return ga_error_set(err, GA_EILLEGAL,
							"service \"%s\" holds %d GPUs at step %d, above its max_gpus %d",
							svc->name, count, t, svc->max_gpus);
	return GA_OK;
}

static ga_status
check_service(const ga_problem *p, const ga_plan *plan, int s, ga_error *err)
{
	const ga_service *svc = &p->services[s];
	int			total = 0;
	ga_status	rc;

	for (int t = 0; t < plan->n_steps; t++)
	{
		int			churn;

		if ((rc = check_service_step(p, plan, s, t, err)) != GA_OK)
			return rc;
		churn = ga_service_churn(p, plan, s, t);
		if (t == 0 && svc->held_known && churn > svc->churn_limit)
			return ga_error_set(err, GA_EILLEGAL,
								"service \"%s\" hands over %d GPUs at step 0 against the %d GPUs it holds now (besides those it must give up), above its churn_limit %d",
								svc->name, churn, svc->n_held, svc->churn_limit);
		if (t > 0 && churn > svc->churn_limit)
			return ga_error_set(err, GA_EILLEGAL,
								"service \"%s\" hands over %d GPUs at step %d (besides those it must give up), above its churn_limit %d",
								svc->name, churn, t, svc->churn_limit);
		total += churn;
	}
	if (svc->churn_budget >= 0 && total > svc->churn_budget)
		return ga_error_set(err, GA_EILLEGAL,
							"service \"%s\" hands over %d GPUs over the horizon, above its churn_budget %d",
							svc->name, total, svc->churn_budget);
	return GA_OK;
}

/*
 * R6 for one window, R8 for one reservation's cells: inside the horizon
 * they are idle, held by a pinned job or by a job of `tenant` (-1 for a
 * window: none); past the horizon no other job placed by the plan runs
 * into them.  `what` names them in the message.
 */
static ga_status
check_closed_cells(const ga_problem *p, const ga_plan *plan, const ga_window *w,
				   int tenant, const char *what, ga_error *err)
{
	int			from = w->start_step > 0 ? w->start_step : 0;
	int			to = w->end_step < plan->n_steps ? w->end_step : plan->n_steps;

	for (int g = w->first_gpu; g < w->first_gpu + w->n_gpus; g++)
		for (int t = from; t < to; t++)
		{
			int32_t		k = ga_plan_get(plan, g, t);

			if (k == GA_IDLE || (k < p->n_jobs && (p->jobs[k].pinned ||
												   (tenant >= 0 && p->jobs[k].tenant == tenant))))
				continue;
			return ga_error_set(err, GA_EILLEGAL,
								"%s \"%s\" holds GPU %d at step %d, inside %s (GPUs %d..%d, steps %d..%d)",
								k < p->n_jobs ? "job" : "service",
								k < p->n_jobs ? p->jobs[k].name : p->services[k - p->n_jobs].name,
								g, t, what, w->first_gpu, w->first_gpu + w->n_gpus - 1,
								w->start_step, w->end_step - 1);
		}
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		int			size = plan->job_size[j];
		int			first = plan->job_first_gpu[j];
		int			start = plan->job_start[j];
		int			end = ga_plan_job_end(p, plan, j);

		if (job->pinned || size <= 0 || end <= plan->n_steps ||
			(tenant >= 0 && job->tenant == tenant))
			continue;
		if (w->first_gpu < first + size && first < w->first_gpu + w->n_gpus &&
			w->start_step < end && start < w->end_step && w->end_step > plan->n_steps)
			return ga_error_set(err, GA_EILLEGAL,
								"job \"%s\" runs on GPUs %d..%d until step %d, into %s past the horizon (GPUs %d..%d, steps %d..%d)",
								job->name, first, first + size - 1, end - 1, what,
								w->first_gpu, w->first_gpu + w->n_gpus - 1,
								w->start_step, w->end_step - 1);
	}
	return GA_OK;
}

/* R6: maintenance windows. */
static ga_status
check_windows(const ga_problem *p, const ga_plan *plan, ga_error *err)
{
	ga_status	rc = GA_OK;

	for (int i = 0; rc == GA_OK && i < p->n_windows; i++)
		rc = check_closed_cells(p, plan, &p->windows[i], -1, "a maintenance window", err);
	return rc;
}

/* R8: advance reservations, each open to its tenant's jobs only. */
static ga_status
check_reservations(const ga_problem *p, const ga_plan *plan, ga_error *err)
{
	ga_status	rc = GA_OK;

	for (int i = 0; rc == GA_OK && i < p->n_reservations; i++)
	{
		char		what[64];

		snprintf(what, sizeof(what), "the advance reservation of tenant %d",
				 p->reservations[i].tenant);
		rc = check_closed_cells(p, plan, &p->reservations[i].cells,
								p->reservations[i].tenant, what, err);
	}
	return rc;
}

static ga_status
check_dimensions(const ga_problem *p, const ga_plan *plan, ga_error *err)
{
	if (plan->n_gpus != p->n_gpus || plan->n_steps != p->params.n_steps ||
		plan->n_jobs != p->n_jobs || plan->n_services != p->n_services)
		return ga_error_set(err, GA_EILLEGAL,
							"plan dimensions (%d GPUs, %d steps, %d jobs, %d services) do not match the problem (%d, %d, %d, %d)",
							plan->n_gpus, plan->n_steps, plan->n_jobs, plan->n_services,
							p->n_gpus, p->params.n_steps, p->n_jobs, p->n_services);
	return GA_OK;
}

ga_status
ga_validate(const ga_problem *p, const ga_plan *plan, ga_error *err)
{
	int			n_workloads = p->n_jobs + p->n_services;
	long	   *count;
	ga_status	rc;

	if ((rc = check_dimensions(p, plan, err)) != GA_OK)
		return rc;
	count = calloc(n_workloads > 0 ? n_workloads : 1, sizeof(long));
	if (count == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory validating a plan");
	rc = check_cells(p, plan, count, err);
	for (int j = 0; rc == GA_OK && j < p->n_jobs; j++)
		rc = check_job(p, plan, j, count[j], err);
	for (int s = 0; rc == GA_OK && s < p->n_services; s++)
		rc = check_service(p, plan, s, err);
	if (rc == GA_OK)
		rc = check_windows(p, plan, err);
	for (int j = 0; rc == GA_OK && j < p->n_jobs; j++)
		rc = check_job_order(p, plan, j, err);
	if (rc == GA_OK)
		rc = check_reservations(p, plan, err);
	if (rc == GA_OK)
		rc = ga_validate_quotas(p, plan, err);
	free(count);
	return rc;
}

/* Held GPUs of a service, counted once each even if listed twice. */
static bool
held_listed_earlier(const ga_service *svc, int i)
{
	for (int k = 0; k < i; k++)
		if (svc->held_gpus[k] == svc->held_gpus[i])
			return true;
	return false;
}

static int
churn_against_held(const ga_problem *p, const ga_plan *plan, int s)
{
	const ga_service *svc = &p->services[s];
	const ga_pool *pool = &p->pools[svc->pool];
	int32_t		w = ga_service_workload(p, s);
	int			now = 0;
	int			held = 0;
	int			kept = 0;

	for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
		if (ga_plan_get(plan, g, 0) == w)
			now++;
	for (int i = 0; i < svc->n_held; i++)
	{
		int			g = svc->held_gpus[i];

		if (held_listed_earlier(svc, i))
			continue;
		held++;
		if (g >= 0 && g < plan->n_gpus && ga_plan_get(plan, g, 0) == w)
			kept++;
	}
	return now + held - 2 * kept;
}

bool
ga_service_may_hold(const ga_problem *p, const ga_plan *plan, int s, int g, int t)
{
	const ga_pool *pool = &p->pools[p->services[s].pool];
	int32_t		k;

	if (g < pool->first_gpu || g >= pool->first_gpu + pool->n_gpus || !p->gpu_usable[g] ||
		ga_gpu_closed(p, g, t))
		return false;
	k = ga_plan_get(plan, g, t);
	return !(k >= 0 && k < p->n_jobs && p->jobs[k].pinned);
}

/* Distinct held GPUs of service s, and how many it may keep at step 0. */
static void
count_held(const ga_problem *p, const ga_plan *plan, int s, int *distinct, int *may_keep)
{
	const ga_service *svc = &p->services[s];

	*distinct = 0;
	*may_keep = 0;
	for (int i = 0; i < svc->n_held; i++)
		if (!held_listed_earlier(svc, i))
		{
			(*distinct)++;
			*may_keep += ga_service_may_hold(p, plan, s, svc->held_gpus[i], 0);
		}
}

int
ga_service_held_kept(const ga_problem *p, const ga_plan *plan, int s)
{
	int			distinct;
	int			may_keep;

	count_held(p, plan, s, &distinct, &may_keep);
	return may_keep < p->services[s].max_gpus ? may_keep : p->services[s].max_gpus;
}

/*
 * Handovers of service s at step t, and in *forced those it could not
 * avoid: one pass for both (ga_service_churn wants their difference).
 */
static int
step_handovers(const ga_problem *p, const ga_plan *plan, int s, int t, int *forced)
{
	const ga_pool *pool = &p->pools[p->services[s].pool];
	int32_t		w = ga_service_workload(p, s);
	int			all = 0;

	*forced = 0;
	if (t <= 0)
	{
		int			distinct;
		int			may_keep;

		if (!p->services[s].held_known)
			return 0;
		count_held(p, plan, s, &distinct, &may_keep);
		*forced = distinct - (may_keep < p->services[s].max_gpus ? may_keep
							  : p->services[s].max_gpus);
		return churn_against_held(p, plan, s);
	}
	for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
	{
		bool		before = ga_plan_get(plan, g, t - 1) == w;
		bool		now = ga_plan_get(plan, g, t) == w;

		all += before != now;
		*forced += before && !now && !ga_service_may_hold(p, plan, s, g, t);
	}
	return all;
}

int
ga_service_forced_handovers(const ga_problem *p, const ga_plan *plan, int s, int t)
{
	int			forced;

	step_handovers(p, plan, s, t, &forced);
	return forced;
}

int
ga_service_closing_gpus(const ga_problem *p, const ga_plan *plan, int s, int t)
{
	const ga_pool *pool = &p->pools[p->services[s].pool];
	int			n = 0;

	if (t <= 0)
		return 0;
	for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
		n += ga_service_may_hold(p, plan, s, g, t - 1) && !ga_service_may_hold(p, plan, s, g, t);
	return n;
}

int
ga_service_handovers(const ga_problem *p, const ga_plan *plan, int s, int t)
{
	int			forced;

	return step_handovers(p, plan, s, t, &forced);
}

int
ga_service_churn(const ga_problem *p, const ga_plan *plan, int s, int t)
{
	int			forced;
	int			churn = step_handovers(p, plan, s, t, &forced) - forced;

	return churn > 0 ? churn : 0;
}

int
ga_service_total_churn(const ga_problem *p, const ga_plan *plan, int s)
{
	int			total = 0;

	for (int t = 0; t < plan->n_steps; t++)
		total += ga_service_churn(p, plan, s, t);
	return total;
}
