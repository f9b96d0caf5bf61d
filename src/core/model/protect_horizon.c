/*
 * protect_horizon.c — the protect rule past the horizon (protect_horizon.h).
 */
#include "model/protect_horizon.h"

#include <stdlib.h>

/*
 * How many of the pool's services, in the terminal's order (highest
 * priority first), hold a job of this priority off their curve: a prefix,
 * since a service protects from the job when penalty * its priority is at
 * least the job's.
 */
static int
protected_prefix(const ga_terminal *tm, int pool, double job_priority)
{
	const ga_problem *p = tm->problem;
	int			c = 0;

	for (int i = tm->pool_first[pool]; i < tm->pool_first[pool + 1]; i++, c++)
		if (!ga_service_protected_from(p, &p->services[tm->order[i]], job_priority))
			break;
	return c;
}

/* The room table's row for the pool and `held_from` services; NULL without one. */
static const int *
room_row(const ga_terminal *tm, int pool, int held_from)
{
	if (tm->room_after == NULL)
		return NULL;
	return tm->room_after + (size_t) (tm->pool_first[pool] + pool + held_from) * tm->steps;
}

int
ga_protect_room_after(const ga_terminal *tm, int pool, int k, double job_priority)
{
	int			held_from = protected_prefix(tm, pool, job_priority);
	const int  *row = room_row(tm, pool, held_from);
	int			room;

	if (row != NULL && k >= 0 && k < tm->steps)
		return row[k];
	room = ga_terminal_open_in_pool(tm, pool, k);
	for (int i = 0; i < held_from; i++)
		room -= ga_terminal_expected_protect(tm, tm->order[tm->pool_first[pool] + i], k);
	return room;
}

int
ga_protect_first_blocked_after(const ga_terminal *tm, int pool, const int *held,
							   int from, int to, int size, double job_priority)
{
	int			last = to < tm->steps ? to : tm->steps;	/* where the charge stops */
	const int  *row = room_row(tm, pool, protected_prefix(tm, pool, job_priority));

	if (tm->pool_first[pool] == tm->pool_first[pool + 1])
		return to;				/* no service to protect */
	for (int k = from > 0 ? from : 0; k < last; k++)
		if (held[k] + size > (row != NULL ? row[k] : ga_protect_room_after(tm, pool, k, job_priority)))
			return k;
	return to;
}

/*
 * The highest priority of a job that is not pinned among those holding
 * GPUs of each pool at each step T + k ([n_pools * steps], 0: none).
 */
static double *
densest_after(const ga_terminal *tm, const ga_plan *plan)
{
	const ga_problem *p = tm->problem;
	double	   *densest = calloc((size_t) (p->n_pools + 1) * (tm->steps + 1), sizeof(double));

	if (densest == NULL)
		return NULL;
	for (int j = 0; j < p->n_jobs && j < plan->n_jobs; j++)
	{
		int			q;
		int			from;
		int			to;

		if (p->jobs[j].pinned || !ga_terminal_job_range(tm, plan, j, &q, &from, &to))
			continue;
		for (int k = from; k < to; k++)
			if (p->jobs[j].priority > densest[(size_t) q * tm->steps + k])
				densest[(size_t) q * tm->steps + k] = p->jobs[j].priority;
	}
	return densest;
}

bool
ga_plan_protects_past_horizon(const ga_problem *problem, const ga_plan *plan)
{
	ga_terminal *tm = ga_terminal_create(problem);
	int		   *held = tm != NULL ? ga_terminal_plan_held(tm, plan) : NULL;
	double	   *densest = held != NULL ? densest_after(tm, plan) : NULL;
	bool		ok = densest != NULL;

	for (int q = 0; ok && q < problem->n_pools; q++)
		for (int k = 0; ok && k < tm->steps; k++)
		{
			size_t		i = (size_t) q * tm->steps + k;

			if (densest[i] > 0 && tm->pool_first[q] < tm->pool_first[q + 1])
				ok = held[i] <= ga_protect_room_after(tm, q, k, densest[i]);
		}
	free(densest);
	free(held);
	ga_terminal_destroy(tm);
	return ok;
}
