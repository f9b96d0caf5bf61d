/*
 * pool_choice.h — a problem whose jobs of several pools are each held to
 * one of them (docs/model.md, Several pools).
 *
 * The full solve's MILP plans each job on one pool: it is given the
 * problem with every job of several pools fixed to the pool the fast plan
 * chose for it, so its warm start, the fast plan, stays legal and the full
 * plan is never worth less than it.  Job, GPU and service numbers are those
 * of the whole problem, so a plan of the fixed problem is a plan of the
 * whole, legal there and worth the same (a placed job keeps its pool and so
 * its duration).
 */
#ifndef GPUALLOC_POOL_CHOICE_H
#define GPUALLOC_POOL_CHOICE_H

#include "model/plan.h"

/* True when some job names more than one pool. */
bool		ga_problem_has_pool_choice(const ga_problem *problem);

/*
 * A finished copy of a finished problem in which each job of several pools
 * has one pool: the one `plan` places it on, its first pool when the plan
 * leaves it out.  The caller destroys the copy.
 */
ga_status	ga_problem_fix_pools(const ga_problem *problem, const ga_plan *plan,
								 ga_problem **out, ga_error *err);

#endif
