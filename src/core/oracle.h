/*
 * oracle.h — an upper bound on what any policy can achieve over a
 * scenario's window, from linear programs in GLPK with perfect knowledge.
 *
 * The relaxation drops the rules that make scheduling hard and keeps only
 * what no execution can escape.  Per pool, the window is cut into intervals
 * at every job's first possible start step (its submit rounded up to a step
 * boundary), and job j gets a variable x(j,i) >= 0, its GPU-steps in
 * interval i, for the intervals at or after its release:
 *
 *   x(j,i) <= cap_j x len(i)          cap_j = gpus_max, at most the largest
 *                                     power of two in the pool
 *   sum_j x(j,i) [+ served] <= G x len(i)   per pool and interval
 *   sum_i x(j,i) <= U_j               U_j = max over allowed sizes g of
 *                                     g x ceil(work_j / g): the GPU-steps a
 *                                     run at g occupies, rounding included
 *
 * Blocks, alignment, contiguity, non-preemption, fixed sizes and the churn
 * limit are all dropped, and steps inside an interval share one capacity.
 *
 * Why every real policy is <= the oracle: take what a policy really did and
 * let x(j,i) be the GPU-steps job j ran in interval i.  A job ran only after
 * its submit, on at most gpus_max GPUs at a time, inside its pool, and every
 * GPU served at most one workload per step, so each inequality above holds:
 * the execution is a feasible point of the LP.  Its value (or busy
 * GPU-steps) is the LP objective at that point, which cannot exceed the LP
 * maximum.  The same argument holds for each bound:
 *
 *   value            max sum priority_j x(j,i) x step_hours (services are
 *                    left out: serving them can only take capacity away)
 *   utilisation      max (sum x + sum served) / (GPUs x steps), with
 *                    served(s,i) <= the service's true demand, capped at
 *                    max_gpus, summed over the interval
 *   completed value  max sum priority_j U_j z_j, z_j in [0, 1],
 *                    sum_i x(j,i) >= work_j z_j: a job that finished ran at
 *                    least its work, so z_j = 1 is feasible for it, and it
 *                    earned at most priority_j U_j
 *   completed jobs   the same with weight 1
 *   coverage, unmet  every service given its true demand up to max_gpus
 *
 * Each bound is separate: one policy need not reach them all at once.  Wait
 * and churn have no bound here (NAN), nor solve time.
 */
#ifndef GPUALLOC_ORACLE_H
#define GPUALLOC_ORACLE_H

#include "sim.h"

ga_status	ga_oracle(const ga_scenario *scn, ga_sim_result **out, ga_error *err);

#endif
