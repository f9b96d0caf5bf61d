/*
 * validate.h — an independent check of a plan against every rule of the
 * model (docs/model.md, Legal plans), written without reference to how any solver builds its
 * grid, so it can judge them all.
 *
 * Rules, in the order they are checked (the first violation is reported):
 *   R1  every cell is GA_IDLE or a known workload, and the per-job placement
 *       arrays agree with the grid;
 *   R2  a scheduled job (job_size > 0) sits on an aligned power-of-two block
 *       inside one of its pools (its first or an alternative; its run
 *       lasts as long as that pool's work takes) with a size in [gpus_min, gpus_max] (pinned: its
 *       pinned size), on usable GPUs unless pinned; service GPUs lie in the
 *       service's pool and are usable;
 *   R3  a job holds exactly its block for every step of its run, clipped to
 *       the horizon, and nowhere else; pinned jobs sit exactly at their pin;
 *       other jobs start inside the horizon;
 *   R4  a job starts no earlier than its release and, with a deadline, ends
 *       by it (pinned jobs are exempt: they already run);
 *   R5  a service holds at most max_gpus per step; its churn (GPUs handed
 *       over between consecutive steps, and at step 0 against the GPUs it
 *       holds now when those are known, less those taken from it whatever
 *       the plan: ga_service_churn) stays within churn_limit each step and
 *       within churn_budget in total;
 *   R6  no job and no service holds a GPU inside a maintenance window, and no
 *       job's run reaches one on its block past the horizon (pinned jobs are
 *       exempt: they already run);
 *   R7  dependencies and time limits (jobs not pinned): a job is placed only
 *       when each of its predecessors is, and starts no earlier than each
 *       predecessor's planned end; a job with a time limit holds its block
 *       at no step at or past its start plus the limit.  The time-limit
 *       half is checked with each job, before R3's cell scan, so a run
 *       stretched past its limit is reported as such; the order half after
 *       every job and service passed R1-R6.
 *   R8  no service and no job of another tenant (or of none) holds a GPU
 *       inside an advance reservation, and no such job's run reaches one
 *       on its block past the horizon (pinned jobs are exempt: they
 *       already run); the reserved tenant's jobs may.
 *   R9  in a pool with tenant policies, a tenant's jobs never hold more
 *       GPUs at a step than its limit;
 *   R10 above its guarantee a tenant holds only GPUs no tenant is
 *       guaranteed, or (up to its borrow limit) idle guarantees of its
 *       own cohort (the excess formula is in model/tenant_quota.h).
 *       R9 and R10 exempt pinned jobs: new work never adds to what they
 *       exceed (model/validate_quota.h).
 */
#ifndef GPUALLOC_VALIDATE_H
#define GPUALLOC_VALIDATE_H

#include "model/plan.h"

/*
 * GA_OK when the plan is legal for the (finished) problem; otherwise
 * GA_EILLEGAL with the first violation, naming job or service, GPU and step.
 * GA_ENOMEM when scratch memory cannot be had.
 */
ga_status	ga_validate(const ga_problem *problem, const ga_plan *plan,
						ga_error *err);

/*
 * GPUs handed over by service s at step t: the size of the symmetric
 * difference between its GPU sets at t and t-1.  At step 0 the comparison is
 * with the held GPUs when they are known, and 0 otherwise.  Only the GPUs
 * of its pool are looked at (a service's cell outside it makes the plan
 * illegal, R2), so the cost is the pool's size, not the cluster's.
 */
int			ga_service_handovers(const ga_problem *problem, const ga_plan *plan,
								 int s, int t);

/*
 * Whether service s can hold GPU g at step t whatever the plan: g is a
 * usable GPU of the service's pool, open to services at t (no maintenance
 * window, no advance reservation), and no pinned job runs on it then.
 */
bool		ga_service_may_hold(const ga_problem *problem, const ga_plan *plan,
								int s, int g, int t);

/*
 * Of those, the GPUs the service had to give up whatever the plan: at step
 * t > 0, GPUs it held at t-1 that are closed to services at t (a
 * maintenance window or an advance reservation begins); at step 0, held
 * GPUs that are unusable (drained, down), outside its pool, closed at step
 * 0 or under a pinned job, and those it holds beyond max_gpus.
 */
int			ga_service_forced_handovers(const ga_problem *problem,
										const ga_plan *plan, int s, int t);

/*
 * Of the GPUs service s holds now (distinct), those it may keep at step 0
 * (ga_service_may_hold), at most max_gpus: where its churn at step 0
 * starts from.
 */
int			ga_service_held_kept(const ga_problem *problem, const ga_plan *plan,
								 int s);

/*
 * GPUs of service s's pool it may hold at step t - 1 but not at t (t > 0;
 * 0 otherwise): the most it can be made to give up at t, whatever the plan.
 * The aggregate models relax the churn rows by it.
 */
int			ga_service_closing_gpus(const ga_problem *problem, const ga_plan *plan,
									int s, int t);

/*
 * The churn R5 counts: handovers the plan chose, that is
 * ga_service_handovers less ga_service_forced_handovers.  A service is
 * never made to break its churn limit by GPUs taken from it: those
 * leave at once, and only their replacements count.
 */
int			ga_service_churn(const ga_problem *problem, const ga_plan *plan,
							 int s, int t);

/* Churn of service s summed over the horizon (step 0 only when held_known). */
int			ga_service_total_churn(const ga_problem *problem,
								   const ga_plan *plan, int s);

#endif
