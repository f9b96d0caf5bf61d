/*
 * heuristic.h — the fast solve mode (ga_solve_fast, declared in solve.h).
 *
 * Construction: pinned jobs are laid down first; the GPUs each service holds
 * now are set aside for it (each only as long as the service's churn limit
 * would need to hand it over); then every other claim is served in one
 * order that sees all queued jobs at once: descending value density
 * (priority per GPU-step for a job, penalty * priority for a service's
 * shortfall), so a service yields only to batch work worth more than the
 * demand it would leave unmet.  A job takes, among its allowed sizes, the
 * placement of highest value at its earliest feasible step; among the
 * aligned blocks free then it prefers one inside a larger block already
 * partly used by batch work (best fit, so whole blocks stay free for large
 * jobs), then the one leaving the shortest idle gap before it, then the
 * lowest: batch work packs from the low end of the pool.  A job's value is
 * that of its whole run (ga_job_tail_value past the horizon), so of two
 * equal jobs the shorter goes first.  A service follows its demand from the
 * high end of its pool, ramping up ahead of a rise by at most churn_limit per
 * step and keeping its physical GPUs; short of free GPUs, it borrows one that
 * another claim takes later, when the handover then fits its churn limit.
 * Replacements for GPUs taken from it at the next step come up a step
 * ahead where that step's churn limit would leave no room for them.
 * Every rule is enforced while placing, so the grid is legal.  A job is
 * placed only where the protect rule allows (model/problem.h,
 * ga_protect_room): per pool and step, batch work over estimated runs
 * within the room the services' protect curves leave, past the horizon too
 * (model/protect_horizon.h), and over runs lengthened by the overrun
 * margin within the room their demand leaves.
 * The finished plan hands services their headroom (headroom.h).
 *
 * A job goes in only where it raises the objective: its run is worth more
 * than what the GPUs it holds past the horizon take from the services there
 * (model/terminal.h).  Blocks are found through an index per pool
 * (heuristic.c) whose cost follows the free space, not the pool's size.
 *
 * Improvement, while the work budget lasts (in this order): rebuild with
 * other order variants (other tie-breaks; release order); rebuild with a job
 * that earns less than it could alone promoted to the head of the jobs (a
 * reservation for it, the others placed around it; never ahead of a
 * service: see promote_pass); rebuild with a scheduled job
 * moved to the end of the order (it may have taken the block two others
 * needed); move jobs earlier or resize them;
 * insert jobs that did not fit; exchange a job's place with another's.
 * Only changes that raise the objective are kept; a local move's change is
 * counted from the jobs it touches (the grid's objective is kept up to date
 * move by move), not by scoring the grid again.
 *
 * Determinism: nothing in the result's path looks at the clock.  The
 * improvement phase is a fixed sequence of moves bounded by GA_FAST_MAX_ROUNDS
 * rounds, GA_FAST_MAX_MOVES evaluations and a work budget counted in work
 * units (blocks and GPU-steps looked at), so the plan depends on the input
 * alone, on any machine under any load.  options->time_limit_ms is only a
 * safety cap: a run it ends reports stats->clock_capped (and not
 * converged).
 */
#ifndef GPUALLOC_HEURISTIC_H
#define GPUALLOC_HEURISTIC_H

#include "solve/solve.h"

#define GA_FAST_MAX_ROUNDS 8
#define GA_FAST_MAX_MOVES 200000

/*
 * Work budget of the improvement phase by default (options->work_limit
 * overrides it): GA_FAST_WORK_FLOOR units plus GA_FAST_WORK_FACTOR times the
 * first construction's work.  A unit is about one aligned block or one
 * GPU-step looked at (a few nanoseconds); the floor lets small problems,
 * whose construction is cheap, try the rebuilds that pay there; on large
 * ones the rebuilds seldom pay and the construction dominates.  Chosen with
 * make bench-solver (p50 under 1 ms at 64 GPUs, 20 ms at 1024 and 200 ms at
 * 10,000 GPUs on the development machine).
 */
#define GA_FAST_WORK_FACTOR 2
#define GA_FAST_WORK_FLOOR 80000

typedef struct ga_fast_stats
{
	double		construct_objective;	/* objective after the first build */
	int			rounds;			/* improvement rounds started */
	long		moves_tried;	/* improvement moves evaluated */
	long		moves_kept;		/* of which raised the objective */
	long		work;			/* work units spent, construction included */
	long		work_limit;		/* where the improvement phase had to end */
	bool		budget_spent;	/* the work budget ended the moves */
	bool		clock_capped;	/* the safety cap on the clock ended them */
	bool		converged;		/* stopped by its own limits (moves or
								 * work), not the clock */
} ga_fast_stats;

/* ga_solve_fast, also reporting how the improvement phase went (stats may be NULL). */
ga_status	ga_solve_fast_stats(const ga_problem *problem,
								const ga_solve_options *options,
								ga_plan **out, ga_fast_stats *stats,
								ga_error *err);

#endif
