/*
 * pool_worker.c — a pool solver: a dynamic background worker that solves
 * independent parts of a plan run's problem and hands their plans back.
 *
 * The leader (pool_launch.c) starts it, often before the parts exist, with
 * the handle of the run's launch segment and its solver number; it waits
 * there until the leader publishes the parts' segment (or gives the
 * solvers up: then it exits).  Until every part is claimed, it claims
 * the next one, reads it, solves it in the run's mode with its share of
 * what is left of the run's time limit, writes the plan (or why it failed)
 * back into the part's slot and wakes the leader.  It runs no SQL and
 * opens no database: it joins the server without one, so it shows in
 * pg_stat_activity (as "gpualloc pool solver") and touches no table.  It
 * stops as soon as the leader abandons the run (an error, a cancel, or the
 * leader's exit detach the segment, which raises the abandoned flag) or it
 * is terminated.
 *
 * The library need not be preloaded: the postmaster loads it by name
 * (bgw_library_name) to start the worker.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/resowner.h"

#include "gpualloc_pg.h"
#include "pool_shared.h"
#include "model/serial.h"
#include "model/validate.h"
#include "solve/solve.h"

PGDLLEXPORT void gpualloc_pool_worker_main(Datum main_arg);

/* What a solver watches: the launch until the parts come, then both. */
typedef struct SolverSegments
{
	GaPoolLaunch *launch;
	GaPoolShared *shared;		/* NULL until published */
} SolverSegments;

static bool
solver_should_stop(void *arg)
{
	SolverSegments *segs = (SolverSegments *) arg;

	return ProcDiePending || pg_atomic_read_u32(&segs->launch->abandoned) != 0 ||
		(segs->shared != NULL && pg_atomic_read_u32(&segs->shared->abandoned) != 0);
}

/*
 * Publish a slot's outcome: its state last, after what it describes, then
 * wake the leader, which takes each plan as soon as it is there.
 */
static void
settle_slot(GaPoolShared *shared, GaPoolSlot *slot, int state)
{
	pg_write_barrier();
	slot->state = state;
	SetLatch(&GetPGProcByNumber(shared->leader_pgprocno)->procLatch);
}

static void
fail_slot(GaPoolShared *shared, GaPoolSlot *slot, ga_status rc, const char *what, const char *why)
{
	slot->status = rc;
	snprintf(slot->message, sizeof(slot->message), "%s (%s): %s", what, ga_status_name(rc), why);
	settle_slot(shared, slot, GA_SLOT_FAILED);
}

/*
 * Solve the part of slot i, claimed just now, with its share of the time
 * left and write its plan, or the failure, into the slot.
 */
static void
solve_slot(SolverSegments *segs, int i)
{
	GaPoolShared *shared = segs->shared;
	GaPoolSlot *slot = &shared->slots[i];
	char	   *base = (char *) shared;
	ga_solve_options options = {0};
	ga_problem *problem = NULL;
	ga_plan    *plan = NULL;
	ga_error	err;
	ga_status	rc;

	ga_error_clear(&err);
	rc = ga_problem_read(base + slot->problem_off, slot->problem_len, &problem, &err);
	if (rc != GA_OK)
	{
		fail_slot(shared, slot, rc, "reading the part", err.message);
		return;
	}
	options.time_limit_ms = ga_pool_time_share(shared, i, ga_now_ms());
	options.cancel = solver_should_stop;
	options.cancel_arg = segs;
	if (strcmp(shared->mode, "full") == 0)
		rc = ga_solve_full(problem, &options, &plan, &err);
	else
		rc = ga_solve_fast(problem, &options, &plan, &err);
	if (rc == GA_OK)
		rc = ga_plan_write(plan, base + slot->plan_off, slot->plan_cap, &err);
	if (rc == GA_OK)
	{
		slot->plan_len = ga_plan_serial_size(problem);
		settle_slot(shared, slot, GA_SLOT_SOLVED);
	}
	else
		fail_slot(shared, slot, rc, shared->mode, err.message);
	ga_plan_destroy(plan);
	ga_problem_destroy(problem);
}

/*
 * Attach the launch segment and wait until the leader publishes the parts'
 * segment: its handle, or 0 when the leader gave the solvers up.
 */
static dsm_handle
await_parts(SolverSegments *segs, int solver_no)
{
	dsm_handle	parts;

	if (segs->launch->magic != GA_POOL_LAUNCH_MAGIC || solver_no < 0 ||
		solver_no >= segs->launch->n_solvers)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpualloc pool solver: the launch segment of the plan run is not what it expects")));
	pg_atomic_write_u32(&segs->launch->solver_procno[solver_no], MyProc->pgprocno + 1);
	pg_memory_barrier();
	pgstat_report_activity(STATE_RUNNING, "waiting for the parts of the plan run");
	for (;;)
	{
		ResetLatch(MyLatch);
		if (solver_should_stop(segs))
			return 0;
		if ((parts = pg_atomic_read_u32(&segs->launch->parts)) != 0)
		{
			pg_read_barrier();
			return parts;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 1000,
						 PG_WAIT_EXTENSION);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Until every part is claimed: claim the next one and solve it. */
static void
solve_claims(SolverSegments *segs)
{
	GaPoolShared *shared = segs->shared;
	char		activity[128];
	int			i;

	while (!solver_should_stop(segs) && (i = ga_pool_claim(shared)) >= 0)
	{
		GaPoolSlot *slot = &shared->slots[i];

		snprintf(activity, sizeof(activity), "solving part %d of %d (%s)",
				 slot->part + 1, shared->n_parts, shared->mode);
		pgstat_report_activity(STATE_RUNNING, activity);
		solve_slot(segs, i);
	}
}

void
gpualloc_pool_worker_main(Datum main_arg)
{
	dsm_segment *launch_seg;
	dsm_segment *parts_seg;
	SolverSegments segs = {0};
	int			solver_no;
	dsm_handle	parts;

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	memcpy(&solver_no, MyBgworkerEntry->bgw_extra, sizeof(int));

	/* no database: only a session, so pg_stat_activity lists the solver */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	SetConfigOption("search_path", GPUALLOC_SEARCH_PATH, PGC_SUSET, PGC_S_OVERRIDE);

	CurrentResourceOwner = ResourceOwnerCreate(NULL, "gpualloc pool solver");
	launch_seg = dsm_attach(DatumGetUInt32(main_arg));
	if (launch_seg == NULL)
		proc_exit(0);			/* the leader is gone already: nothing to do */
	segs.launch = (GaPoolLaunch *) dsm_segment_address(launch_seg);
	parts = await_parts(&segs, solver_no);
	parts_seg = parts != 0 ? dsm_attach(parts) : NULL;
	if (parts_seg != NULL)
	{
		segs.shared = (GaPoolShared *) dsm_segment_address(parts_seg);
		if (segs.shared->magic != GA_POOL_SHARED_MAGIC)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("gpualloc pool solver: the shared memory of the plan run is not what it expects")));
		solve_claims(&segs);
		dsm_detach(parts_seg);
	}
	pgstat_report_activity(STATE_IDLE, NULL);
	dsm_detach(launch_seg);
	proc_exit(0);
}
