/*
 * solve.h — the two solve modes and the relaxation bound.
 *
 *   fast  (heuristic.c): constructive, legal by construction, deterministic;
 *         improves its grid within a work budget (options->work_limit),
 *         never by the clock: options->time_limit_ms (default 10 s) is only
 *         a safety cap, reported in ga_fast_stats when it ends a solve.
 *   full  (milp.h; milp_model.c, milp_map.c, milp_search.c): the
 *         time-indexed MILP in GLPK, warm-started with the fast grid, under
 *         options->time_limit_ms; never worse than fast; reports the
 *         LP-relaxation bound and the gap.
 *
 * Every function returns GA_OK and a plan the caller destroys, or an error
 * code with a message; on error *out is NULL and nothing leaks.
 */
#ifndef GPUALLOC_SOLVE_H
#define GPUALLOC_SOLVE_H

#include "model/plan.h"

typedef struct ga_solve_options
{
	double		time_limit_ms;	/* fast: a safety cap on the clock only;
								 * full: MILP limit */
	long		work_limit;		/* fast: improvement work budget in work
								 * units; 0 = GA_FAST_WORK_FACTOR times
								 * the construction's work */
	ga_cancel_fn cancel;		/* may be NULL */
	void	   *cancel_arg;
} ga_solve_options;

#define GA_FAST_DEFAULT_MS 10000.0
#define GA_FULL_DEFAULT_MS 10000.0

ga_status	ga_solve_fast(const ga_problem *problem, const ga_solve_options *options,
						  ga_plan **out, ga_error *err);

ga_status	ga_solve_full(const ga_problem *problem, const ga_solve_options *options,
						  ga_plan **out, ga_error *err);

/* Upper bound on the objective of every legal plan (LP relaxation). */
ga_status	ga_solve_bound(const ga_problem *problem, const ga_solve_options *options,
						   double *bound, ga_error *err);

#endif
