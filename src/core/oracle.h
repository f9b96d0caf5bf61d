/*
 * oracle.h — an upper bound on what any policy can achieve over a
 * scenario's window, with perfect knowledge of work, demand and arrivals.
 *
 * The model is time-indexed.  Job j may start at any step s from its
 * release r_j (its submit rounded up to a step boundary, the first step the
 * simulator lets it start) to the window's last step, at any legal size g
 * (a power of two in [gpus_min, gpus_max], at most the largest power of two
 * in its pool).  A start (j, g, s) is a column y >= 0 that holds g GPUs of
 * the pool in every step from s to min(s + d_jg, T), where d_jg =
 * max(1, ceil(work_j / g)) is the job's true duration, computed exactly as
 * the simulator computes it.  Rows:
 *
 *   sum_(g,s) y(j,g,s) <= 1                 each job starts at most once
 *   sum of g y over the starts holding      per pool and step: batch GPUs
 *     step t [+ served(t)] <= G_pool        plus served GPUs fit the pool
 *   same sum over starts with g >= b        per pool, step and block size b
 *     <= b floor(G_pool / b)                that does not divide G_pool
 *
 * Why every real run satisfies it: a real job starts once, at one size, no
 * earlier than its release and inside the window, runs without gaps for
 * exactly its true duration (the window cutting it off at T), and every
 * GPU serves one workload per step; so y = 1 on the start it made and 0
 * elsewhere meets the first two rows.  A job of b GPUs or more sits on whole
 * aligned blocks of b inside its pool, which has floor(G / b) of them, so
 * the third holds too.  Each real run is therefore an integer point of the
 * model, and its metric is the model's objective at that point:
 *
 *   value            priority_j g (min(s + d, T) - s), services left out
 *                    (serving them can only take capacity away)
 *   utilisation      g (min(s + d, T) - s), plus served(s, t) <= the
 *                    service's true demand capped at max_gpus
 *   completed value  priority_j g d, offered only for starts with
 *                    s + d <= T (a job that ends later earns nothing here,
 *                    and leaving it out only frees capacity)
 *   completed jobs   1 for the same starts; a run completes a whole number
 *                    of jobs, so the bound is rounded down
 *   coverage, unmet  every service given its true demand up to max_gpus
 *
 * The relaxation solved is the linear one (y fractional), by column
 * generation: a restricted model in GLPK gives duals pi >= 0 on the
 * capacity rows, and pricing every start at those duals gives the
 * Lagrangian bound
 *
 *   L(pi) = sum_rows pi x rhs + sum_j max(0, max_(g,s) c - pi A)
 *           [+ sum served_cap x max(0, 1 - pi), utilisation]
 *
 * which is >= the objective of every integer point for ANY pi >= 0 (the
 * dualised rows hold at that point with slack >= 0).  The oracle reports
 * the smallest L seen, so its validity depends neither on the solver's
 * accuracy nor on the column generation converging; a time limit per
 * program only loosens it.  At convergence L equals the LP optimum.
 *
 * Blocks staying the same over time, contiguity across nodes, churn limits
 * and integrality are dropped.  Each bound is separate: one policy need not
 * reach them all at once.  Completed value is also capped by the value
 * bound.  Wait, churn and solve time have no bound (NAN).
 */
#ifndef GPUALLOC_ORACLE_H
#define GPUALLOC_ORACLE_H

#include "sim.h"

ga_status	ga_oracle(const ga_scenario *scn, ga_sim_result **out, ga_error *err);

#endif
