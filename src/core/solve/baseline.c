/*
 * baseline.c — FIFO and EASY backfilling behind a static service
 * reservation (see baseline.h).
 */
#include "solve/baseline.h"

#include <stdlib.h>
#include <string.h>

/* A cell held for the head job's reservation during one backfill pass. */
#define HELD_FOR_HEAD (-2)

typedef struct bl_ctx
{
	const ga_problem *p;
	ga_plan    *plan;
	int			T;
	int		   *area_end;		/* per pool: batch blocks lie below this GPU */
	bool	   *event;			/* [T]: steps where a backfill pass runs */
} bl_ctx;

int
ga_baseline_reservation(const ga_problem *p, int s)
{
	const ga_service *svc = &p->services[s];
	int			peak = svc->min_gpus;

	for (int t = 0; t < p->params.n_steps; t++)
		if (svc->demand[t] > peak)
			peak = svc->demand[t];
	if (peak > svc->max_gpus)
		peak = svc->max_gpus;
	if (peak > p->pools[svc->pool].n_gpus)
		peak = p->pools[svc->pool].n_gpus;
	return peak;
}

/* Stack each pool's reservations from its high end; cells under pinned jobs stay theirs. */
static void
reserve_services(bl_ctx *c)
{
	const ga_problem *p = c->p;

	for (int i = 0; i < p->n_pools; i++)
		c->area_end[i] = p->pools[i].first_gpu + p->pools[i].n_gpus;
	for (int s = 0; s < p->n_services; s++)
	{
		int			pool = p->services[s].pool;
		int			r = ga_baseline_reservation(p, s);
		int			low = c->area_end[pool] - r;

		if (low < p->pools[pool].first_gpu)
			low = p->pools[pool].first_gpu;
		for (int g = low; g < c->area_end[pool]; g++)
			for (int t = 0; t < c->T; t++)
				if (ga_plan_get(c->plan, g, t) == GA_IDLE)
					ga_plan_set(c->plan, g, t, ga_service_workload(p, s));
		c->area_end[pool] = low;
	}
}

static ga_status
setup(const ga_problem *p, bl_ctx *c, ga_plan **out, ga_error *err)
{
	memset(c, 0, sizeof(*c));
	*out = NULL;
	c->p = p;
	c->T = p->params.n_steps;
	c->plan = ga_plan_create(p);
	c->area_end = calloc(p->n_pools > 0 ? p->n_pools : 1, sizeof(int));
	c->event = calloc(c->T, sizeof(bool));
	if (c->plan == NULL || c->area_end == NULL || c->event == NULL)
	{
		ga_plan_destroy(c->plan);
		free(c->area_end);
		free(c->event);
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
			if (job->pinned_end < c->T)
				c->event[job->pinned_end] = true;
		}
		else if (job->release_step < c->T)
			c->event[job->release_step] = true;
	}
	reserve_services(c);
	return GA_OK;
}

static void
finish(bl_ctx *c, ga_plan **out, const char *mode)
{
	c->plan->objective = ga_plan_objective(c->p, c->plan);
	c->plan->mode = mode;
	*out = c->plan;
	free(c->area_end);
	free(c->event);
}

/* Largest power of two of the job's range that fits below the reservations. */
static int
largest_size(const bl_ctx *c, const ga_job *job)
{
	const ga_pool *pool = &c->p->pools[job->pool];
	int			room = c->area_end[job->pool] - pool->first_gpu;
	int			size = job->gpus_max;

	while (size >= job->gpus_min && size > room)
		size /= 2;
	return size >= job->gpus_min ? size : 0;
}

static bool
block_free(const ga_plan *plan, int first, int size, int from, int to)
{
	for (int g = first; g < first + size; g++)
		for (int t = from; t < to; t++)
			if (ga_plan_get(plan, g, t) != GA_IDLE)
				return false;
	return true;
}

/* Can job j start at step t?  Sets the block, largest size first. */
static bool
fit_at(const bl_ctx *c, int j, int t, int *first, int *size)
{
	const ga_job *job = &c->p->jobs[j];
	const ga_pool *pool = &c->p->pools[job->pool];

	if (t < job->release_step)
		return false;
	for (int g = largest_size(c, job); g >= job->gpus_min && g > 0; g /= 2)
	{
		int			dur = ga_job_duration(job, g);
		int			to = t + dur < c->T ? t + dur : c->T;

		if (job->deadline_step >= 0 && t + dur > job->deadline_step)
			continue;
		for (int f = pool->first_gpu; f + g <= c->area_end[job->pool]; f += g)
			if (block_free(c->plan, f, g, t, to))
			{
				*first = f;
				*size = g;
				return true;
			}
	}
	return false;
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
	int			end = t + ga_job_duration(&c->p->jobs[j], size);

	ga_plan_place_job(c->plan, c->p, j, t, first, size);
	if (end < c->T)
		c->event[end] = true;
}

ga_status
ga_plan_fifo(const ga_problem *p, ga_plan **out, ga_error *err)
{
	bl_ctx		c;
	ga_status	rc = setup(p, &c, out, err);
	int			previous = 0;

	if (rc != GA_OK)
		return rc;
	for (int j = 0; j < p->n_jobs; j++)
	{
		int			t,
					first,
					size;

		if (p->jobs[j].pinned || largest_size(&c, &p->jobs[j]) == 0)
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
	int			end = t + ga_job_duration(&c->p->jobs[j], size);

	for (int g = first; g < first + size; g++)
		for (int s = t; s < end && s < c->T; s++)
			ga_plan_set(c->plan, g, s, what);
}

/* One EASY pass at step t over the waiting jobs in priority order. */
static void
backfill_pass(bl_ctx *c, const int *order, int n, bool *placed, int t)
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

		if (placed[j] || c->p->jobs[j].release_step > t || largest_size(c, &c->p->jobs[j]) == 0)
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
ga_plan_backfill(const ga_problem *p, ga_plan **out, ga_error *err)
{
	bl_ctx		c;
	ga_status	rc = setup(p, &c, out, err);
	int		   *order;
	bool	   *placed;
	int			n = 0;

	if (rc != GA_OK)
		return rc;
	order = malloc(sizeof(int) * (p->n_jobs > 0 ? p->n_jobs : 1));
	placed = calloc(p->n_jobs > 0 ? p->n_jobs : 1, sizeof(bool));
	if (order == NULL || placed == NULL)
	{
		free(order);
		free(placed);
		finish(&c, out, "backfill");
		ga_plan_destroy(*out);
		*out = NULL;
		return ga_error_set(err, GA_ENOMEM, "out of memory planning backfill");
	}
	for (int j = 0; j < p->n_jobs; j++)
		if (!p->jobs[j].pinned)
			order[n++] = j;
	sort_by_priority(p, order, n);
	for (int t = 0; t < c.T; t++)
		if (c.event[t])
			backfill_pass(&c, order, n, placed, t);
	free(order);
	free(placed);
	finish(&c, out, "backfill");
	return GA_OK;
}
