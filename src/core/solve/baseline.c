/*
 * baseline.c — FIFO and EASY backfilling behind a static daily service
 * reservation (see baseline.h and reservation.h).
 */
#include "solve/baseline.h"
#include "solve/chain.h"
#include "model/tenant_quota.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A cell held for the head job's reservation during one backfill pass. */
#define HELD_FOR_HEAD (-2)

typedef struct bl_ctx
{
	const ga_problem *p;
	const ga_reservation *res;
	ga_plan    *plan;
	int			T;
	bool	   *event;			/* [T]: steps where a backfill pass runs */
	ga_quota   *quota;			/* tenant quotas (model/tenant_quota.h) */
	int		   *quota_use;		/* the tenants' GPUs so far */

	/*
	 * Where a maintenance window or an advance reservation closes GPUs of a
	 * pool, the floor of the services' stack at that step
	 * (closed_floor[pool * closed_steps + t]), INT_MAX at steps none does;
	 * closed_steps is 0 without any.
	 */
	int			closed_steps;
	int		   *closed_floor;

	/*
	 * The floor of a stack of k usable GPUs from the high end of pool q, at
	 * usable_floor[first_gpu(q) + q + k], k = 0 .. the pool's GPUs: the
	 * daily floors' lookup (they are asked for every candidate run).
	 */
	int		   *usable_floor;
} bl_ctx;

static int
pool_end(const bl_ctx *c, int pool)
{
	return c->p->pools[pool].first_gpu + c->p->pools[pool].n_gpus;
}

/*
 * Whether a service may hold GPU g at step t: the GPU is usable and, for
 * t >= 0, no maintenance window or advance reservation closes it then
 * (services run on no reserved cell).  t < 0 asks of the GPU alone.
 */
static bool
open_to_services(const bl_ctx *c, int g, int t)
{
	return c->p->gpu_usable[g] && (t < 0 || !ga_gpu_closed(c->p, g, t));
}

/*
 * The lowest GPU of a stack of `need` GPUs open to services at step t,
 * counted from the high end of the pool down: a reservation passes over
 * GPUs that are down, and over those a window or an advance reservation
 * closes, as an operator moves a service off a node under maintenance
 * rather than leave it short.  The pool's first GPU when too few are open.
 */
static int
stack_floor(const bl_ctx *c, int pool, int need, int t)
{
	int			first = c->p->pools[pool].first_gpu;
	int			g = pool_end(c, pool);

	while (need > 0 && g > first)
		if (open_to_services(c, --g, t))
			need--;
	return g;
}

/* The GPUs the services of a pool reserve at step t, all together. */
static int
pool_reservation_at(const bl_ctx *c, int pool, int t)
{
	int			total = 0;

	for (int s = 0; s < c->p->n_services; s++)
		if (c->p->services[s].pool == pool)
			total += ga_reservation_at(c->res, s, t);
	return total;
}

/*
 * The GPU of the pool below which no service reserves anything on the days
 * in [d0, d1], d1 included: the stack, from the pool's end down over its
 * usable GPUs, of its services' reservations, each at its most over those
 * days.  Batch blocks lie below.
 */
static int
floor_of_days(const bl_ctx *c, int pool, int64_t d0, int64_t d1)
{
	int			total = 0;

	/* the days from n_days on all hold the tail: one of them stands for all */
	if (d1 > c->res->n_days)
		d1 = d0 > c->res->n_days ? d0 : c->res->n_days;
	for (int s = 0; s < c->p->n_services; s++)
	{
		int			most = 0;

		if (c->p->services[s].pool != pool)
			continue;
		for (int64_t d = d0; d <= d1; d++)
			if (ga_reservation_day(c->res, s, d) > most)
				most = ga_reservation_day(c->res, s, d);
		total += most;
	}
	if (total > c->p->pools[pool].n_gpus)
		total = c->p->pools[pool].n_gpus;
	return c->usable_floor[c->p->pools[pool].first_gpu + pool + total];
}

/*
 * The reservation floor of the pool over steps [from, to): a block lying
 * below it touches no GPU a service reserves at any of those steps.  A
 * service's reservation at a step across midnight is the higher of two
 * days', so the floor is taken over each such pair of days, and over each
 * day on its own.
 */
static int
floor_over(const bl_ctx *c, int pool, int64_t from, int64_t to)
{
	int64_t		d0 = ga_reservation_first_day(c->res, from);
	int64_t		d1 = ga_reservation_last_day(c->res, to - 1);
	int			low = pool_end(c, pool);

	if (d1 > c->res->n_days + 1)
		d1 = d0 > c->res->n_days ? d0 + 1 : c->res->n_days + 1;
	for (int64_t d = d0; d <= d1; d++)
	{
		int			f = d < d1 && ga_reservation_straddles(c->res, d) ?
			floor_of_days(c, pool, d, d + 1) : floor_of_days(c, pool, d, d);

		if (f < low)
			low = f;
	}
	for (int64_t t = from > 0 ? from : 0; t < to && t < c->closed_steps; t++)
		if (c->closed_floor[(size_t) pool * c->closed_steps + t] < low)
			low = c->closed_floor[(size_t) pool * c->closed_steps + t];
	return low;
}

/*
 * How far past the horizon closed_floor reaches: a window or an advance
 * reservation ending later is counted up to here only (some five years of
 * 30-minute steps; no run lasts that long), so a window "until further
 * notice" does not size an array by its end.
 */
#define CLOSED_STEPS_PAST_HORIZON 100000

/*
 * The last step any window or advance reservation closes, plus one, at most
 * CLOSED_STEPS_PAST_HORIZON past the horizon; 0 if none.
 */
static int
closed_until(const ga_problem *p)
{
	int			end = 0;
	int			cap = p->params.n_steps + CLOSED_STEPS_PAST_HORIZON;

	for (int i = 0; i < p->n_windows; i++)
		if (p->windows[i].end_step > end)
			end = p->windows[i].end_step;
	for (int i = 0; i < p->n_reservations; i++)
		if (p->reservations[i].cells.end_step > end)
			end = p->reservations[i].cells.end_step;
	return end < cap ? end : cap;
}

/* Does a window or an advance reservation close a GPU of the pool at step t? */
static bool
pool_closed_at(const ga_problem *p, int pool, int t)
{
	const ga_pool *q = &p->pools[pool];

	return ga_closing(p, -1, q->first_gpu, q->n_gpus, t, t + 1) != NULL;
}

/* usable_floor: for each pool and stack height, the stack's lowest GPU. */
static bool
compute_usable_floors(bl_ctx *c)
{
	const ga_problem *p = c->p;

	c->usable_floor = malloc(sizeof(int) * (size_t) (p->n_gpus + p->n_pools));
	if (c->usable_floor == NULL)
		return false;
	for (int q = 0; q < p->n_pools; q++)
	{
		int		   *floor = c->usable_floor + p->pools[q].first_gpu + q;
		int			g = pool_end(c, q);

		/* stack_floor(c, q, k, -1) for every k, in one walk down the pool */
		floor[0] = g;
		for (int k = 1; k <= p->pools[q].n_gpus; k++)
		{
			while (g > p->pools[q].first_gpu && !open_to_services(c, --g, -1))
				;
			floor[k] = g;
		}
	}
	return true;
}

/*
 * closed_floor: at each step where windows or advance reservations close
 * GPUs of a pool, the floor of its services' stack over the GPUs left open
 * then.  Computed once per plan (floor_over reads it for every candidate
 * run).  False on out of memory.
 */
static bool
compute_closed_floors(bl_ctx *c)
{
	const ga_problem *p = c->p;

	c->closed_steps = closed_until(p);
	if (c->closed_steps == 0)
		return true;
	c->closed_floor = malloc(sizeof(int) * (size_t) p->n_pools * c->closed_steps);
	if (c->closed_floor == NULL)
		return false;
	for (int i = 0; i < p->n_pools; i++)
		for (int t = 0; t < c->closed_steps; t++)
			c->closed_floor[(size_t) i * c->closed_steps + t] = pool_closed_at(p, i, t)
				? stack_floor(c, i, pool_reservation_at(c, i, t), t) : INT_MAX;
	return true;
}

/* A pass at step t (inside the horizon, past step 0): cells open or close there. */
static void
mark_event_at(bl_ctx *c, int t)
{
	if (t > 0 && t < c->T)
		c->event[t] = true;
}

/*
 * Give each service its reservation at every step of the horizon, stacked
 * from the high end of its pool in service order over the GPUs open to
 * services then (open_to_services): a window or an advance reservation
 * moves the stack down rather than take GPUs from it.  Cells under pinned
 * jobs stay theirs (they count in the stack: the service gets them when
 * the job ends).
 */
static void
reserve_services(bl_ctx *c)
{
	const ga_problem *p = c->p;

	for (int t = 0; t < c->T; t++)
		for (int i = 0; i < p->n_pools; i++)
		{
			int			g = pool_end(c, i);

			for (int s = 0; s < p->n_services; s++)
			{
				int			need;

				if (p->services[s].pool != i)
					continue;
				need = ga_reservation_at(c->res, s, t);
				while (need > 0 && g > p->pools[i].first_gpu)
				{
					if (!open_to_services(c, --g, t))
						continue;
					need--;
					if (ga_plan_get(c->plan, g, t) == GA_IDLE)
						ga_plan_set(c->plan, g, t, ga_service_workload(p, s));
				}
			}
		}
}

/* A backfill pass where the reservations fall: GPUs come free there. */
static void
mark_reservation_changes(bl_ctx *c)
{
	for (int t = 1; t < c->T; t++)
		for (int i = 0; i < c->p->n_pools && !c->event[t]; i++)
			if (floor_over(c, i, t, t + 1) != floor_over(c, i, t - 1, t))
				c->event[t] = true;
}

static ga_status
check_reservation(const ga_problem *p, const ga_reservation *res, ga_error *err)
{
	if (res == NULL)
		return ga_error_set(err, GA_EINVAL, "baseline: a reservation is required");
	if (res->n_services != p->n_services)
		return ga_error_set(err, GA_EINVAL,
							"baseline: the reservation has %d services, the problem %d",
							res->n_services, p->n_services);
	if (res->step_minutes != p->params.step_minutes)
		return ga_error_set(err, GA_EINVAL,
							"baseline: the reservation's steps are %d minutes, the problem's %d",
							res->step_minutes, p->params.step_minutes);
	return GA_OK;
}

static void
finish(bl_ctx *c, ga_plan **out, const char *mode)
{
	c->plan->objective = ga_plan_objective(c->p, c->plan);
	c->plan->mode = mode;
	*out = c->plan;
	free(c->event);
	ga_quota_destroy(c->quota);
	free(c->quota_use);
	free(c->closed_floor);
	free(c->usable_floor);
}

static ga_status
setup(const ga_problem *p, const ga_reservation *res, bl_ctx *c,
	  ga_plan **out, ga_error *err)
{
	ga_status	rc;

	memset(c, 0, sizeof(*c));
	*out = NULL;
	if ((rc = check_reservation(p, res, err)) != GA_OK)
		return rc;
	c->p = p;
	c->res = res;
	c->T = p->params.n_steps;
	c->plan = ga_plan_create(p);
	c->event = calloc(c->T, sizeof(bool));
	c->quota = ga_quota_create(p);
	c->quota_use = c->quota ? calloc(ga_quota_use_len(c->quota), sizeof(int)) : NULL;
	if (c->plan == NULL || c->event == NULL || c->quota_use == NULL)
	{
		ga_plan_destroy(c->plan);
		free(c->event);
		ga_quota_destroy(c->quota);
		free(c->quota_use);
		return ga_error_set(err, GA_ENOMEM, "out of memory planning a baseline");
	}
	c->event[0] = true;
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];

		if (job->pinned)
		{
			ga_plan_place_job(c->plan, p, j, job->pinned_start,
							  job->pinned_first_gpu, job->pinned_size);
			ga_quota_count(c->quota, c->quota_use, job->tenant, job->pool, job->pinned_start,
						   job->pinned_end, job->pinned_size, true, 1);
			if (job->pinned_end < c->T)
				c->event[job->pinned_end] = true;
		}
		else if (job->release_step < c->T)
			c->event[job->release_step] = true;
	}
	for (int i = 0; i < p->n_windows; i++)
		mark_event_at(c, p->windows[i].end_step);
	for (int i = 0; i < p->n_reservations; i++)
	{
		mark_event_at(c, p->reservations[i].cells.start_step);
		mark_event_at(c, p->reservations[i].cells.end_step);
	}
	if (!compute_usable_floors(c) || !compute_closed_floors(c))
	{
		finish(c, out, "");
		ga_plan_destroy(*out);
		*out = NULL;
		return ga_error_set(err, GA_ENOMEM, "out of memory planning a baseline");
	}
	reserve_services(c);
	mark_reservation_changes(c);
	return GA_OK;
}



/* Largest power of two of the job's range not above room GPUs; 0 if none. */
static int
largest_size(const ga_job *job, int room)
{
	int			size = job->gpus_max;

	while (size >= job->gpus_min && size > room)
		size /= 2;
	return size >= job->gpus_min ? size : 0;
}

/* Every GPU of the block usable (not drained) and idle over [from, to). */
static bool
block_free(const ga_problem *p, const ga_plan *plan, int first, int size,
		   int from, int to)
{
	for (int g = first; g < first + size; g++)
	{
		if (!p->gpu_usable[g])
			return false;
		for (int t = from; t < to; t++)
			if (ga_plan_get(plan, g, t) != GA_IDLE)
				return false;
	}
	return true;
}

/* GPUs of the job's pool below the reservations at every step of a run. */
static int
room_over(const bl_ctx *c, const ga_job *job, int start, int dur)
{
	return floor_over(c, job->pool, start, (int64_t) start + dur) -
		c->p->pools[job->pool].first_gpu;
}

/*
 * Can job j start at step t?  Sets the block, largest size first.  A block
 * must lie below the reservations at every step of the job's estimated
 * run, past the horizon too: a job may use GPUs a lower reservation leaves
 * free only if it ends before a higher one begins.  Its run, lengthened by
 * the overrun margin as the planners drain ahead of a window, must not
 * touch a maintenance window or another tenant's advance reservation
 * either, past the horizon too; and its tenant's quota must admit it over
 * its run inside the horizon (rules R9 and R10).
 */
static bool
fit_on(const bl_ctx *c, const ga_job *job, int t, int *first, int *size)
{
	const ga_pool *pool = &c->p->pools[job->pool];

	for (int g = largest_size(job, room_over(c, job, t, 1)); g >= job->gpus_min && g > 0; g /= 2)
	{
		int			dur = ga_job_duration(job, job->pool, g);
		int			to = t + dur < c->T ? t + dur : c->T;
		int			top = pool->first_gpu + room_over(c, job, t, dur);

		if ((job->deadline_step >= 0 && t + dur > job->deadline_step) ||
			!ga_quota_fits(c->quota, c->quota_use, job->tenant, job->pool, t, t + dur, g))
			continue;
		for (int f = pool->first_gpu; f + g <= top; f += g)
			if (block_free(c->p, c->plan, f, g, t, to) &&
				!ga_block_closed(c->p, job->tenant, f, g, t, t + ga_protect_steps(c->p, job, dur)))
			{
				*first = f;
				*size = g;
				return true;
			}
	}
	return false;
}

/* fit_on, on the job's pools in preference order: the first that fits. */
static bool
fit_at(const bl_ctx *c, int j, int t, int *first, int *size)
{
	const ga_job *job = &c->p->jobs[j];

	if (t < job->release_step)
		return false;
	for (int i = 0; i < ga_job_n_pools(job); i++)
	{
		ga_job		view = ga_job_on_pool(job, i);

		if (fit_on(c, &view, t, first, size))
			return true;
	}
	return false;
}

/*
 * Could the job start at some step of the horizon on one of its pools
 * emptied of other jobs?  If not, it is too large for the GPUs the
 * reservations leave, or than its tenant's quota ever admits there
 * (ga_quota_max_gpus), and is passed over.
 */
static bool
fits_reservations(const bl_ctx *c, const ga_job *whole)
{
	for (int i = 0; i < ga_job_n_pools(whole); i++)
	{
		ga_job		view = ga_job_on_pool(whole, i);
		const ga_job *job = &view;

		for (int t = 0; t < c->T; t++)
			for (int g = largest_size(job, room_over(c, job, t, 1)); g >= job->gpus_min && g > 0; g /= 2)
				if (g <= room_over(c, job, t, ga_job_duration(job, job->pool, g)) &&
					g <= ga_quota_max_gpus(c->quota, job->tenant, job->pool))
					return true;
	}
	return false;
}

/* Duration of job j on the pool of the block at GPU `first`. */
static int
duration_at(const bl_ctx *c, int j, int first, int size)
{
	return ga_job_duration(&c->p->jobs[j], ga_pool_of_gpu(c->p, first), size);
}

static bool
earliest_fit(const bl_ctx *c, int j, int from, int *start, int *first, int *size)
{
	for (int t = from; t < c->T; t++)
		if (fit_at(c, j, t, first, size))
		{
			*start = t;
			return true;
		}
	return false;
}

static void
place(bl_ctx *c, int j, int t, int first, int size)
{
	int			end = t + duration_at(c, j, first, size);

	ga_plan_place_job(c->plan, c->p, j, t, first, size);
	ga_quota_count(c->quota, c->quota_use, c->p->jobs[j].tenant, ga_pool_of_gpu(c->p, first),
				   t, end, size, false, 1);
	if (end < c->T)
		c->event[end] = true;
}

static ga_status
fifo_ready(const ga_problem *ready, void *res, ga_plan **out, ga_error *err)
{
	return ga_plan_fifo(ready, res, out, err);
}

static ga_status
backfill_ready(const ga_problem *ready, void *res, ga_plan **out, ga_error *err)
{
	return ga_plan_backfill(ready, res, out, err);
}

static ga_status
quota_ready(const ga_problem *ready, void *res, ga_plan **out, ga_error *err)
{
	return ga_plan_quota(ready, res, out, err);
}

ga_status
ga_plan_fifo(const ga_problem *p, const ga_reservation *res, ga_plan **out,
			 ga_error *err)
{
	bl_ctx		c;
	ga_status	rc;
	int			previous = 0;

	if (ga_chain_needed(p))
		return ga_chain_solve(p, fifo_ready, (void *) res, out, err);
	if ((rc = setup(p, res, &c, out, err)) != GA_OK)
		return rc;
	for (int j = 0; j < p->n_jobs; j++)
	{
		int			t,
					first,
					size;

		if (p->jobs[j].pinned || !fits_reservations(&c, &p->jobs[j]))
			continue;
		if (!earliest_fit(&c, j, previous, &t, &first, &size))
			break;				/* strict order: nobody may pass it */
		place(&c, j, t, first, size);
		previous = t;
	}
	finish(&c, out, "fifo");
	return GA_OK;
}

/* Does job a go before job b in backfill order (priority, then arrival)? */
static bool
goes_before(const ga_problem *p, int a, int b)
{
	if (p->jobs[a].priority != p->jobs[b].priority)
		return p->jobs[a].priority > p->jobs[b].priority;
	return a < b;
}

/* Insertion sort: queues are short and this keeps the order stable. */
static void
sort_by_priority(const ga_problem *p, int *order, int n)
{
	for (int i = 1; i < n; i++)
	{
		int			j = order[i],
					k = i;

		for (; k > 0 && goes_before(p, j, order[k - 1]); k--)
			order[k] = order[k - 1];
		order[k] = j;
	}
}

static void
mark_head(bl_ctx *c, int j, int t, int first, int size, int32_t what)
{
	int			end = t + duration_at(c, j, first, size);

	for (int g = first; g < first + size; g++)
		for (int s = t; s < end && s < c->T; s++)
			ga_plan_set(c->plan, g, s, what);
}

/* One EASY pass at step t over the waiting jobs in priority order. */
static void
backfill_pass(bl_ctx *c, const int *order, int n, bool *placed,
			  const bool *fits, int t)
{
	int			head = -1,
				h_t = 0,
				h_first = 0,
				h_size = 0;

	for (int i = 0; i < n; i++)
	{
		int			j = order[i],
					first,
					size;

		if (placed[j] || c->p->jobs[j].release_step > t || !fits[j])
			continue;
		if (fit_at(c, j, t, &first, &size))
		{
			place(c, j, t, first, size);
			placed[j] = true;
		}
		else if (head < 0)
		{
			head = j;
			if (earliest_fit(c, j, t + 1, &h_t, &h_first, &h_size))
				mark_head(c, j, h_t, h_first, h_size, HELD_FOR_HEAD);
			else
				head = -2;		/* no start inside the horizon: nothing to protect */
		}
	}
	if (head >= 0)
		mark_head(c, head, h_t, h_first, h_size, GA_IDLE);
}

ga_status
ga_plan_backfill(const ga_problem *p, const ga_reservation *res,
				 ga_plan **out, ga_error *err)
{
	bl_ctx		c;
	ga_status	rc;
	int		   *order;
	bool	   *placed;
	bool	   *fits;
	int			n = 0;

	if (ga_chain_needed(p))
		return ga_chain_solve(p, backfill_ready, (void *) res, out, err);
	if ((rc = setup(p, res, &c, out, err)) != GA_OK)
		return rc;
	order = malloc(sizeof(int) * (p->n_jobs > 0 ? p->n_jobs : 1));
	placed = calloc(p->n_jobs > 0 ? p->n_jobs : 1, sizeof(bool));
	fits = calloc(p->n_jobs > 0 ? p->n_jobs : 1, sizeof(bool));
	if (order == NULL || placed == NULL || fits == NULL)
	{
		free(order);
		free(placed);
		free(fits);
		finish(&c, out, "backfill");
		ga_plan_destroy(*out);
		*out = NULL;
		return ga_error_set(err, GA_ENOMEM, "out of memory planning backfill");
	}
	for (int j = 0; j < p->n_jobs; j++)
		if (!p->jobs[j].pinned)
		{
			order[n++] = j;
			fits[j] = fits_reservations(&c, &p->jobs[j]);
		}
	sort_by_priority(p, order, n);
	for (int t = 0; t < c.T; t++)
		if (c.event[t])
			backfill_pass(&c, order, n, placed, fits, t);
	free(order);
	free(placed);
	free(fits);
	finish(&c, out, "backfill");
	return GA_OK;
}

/* Whether tenant is among the first n of held (a short list). */
static bool
tenant_held(const int *held, int n, int tenant)
{
	for (int i = 0; i < n; i++)
		if (held[i] == tenant)
			return true;
	return false;
}

/*
 * One admission pass at step t: each tenant's queue in arrival order, the
 * heads of all queues interleaved in arrival order; a head that cannot
 * start (not released yet, or no block or quota for it now) holds back its
 * tenant's later jobs.
 */
static void
quota_pass(bl_ctx *c, bool *placed, const bool *fits, int *held, int t)
{
	int			n_held = 0;

	for (int j = 0; j < c->p->n_jobs; j++)
	{
		const ga_job *job = &c->p->jobs[j];
		int			first,
					size;

		if (placed[j] || job->pinned || !fits[j] || tenant_held(held, n_held, job->tenant))
			continue;
		if (job->release_step <= t && fit_at(c, j, t, &first, &size))
		{
			place(c, j, t, first, size);
			placed[j] = true;
		}
		else
			held[n_held++] = job->tenant;
	}
}

ga_status
ga_plan_quota(const ga_problem *p, const ga_reservation *res, ga_plan **out,
			  ga_error *err)
{
	bl_ctx		c;
	ga_status	rc;
	int			n = p->n_jobs > 0 ? p->n_jobs : 1;
	bool	   *placed;
	bool	   *fits;
	int		   *held;

	if (ga_chain_needed(p))
		return ga_chain_solve(p, quota_ready, (void *) res, out, err);
	if ((rc = setup(p, res, &c, out, err)) != GA_OK)
		return rc;
	placed = calloc(n, sizeof(bool));
	fits = calloc(n, sizeof(bool));
	held = malloc(sizeof(int) * n);
	if (placed != NULL && fits != NULL && held != NULL)
	{
		for (int j = 0; j < p->n_jobs; j++)
			fits[j] = !p->jobs[j].pinned && fits_reservations(&c, &p->jobs[j]);
		for (int t = 0; t < c.T; t++)
			if (c.event[t])
				quota_pass(&c, placed, fits, held, t);
	}
	else
		rc = ga_error_set(err, GA_ENOMEM, "out of memory planning quota");
	free(placed);
	free(fits);
	free(held);
	finish(&c, out, "quota");
	if (rc != GA_OK)
	{
		ga_plan_destroy(*out);
		*out = NULL;
	}
	return rc;
}
