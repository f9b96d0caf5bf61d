/*
 * terminal.h — the objective's charge for service demand after the horizon
 * (docs/model.md, Objective).
 *
 * A job is never preempted, so GPUs it holds past the horizon stay out of
 * the services' reach until it ends.  The objective credits such a job for
 * its whole run (ga_job_tail_value); this is the matching charge: at every
 * step T + k after the horizon, the GPUs that jobs still hold in a pool are
 * taken from the GPUs the pool could give its services, and the shortfall
 * that this adds against the demand expected at T + k is charged at the
 * shortfall penalty, with the decay continuing past the horizon.
 *
 * The demand expected at T + k: services follow a daily cycle, so with a
 * horizon of at least a day it is the plan's own demand at the latest step
 * of the horizon at the same time of day (step T - P + (k mod P), P the
 * steps of a day; with the default 24 h horizon, step k mod T).  A shorter
 * horizon has not seen the rest of the day, and then it is the higher of
 * the peak of the plan's demand over the horizon and the service's
 * day_peak, the forecast's peak over the next 24 hours that the caller
 * gives (problem.h): a job started at night on a 6-hour horizon is charged
 * for the afternoon it would take GPUs from.  Either way it is capped at
 * max_gpus.
 *
 * The GPUs the services could have past the horizon are the pool's usable
 * GPUs less those that maintenance windows and advance reservations known
 * now will close at T + k (services never run on either), and a job is
 * counted for the GPUs of its block that are open then: a tenant's job on
 * its own reservation, or a pinned job under a window, takes nothing from
 * the services that the closure had not already taken.
 *
 * The pool's GPUs go to its services highest priority first, so GPUs held
 * by jobs displace the lowest-priority demand first, and only demand that
 * the pool's usable GPUs could have served counts: the charge is the
 * penalty of the shortfall with the jobs' GPUs minus the penalty without
 * them.  It is never negative, it is zero for a pool without services or
 * with GPUs to spare, and it does not depend on the services' GPUs inside
 * the horizon, so it cannot be avoided by a plan's last step: a step with
 * zero demand at T - 1 stands for the same time of the next day, not for
 * every step that follows.
 *
 * The sum stops after the last job ends, or once the decay has fallen to
 * 2^-40 of its value at the horizon's end (beyond that the charge is below
 * the rounding of the objective).
 */
#ifndef GPUALLOC_TERMINAL_H
#define GPUALLOC_TERMINAL_H

#include "model/plan.h"

/*
 * A maintenance window or advance reservation over the steps past the
 * horizon: GPUs [first_gpu, first_gpu + n_gpus) closed to services at
 * T + k for k in [from, to).
 */
typedef struct ga_terminal_closure
{
	int			pool;
	int			first_gpu;
	int			n_gpus;
	int			from;
	int			to;
} ga_terminal_closure;

typedef struct ga_terminal
{
	int			n_pools;
	int			steps;			/* K: steps T .. T + K - 1 are charged */
	int			period;			/* phases of the expected demand */
	int		   *usable;			/* [n_pools] usable GPUs per pool */
	int			n_closures;		/* closures reaching past the horizon */
	ga_terminal_closure *closures;
	/*
	 * Per pool, the steps past the horizon cut where closures begin or end:
	 * segment i of pool q starts at seg_k[i] (seg_first[q] <= i <
	 * seg_first[q + 1]) and closes seg_closed[i] of its usable GPUs.
	 */
	int		   *seg_first;		/* [n_pools + 1] */
	int		   *seg_k;
	int		   *seg_closed;
	int		   *order;			/* services by pool, highest priority first */
	int		   *pool_first;		/* [n_pools + 1]: ranges of order */
	int		   *expected;		/* [n_services * period] */
	int		   *pool_need;		/* [n_pools * period]: the pool's services'
								 * expected GPUs summed */
	int		   *expected_protect;	/* [n_services * period]: the same from
									 * the protect curve (protect_horizon.h) */
	double	   *weight;			/* [steps] penalty weight of step T + k:
								 * penalty * decay(T + k) */

	/*
	 * The protect rule's room past the horizon (protect_horizon.h), per
	 * pool q and count c of its first services in `order` a job is held
	 * from (0 .. their number): row pool_first[q] + q + c of `steps` ints,
	 * the pool's open GPUs at T + k less those services' expected protect
	 * curves.  NULL when the table would pass ROOM_TABLE_MAX ints; the
	 * room is then computed step by step.
	 */
	int		   *room_after;
	const ga_problem *problem;
} ga_terminal;

/* Build the terminal charge of a finished problem; NULL on out of memory. */
ga_terminal *ga_terminal_create(const ga_problem *problem);
void		ga_terminal_destroy(ga_terminal *tm);

/* Demand of service s expected at step T + k (k >= 0). */
int			ga_terminal_expected(const ga_terminal *tm, int s, int k);

/*
 * The steps past the horizon, as [*from, *to) in k (T + k), at which a run
 * over [start, end) holds its block and is charged; empty when from >= to.
 */
void		ga_terminal_range(const ga_terminal *tm, int start, int end,
							  int *from, int *to);

/* Protect curve of service s expected at step T + k, as for the demand. */
int			ga_terminal_expected_protect(const ga_terminal *tm, int s, int k);

/* Usable GPUs of a pool open to its services at step T + k. */
int			ga_terminal_open_in_pool(const ga_terminal *tm, int pool, int k);

/*
 * GPUs of block [first, first + size) that its pool's services could use
 * at step T + k: usable, and closed by no window or reservation then.
 */
int			ga_terminal_open_gpus(const ga_terminal *tm, int first, int size,
								  int k);

/*
 * The charge at step T + k of a pool in which jobs hold `held` of the GPUs
 * open then (ga_terminal_open_gpus summed over their blocks).
 */
double		ga_terminal_step_cost(const ga_terminal *tm, int pool, int k,
								  int held);

/*
 * What a run on block [first, first + size) over k in [from, to) adds to
 * the charge of a pool whose jobs hold held[k] open GPUs there.
 */
double		ga_terminal_delta(const ga_terminal *tm, int pool, const int *held,
							  int from, int to, int first, int size);

/*
 * Add (sign 1) or take off (-1) the open GPUs of block [first, first +
 * size) to held[k] over k in [from, to).
 */
void		ga_terminal_hold(const ga_terminal *tm, int *held, int from, int to,
							 int first, int size, int sign);

/*
 * The steps past the horizon, as [*from, *to) in k, at which job j of the
 * plan holds its block on *pool: over its estimated run, a pinned job to
 * pinned_end.  False when the plan leaves the job out.
 */
bool		ga_terminal_job_range(const ga_terminal *tm, const ga_plan *plan, int j,
								  int *pool, int *from, int *to);

/*
 * Each pool's batch GPUs open to its services at every step T + k, from
 * the plan's jobs over their estimated runs (pinned jobs to pinned_end)
 * [n_pools * tm->steps], for the caller to free; NULL on out of memory.
 */
int		   *ga_terminal_plan_held(const ga_terminal *tm, const ga_plan *plan);

/*
 * The charge of a whole plan (subtracted by ga_plan_objective); NAN on out
 * of memory.
 */
double		ga_terminal_cost(const ga_problem *problem, const ga_plan *plan);

#endif
