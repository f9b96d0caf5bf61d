/*
 * plan.h — a plan: for every GPU and step at most one workload.
 *
 * The grid is the plan's truth; the per-job placement arrays are kept in step
 * with it by the solvers so callers need not scan the grid.  Objective, bound
 * and gap are filled by the solver that produced the plan.
 */
#ifndef GPUALLOC_PLAN_H
#define GPUALLOC_PLAN_H

#include "model/problem.h"

#define GA_IDLE (-1)

typedef struct ga_plan
{
	int			n_gpus;
	int			n_steps;
	int			n_jobs;
	int			n_services;
	int32_t    *cell;			/* [n_gpus * n_steps], GA_IDLE or a workload */

	/* Per job: -1 when not scheduled inside the horizon. */
	int		   *job_start;		/* may be negative for pinned jobs */
	int		   *job_size;
	int		   *job_first_gpu;

	double		objective;		/* ga_plan_objective of this grid */
	double		bound;			/* upper bound on any legal plan's objective;
								 * NAN when unknown */
	double		gap;			/* (bound - objective) / max(|bound|, 1e-9);
								 * NAN when unknown */
	double		solve_ms;
	const char *mode;			/* "fast" or "full" (static string) */
} ga_plan;

ga_plan    *ga_plan_create(const ga_problem *problem);
void		ga_plan_destroy(ga_plan *plan);
ga_plan    *ga_plan_copy(const ga_plan *plan);

static inline int32_t
ga_plan_get(const ga_plan *plan, int gpu, int step)
{
	return plan->cell[(size_t) gpu * plan->n_steps + step];
}

static inline void
ga_plan_set(ga_plan *plan, int gpu, int step, int32_t workload)
{
	plan->cell[(size_t) gpu * plan->n_steps + step] = workload;
}

/*
 * Place job j on [first, first+size) for its duration from start (clipped to
 * the horizon) and record it in the placement arrays.  No legality check:
 * callers construct legal placements; the validator checks them.
 */
void		ga_plan_place_job(ga_plan *plan, const ga_problem *problem, int j,
							  int start, int first, int size);

/*
 * The step job j's run as placed ends at (exclusive): a running job's
 * pinned end, else its start plus its duration on the pool of its block.
 * The job must be placed (job_size[j] > 0).
 */
int			ga_plan_job_end(const ga_problem *problem, const ga_plan *plan, int j);

/*
 * Objective (docs/model.md, Objective) of this grid: batch value, with each job's work
 * past the horizon credited by ga_job_tail_value, minus the shortfall
 * penalty inside the horizon, minus the charge for the demand that jobs
 * holding GPUs past the horizon displace there (ga_terminal_cost); NAN on
 * out of memory.
 */
double		ga_plan_objective(const ga_problem *problem, const ga_plan *plan);

/* GPUs allocated to service s at step t (count of grid cells). */
int			ga_plan_service_gpus(const ga_problem *problem, const ga_plan *plan,
								 int s, int t);

#endif
