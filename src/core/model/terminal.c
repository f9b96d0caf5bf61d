/*
 * terminal.c — the charge for service demand after the horizon (terminal.h).
 */
#include "model/terminal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Decay below 2^-40 of the horizon's end is below the objective's rounding. */
#define TERMINAL_HALF_LIVES 40

/* Largest room table past the horizon, in ints (16 MB). */
#define ROOM_TABLE_MAX (4L << 20)

/* Whether service a comes before b: by pool, then highest priority first. */
static bool
service_before(const ga_problem *p, int a, int b)
{
	const ga_service *x = &p->services[a];
	const ga_service *y = &p->services[b];

	if (x->pool != y->pool)
		return x->pool < y->pool;
	if (x->priority != y->priority)
		return x->priority > y->priority;
	return a < b;
}

/* The job's longest run: at its smallest size on its slowest pool. */
static int
longest_run(const ga_job *job)
{
	int			longest = 0;

	for (int i = 0; i < ga_job_n_pools(job); i++)
	{
		int			d = ga_job_duration(job, ga_job_pool_at(job, i), job->gpus_min);

		longest = d > longest ? d : longest;
	}
	return longest;
}

/* Steps after the horizon at which any job can still hold GPUs. */
static int
longest_reach(const ga_problem *p)
{
	int			T = p->params.n_steps;
	long		reach = 0;

	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		long		end = job->pinned ? job->pinned_end :
			(long) T - 1 + longest_run(job);

		if (end - T > reach)
			reach = end - T;
	}
	return reach > 100000000 ? 100000000 : (int) reach;
}

/* Steps of one day, the period of the expected demand (at least 1). */
static int
steps_per_day(const ga_problem *p)
{
	int			day = (int) lround(1440.0 / p->params.step_minutes);

	return day > 0 ? day : 1;
}

/*
 * The curve at T + k of each service from one of its per-step curves
 * (demand or protect): the same time of day on the horizon's last day, or
 * with a horizon shorter than a day the higher of its peak there and the
 * service's day_peak; capped at max_gpus.
 */
static void
expect_curve(ga_terminal *tm, const ga_problem *p, bool protect, int *out)
{
	int			T = p->params.n_steps;
	int			day = steps_per_day(p);

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		const int  *curve = protect ? svc->protect : svc->demand;
		int		   *e = out + (size_t) s * tm->period;

		if (T >= day)
			for (int k = 0; k < tm->period; k++)
				e[k] = curve[T - day + k];
		else
		{
			/* what the horizon saw, or the day's forecast peak beyond it */
			e[0] = svc->day_peak;
			for (int t = 0; t < T; t++)
				if (curve[t] > e[0])
					e[0] = curve[t];
		}
		for (int k = 0; k < tm->period; k++)
			if (e[k] > svc->max_gpus)
				e[k] = svc->max_gpus;
	}
}

/* Keep closure w when it closes GPUs at some step T + k, k < tm->steps. */
static void
add_closure(ga_terminal *tm, const ga_window *w)
{
	int			T = tm->problem->params.n_steps;
	ga_terminal_closure *c = &tm->closures[tm->n_closures];
	long		from = (long) w->start_step - T;
	long		to = (long) w->end_step - T;

	from = from > 0 ? from : 0;
	to = to < tm->steps ? to : tm->steps;
	if (from >= to)
		return;
	c->pool = w->pool;
	c->first_gpu = w->first_gpu;
	c->n_gpus = w->n_gpus;
	c->from = (int) from;
	c->to = (int) to;
	tm->n_closures++;
}

static bool
closure_touches(const ga_terminal_closure *c, int first, int size)
{
	return c->first_gpu < first + size && first < c->first_gpu + c->n_gpus;
}

static bool
closure_covers(const ga_terminal_closure *c, int g, int k)
{
	return k >= c->from && k < c->to && g >= c->first_gpu && g < c->first_gpu + c->n_gpus;
}

/* Usable GPUs of block [first, first + size) that closures close at T + k. */
static int
block_closed(const ga_terminal *tm, int first, int size, int k)
{
	const ga_problem *p = tm->problem;
	const ga_terminal_closure *only = NULL;
	int			covering = 0;
	int			closed = 0;

	for (int i = 0; i < tm->n_closures; i++)
		if (k >= tm->closures[i].from && k < tm->closures[i].to &&
			closure_touches(&tm->closures[i], first, size))
		{
			only = &tm->closures[i];
			covering++;
		}
	if (covering == 1)
	{
		int			lo = only->first_gpu > first ? only->first_gpu : first;
		int			hi = only->first_gpu + only->n_gpus < first + size ?
			only->first_gpu + only->n_gpus : first + size;

		return ga_usable_gpus(p, lo, hi - lo);
	}
	/* several closures at once may overlap: count each GPU once */
	for (int g = first; covering > 1 && g < first + size; g++)
		for (int i = 0; i < tm->n_closures; i++)
			if (closure_covers(&tm->closures[i], g, k))
			{
				closed += p->gpu_usable[g];
				break;
			}
	return closed;
}

/* Drop from sorted v[0 .. n) the values equal to `before` or to the one before; the count kept. */
static int
unique_sorted(int *v, int n, int before)
{
	int			kept = 0;

	for (int i = 0; i < n; i++)
		if (v[i] != (kept > 0 ? v[kept - 1] : before))
			v[kept++] = v[i];
	return kept;
}

/*
 * Cut each pool's steps past the horizon where its closures begin or end;
 * between two cuts the same GPUs are closed.
 */
static bool
set_segments(ga_terminal *tm, const ga_problem *p)
{
	int			n = 0;

	tm->seg_k = malloc(sizeof(int) * (2 * (size_t) tm->n_closures + p->n_pools + 1));
	tm->seg_closed = malloc(sizeof(int) * (2 * (size_t) tm->n_closures + p->n_pools + 1));
	if (tm->seg_k == NULL || tm->seg_closed == NULL)
		return false;
	for (int q = 0; q < p->n_pools; q++)
	{
		int			first = n;

		tm->seg_first[q] = n;
		tm->seg_k[n++] = 0;
		for (int i = 0; i < tm->n_closures; i++)
			if (tm->closures[i].pool == q)
			{
				tm->seg_k[n++] = tm->closures[i].from;
				if (tm->closures[i].to < tm->steps)
					tm->seg_k[n++] = tm->closures[i].to;
			}
		qsort(tm->seg_k + first, n - first, sizeof(int), ga_compare_int);
		n = first + 1 + unique_sorted(tm->seg_k + first + 1, n - first - 1, tm->seg_k[first]);
		for (int i = first; i < n; i++)
			tm->seg_closed[i] = block_closed(tm, p->pools[q].first_gpu, p->pools[q].n_gpus,
											 tm->seg_k[i]);
	}
	tm->seg_first[p->n_pools] = n;
	return true;
}

static void
set_pools(ga_terminal *tm, const ga_problem *p)
{
	for (int q = 0; q < p->n_pools; q++)
		tm->usable[q] = ga_usable_gpus(p, p->pools[q].first_gpu, p->pools[q].n_gpus);
	/* insertion sort: services are few, and no shared state is needed */
	for (int s = 0; s < p->n_services; s++)
	{
		int			i = s;

		while (i > 0 && service_before(p, s, tm->order[i - 1]))
		{
			tm->order[i] = tm->order[i - 1];
			i--;
		}
		tm->order[i] = s;
	}
	for (int i = 0, q = 0; q <= p->n_pools; q++)
	{
		while (i < p->n_services && p->services[tm->order[i]].pool < q)
			i++;
		tm->pool_first[q] = i;
	}
}

/*
 * The room table (terminal.h): each pool's open GPUs past the horizon less
 * the expected protect curves of its first c services, for every c.  Left
 * NULL when too large; false on out of memory.
 */
static bool
set_room_after(ga_terminal *tm, const ga_problem *p)
{
	long		rows = (long) p->n_services + p->n_pools;

	if (tm->steps == 0 || rows * tm->steps > ROOM_TABLE_MAX)
		return true;
	tm->room_after = malloc(sizeof(int) * (size_t) rows * tm->steps);
	if (tm->room_after == NULL)
		return false;
	for (int q = 0; q < p->n_pools; q++)
	{
		int		   *row = tm->room_after + (size_t) (tm->pool_first[q] + q) * tm->steps;

		for (int k = 0; k < tm->steps; k++)
			row[k] = ga_terminal_open_in_pool(tm, q, k);
		for (int i = tm->pool_first[q]; i < tm->pool_first[q + 1]; i++)
		{
			int		   *next = row + tm->steps;

			for (int k = 0; k < tm->steps; k++)
				next[k] = row[k] - ga_terminal_expected_protect(tm, tm->order[i], k);
			row = next;
		}
	}
	return true;
}

ga_terminal *
ga_terminal_create(const ga_problem *p)
{
	ga_terminal *tm = calloc(1, sizeof(*tm));
	int			T = p->params.n_steps;
	double		step_hours = p->params.step_minutes / 60.0;
	double		by_decay = ceil(TERMINAL_HALF_LIVES * p->params.half_life_hours / step_hours);
	int			reach = longest_reach(p);

	if (tm == NULL)
		return NULL;
	tm->problem = p;
	tm->n_pools = p->n_pools;
	tm->steps = by_decay < reach ? (int) by_decay : reach;
	if (p->n_services == 0)
		tm->steps = 0;
	tm->period = T >= steps_per_day(p) ? steps_per_day(p) : 1;
	tm->usable = calloc(p->n_pools + 1, sizeof(int));
	tm->order = malloc(sizeof(int) * (p->n_services + 1));
	tm->pool_first = calloc(p->n_pools + 1, sizeof(int));
	tm->expected = malloc(sizeof(int) * ((size_t) p->n_services * tm->period + 1));
	tm->pool_need = calloc((size_t) p->n_pools * tm->period + 1, sizeof(int));
	tm->expected_protect = malloc(sizeof(int) * ((size_t) p->n_services * tm->period + 1));
	tm->weight = malloc(sizeof(double) * (tm->steps + 1));
	tm->closures = malloc(sizeof(ga_terminal_closure) * ((size_t) p->n_windows + p->n_reservations + 1));
	tm->seg_first = calloc(p->n_pools + 1, sizeof(int));
	if (!tm->usable || !tm->order || !tm->pool_first || !tm->expected ||
		!tm->pool_need || !tm->expected_protect || !tm->weight ||
		!tm->closures || !tm->seg_first)
	{
		ga_terminal_destroy(tm);
		return NULL;
	}
	for (int i = 0; i < p->n_windows; i++)
		add_closure(tm, &p->windows[i]);
	for (int i = 0; i < p->n_reservations; i++)
		add_closure(tm, &p->reservations[i].cells);
	if (!set_segments(tm, p))
	{
		ga_terminal_destroy(tm);
		return NULL;
	}
	set_pools(tm, p);
	expect_curve(tm, p, false, tm->expected);
	expect_curve(tm, p, true, tm->expected_protect);
	for (int s = 0; s < p->n_services; s++)
		for (int k = 0; k < tm->period; k++)
			tm->pool_need[(size_t) p->services[s].pool * tm->period + k] +=
				tm->expected[(size_t) s * tm->period + k];
	for (int k = 0; k < tm->steps; k++)
		tm->weight[k] = p->params.penalty * p->tail_decay * pow(p->step_decay, k);
	if (!set_room_after(tm, p))
	{
		ga_terminal_destroy(tm);
		return NULL;
	}
	return tm;
}

void
ga_terminal_destroy(ga_terminal *tm)
{
	if (tm == NULL)
		return;
	free(tm->usable);
	free(tm->order);
	free(tm->pool_first);
	free(tm->expected);
	free(tm->pool_need);
	free(tm->expected_protect);
	free(tm->weight);
	free(tm->closures);
	free(tm->seg_first);
	free(tm->seg_k);
	free(tm->seg_closed);
	free(tm->room_after);
	free(tm);
}

int
ga_terminal_expected(const ga_terminal *tm, int s, int k)
{
	return tm->expected[(size_t) s * tm->period + k % tm->period];
}

int
ga_terminal_expected_protect(const ga_terminal *tm, int s, int k)
{
	return tm->expected_protect[(size_t) s * tm->period + k % tm->period];
}

void
ga_terminal_range(const ga_terminal *tm, int start, int end, int *from,
				  int *to)
{
	int			T = tm->problem->params.n_steps;

	*from = start > T ? start - T : 0;
	*to = end - T < tm->steps ? end - T : tm->steps;
}

/*
 * Priority-weighted unmet demand at a step T + k of the given phase
 * (k mod the period, found once per step by the callers: the division
 * would otherwise be most of the work) when the pool's services share
 * `avail` GPUs, highest priority first.
 */
static inline double
unmet(const ga_terminal *tm, int pool, int phase, int avail)
{
	const ga_problem *p = tm->problem;
	double		cost = 0;

	for (int i = tm->pool_first[pool]; i < tm->pool_first[pool + 1]; i++)
	{
		int			s = tm->order[i];
		int			need = tm->expected[(size_t) s * tm->period + phase];
		int			give = need < avail ? need : avail;

		avail -= give;
		cost += p->services[s].priority * (need - give);
	}
	return cost;
}

int
ga_terminal_open_in_pool(const ga_terminal *tm, int pool, int k)
{
	int			lo = tm->seg_first[pool];
	int			hi = tm->seg_first[pool + 1] - 1;

	/* the last segment starting at or before k */
	while (lo < hi)
	{
		int			mid = (lo + hi + 1) / 2;

		if (tm->seg_k[mid] <= k)
			lo = mid;
		else
			hi = mid - 1;
	}
	return tm->usable[pool] - tm->seg_closed[lo];
}

/* Whether any closure reaches block [first, first + size) past the horizon. */
static bool
block_touched(const ga_terminal *tm, int first, int size)
{
	for (int i = 0; i < tm->n_closures; i++)
		if (closure_touches(&tm->closures[i], first, size))
			return true;
	return false;
}

int
ga_terminal_open_gpus(const ga_terminal *tm, int first, int size, int k)
{
	return ga_usable_gpus(tm->problem, first, size) - block_closed(tm, first, size, k);
}

/*
 * A block's open GPUs step by step: its usable GPUs, found once, less what
 * closures take at each step, looked up only when a closure reaches it.
 */
typedef struct open_block
{
	const ga_terminal *tm;
	int			first;
	int			size;
	int			usable;
	bool		touched;
} open_block;

static open_block
open_block_of(const ga_terminal *tm, int first, int size)
{
	open_block	b = {tm, first, size, ga_usable_gpus(tm->problem, first, size),
	block_touched(tm, first, size)};

	return b;
}

static int
open_at(const open_block *b, int k)
{
	return b->touched ? b->usable - block_closed(b->tm, b->first, b->size, k) : b->usable;
}

/*
 * ga_terminal_step_cost with the pool's open GPUs at T + k and their unmet
 * demand found by the caller, who needs them for two holdings at once.
 */
static inline double
step_cost_given(const ga_terminal *tm, int pool, int k, int phase, int open,
				double unmet_open, int held)
{
	int			left = open - held > 0 ? open - held : 0;

	if (held <= 0)
		return 0;
	return tm->weight[k] * (unmet(tm, pool, phase, left) - unmet_open);
}

double
ga_terminal_step_cost(const ga_terminal *tm, int pool, int k, int held)
{
	int			open;

	if (held <= 0 || tm->pool_first[pool] == tm->pool_first[pool + 1])
		return 0;
	open = ga_terminal_open_in_pool(tm, pool, k);
	return step_cost_given(tm, pool, k, k % tm->period, open,
						   unmet(tm, pool, k % tm->period, open), held);
}

double
ga_terminal_delta(const ga_terminal *tm, int pool, const int *held, int from,
				  int to, int first, int size)
{
	double		delta = 0;
	open_block	b;

	if (tm->pool_first[pool] == tm->pool_first[pool + 1] || from >= to)
		return 0;
	b = open_block_of(tm, first, size);
	for (int k = from, phase = from % tm->period; k < to;
		 k++, phase = phase + 1 < tm->period ? phase + 1 : 0)
	{
		int			more = open_at(&b, k);
		int			open;
		double		unmet_open;

		if (more == 0)
			continue;			/* the same holding: no change at T + k */
		open = ga_terminal_open_in_pool(tm, pool, k);
		if (open - held[k] - more >= tm->pool_need[(size_t) pool * tm->period + phase])
			continue;			/* every service served either way: both cost 0 */
		unmet_open = unmet(tm, pool, phase, open);
		delta += step_cost_given(tm, pool, k, phase, open, unmet_open, held[k] + more) -
			step_cost_given(tm, pool, k, phase, open, unmet_open, held[k]);
	}
	return delta;
}

void
ga_terminal_hold(const ga_terminal *tm, int *held, int from, int to, int first,
				 int size, int sign)
{
	open_block	b = open_block_of(tm, first, size);

	for (int k = from; k < to; k++)
		held[k] += sign * open_at(&b, k);
}

bool
ga_terminal_job_range(const ga_terminal *tm, const ga_plan *plan, int j,
					  int *pool, int *from, int *to)
{
	const ga_problem *p = tm->problem;
	const ga_job *job = &p->jobs[j];
	int			size = plan->job_size[j];
	int			start = plan->job_start[j];

	if (size <= 0)
		return false;
	*pool = ga_pool_of_gpu(p, plan->job_first_gpu[j]);
	ga_terminal_range(tm, start, job->pinned ? job->pinned_end :
					  start + ga_job_duration(job, *pool, size), from, to);
	return true;
}

int *
ga_terminal_plan_held(const ga_terminal *tm, const ga_plan *plan)
{
	const ga_problem *p = tm->problem;
	int		   *held = calloc((size_t) (p->n_pools + 1) * (tm->steps + 1), sizeof(int));

	if (held == NULL)
		return NULL;
	for (int j = 0; j < p->n_jobs && j < plan->n_jobs; j++)
	{
		int			q;
		int			from;
		int			to;

		if (ga_terminal_job_range(tm, plan, j, &q, &from, &to))
			ga_terminal_hold(tm, held + (size_t) q * tm->steps, from, to,
							 plan->job_first_gpu[j], plan->job_size[j], 1);
	}
	return held;
}

double
ga_terminal_cost(const ga_problem *p, const ga_plan *plan)
{
	ga_terminal *tm = ga_terminal_create(p);
	int		   *held = tm != NULL ? ga_terminal_plan_held(tm, plan) : NULL;
	double		cost = 0;

	if (held == NULL)
	{
		ga_terminal_destroy(tm);
		return NAN;
	}
	for (int q = 0; q < p->n_pools; q++)
		for (int k = 0; k < tm->steps; k++)
			cost += ga_terminal_step_cost(tm, q, k, held[(size_t) q * tm->steps + k]);
	free(held);
	ga_terminal_destroy(tm);
	return cost;
}
