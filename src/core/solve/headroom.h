/*
 * headroom.h — the last pass of both solve modes: each service is handed
 * idle GPUs of its pool up to its headroom target, so it can serve demand
 * above the forecast at once (docs/model.md, Protect curve and headroom).
 *
 * The target at step t is
 *
 *     d(t) + max(ceil(headroom * (protect(t) - d(t))), headroom_min)
 *
 * with d the demand and protect the protect curve, both capped at
 * max_gpus (the target too), raised ahead of its rises by churn_limit per
 * step; headroom_min counts only where d(t) > 0 (a service with no demand
 * at a step holds no GPU for it beyond what its protect curve asks).  A GPU
 * is taken only where it is idle in the plan (no job, no other service),
 * and only while both handovers it causes (taking it, and giving it back
 * when a job or another service needs it or the target falls) fit the
 * churn limit after the plan's own handovers.  A service with a churn
 * budget is left as it is: its budget is the plan's to spend.
 *
 * Only idle cells change, into cells of a service, so batch work and every
 * job's placement are untouched; the objective can only rise (a shortfall
 * below the demand shrinks, GPUs above it earn nothing and cost nothing).
 * A legal plan stays legal.
 */
#ifndef GPUALLOC_HEADROOM_H
#define GPUALLOC_HEADROOM_H

#include "model/plan.h"

/*
 * Add the headroom to a legal plan in place; recomputes plan->objective.
 * Returns false (the plan unchanged) only when out of memory.
 */
bool		ga_plan_add_headroom(const ga_problem *problem, ga_plan *plan);

/* Headroom target of service s at step t (see above, before the ramp). */
int			ga_headroom_target(const ga_problem *problem, int s, int t);

#endif
