/*
 * chain.h — planning jobs that wait for other jobs (docs/model.md,
 * Dependencies).
 *
 * Every planner goes through here when its problem has dependencies.  A job
 * whose predecessors have all started (are pinned) is *ready*: the planner
 * places it like any job, never before the latest of those predecessors'
 * planned ends.  A job with a predecessor that has not started yet is
 * *waiting*: it is kept out of the planner's problem and placed afterwards,
 * in topological order, highest priority first, on the earliest aligned
 * block left free (largest size first at that step) that starts at or
 * after every predecessor's planned end; when a predecessor is not placed,
 * neither is it.  A waiting job therefore never starts at step 0, so the
 * step a plan commits never starts a job before its predecessors really
 * ended.  Waiting jobs see only the GPUs the planner left idle, so the plan
 * stays legal (rule R7 included) whatever the planner did.
 */
#ifndef GPUALLOC_CHAIN_H
#define GPUALLOC_CHAIN_H

#include "model/plan.h"

/* A planner of a problem without dependencies; arg is passed through. */
typedef ga_status (*ga_chain_planner) (const ga_problem *ready, void *arg,
									   ga_plan **out, ga_error *err);

/* True when some job that is not pinned has a predecessor. */
bool		ga_chain_needed(const ga_problem *problem);

/*
 * Plan a finished problem with dependencies: `planner` plans the ready
 * jobs, then the waiting jobs are placed.  The plan's objective is that of
 * the whole; its bound, when the planner gave one, is the planner's plus,
 * per waiting job, priority * (work + gpus_max), more than the job can earn
 * in any plan.  The caller destroys the plan.
 */
ga_status	ga_chain_solve(const ga_problem *problem, ga_chain_planner planner,
						   void *arg, ga_plan **out, ga_error *err);

#endif
