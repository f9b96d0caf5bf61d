/*
 * problem_split.h — a problem cut into independent parts, and the plans of
 * the parts put back together into one plan of the whole.
 *
 * Pools are linked when one workload may use GPUs of both (a job or a
 * service of several pools); the parts are the connected components of
 * that graph.  Every workload and every GPU belongs to exactly one part,
 * and the model has no rule and no term of the objective that spans two
 * parts (docs/model.md, Legal plans and Objective): the objective is a sum
 * over workloads, each counted only on the GPUs of its own pools.  So the
 * parts can be solved separately, in any order or at once, and the merged
 * plan is legal exactly when each part's plan is, with the sum of their
 * objectives.
 *
 * Every service names one pool, so each pool is a part of its own, except
 * that the pools of a job of several pools (ga_job.alt_pools) are one part,
 * and a job and its predecessors (ga_job.preds) are planned
 * together: a dependency across pools merges those pools into one part.
 *
 * Each part is a finished problem of its own, with its pools in the whole
 * problem's order and its GPUs, jobs and services numbered from 0 in the
 * whole problem's order, and maps from those numbers back to the whole
 * problem's.  Keeping the order keeps every tie-break of the solvers the
 * same within a part.
 */
#ifndef GPUALLOC_PROBLEM_SPLIT_H
#define GPUALLOC_PROBLEM_SPLIT_H

#include "model/plan.h"

typedef struct ga_part
{
	ga_problem *problem;		/* a finished problem of its own */
	int		   *pool_map;		/* [problem->n_pools] pool of the whole */
	int		   *gpu_map;		/* [problem->n_gpus] GPU of the whole */
	int		   *job_map;		/* [problem->n_jobs] job of the whole */
	int		   *service_map;	/* [problem->n_services] service of the whole */
} ga_part;

typedef struct ga_split
{
	int			n_parts;		/* ordered by their first pool */
	ga_part    *parts;
} ga_split;

/*
 * Cut a finished problem into its independent parts (one part when nothing
 * can be cut; none when the problem has no pool).  The caller destroys the
 * split with ga_split_destroy.
 */
ga_status	ga_problem_split(const ga_problem *problem, ga_split **out,
							 ga_error *err);

void		ga_split_destroy(ga_split *split);

/*
 * The groups of pools as a union-find over pool indexes (parent[q] = q for
 * every pool to start): a pool's group is named by its root, the smallest
 * index of the group.  Join returns whether the two were apart.
 */
int			ga_pool_group_root(int *parent, int q);
bool		ga_pool_groups_join(int *parent, int a, int b);

/*
 * One plan of the whole problem from a plan of each part (plans[i] for
 * split->parts[i]): the grids and placements mapped back, the objective
 * recomputed on the whole, the bound the sum of the parts' bounds (NAN when
 * one is unknown), the gap from those, the solve time the longest part's.
 * Every part's plan must be of one mode.  The caller destroys the plan.
 */
ga_status	ga_plan_merge(const ga_problem *problem, const ga_split *split,
						  ga_plan *const *plans, ga_plan **out, ga_error *err);

#endif
