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
 * the simulator computes it.  Service s may be served(s, t) GPUs at step
 * t, 0 <= served(s, t) <= u_st = min(its true demand, max_gpus, the
 * GPUs of its pool that no maintenance window or advance reservation closes
 * over step t).  Rows:
 *
 *   sum_(g,s) y(j,g,s) <= 1                 each job starts at most once
 *   sum of g y over the starts holding      per pool and step: batch GPUs
 *     step t [+ served(t)] <= G_pool        plus served GPUs fit the pool
 *   same sum over starts with g >= b        per pool, step and block size b
 *     <= b floor(G_pool / b)                that does not divide G_pool
 *   sum_(s,t) served(s, t) >= c* D          coverage floor (see below)
 *
 * Why every real run satisfies it: a real job starts once, at one size, no
 * earlier than its release and inside the window, runs without gaps for
 * exactly its true duration (the window cutting it off at T), and every
 * GPU serves one workload per step; so y = 1 on the start it made and 0
 * elsewhere meets the first two rows.  A job of b GPUs or more sits on whole
 * aligned blocks of b inside its pool, which has floor(G / b) of them, so
 * the third holds too.  A service is served min(held, demand), a plan
 * never holds more than max_gpus, and a run that keeps the windows (no
 * window violation) serves no service on a closed GPU, so served <= u_st.
 * Each real run is therefore an integer point of the model, and its metric
 * is the model's objective at that point:
 *
 *   value            priority_j g (min(s + d, T) - s)
 *   utilisation      g (min(s + d, T) - s) + served(s, t)
 *   completed value  priority_j g d, offered only for starts with
 *                    s + d <= T (a job that ends later earns nothing here,
 *                    and leaving it out only frees capacity)
 *   completed jobs   1 for the same starts; a run completes a whole number
 *                    of jobs, so the bound is rounded down
 *   coverage, unmet  every service given u_st
 *
 * The coverage row.  Left free, the value programs hand the services' GPUs
 * to jobs, which no policy meeting its coverage target can do, and the
 * bound is loose by exactly that.  So the value, completed value and
 * completed jobs programs bound only the runs whose coverage is at least a
 * floor c* (ga_oracle_options), through the last row above, where D is the
 * true demand in GPU-steps, not capped: the simulator's coverage is served
 * over that D, so a run with coverage >= c* serves at least c* D.  Served
 * GPU-steps earn nothing there; they only take capacity.  When c* D is
 * more than the pools can serve at all, sum_(p,t) min(G_p, sum_(s in p)
 * u_st), no run reaches c*: the floor is lowered to the reachable share and
 * the floor applied is reported.  With c* = 0 the row and the service
 * columns are left out, which is the unconstrained bound over every run.
 * Utilisation and coverage have no floor: they bound every run.
 *
 * The bound.  The linear relaxation (y fractional) is solved by column
 * generation: a restricted model in GLPK gives duals pi_r >= 0 on the
 * capacity rows r (rhs b_r) and mu >= 0 on the coverage row.  At any point
 * (y, served) of the model each dualised row has slack >= 0, so with
 * obj = c y + w sum served (w = 1 for utilisation, else 0)
 *
 *   obj <= obj + sum_r pi_r (b_r - A_r y - served_r) + mu (sum served - c* D)
 *        = sum_r pi_r b_r - mu c* D
 *          + sum_(j,g,s) (c - pi A)_(j,g,s) y(j,g,s)
 *          + sum_(s,t) (w + mu - pi_(pool(s),t)) served(s, t)
 *
 * (served_r: the served GPUs a pool row r counts; block rows count none).
 * Each job's starts sum to at most 1 and 0 <= served(s, t) <= u_st, so the
 * right side is at most
 *
 *   L(pi, mu) = sum_r pi_r b_r - mu c* D
 *               + sum_j max(0, max_(g,s) (c - pi A)_(j,g,s))
 *               + sum_(s,t) u_st max(0, w + mu - pi_(pool(s),t))
 *
 * which is >= the objective of every integer point, hence of every real
 * run (with coverage >= c* where the row is in), for ANY pi, mu >= 0; a
 * program without the row has mu = 0, and without service columns the last
 * term is 0.  The oracle reports the smallest L seen, so its validity
 * depends neither on the solver's accuracy nor on the column generation
 * converging; a time limit per program only loosens it.  At convergence L
 * equals the LP optimum.
 *
 * Blocks staying the same over time, contiguity across nodes, churn limits
 * and integrality are dropped.  Each bound is separate: one policy need not
 * reach them all at once.  Completed value is also capped by the value
 * bound (both over the same runs).  Wait, churn and solve time have no
 * bound (NAN).
 */
#ifndef GPUALLOC_ORACLE_H
#define GPUALLOC_ORACLE_H

#include "sim/scenario.h"
#include "sim/sim_result.h"

/* The benchmark's coverage target, the default floor. */
#define GA_ORACLE_COVERAGE_FLOOR 0.995

typedef struct ga_oracle_options
{
	double		coverage_floor; /* c* in [0, 1]; 0 bounds every run */
} ga_oracle_options;

void		ga_oracle_options_default(ga_oracle_options *opt);

/*
 * The bounds, value ones over the runs with coverage >= the floor.  The
 * floor applied (lower than asked only when no run can reach it) goes to
 * *floor_used unless that is NULL.
 */
ga_status	ga_oracle_bound(const ga_scenario *scn, const ga_oracle_options *opt,
							ga_sim_result **out, double *floor_used, ga_error *err);

#endif
