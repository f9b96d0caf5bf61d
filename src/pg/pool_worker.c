/*
 * pool_worker.c — a pool solver: a dynamic background worker that solves
 * independent parts of a plan run's problem and hands their plans back.
 *
 * The leader (pool_solve.c) starts it with the handle of the run's shared
 * segment and its solver number.  Until every part is claimed, it claims
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

static bool
solver_should_stop(void *arg)
{
	GaPoolShared *shared = (GaPoolShared *) arg;

	return ProcDiePending || pg_atomic_read_u32(&shared->abandoned) != 0;
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
solve_slot(GaPoolShared *shared, int i)
{
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
	options.cancel_arg = shared;
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

void
gpualloc_pool_worker_main(Datum main_arg)
{
	dsm_segment *seg;
	GaPoolShared *shared;
	int			solver_no;
	int			i;
	char		activity[128];

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	memcpy(&solver_no, MyBgworkerEntry->bgw_extra, sizeof(int));

	/* no database: only a session, so pg_stat_activity lists the solver */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	SetConfigOption("search_path", GPUALLOC_SEARCH_PATH, PGC_SUSET, PGC_S_OVERRIDE);

	CurrentResourceOwner = ResourceOwnerCreate(NULL, "gpualloc pool solver");
	seg = dsm_attach(DatumGetUInt32(main_arg));
	if (seg == NULL)
		proc_exit(0);			/* the leader is gone already: nothing to do */
	shared = (GaPoolShared *) dsm_segment_address(seg);
	if (shared->magic != GA_POOL_SHARED_MAGIC || solver_no < 0 || solver_no >= shared->n_solvers)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpualloc pool solver: the shared memory of the plan run is not what it expects")));
	while (!solver_should_stop(shared) && (i = ga_pool_claim(shared)) >= 0)
	{
		GaPoolSlot *slot = &shared->slots[i];

		snprintf(activity, sizeof(activity), "solving part %d of %d (%s)",
				 slot->part + 1, shared->n_parts, shared->mode);
		pgstat_report_activity(STATE_RUNNING, activity);
		solve_slot(shared, i);
	}
	pgstat_report_activity(STATE_IDLE, NULL);
	dsm_detach(seg);
	proc_exit(0);
}
