/*
 * terminal.c — the charge for service demand after the horizon (terminal.h).
 */
#include "model/terminal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Decay below 2^-40 of the horizon's end is below the objective's rounding. */
#define TERMINAL_HALF_LIVES 40

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

static void
set_expected(ga_terminal *tm, const ga_problem *p)
{
	int			T = p->params.n_steps;
	int			day = steps_per_day(p);

	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		int		   *e = tm->expected + (size_t) s * tm->period;

		if (T >= day)
			for (int k = 0; k < tm->period; k++)
				e[k] = svc->demand[T - day + k];
		else
		{
			/* what the horizon saw, or the day's forecast peak beyond it */
			e[0] = svc->day_peak;
			for (int t = 0; t < T; t++)
				if (svc->demand[t] > e[0])
					e[0] = svc->demand[t];
		}
		for (int k = 0; k < tm->period; k++)
			if (e[k] > svc->max_gpus)
				e[k] = svc->max_gpus;
	}
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
	tm->weight = malloc(sizeof(double) * (tm->steps + 1));
	if (!tm->usable || !tm->order || !tm->pool_first || !tm->expected || !tm->weight)
	{
		ga_terminal_destroy(tm);
		return NULL;
	}
	set_pools(tm, p);
	set_expected(tm, p);
	for (int k = 0; k < tm->steps; k++)
		tm->weight[k] = p->params.penalty * p->tail_decay * pow(p->step_decay, k);
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
	free(tm->weight);
	free(tm);
}

int
ga_terminal_expected(const ga_terminal *tm, int s, int k)
{
	return tm->expected[(size_t) s * tm->period + k % tm->period];
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
 * Priority-weighted unmet demand at step T + k when the pool's services
 * share `avail` GPUs, highest priority first.
 */
static double
unmet(const ga_terminal *tm, int pool, int k, int avail)
{
	const ga_problem *p = tm->problem;
	double		cost = 0;

	for (int i = tm->pool_first[pool]; i < tm->pool_first[pool + 1]; i++)
	{
		int			s = tm->order[i];
		int			need = ga_terminal_expected(tm, s, k);
		int			give = need < avail ? need : avail;

		avail -= give;
		cost += p->services[s].priority * (need - give);
	}
	return cost;
}

double
ga_terminal_step_cost(const ga_terminal *tm, int pool, int k, int held)
{
	int			usable = tm->usable[pool];
	int			left = usable - held > 0 ? usable - held : 0;

	if (held <= 0 || tm->pool_first[pool] == tm->pool_first[pool + 1])
		return 0;
	return tm->weight[k] * (unmet(tm, pool, k, left) - unmet(tm, pool, k, usable));
}

double
ga_terminal_delta(const ga_terminal *tm, int pool, const int *held, int from,
				  int to, int size)
{
	double		delta = 0;

	if (tm->pool_first[pool] == tm->pool_first[pool + 1])
		return 0;
	for (int k = from; k < to; k++)
		delta += ga_terminal_step_cost(tm, pool, k, held[k] + size) -
			ga_terminal_step_cost(tm, pool, k, held[k]);
	return delta;
}

double
ga_terminal_cost(const ga_problem *p, const ga_plan *plan)
{
	ga_terminal *tm = ga_terminal_create(p);
	int		   *held;
	double		cost = 0;

	if (tm == NULL)
		return NAN;
	held = calloc((size_t) (p->n_pools + 1) * (tm->steps + 1), sizeof(int));
	if (held == NULL)
	{
		ga_terminal_destroy(tm);
		return NAN;
	}
	for (int j = 0; j < p->n_jobs && j < plan->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		int			size = plan->job_size[j];
		int			start = plan->job_start[j];
		int			from;
		int			to;
		int			n;
		int			q;

		if (size <= 0)
			continue;
		q = ga_pool_of_gpu(p, plan->job_first_gpu[j]);
		ga_terminal_range(tm, start, job->pinned ? job->pinned_end :
						  start + ga_job_duration(job, q, size), &from, &to);
		n = ga_usable_gpus(p, plan->job_first_gpu[j], size);
		for (int k = from; k < to; k++)
			held[(size_t) q * tm->steps + k] += n;
	}
	for (int q = 0; q < p->n_pools; q++)
		for (int k = 0; k < tm->steps; k++)
			cost += ga_terminal_step_cost(tm, q, k, held[(size_t) q * tm->steps + k]);
	free(held);
	ga_terminal_destroy(tm);
	return cost;
}
