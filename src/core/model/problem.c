/*
 * problem.c — construction, checking and derived data of a planning problem.
 */
#include "model/problem.h"
#include "model/tenant_quota.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool
ga_is_pow2(int x)
{
	return x > 0 && (x & (x - 1)) == 0;
}

int
ga_pow2_floor(int x)
{
	int			p = 1;

	if (x < 1)
		return 0;
	while (p <= x / 2)
		p *= 2;
	return p;
}

int
ga_job_pool_rank(const ga_job *job, int pool)
{
	for (int i = 0; i < ga_job_n_pools(job); i++)
		if (ga_job_pool_at(job, i) == pool)
			return i;
	return -1;
}

ga_job
ga_job_on_pool(const ga_job *job, int i)
{
	ga_job		view = *job;

	view.pool = ga_job_pool_at(job, i);
	view.work_gpu_steps = ga_job_work_at(job, i);
	view.priority = ga_job_rate(job, i);
	view.n_alt_pools = 0;
	return view;
}

int
ga_pool_of_gpu(const ga_problem *problem, int g)
{
	int			lo = 0;
	int			hi = problem->n_pools;

	/*
	 * A finished problem's pools cover the GPUs in order, so the pool is the
	 * last one starting at or before g: a binary search, as a cluster may
	 * have hundreds of pools and the validator asks for every job.  A
	 * problem still being filled in may not be in order yet: then the scan.
	 */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (problem->pools[mid].first_gpu <= g)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && g >= problem->pools[lo - 1].first_gpu &&
		g < problem->pools[lo - 1].first_gpu + problem->pools[lo - 1].n_gpus)
		return lo - 1;
	for (int q = 0; q < problem->n_pools; q++)
		if (g >= problem->pools[q].first_gpu &&
			g < problem->pools[q].first_gpu + problem->pools[q].n_gpus)
			return q;
	return -1;
}

int
ga_usable_gpus(const ga_problem *problem, int first, int n)
{
	int			usable = 0;

	for (int g = first; g < first + n; g++)
		usable += problem->gpu_usable[g];
	return usable;
}

int
ga_job_duration(const ga_job *job, int pool, int gpus)
{
	int			rank = ga_job_pool_rank(job, pool);
	double		work = ga_job_work_at(job, rank > 0 ? rank : 0);
	double		steps;

	if (gpus <= 0)
		return 1;
	steps = ceil(work / gpus - 1e-9);
	if (job->time_limit_steps > 0 && steps > job->time_limit_steps)
		steps = job->time_limit_steps;
	if (steps < 1)
		return 1;
	if (steps > 1e8)
		return 100000000;
	return (int) steps;
}

ga_problem *
ga_problem_create(int n_pools, int n_gpus, int n_jobs, int n_services,
				  const ga_params *params)
{
	ga_problem *p;
	int			n_steps = params->n_steps;

	if (n_pools < 0 || n_gpus < 0 || n_jobs < 0 || n_services < 0 || n_steps <= 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return NULL;
	p->params = *params;
	p->n_pools = n_pools;
	p->n_gpus = n_gpus;
	p->n_jobs = n_jobs;
	p->n_services = n_services;
	p->pools = calloc(n_pools > 0 ? n_pools : 1, sizeof(ga_pool));
	p->gpu_usable = calloc(n_gpus > 0 ? n_gpus : 1, sizeof(bool));
	p->jobs = calloc(n_jobs > 0 ? n_jobs : 1, sizeof(ga_job));
	p->services = calloc(n_services > 0 ? n_services : 1, sizeof(ga_service));
	p->decay = calloc(n_steps, sizeof(double));
	if (!p->pools || !p->gpu_usable || !p->jobs || !p->services || !p->decay)
	{
		ga_problem_destroy(p);
		return NULL;
	}
	for (int g = 0; g < n_gpus; g++)
		p->gpu_usable[g] = true;
	for (int j = 0; j < n_jobs; j++)
	{
		p->jobs[j].deadline_step = -1;
		p->jobs[j].tenant = -1;
	}
	for (int s = 0; s < n_services; s++)
	{
		p->services[s].churn_budget = -1;
		p->services[s].demand = calloc(n_steps, sizeof(int));
		p->services[s].protect = calloc(n_steps, sizeof(int));
		if (p->services[s].demand == NULL || p->services[s].protect == NULL)
		{
			ga_problem_destroy(p);
			return NULL;
		}
	}
	return p;
}

void
ga_problem_destroy(ga_problem *p)
{
	if (p == NULL)
		return;
	if (p->services != NULL)
	{
		for (int s = 0; s < p->n_services; s++)
		{
			free(p->services[s].demand);
			free(p->services[s].protect);
			free(p->services[s].held_gpus);
		}
	}
	free(p->pools);
	free(p->windows);
	free(p->reservations);
	free(p->policies);
	ga_tenant_needs_free(p);
	free(p->gpu_usable);
	free(p->jobs);
	free(p->services);
	free(p->decay);
	free(p);
}

ga_status
ga_problem_set_held(ga_problem *p, int s, const int *gpus, int n_held,
					ga_error *err)
{
	ga_service *svc;
	int		   *copy = NULL;

	if (s < 0 || s >= p->n_services)
		return ga_error_set(err, GA_EINVAL, "service index %d is out of range", s);
	if (n_held < 0)
		return ga_error_set(err, GA_EINVAL, "service \"%s\": held GPU count must not be negative",
							p->services[s].name);
	svc = &p->services[s];
	if (n_held > 0)
	{
		copy = malloc(sizeof(int) * n_held);
		if (copy == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory copying held GPUs");
		memcpy(copy, gpus, sizeof(int) * n_held);
	}
	free(svc->held_gpus);
	svc->held_gpus = copy;
	svc->n_held = n_held;
	svc->held_known = true;
	return GA_OK;
}

ga_status
ga_problem_set_windows(ga_problem *p, const ga_window *windows, int n_windows,
					   ga_error *err)
{
	ga_window  *copy = NULL;

	if (n_windows < 0)
		return ga_error_set(err, GA_EINVAL, "window count must not be negative");
	if (n_windows > 0)
	{
		copy = malloc(sizeof(ga_window) * n_windows);
		if (copy == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory copying maintenance windows");
		memcpy(copy, windows, sizeof(ga_window) * n_windows);
	}
	free(p->windows);
	p->windows = copy;
	p->n_windows = n_windows;
	return GA_OK;
}

static bool
window_touches(const ga_window *w, int first, int size, int start, int end)
{
	return w->first_gpu < first + size && first < w->first_gpu + w->n_gpus &&
		w->start_step < end && start < w->end_step;
}

bool
ga_gpu_closed(const ga_problem *p, int g, int t)
{
	return ga_closing(p, -1, g, 1, t, t + 1) != NULL;
}

const ga_window *
ga_closing(const ga_problem *p, int tenant, int first, int size, int start,
		   int end)
{
	for (int i = 0; i < p->n_windows; i++)
		if (window_touches(&p->windows[i], first, size, start, end))
			return &p->windows[i];
	for (int i = 0; i < p->n_reservations; i++)
		if (p->reservations[i].tenant != tenant &&
			window_touches(&p->reservations[i].cells, first, size, start, end))
			return &p->reservations[i].cells;
	return NULL;
}

bool
ga_block_closed(const ga_problem *p, int tenant, int first, int size,
				int start, int end)
{
	return ga_closing(p, tenant, first, size, start, end) != NULL;
}

/* The first window that closes GPU g at step t, or NULL. */
static const ga_window *
first_window_at(const ga_problem *p, int g, int t)
{
	for (int i = 0; i < p->n_windows; i++)
		if (window_touches(&p->windows[i], g, 1, t, t + 1))
			return &p->windows[i];
	return NULL;
}

static ga_status
check_params(const ga_params *pr, ga_error *err)
{
	if (pr->n_steps <= 0 || pr->n_steps > GA_MAX_STEPS)
		return ga_error_set(err, GA_EINVAL, "n_steps must be between 1 and %d, got %d", GA_MAX_STEPS,
							pr->n_steps);
	if (pr->step_minutes <= 0)
		return ga_error_set(err, GA_EINVAL, "step_minutes must be positive, got %d", pr->step_minutes);
	if (!isfinite(pr->penalty) || pr->penalty < 0)
		return ga_error_set(err, GA_EINVAL, "penalty must be finite and not negative");
	if (!isfinite(pr->half_life_hours) || pr->half_life_hours <= 0)
		return ga_error_set(err, GA_EINVAL, "half_life_hours must be finite and positive");
	if (!(pr->headroom >= 0 && pr->headroom <= 1))
		return ga_error_set(err, GA_EINVAL, "headroom must be between 0 and 1");
	if (pr->headroom_min < 0 || pr->headroom_min > GA_HEADROOM_MIN_MAX)
		return ga_error_set(err, GA_EINVAL, "headroom_min must be between 0 and %d", GA_HEADROOM_MIN_MAX);
	if (!(pr->overrun_margin >= 0 && pr->overrun_margin <= 10))
		return ga_error_set(err, GA_EINVAL, "overrun_margin must be between 0 and 10");
	if (!(pr->overrun_spread >= 0 && pr->overrun_spread <= 10))
		return ga_error_set(err, GA_EINVAL, "overrun_spread must be between 0 and 10");
	return GA_OK;
}

static ga_status
check_pools(const ga_problem *p, ga_error *err)
{
	int			next = 0;

	for (int i = 0; i < p->n_pools; i++)
	{
		const ga_pool *pool = &p->pools[i];

		if (pool->first_gpu != next || pool->n_gpus < 0)
			return ga_error_set(err, GA_EINVAL,
								"pool \"%s\": pools must cover GPUs contiguously in topology order (expected first_gpu %d, got %d)",
								pool->name, next, pool->first_gpu);
		next += pool->n_gpus;
	}
	if (next != p->n_gpus)
		return ga_error_set(err, GA_EINVAL, "pools cover %d GPUs but the problem has %d", next, p->n_gpus);
	return GA_OK;
}

static ga_status
check_pinned(const ga_problem *p, const ga_job *job, ga_error *err)
{
	const ga_pool *pool = &p->pools[job->pool];
	int			rel = job->pinned_first_gpu - pool->first_gpu;

	if (!ga_is_pow2(job->pinned_size))
		return ga_error_set(err, GA_EINVAL, "job \"%s\": pinned_size %d is not a power of two",
							job->name, job->pinned_size);
	if (rel < 0 || rel + job->pinned_size > pool->n_gpus || rel % job->pinned_size != 0)
		return ga_error_set(err, GA_EINVAL,
							"job \"%s\": pinned block at GPU %d of size %d is not an aligned block inside pool \"%s\"",
							job->name, job->pinned_first_gpu, job->pinned_size, pool->name);
	if (job->pinned_end < 1 || job->pinned_end <= job->pinned_start)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": pinned_end must be at least 1 and after pinned_start",
							job->name);
	return GA_OK;
}

static ga_status
check_window(const ga_problem *p, const ga_window *w, const char *what, int i,
			 ga_error *err)
{
	const ga_pool *pool;

	if (w->pool < 0 || w->pool >= p->n_pools)
		return ga_error_set(err, GA_EINVAL, "%s %d: pool index %d is out of range", what, i, w->pool);
	pool = &p->pools[w->pool];
	if (w->n_gpus < 1 || w->first_gpu < pool->first_gpu ||
		w->first_gpu + w->n_gpus > pool->first_gpu + pool->n_gpus)
		return ga_error_set(err, GA_EINVAL,
							"%s %d: GPUs %d..%d are not inside pool \"%s\" (GPUs %d..%d)",
							what, i, w->first_gpu, w->first_gpu + w->n_gpus - 1, pool->name,
							pool->first_gpu, pool->first_gpu + pool->n_gpus - 1);
	if (w->end_step <= w->start_step)
		return ga_error_set(err, GA_EINVAL, "%s %d: end_step %d must be after start_step %d",
							what, i, w->end_step, w->start_step);
	return GA_OK;
}

/* The alternative pools: known, distinct, each with a positive work. */
static ga_status
check_alt_pools(const ga_problem *p, const ga_job *job, ga_error *err)
{
	if (job->n_alt_pools < 0 || job->n_alt_pools > GA_MAX_JOB_POOLS - 1)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": n_alt_pools %d is not between 0 and %d",
							job->name, job->n_alt_pools, GA_MAX_JOB_POOLS - 1);
	for (int i = 1; i < ga_job_n_pools(job); i++)
	{
		int			q = ga_job_pool_at(job, i);
		double		work = ga_job_work_at(job, i);

		if (q < 0 || q >= p->n_pools)
			return ga_error_set(err, GA_EINVAL, "job \"%s\": alternative pool index %d is out of range",
								job->name, q);
		if (ga_job_pool_rank(job, q) != i)
			return ga_error_set(err, GA_EINVAL, "job \"%s\": pool \"%s\" is named twice among its pools",
								job->name, p->pools[q].name);
		if (!isfinite(work) || work <= 0)
			return ga_error_set(err, GA_EINVAL, "job \"%s\": work_gpu_steps on pool \"%s\" must be finite and positive",
								job->name, p->pools[q].name);
	}
	return GA_OK;
}

/* An advance reservation: its cells as a window's, and a tenant. */
static ga_status
check_reservation(const ga_problem *p, int i, ga_error *err)
{
	const ga_advance_reservation *r = &p->reservations[i];

	if (r->tenant < 0)
		return ga_error_set(err, GA_EINVAL, "reservation %d: tenant must not be negative, got %d",
							i, r->tenant);
	return check_window(p, &r->cells, "reservation", i, err);
}

static ga_status
check_job(const ga_problem *p, const ga_job *job, ga_error *err)
{
	if (job->pool < 0 || job->pool >= p->n_pools)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": pool index %d is out of range", job->name, job->pool);
	if (!isfinite(job->priority) || job->priority <= 0)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": priority must be finite and positive", job->name);
	if (!ga_is_pow2(job->gpus_min) || !ga_is_pow2(job->gpus_max))
		return ga_error_set(err, GA_EINVAL, "job \"%s\": gpus_min %d and gpus_max %d must be powers of two",
							job->name, job->gpus_min, job->gpus_max);
	if (job->gpus_min > job->gpus_max)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": gpus_min %d exceeds gpus_max %d",
							job->name, job->gpus_min, job->gpus_max);
	if (!isfinite(job->work_gpu_steps) || job->work_gpu_steps <= 0)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": work_gpu_steps must be finite and positive", job->name);
	if (job->release_step < 0)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": release_step must not be negative", job->name);
	if (job->deadline_step < -1)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": deadline_step must be -1 (none) or a step", job->name);
	if (job->tenant < -1)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": tenant must be -1 (none) or an index, got %d",
							job->name, job->tenant);
	if (job->time_limit_steps < 0)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": time_limit_steps must be 0 (none) or positive", job->name);
	if (!(job->duration_p90_ratio == 0 ||
		  (job->duration_p90_ratio >= 1 && job->duration_p90_ratio <= GA_DURATION_P90_RATIO_MAX)))
		return ga_error_set(err, GA_EINVAL, "job \"%s\": duration_p90_ratio must be 0 (no spread) or between 1 and %d",
							job->name, GA_DURATION_P90_RATIO_MAX);
	if (job->pinned)
		return check_pinned(p, job, err);
	return check_alt_pools(p, job, err);
}

static ga_status
check_preds(const ga_problem *p, int j, ga_error *err)
{
	const ga_job *job = &p->jobs[j];

	if (job->n_preds < 0 || job->n_preds > GA_MAX_PREDS)
		return ga_error_set(err, GA_EINVAL, "job \"%s\": n_preds %d is not between 0 and %d",
							job->name, job->n_preds, GA_MAX_PREDS);
	for (int i = 0; i < job->n_preds; i++)
	{
		if (job->preds[i] < 0 || job->preds[i] >= p->n_jobs || job->preds[i] == j)
			return ga_error_set(err, GA_EINVAL, "job \"%s\": predecessor %d is not another job of the problem",
								job->name, job->preds[i]);
		if (job->pred_kind[i] != GA_DEP_OK && job->pred_kind[i] != GA_DEP_ANY)
			return ga_error_set(err, GA_EINVAL, "job \"%s\": predecessor kind %d is unknown",
								job->name, job->pred_kind[i]);
	}
	return GA_OK;
}

/*
 * Depth-first search for a cycle among predecessor links; state 0 = not
 * seen, 1 = on the path, 2 = done.  Iterative, so a long chain cannot
 * exhaust the stack: stack[] holds the path, next[] each job's next link.
 */
static ga_status
check_acyclic(const ga_problem *p, ga_error *err)
{
	int			n = p->n_jobs > 0 ? p->n_jobs : 1;
	uint8_t    *state = calloc(n, 1);
	int		   *stack = malloc(sizeof(int) * n);
	int		   *next = calloc(n, sizeof(int));
	ga_status	rc = GA_OK;

	if (!state || !stack || !next)
		rc = ga_error_set(err, GA_ENOMEM, "out of memory checking job dependencies");
	for (int root = 0; rc == GA_OK && root < p->n_jobs; root++)
	{
		int			depth = 0;

		if (state[root] != 0)
			continue;
		stack[depth++] = root;
		state[root] = 1;
		while (depth > 0 && rc == GA_OK)
		{
			int			j = stack[depth - 1];

			if (next[j] < p->jobs[j].n_preds)
			{
				int			q = p->jobs[j].preds[next[j]++];

				if (state[q] == 1)
					rc = ga_error_set(err, GA_EINVAL, "job \"%s\": its predecessors form a cycle through job \"%s\"",
									  p->jobs[j].name, p->jobs[q].name);
				else if (state[q] == 0)
				{
					state[q] = 1;
					stack[depth++] = q;
				}
			}
			else
			{
				state[j] = 2;
				depth--;
			}
		}
	}
	free(state);
	free(stack);
	free(next);
	return rc;
}

static ga_status
check_service(const ga_problem *p, const ga_service *svc, ga_error *err)
{
	if (svc->pool < 0 || svc->pool >= p->n_pools)
		return ga_error_set(err, GA_EINVAL, "service \"%s\": pool index %d is out of range", svc->name, svc->pool);
	if (!isfinite(svc->priority) || svc->priority <= 0)
		return ga_error_set(err, GA_EINVAL, "service \"%s\": priority must be finite and positive", svc->name);
	if (svc->churn_limit < 1)
		return ga_error_set(err, GA_EINVAL, "service \"%s\": churn_limit must be at least 1", svc->name);
	if (svc->churn_budget < -1)
		return ga_error_set(err, GA_EINVAL, "service \"%s\": churn_budget must be -1 (none) or not negative", svc->name);
	if (svc->min_gpus < 0 || svc->max_gpus < svc->min_gpus)
		return ga_error_set(err, GA_EINVAL, "service \"%s\": need 0 <= min_gpus <= max_gpus", svc->name);
	if (svc->day_peak < 0)
		return ga_error_set(err, GA_EINVAL, "service \"%s\": day_peak must not be negative", svc->name);
	for (int t = 0; t < p->params.n_steps; t++)
		if (svc->demand[t] < 0 || svc->protect[t] < 0)
			return ga_error_set(err, GA_EINVAL, "service \"%s\": %s at step %d is negative", svc->name,
								svc->demand[t] < 0 ? "demand" : "protect curve", t);
	for (int i = 0; i < svc->n_held; i++)
	{
		const ga_pool *pool = &p->pools[svc->pool];
		int			g = svc->held_gpus[i];

		if (g < pool->first_gpu || g >= pool->first_gpu + pool->n_gpus)
			return ga_error_set(err, GA_EINVAL, "service \"%s\": held GPU %d is not in pool \"%s\"",
								svc->name, g, pool->name);
	}
	return GA_OK;
}

/*
 * The protect curve is never below the demand: what the service is planned
 * for it may certainly need.  A caller without a protect curve leaves it at
 * zero and so protects the demand alone.
 */
static void
lift_protect(ga_service *svc, int n_steps)
{
	for (int t = 0; t < n_steps; t++)
		if (svc->protect[t] < svc->demand[t])
			svc->protect[t] = svc->demand[t];
}

ga_status
ga_problem_finish(ga_problem *p, ga_error *err)
{
	ga_status	rc;
	double		step_hours = p->params.step_minutes / 60.0;

	if ((rc = check_params(&p->params, err)) != GA_OK)
		return rc;
	if ((rc = check_pools(p, err)) != GA_OK)
		return rc;
	for (int j = 0; j < p->n_jobs; j++)
		if ((rc = check_job(p, &p->jobs[j], err)) != GA_OK ||
			(rc = check_preds(p, j, err)) != GA_OK)
			return rc;
	if ((rc = check_acyclic(p, err)) != GA_OK)
		return rc;
	for (int s = 0; s < p->n_services; s++)
		if ((rc = check_service(p, &p->services[s], err)) != GA_OK)
			return rc;
	for (int i = 0; i < p->n_windows; i++)
		if ((rc = check_window(p, &p->windows[i], "window", i, err)) != GA_OK)
			return rc;
	for (int i = 0; i < p->n_reservations; i++)
		if ((rc = check_reservation(p, i, err)) != GA_OK)
			return rc;
	if ((rc = ga_tenant_policies_check(p, err)) != GA_OK)
		return rc;
	if ((rc = ga_tenant_needs_check(p, err)) != GA_OK)
		return rc;
	for (int s = 0; s < p->n_services; s++)
		lift_protect(&p->services[s], p->params.n_steps);
	for (int t = 0; t < p->params.n_steps; t++)
		p->decay[t] = pow(0.5, t * step_hours / p->params.half_life_hours);
	p->tail_decay = pow(0.5, p->params.n_steps * step_hours / p->params.half_life_hours);
	p->step_decay = pow(0.5, step_hours / p->params.half_life_hours);
	return GA_OK;
}

/*
 * A window takes its usable GPUs out of the room at its steps; a GPU in two
 * overlapping windows is taken once.
 */
static void
subtract_window(const ga_problem *p, const ga_window *w, int *room)
{
	int			T = p->params.n_steps;
	int			from = w->start_step > 0 ? w->start_step : 0;
	int			to = w->end_step < T ? w->end_step : T;

	for (int t = from; t < to; t++)
		for (int g = w->first_gpu; g < w->first_gpu + w->n_gpus; g++)
			if (p->gpu_usable[g] && first_window_at(p, g, t) == w)
				room[w->pool * T + t]--;
}

/*
 * A reservation takes out of the room its usable GPUs outside every window
 * at its steps (services never run there; the planners leave batch work
 * there uncounted); a GPU in two reservations is taken once.
 */
static void
subtract_reservation(const ga_problem *p, const ga_window *cells, int *room)
{
	int			T = p->params.n_steps;
	int			from = cells->start_step > 0 ? cells->start_step : 0;
	int			to = cells->end_step < T ? cells->end_step : T;

	for (int t = from; t < to; t++)
		for (int g = cells->first_gpu; g < cells->first_gpu + cells->n_gpus; g++)
			if (p->gpu_usable[g] && ga_closing(p, -1, g, 1, t, t + 1) == cells)
				room[cells->pool * T + t]--;
}

void
ga_protect_room(const ga_problem *p, double job_priority, bool lengthened,
				int *room)
{
	int			T = p->params.n_steps;

	for (int q = 0; q < p->n_pools; q++)
	{
		int			usable = ga_usable_gpus(p, p->pools[q].first_gpu, p->pools[q].n_gpus);

		for (int t = 0; t < T; t++)
			room[q * T + t] = usable;
	}
	for (int i = 0; i < p->n_windows; i++)
		subtract_window(p, &p->windows[i], room);
	for (int i = 0; i < p->n_reservations; i++)
		subtract_reservation(p, &p->reservations[i].cells, room);
	for (int s = 0; s < p->n_services; s++)
		if (ga_service_protected_from(p, &p->services[s], job_priority))
			for (int t = 0; t < T; t++)
				room[p->services[s].pool * T + t] -= ga_service_guarded(&p->services[s], t, lengthened);
}
