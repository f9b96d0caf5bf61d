/*
 * block_model.h — the exact block-level model of one neighbourhood of a
 * plan, solved with GLPK (docs/model.md, Solve modes: full).
 *
 * A neighbourhood is a range of aligned GPUs of one pool, a range of steps
 * and a set of freed jobs.  Everything outside it stays as the plan has it:
 * other jobs, pinned jobs, the services' GPUs outside the range of GPUs or
 * of steps.  Inside it the model decides, with one binary variable per freed
 * job, aligned block and start step, and one per service, GPU and step,
 * where each freed job runs (or that it waits) and which GPUs each service
 * holds.  Its constraints are the rules of a legal plan that the
 * neighbourhood can break (one workload per cell, churn limit and budget,
 * max_gpus, windows and reservations, releases and deadlines, tenant
 * limits) and the protect rule; every integer solution is therefore a plan,
 * not an aggregate to be mapped.  Rule R10 (borrowing) and the terminal
 * charge between several freed jobs are not linear here: the caller keeps a
 * solution only when the validator accepts it and the full objective
 * (ga_plan_objective) rises.
 */
#ifndef GPUALLOC_BLOCK_MODEL_H
#define GPUALLOC_BLOCK_MODEL_H

#include "solve/solve.h"

typedef struct ga_neighbourhood
{
	int			pool;
	int			first_gpu;		/* global index, aligned to n_gpus inside
								 * the pool */
	int			n_gpus;			/* a power of two, or the whole pool */
	int			from_step;
	int			to_step;		/* exclusive */
	const bool *freed;			/* [n_jobs]: jobs of the pool whose place
								 * (or absence) is decided again */
} ga_neighbourhood;

typedef struct ga_block_result
{
	bool		optimal;		/* GLPK closed the search: the plan is the
								 * best of the neighbourhood (as modelled) */
	bool		found;			/* GLPK returned an integer solution */
} ga_block_result;

/*
 * Decide the neighbourhood of `plan` again.  *out is a new plan (the same
 * outside the neighbourhood) when GLPK found an integer solution within
 * time_limit_ms, else NULL.  max_size caps ga_block_size_estimate: a
 * bigger neighbourhood is refused with GA_EINVAL before anything is built.
 * A model built larger than time_limit_ms can load and scale (1 ms per
 * 1,000 nonzeros, none of it stopped by GLPK's limit) is not handed to
 * GLPK: *out is NULL, as when GLPK finds nothing.
 */
ga_status	ga_block_resolve(const ga_problem *problem, const ga_plan *plan,
							 const ga_neighbourhood *nb, double time_limit_ms,
							 long max_size, const ga_solve_options *options,
							 ga_plan **out, ga_block_result *result,
							 ga_error *err);

/*
 * Upper bound on the objective of every legal plan from the LP relaxation
 * of the block-level model of each whole pool, relaxed to the rules of a
 * legal plan (block_bound.c).  GA_EINVAL when a pool's model would exceed
 * max_size, or more than its share of time_limit_ms can load and scale
 * (1 ms per 1,000 nonzeros, estimated before the model is built and
 * counted after; none of it stopped by GLPK's limit), or a job names
 * several pools; *bound is HUGE_VAL unless GA_OK.
 * The simplex stops at time_limit_ms; the bound stays valid (weaker).
 */
ga_status	ga_block_bound(const ga_problem *problem, double time_limit_ms,
						   long max_size, double *bound, ga_error *err);

/* What ga_block_bound_with bounds, and how hard it tries. */
typedef struct ga_block_bound_spec
{
	double		time_limit_ms;	/* for all pools together */
	long		max_size;		/* GA_EINVAL when a pool's model is bigger */
	bool		protect_rule;	/* bound the planners' plans only: the
								 * protect rule's two tiers for the jobs it
								 * holds to every service of their pool */
	bool		branch;			/* branch and bound after each pool's LP,
								 * within the time left */
} ga_block_bound_spec;

/* ga_block_bound as the spec says; ga_block_bound is the LP, every legal plan. */
ga_status	ga_block_bound_with(const ga_problem *problem,
								const ga_block_bound_spec *spec, double *bound,
								ga_error *err);

/*
 * Write each pool's model of the bound (with or without the protect rule)
 * to "<prefix>-pool<q>.mps" in free MPS, for an independent solver.  As
 * ga_milp_write_mps, each file minimises its negated objective: every plan
 * the model covers has an objective of at most *constant minus the sum
 * over the files of a lower bound another solver proves for each.
 */
ga_status	ga_block_write_mps(const ga_problem *problem, bool protect_rule,
							   const char *prefix, double *constant,
							   ga_error *err);

/*
 * Size of the neighbourhood's model before any start is checked: the
 * nonzeros of every (job, size, block, start) it could have, which is what
 * building and solving it cost.  An estimate: where runs are long, each
 * start crosses many rows, and the model built has had up to 7 times as
 * many; what is set up in time is judged on the model's own count.
 */
long		ga_block_size_estimate(const ga_problem *problem,
								   const ga_neighbourhood *nb);

#endif
