/*
 * milp.h — full mode: the time-indexed MILP of the model (docs/model.md, The model) solved with GLPK,
 * and its relaxation bound.
 *
 * ga_solve_full and ga_solve_bound (declared in solve.h) are the public
 * entry points.  This header adds a variant that also reports what the
 * solver did, for benchmarks and tests, and a fault-injection switch used
 * by the tests to prove that GLPK's internal errors are contained.
 *
 * The implementation is one file per concept, sharing milp_internal.h:
 * milp_model.c (the model's columns and rows, and the bounds that need no
 * search), milp_occupancy.c (bitsets of taken (GPU, step) cells),
 * milp_map.c (an aggregate schedule mapped onto aligned GPU blocks) and
 * milp_search.c (the GLPK run and the entry points), which ends with the
 * large-neighbourhood search of lns.h on the block-level model of
 * block_model.h.
 *
 * GLPK ownership: every call builds its own GLPK objects and releases all of
 * GLPK's memory (glp_free_env) before it returns, on every path.  No GLPK
 * object may therefore live across a call into this module; the core has no
 * other GLPK user.
 */
#ifndef GPUALLOC_MILP_H
#define GPUALLOC_MILP_H

#include "solve/solve.h"

typedef struct ga_milp_settings
{
	/*
	 * Test hook: once the model is loaded, make an invalid GLPK call so the
	 * error path (GLPK error hook, memory release, GA_ESOLVER) is exercised.
	 */
	bool		inject_solver_error;

	/*
	 * Largest aggregate model built, in (job, size, start) columns; 0: the
	 * default (a million).  Beyond it full mode searches without the
	 * model (set small in tests, to reach that path on small problems).
	 */
	int			max_start_columns;
} ga_milp_settings;

typedef struct ga_milp_stats
{
	int			n_columns;		/* structural columns of the model */
	int			n_rows;
	int			n_nonzeros;
	int			n_start_columns;	/* binary (job, size, start) columns */
	bool		model_too_large;	/* the aggregate model was refused (too
									 * many start columns): no LP bound, no
									 * branch and bound, only the search */
	double		fast_objective; /* objective of the warm start */
	double		lp_bound;		/* bound proved from the LP relaxation */
	double		bound;			/* bound reported with the plan */
	bool		lp_optimal;		/* the LP relaxation was solved to optimality */
	bool		mip_optimal;	/* branch and bound closed the MILP */
	int			improvements;	/* plans better than the warm start found */
	int			rejected;		/* mapped plans refused by the validator
								 * (a defect when not 0) */
	int			claims_refused; /* better plans refused for starting a job
								 * after the fast plan's first claim on its
								 * tenant's guarantee (model/first_claim.h) */
	int			past_refused;	/* better plans refused for a run that breaks
								 * the protect rule past the horizon
								 * (model/protect_horizon.h) */
	int			lns_neighbourhoods; /* neighbourhoods the search solved */
	double		model_ms;		/* building the model */
	double		lp_ms;			/* solving the LP relaxation */
	double		mip_ms;			/* branch and bound, heuristics included */
	double		total_ms;
	const char *source;			/* "fast", "lp-rounding", "milp" or "lns" */
} ga_milp_stats;

/*
 * ga_solve_full with extra settings (may be NULL) and statistics (may be
 * NULL).  Same contract as ga_solve_full.
 */
ga_status	ga_solve_full_ex(const ga_problem *problem,
							 const ga_solve_options *options,
							 const ga_milp_settings *settings,
							 ga_plan **out, ga_milp_stats *stats,
							 ga_error *err);

/*
 * Write the problem's MILP to path in free MPS format, for an independent
 * solver to bound (milp_export.c); with protect_rule, the model with
 * protect chains, which bounds the planners' plans only.  MPS has no objective sense, so the file
 * minimises the negated objective without its constant: every legal plan's
 * objective is at most *constant minus the file's optimum, and so at most
 * *constant minus any lower bound another solver proves for the file.
 */
ga_status	ga_milp_write_mps(const ga_problem *problem, bool protect_rule,
							  const char *path, double *constant, ga_error *err);

/*
 * Upper bound on the objective of every plan the planners make: the LP
 * relaxation of the model with protect chains (milp_model.c), and of the
 * block-level models with the protect rule where they are small
 * (block_model.h); at most ga_solve_bound, and below it where the rule
 * costs value.
 */
ga_status	ga_milp_protected_bound(const ga_problem *problem,
									const ga_solve_options *options,
									double *bound, ga_error *err);

#endif
