/*
 * lns.h — full mode's large-neighbourhood search (docs/model.md, Solve
 * modes: full).
 *
 * Starting from a legal plan, the search repeatedly frees a neighbourhood
 * (a range of GPUs of one pool, a range of steps, the jobs placed inside
 * them and jobs still waiting) and decides it again exactly with the
 * block-level model (block_model.h), keeping a result only when the
 * validator accepts it and the objective rises.  A pool whose whole model
 * is small is solved outright first.  Neighbourhoods follow a fixed
 * pseudo-random sequence; the clock only decides how many are tried.
 */
#ifndef GPUALLOC_LNS_H
#define GPUALLOC_LNS_H

#include "solve/solve.h"

typedef struct ga_lns_stats
{
	int			neighbourhoods; /* solved with GLPK */
	int			improvements;	/* plans kept */
	int			rejected;		/* plans the validator refused (a defect
								 * when not 0) */
	int			past_refused;	/* better plans that broke the protect rule
								 * past the horizon (model/protect_horizon.h) */
	int			pools_outright; /* pools whose whole model was solved to
								 * optimality (steps from from_step) */
} ga_lns_stats;

/*
 * Improve *best (legal, owned by the caller; replaced by a better plan)
 * until the clock reaches t_end (ga_now_ms), the options' cancel callback
 * fires (GA_ECANCEL, *best unchanged from the last kept plan) or nothing is
 * left to try.  Steps before from_step stay as *best has them: no job
 * starts there that does not already, none that does moves, and services
 * keep their GPUs there (0 re-decides the whole plan).  A job with
 * claim_start[j] >= 0 (a first claim on its tenant's guarantee,
 * model/first_claim.h) is never freed, so it keeps its start; claim_start
 * may be NULL.  stats may be NULL.
 */
ga_status	ga_lns_improve(const ga_problem *problem, ga_plan **best,
						   int from_step, const int *claim_start, double t_end,
						   const ga_solve_options *options,
						   ga_lns_stats *stats, ga_error *err);

#endif
