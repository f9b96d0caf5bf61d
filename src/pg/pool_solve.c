/*
 * pool_solve.c — solve a plan run's independent pools at once, in dynamic
 * background workers, and merge their plans into one plan of the whole.
 *
 * Pools that share no job or service are separate problems (core
 * model/problem_split.h).  The leader (the backend running
 * gpualloc.replan() or the background planner) cuts the problem into its
 * parts and always solves the parts separately, so the plan does not depend
 * on how many processes solved them.  Up to gpualloc.max_parallel_pools
 * processes solve them at once: the leader counts as one and there is a
 * pool solver (pool_worker.c) for each of the others, started while the
 * problem was built (pool_launch.c) or, failing that, once it is split.
 * The leader writes every part, heaviest first, into one dynamic shared
 * memory segment, hands it to the solvers, and each
 * process, the leader included, claims the next part whenever it is free
 * and solves it.  Parts are not dealt out beforehand: on a machine whose
 * CPUs are shared, one process may run at half the speed of another for a
 * while, and a run with fixed shares would wait for the slower one; with
 * claims, the slower one simply solves fewer parts.  The leader solves the
 * parts it claims from its own copy, within the time limit, takes each
 * solver's plan as soon as it is written (not when the solver has
 * exited), merges and validates while the solvers exit, and waits until
 * they are gone.  The caller stores and commits the merged plan through
 * the one commit path, as for a plan solved in one piece: one run, one
 * commit, one notification.
 *
 * Failures:
 *   - a solver that cannot be started (no free worker slot), or that exits
 *     without a plan (it crashed or was terminated), costs only time: the
 *     leader solves its part itself, within what is left of the time limit;
 *   - a part whose solve fails (solver error) fails the whole solve, as a
 *     failing solve of the whole problem would: no plan, nothing committed,
 *     and replan's own fallback (full to fast) applies;
 *   - an error or cancel in the leader (statement_timeout, a cancel
 *     request, termination) abandons the run: the segment is detached,
 *     which raises the abandoned flag the solvers poll, and the solvers are
 *     terminated; the transaction aborts and the last committed allocation
 *     stays in force.
 */
#include "postgres.h"

#include <math.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/memutils.h"

#include "gpualloc_pg.h"
#include "pool_shared.h"
#include "model/problem_split.h"
#include "model/serial.h"
#include "model/validate.h"
#include "solve/solve.h"

/* Everything a run holds outside palloc, freed on every path. */
typedef struct PoolRun
{
	ga_split   *split;
	ga_plan   **plans;			/* [n_parts] */
	int		   *order;			/* parts, heaviest first */
	GaPoolSolvers *solvers;		/* NULL: the leader alone */
	int			n_solvers;		/* processes besides the leader */
	dsm_segment *seg;
	GaPoolShared *shared;
	bool	   *mine;			/* [n_parts] the leader's to solve */
	const char *mode;
	double		deadline_ms;	/* the run's time limit, on ga_now_ms */
} PoolRun;

static void
free_run(void *arg)
{
	PoolRun    *run = (PoolRun *) arg;

	if (run->plans != NULL && run->split != NULL)
		for (int k = 0; k < run->split->n_parts; k++)
			ga_plan_destroy(run->plans[k]);
	ga_split_destroy(run->split);
	run->split = NULL;
}

static void
destroy_plan_callback(void *arg)
{
	ga_plan_destroy((ga_plan *) arg);
}

static bool
leader_cancel_requested(void *arg)
{
	return QueryCancelPending || ProcDiePending;
}

/* Detaching the segment for any reason tells the solvers to stop. */
static void
abandon_on_detach(dsm_segment *seg, Datum arg)
{
	GaPoolShared *shared = (GaPoolShared *) DatumGetPointer(arg);

	pg_atomic_write_u32(&shared->abandoned, 1);
}

/* A part and its work, so the heaviest parts are claimed first. */
typedef struct PartWeight
{
	double		weight;
	int			part;
} PartWeight;

static int
compare_weight(const void *a, const void *b)
{
	const PartWeight *x = a;
	const PartWeight *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->part - y->part;
}

static void
order_parts(PoolRun *run)
{
	int			n = run->split->n_parts;
	PartWeight *w = palloc(sizeof(PartWeight) * n);

	for (int k = 0; k < n; k++)
	{
		const ga_problem *p = run->split->parts[k].problem;

		w[k].weight = ((double) p->n_gpus + p->n_jobs + p->n_services) * p->params.n_steps;
		w[k].part = k;
	}
	qsort(w, n, sizeof(PartWeight), compare_weight);
	run->order = palloc(sizeof(int) * n);
	for (int k = 0; k < n; k++)
		run->order[k] = w[k].part;
	pfree(w);
}

/*
 * How many processes solve at once, the leader counting as one.  Left to
 * the planner (-1): one per part, but no more than the online CPUs, since a
 * solve is CPU-bound and more processes than CPUs only take turns on them
 * (each extra one a process start, its caches thrashed by the others).
 * Each part is solved alone whoever claims it, so the number leaves the
 * plan as it is.
 */
int
ga_pool_processes_wanted(int n_parts)
{
	int			at_once = gpualloc_max_parallel_pools;

	if (at_once < 0)
	{
		long		cpus = sysconf(_SC_NPROCESSORS_ONLN);

		at_once = cpus >= 1 ? (int) Min(cpus, (long) n_parts) : n_parts;
	}
	return Max(Min(at_once, n_parts), 1);
}

/*
 * The segment: header, a slot per part (heaviest first), then each slot's
 * problem and plan areas.  Every part is written, since any process may
 * claim it.
 */
static void
create_segment(PoolRun *run)
{
	int			n = run->split->n_parts;
	Size		size = MAXALIGN(offsetof(GaPoolShared, slots) + sizeof(GaPoolSlot) * n);
	Size		at = size;
	char	   *base;

	for (int k = 0; k < n; k++)
	{
		const ga_problem *p = run->split->parts[k].problem;

		size += MAXALIGN(ga_problem_serial_size(p)) + MAXALIGN(ga_plan_serial_size(p));
	}
	run->seg = dsm_create(size, 0);
	base = dsm_segment_address(run->seg);
	run->shared = (GaPoolShared *) base;
	memset(base, 0, at);
	run->shared->magic = GA_POOL_SHARED_MAGIC;
	pg_atomic_init_u32(&run->shared->abandoned, 0);
	pg_atomic_init_u32(&run->shared->next_slot, 0);
	run->shared->leader_pgprocno = MyProc->pgprocno;
	strlcpy(run->shared->mode, run->mode, sizeof(run->shared->mode));
	run->shared->deadline_ms = run->deadline_ms;
	run->shared->n_parts = n;
	run->shared->n_solvers = run->n_solvers;
	on_dsm_detach(run->seg, abandon_on_detach, PointerGetDatum(run->shared));
	for (int i = 0; i < n; i++)
	{
		GaPoolSlot *slot = &run->shared->slots[i];
		const ga_problem *p;

		slot->part = run->order[i];
		p = run->split->parts[slot->part].problem;
		slot->problem_off = at;
		slot->problem_len = ga_problem_serial_size(p);
		if (ga_problem_write(p, base + at, slot->problem_len, NULL) != GA_OK)
			elog(ERROR, "gpualloc: could not write part %d into shared memory", slot->part);
		at += MAXALIGN(slot->problem_len);
		slot->plan_off = at;
		slot->plan_cap = ga_plan_serial_size(p);
		at += MAXALIGN(slot->plan_cap);
		slot->state = GA_SLOT_WAITING;
	}
}

/*
 * Solve part k in this backend within time_limit_ms.  False with the reason
 * in errbuf when the solve fails.
 */
static bool
solve_here(PoolRun *run, int k, double time_limit_ms, char *errbuf, size_t errlen)
{
	ga_solve_options options = {0};
	ga_error	err;
	ga_status	rc;

	options.time_limit_ms = time_limit_ms;
	options.cancel = leader_cancel_requested;
	ga_error_clear(&err);
	if (strcmp(run->mode, "full") == 0)
		rc = ga_solve_full(run->split->parts[k].problem, &options, &run->plans[k], &err);
	else
		rc = ga_solve_fast(run->split->parts[k].problem, &options, &run->plans[k], &err);
	CHECK_FOR_INTERRUPTS();
	if (rc != GA_OK)
	{
		snprintf(errbuf, errlen, "%s solve of part %d of %d failed (%s): %s", run->mode, k + 1,
				 run->split->n_parts, ga_status_name(rc), err.message);
		return false;
	}
	return true;
}

/*
 * Beside the solvers: claim the next part, solve it from the leader's own
 * copy, until every part is claimed.
 */
static bool
solve_claimed(PoolRun *run, char *errbuf, size_t errlen)
{
	int			i;

	while ((i = ga_pool_claim(run->shared)) >= 0)
	{
		int			k = run->shared->slots[i].part;

		run->mine[k] = true;
		if (!solve_here(run, k, ga_pool_time_share(run->shared, i, ga_now_ms()), errbuf, errlen))
			return false;
	}
	return true;
}

/*
 * Solve, one after another, every part marked as the leader's and not
 * solved, sharing what is left of the time limit evenly.
 */
static bool
solve_mine(PoolRun *run, char *errbuf, size_t errlen)
{
	int			left = 0;

	for (int k = 0; k < run->split->n_parts; k++)
		left += run->mine[k] && run->plans[k] == NULL;
	for (int i = 0; i < run->split->n_parts; i++)
	{
		int			k = run->order[i];

		double		share;

		if (!run->mine[k] || run->plans[k] != NULL)
			continue;
		share = (run->deadline_ms - ga_now_ms()) / left--;
		if (!solve_here(run, k, Max(share, 1.0), errbuf, errlen))
			return false;
	}
	return true;
}

/*
 * Take the plan a solver left in a slot.  A part left without a plan goes
 * to the leader; one whose solve failed fails the run.
 */
static bool
take_slot(PoolRun *run, GaPoolSlot *slot, char *errbuf, size_t errlen)
{
	const ga_problem *p = run->split->parts[slot->part].problem;
	ga_error	err;

	pg_read_barrier();
	if (slot->state == GA_SLOT_SOLVED &&
		ga_plan_read((char *) run->shared + slot->plan_off, slot->plan_len, p,
					 &run->plans[slot->part], &err) == GA_OK)
		return true;
	if (slot->state == GA_SLOT_FAILED && slot->status != GA_ECANCEL)
	{
		snprintf(errbuf, errlen, "%s solve of part %d of %d failed in its pool solver: %s", run->mode,
				 slot->part + 1, run->split->n_parts, slot->message);
		return false;
	}
	ereport(LOG,
			(errmsg("gpualloc: a pool solver exited without a plan; the planner solves part %d itself",
					slot->part + 1)));
	run->mine[slot->part] = true;
	return true;
}

/*
 * Take the plan of each part a solver settled and the leader has not taken
 * yet; with `stopped` (no solver runs any more), a part still waiting too,
 * as the leader's to solve.  False when a solver's solve failed (errbuf
 * says why).  *waiting: whether a part is left to wait for.
 */
static bool
take_settled(PoolRun *run, bool stopped, bool *waiting, char *errbuf, size_t errlen)
{
	*waiting = false;
	for (int i = 0; i < run->shared->n_parts; i++)
	{
		GaPoolSlot *slot = &run->shared->slots[i];

		if (run->mine[slot->part] || run->plans[slot->part] != NULL)
			continue;
		if (slot->state == GA_SLOT_WAITING && !stopped)
			*waiting = true;
		else if (!take_slot(run, slot, errbuf, errlen))
			return false;
	}
	return true;
}

/*
 * Take the plan of each part the leader did not solve itself as soon as
 * its solver writes it: a solver sets the latch when it settles a part, and
 * the postmaster when a solver exits (bgw_notify_pid).  A part still
 * waiting once no solver runs (its solver stopped) becomes the leader's.
 */
static bool
collect_solvers(PoolRun *run, char *errbuf, size_t errlen)
{
	bool		waiting;

	for (;;)
	{
		if (!take_settled(run, false, &waiting, errbuf, errlen))
			return false;
		if (!waiting)
			return true;
		if (!ga_pool_solvers_running(run->solvers))
			return take_settled(run, true, &waiting, errbuf, errlen);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Tell every solver still running to stop, without waiting. */
static void
signal_solvers(PoolRun *run)
{
	if (run->shared != NULL)
		pg_atomic_write_u32(&run->shared->abandoned, 1);
	ga_pool_solvers_signal(run->solvers);
}

/* Stop every solver still running and wait until it has exited. */
static void
stop_solvers(PoolRun *run)
{
	signal_solvers(run);
	ga_pool_solvers_finish(run->solvers);
}

/*
 * The parallel part of the run: start the solvers unless they were started
 * ahead, write the parts and hand them over, claim and solve parts beside
 * the solvers, collect, solve what a solver left.
 */
static bool
solve_parts(PoolRun *run, char *errbuf, size_t errlen)
{
	bool		ok;
	TimestampTz phase_start = GetCurrentTimestamp();

	if (run->solvers == NULL &&
		(run->solvers = ga_pool_solvers_start(ga_pool_processes_wanted(run->split->n_parts) - 1)) != NULL)
		ga_log_phase("started the pool solvers", &phase_start);
	run->n_solvers = ga_pool_solvers_count(run->solvers);
	if (run->n_solvers == 0)
	{
		memset(run->mine, true, sizeof(bool) * run->split->n_parts);
		return solve_mine(run, errbuf, errlen);
	}
	create_segment(run);
	ga_pool_solvers_publish(run->solvers, run->seg);
	ga_log_phase("wrote the parts into shared memory", &phase_start);
	ok = solve_claimed(run, errbuf, errlen);
	ga_log_phase("solved the parts the planner claimed", &phase_start);
	if (ok)
		ok = collect_solvers(run, errbuf, errlen);
	ga_log_phase("took the pool solvers' plans", &phase_start);
	if (ok)
		ok = solve_mine(run, errbuf, errlen);
	if (!ok)
		stop_solvers(run);
	return ok;
}

/* Merge the parts' plans and check the result as one plan of the whole. */
static ga_plan *
merge_plans(PoolRun *run, GaBuild *build, double t0, char *errbuf, size_t errlen)
{
	ga_plan    *plan = NULL;
	ga_error	err;
	MemoryContextCallback *cb;
	TimestampTz phase_start = GetCurrentTimestamp();

	if (ga_plan_merge(build->problem, run->split, run->plans, &plan, &err) != GA_OK)
	{
		snprintf(errbuf, errlen, "merging the plans of %d pool groups failed: %s", run->split->n_parts,
				 err.message);
		return NULL;
	}
	ga_log_phase("merged the parts' plans", &phase_start);
	if (ga_validate(build->problem, plan, &err) != GA_OK)
	{
		ga_plan_destroy(plan);
		snprintf(errbuf, errlen, "%s solve produced an illegal plan: %s", run->mode, err.message);
		return NULL;
	}
	ga_log_phase("validated the merged plan", &phase_start);
	plan->solve_ms = ga_now_ms() - t0;
	cb = palloc0(sizeof(MemoryContextCallback));
	cb->func = destroy_plan_callback;
	cb->arg = plan;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	return plan;
}

/*
 * Solve the build's problem in the given mode, its independent pools apart
 * and at once.  Same contract as ga_pg_solve: the plan (freed with the
 * caller's memory context), or NULL with the reason in errbuf.
 */
ga_plan *
ga_pg_solve_pools(GaBuild *build, const char *mode, double time_limit_ms,
				  GaPoolSolvers *solvers, char *errbuf, size_t errlen)
{
	double		t0 = ga_now_ms();
	PoolRun    *run = palloc0(sizeof(PoolRun));
	MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));
	ga_plan    *volatile plan = NULL;
	ga_error	err;

	run->solvers = solvers;
	if (ga_problem_split(build->problem, &run->split, &err) != GA_OK)
	{
		ga_pool_solvers_finish(solvers);
		snprintf(errbuf, errlen, "splitting the problem into independent pools failed: %s", err.message);
		return NULL;
	}
	cb->func = free_run;
	cb->arg = run;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	if (run->split->n_parts < 2)
	{
		ga_pool_solvers_finish(solvers);
		free_run(run);
		return ga_pg_solve(build, mode, time_limit_ms, errbuf, errlen);
	}
	run->mode = mode;
	run->deadline_ms = t0 + time_limit_ms;
	run->plans = palloc0(sizeof(ga_plan *) * run->split->n_parts);
	run->mine = palloc0(sizeof(bool) * run->split->n_parts);
	order_parts(run);
	PG_TRY();
	{
		if (solve_parts(run, errbuf, errlen))
			plan = merge_plans(run, build, t0, errbuf, errlen);
		/* merged while the solvers exit: none is left behind the run */
		ga_pool_solvers_finish(run->solvers);
	}
	PG_CATCH();
	{
		/* the solvers stop on the flag or the signal; the abort detaches the segment */
		signal_solvers(run);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (run->seg != NULL)
		dsm_detach(run->seg);
	run->seg = NULL;
	run->shared = NULL;
	free_run(run);
	return plan;
}
