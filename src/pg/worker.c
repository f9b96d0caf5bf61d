/*
 * worker.c — the background planner.
 *
 * Registered when the library is preloaded.  Every gpualloc.replan_interval,
 * and shortly after a wake-up request (a GPU went down, a job ended early),
 * it refreshes the queued jobs' estimates, runs a full solve (falling back to
 * fast) and commits step 0, in one transaction.  An error rolls that
 * transaction back, so the last committed allocation stays in force; it is
 * then recorded in plan_runs from a fresh transaction and the loop carries
 * on.  On a standby, or while the extension is not installed, it idles.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "gpualloc_pg.h"

PGDLLEXPORT void gpualloc_worker_main(Datum arg);

PG_FUNCTION_INFO_V1(gpualloc_request_replan);
PG_FUNCTION_INFO_V1(gpualloc_planner_next_run);
PG_FUNCTION_INFO_V1(gpualloc_planner_pid);

/* How soon the worker looks again for an extension not yet installed. */
#define EXTENSION_RECHECK_MS 10000

/* How often expired bookings are looked for between runs. */
#define HOUSEKEEPING_MS 5000
/* waits before opening a database that could not be opened twice in a row */
#define CONNECT_RETRY_FIRST_MS 5000
#define CONNECT_RETRY_MAX_MS (5 * 60 * 1000)

bool		gpualloc_enabled = true;
int			gpualloc_replan_interval_s = 30 * 60;
int			gpualloc_replan_debounce_s = 10;
int			gpualloc_replan_retry_s = 60;

/* What backends share with the worker: its latch and a pending wake-up. */
typedef struct GaShared
{
	pg_atomic_uint32 wake_requested;
	int			worker_pgprocno;	/* -1 while no worker runs */
	pg_atomic_uint64 next_run_due;	/* TimestampTz of the next run; 0 unknown */
	pg_atomic_uint32 connect_attempts;	/* to open gpualloc.database, in a row
										 * without success */
} GaShared;

static GaShared *ga_shared = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
ga_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(MAXALIGN(sizeof(GaShared)));
}

static void
ga_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ga_shared = ShmemInitStruct("gpualloc", sizeof(GaShared), &found);
	if (!found)
	{
		pg_atomic_init_u32(&ga_shared->wake_requested, 0);
		pg_atomic_init_u64(&ga_shared->next_run_due, 0);
		pg_atomic_init_u32(&ga_shared->connect_attempts, 0);
		ga_shared->worker_pgprocno = -1;
	}
	LWLockRelease(AddinShmemInitLock);
}

static void
define_worker_gucs(void)
{
	DefineCustomStringVariable("gpualloc.database", "Database the background planner works in.",
							   NULL, &gpualloc_database, "postgres", PGC_POSTMASTER, 0,
							   NULL, NULL, NULL);
	DefineCustomBoolVariable("gpualloc.enabled", "Whether the background planner plans.",
							 "When off it stays idle; replan() still works.",
							 &gpualloc_enabled, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpualloc.replan_interval", "Time between background planning runs.",
							NULL, &gpualloc_replan_interval_s, 30 * 60, 1, 24 * 3600,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("gpualloc.replan_debounce",
							"Delay between a wake-up request and the run it triggers.",
							"Requests arriving within it are served by one run.",
							&gpualloc_replan_debounce_s, 10, 0, 3600,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("gpualloc.replan_retry",
							"Delay before the background planner tries again after a failed run.",
							"Doubles with each failure in a row, up to gpualloc.replan_interval; "
							"0 waits for the interval.",
							&gpualloc_replan_retry_s, 60, 0, 24 * 3600,
							PGC_SIGHUP, GUC_UNIT_S, NULL, NULL, NULL);
}

/* Called from _PG_init while shared_preload_libraries is processed. */
void
ga_worker_register(void)
{
	BackgroundWorker worker;

	define_worker_gucs();
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = ga_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = ga_shmem_startup;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = 5;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpualloc");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "gpualloc_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "gpualloc planner");
	snprintf(worker.bgw_type, BGW_MAXLEN, "gpualloc planner");
	RegisterBackgroundWorker(&worker);
}

static PGPROC *planner_here(void);

/* Wake the worker now, if it plans this database. */
static void
wake_planner_now(void)
{
	PGPROC	   *proc = planner_here();

	if (proc == NULL)
		return;
	pg_atomic_write_u32(&ga_shared->wake_requested, 1);
	SetLatch(&proc->procLatch);
}

/* A wake-up asked for in the current transaction, sent at its commit. */
static bool wake_at_commit = false;

static void
wake_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			if (wake_at_commit)
				wake_planner_now();
			wake_at_commit = false;
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			wake_at_commit = false;
			break;
		default:
			break;
	}
}

/*
 * Ask the worker for a run soon; a no-op when no worker plans this database.
 * Inside a transaction the request is sent when it commits: a run woken
 * earlier would plan without the change that asked for it (a GPU gone down
 * in a transaction still open after gpualloc.replan_debounce), and nothing
 * would wake the worker again.
 */
void
ga_request_replan(void)
{
	static bool callback_registered = false;

	if (ga_shared == NULL)
		return;
	if (!IsTransactionState())
	{
		wake_planner_now();
		return;
	}
	if (!callback_registered)
	{
		RegisterXactCallback(wake_xact_callback, NULL);
		callback_registered = true;
	}
	wake_at_commit = true;
}

/*
 * The planner's process when one runs and plans this database: read from
 * shared memory rather than pg_stat_activity, which hides other roles'
 * processes from a caller without pg_read_all_stats.
 */
static PGPROC *
planner_here(void)
{
	int			procno;
	PGPROC	   *proc;

	if (ga_shared == NULL)
		return NULL;
	procno = ga_shared->worker_pgprocno;
	if (procno < 0)
		return NULL;
	proc = &ProcGlobal->allProcs[procno];
	if (proc->pid == 0 || proc->databaseId != MyDatabaseId)
		return NULL;
	return proc;
}

/*
 * gpualloc.planner_pid(): the process id of the background planner of this
 * database (NULL when none runs here), for gpualloc.planner_status.
 */
Datum
gpualloc_planner_pid(PG_FUNCTION_ARGS)
{
	PGPROC	   *proc = planner_here();

	if (proc == NULL)
		PG_RETURN_NULL();
	PG_RETURN_INT32(proc->pid);
}

/*
 * gpualloc.planner_next_run(): when the worker means to run next (NULL when
 * no worker plans this database or the library is not preloaded), for
 * gpualloc.planner_status.
 */
Datum
gpualloc_planner_next_run(PG_FUNCTION_ARGS)
{
	uint64		due;

	if (planner_here() == NULL)
		PG_RETURN_NULL();
	due = pg_atomic_read_u64(&ga_shared->next_run_due);
	if (due == 0)
		PG_RETURN_NULL();
	PG_RETURN_TIMESTAMPTZ((TimestampTz) due);
}

Datum
gpualloc_request_replan(PG_FUNCTION_ARGS)
{
	ga_request_replan();
	PG_RETURN_BOOL(planner_here() != NULL);
}

static void
detach_from_shared(int code, Datum arg)
{
	if (ga_shared != NULL)
	{
		ga_shared->worker_pgprocno = -1;
		pg_atomic_write_u64(&ga_shared->next_run_due, 0);
	}
}

/*
 * The extension this planner last found ready (InvalidOid: none), and
 * whether it has found another since: created after it was missing or at
 * another version, or dropped and created again between two looks (a new
 * OID).  The main loop then plans soon, not an interval after the last run.
 */
static Oid	extension_ready_oid = InvalidOid;
static bool extension_appeared = false;

/*
 * Whether the extension is installed at the version this library serves: a
 * database still at an older version (before ALTER EXTENSION gpualloc
 * UPDATE) lacks what the planner calls, so it is left alone, once logged.
 */
static bool
extension_installed(void)
{
	static bool warned = false;
	bool		ready = false;
	char	   *version = NULL;
	Oid			ext;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	ext = get_extension_oid("gpualloc", true);
	if (OidIsValid(ext))
	{
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		if (SPI_execute("SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'gpualloc'",
						true, 1) == SPI_OK_SELECT && SPI_processed == 1)
			version = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		ready = version != NULL && strcmp(version, GPUALLOC_EXTVERSION) == 0;
		if (!ready && !warned)
			ereport(LOG,
					(errmsg("gpualloc planner: the extension is at version %s, this library serves %s; "
							"not planning until ALTER EXTENSION gpualloc UPDATE",
							version ? version : "?", GPUALLOC_EXTVERSION)));
		warned = warned || !ready;
		SPI_finish();
		PopActiveSnapshot();
	}
	CommitTransactionCommand();
	if (ready && ext != extension_ready_oid)
		extension_appeared = true;
	extension_ready_oid = ready ? ext : InvalidOid;
	return ready;
}

/*
 * Run body(arg) in a transaction of its own with an SPI connection.  An
 * error rolls the transaction back whole (nothing it wrote survives) and is
 * logged, prefixed with what; its message is copied into run_ctx and
 * returned, NULL on success.
 */
static char *
in_transaction(void (*body) (void *), void *arg, const char *what, MemoryContext run_ctx)
{
	char	   *volatile failure = NULL;

	PG_TRY();
	{
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		pgstat_report_activity(STATE_RUNNING, what);
		body(arg);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(run_ctx);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		ereport(LOG, (errmsg("gpualloc planner: %s failed: %s", what, edata->message)));
		failure = edata->message;
	}
	PG_END_TRY();
	pgstat_report_activity(STATE_IDLE, NULL);
	return failure;
}

typedef struct CountQuery
{
	const char *sql;
	int64		count;
} CountQuery;

static void
run_count_query(void *arg)
{
	CountQuery *q = (CountQuery *) arg;
	bool		isnull;

	if (SPI_execute(q->sql, false, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "gpualloc: %s returned no count", q->sql);
	q->count = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * One housekeeping statement returning a count, in a transaction of its own
 * so the row locks it takes are not held through a solve (a cancel waiting
 * on them would wait for the whole plan).  A failure counts as 0: the next
 * tick tries again.
 */
static int64
housekeeping(const char *sql, MemoryContext run_ctx)
{
	CountQuery	q = {sql, 0};

	return in_transaction(run_count_query, &q, sql, run_ctx) == NULL ? q.count : 0;
}

/* Bookings past gpualloc.booking_timeout go back to the queue. */
static int64
expire_bookings(MemoryContext run_ctx)
{
	if (RecoveryInProgress() || !extension_installed())
		return 0;
	return housekeeping("SELECT gpualloc_internal.expire_bookings()::bigint", run_ctx);
}

/*
 * Running jobs past their time limit are stopped: failed, their GPUs freed
 * and the executors told through the change feed.
 */
static int64
stop_overdue_jobs(MemoryContext run_ctx)
{
	if (RecoveryInProgress() || !extension_installed())
		return 0;
	return housekeeping("SELECT gpualloc_internal.stop_overdue_jobs()::bigint", run_ctx);
}

/* What a run of the worker came to. */
typedef enum WorkerRun
{
	RUN_NOTHING_TO_PLAN,		/* a standby, or the extension not installed yet */
	RUN_DONE,					/* planned and committed */
	RUN_FAILED,					/* failed (an error, or no plan), and recorded */
	RUN_SKIPPED					/* another planner (a replan() call) held the lock */
} WorkerRun;

typedef struct PlanAttempt
{
	GaReplanResult result;
	bool		skipped;
} PlanAttempt;

static void
plan_body(void *arg)
{
	PlanAttempt *a = (PlanAttempt *) arg;

	a->skipped = !ga_run_replan("full", gpualloc_solver_time_limit_ms, "worker", false, &a->result);
	if (a->skipped)
		elog(LOG, "gpualloc planner: another planner is running; running again once it is done");
}

static void
record_failure_body(void *arg)
{
	Datum		message = CStringGetTextDatum((const char *) arg);
	Oid			type = TEXTOID;

	SPI_execute_with_args("INSERT INTO gpualloc.plan_runs (mode, trigger, status, message, finished_at) "
						  "VALUES ('full', 'worker', 'failed', $1, pg_catalog.clock_timestamp())",
						  1, &type, &message, NULL, false, 0);
}

/*
 * One run: housekeeping, then the plan in its own transaction.  A failed
 * plan leaves the last committed allocation in force, and its reason is
 * recorded.
 */
static WorkerRun
run_once(MemoryContext run_ctx)
{
	PlanAttempt a = {0};
	char	   *failure;

	if (RecoveryInProgress() || !extension_installed())
		return RUN_NOTHING_TO_PLAN;
	(void) housekeeping("SELECT gpualloc_internal.refresh_estimates()::bigint", run_ctx);
	(void) expire_bookings(run_ctx);
	(void) stop_overdue_jobs(run_ctx);
	(void) housekeeping("SELECT gpualloc_internal.purge_plans()::bigint", run_ctx);
	/* fair share reads the rollup and the rows since: keep it recent */
	(void) housekeeping("SELECT gpualloc_internal.roll_up_usage()::bigint", run_ctx);
	/* logged as "run failed: ..."; the last committed allocation stays */
	failure = in_transaction(plan_body, &a, "run", run_ctx);
	if (failure != NULL)
		(void) in_transaction(record_failure_body, failure, "recording a failed run", run_ctx);
	if (failure != NULL || (!a.skipped && strcmp(a.result.status, "failed") == 0))
		return RUN_FAILED;
	return a.skipped ? RUN_SKIPPED : RUN_DONE;
}

static int64
interval_ms(void)
{
	return (int64) gpualloc_replan_interval_s * 1000;
}

/* Milliseconds to wait before the next run is due. */
static long
ms_until_next_run(TimestampTz last_run, TimestampTz woken_at)
{
	TimestampTz now = GetCurrentTimestamp();
	TimestampTz due = TimestampTzPlusMilliseconds(last_run, interval_ms());

	if (woken_at != 0)
	{
		TimestampTz soon = TimestampTzPlusMilliseconds(woken_at, (int64) gpualloc_replan_debounce_s * 1000);

		if (soon < due)
			due = soon;
	}
	if (due <= now)
		return 0;
	return (long) ((due - now) / 1000);
}

/*
 * A last_run that makes the next run due ms from now (an interval from now
 * at most): the loop counts the interval from last_run.
 */
static TimestampTz
next_run_in(int64 ms)
{
	return TimestampTzPlusMilliseconds(GetCurrentTimestamp(), Min(ms, interval_ms()) - interval_ms());
}

/* first_ms doubled `doublings` times, cap_ms at most. */
static int64
doubled_delay(int64 first_ms, int doublings, int64 cap_ms)
{
	int64		ms = first_ms;

	for (int i = 0; i < doublings && ms < cap_ms; i++)
		ms *= 2;
	return Min(ms, cap_ms);
}

/*
 * After the n-th failed run in a row: gpualloc.replan_retry, doubled for
 * each earlier failure in the row, an interval at most.  A lock timeout or
 * a transient error is planned again within a minute rather than an
 * interval later, and a failure that persists (bad data) is retried ever
 * less often.
 */
static int64
retry_ms(int failures)
{
	return doubled_delay((int64) gpualloc_replan_retry_s * 1000, failures - 1, interval_ms());
}

/* Sleep ms milliseconds; a shutdown (SIGTERM) ends the process at once. */
static void
wait_interruptibly(int64 ms)
{
	TimestampTz until = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), ms);
	long		left;

	while ((left = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), until)) > 0)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, left, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Open gpualloc.database.  When it cannot be opened (it does not exist yet,
 * or was dropped with FORCE), the connection ends the process with FATAL
 * and the postmaster starts it again 5 s later; left at that, the log would
 * gain a FATAL line every 5 s for as long as the setting names no database.
 * So the attempts in a row are counted in shared memory, and after the
 * second one the worker waits before trying again, beyond the postmaster's
 * 5 s: 5 s, doubling each time, up to 5 minutes (each wait announced in the
 * log).  A database created early is still found within seconds, and the
 * first plan follows its CREATE EXTENSION as before.
 */
static void
open_planner_database(void)
{
	uint32		attempts = ga_shared != NULL ? pg_atomic_read_u32(&ga_shared->connect_attempts) : 0;

	if (attempts >= 2)
	{
		int64		wait_ms = doubled_delay(CONNECT_RETRY_FIRST_MS, (int) (attempts - 2),
											CONNECT_RETRY_MAX_MS);

		elog(LOG, "gpualloc planner: database \"%s\" could not be opened %u times in a row; trying again in %lld s",
			 gpualloc_database, attempts, (long long) wait_ms / 1000);
		wait_interruptibly(wait_ms);
	}
	if (ga_shared != NULL)
		pg_atomic_fetch_add_u32(&ga_shared->connect_attempts, 1);
	BackgroundWorkerInitializeConnection(gpualloc_database, NULL, 0);
	if (ga_shared != NULL)
		pg_atomic_write_u32(&ga_shared->connect_attempts, 0);
}

void
gpualloc_worker_main(Datum arg)
{
	MemoryContext run_ctx;
	TimestampTz last_run = 0;
	TimestampTz woken_at = 0;
	TimestampTz next_housekeeping = 0;
	int			failures = 0;	/* failed runs in a row */

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	open_planner_database();

	/*
	 * The worker runs as the bootstrap superuser: only the extension's own
	 * schema and the catalog may resolve a name in its queries, never a
	 * schema other roles can create objects in.
	 */
	SetConfigOption("search_path", GPUALLOC_SEARCH_PATH, PGC_SUSET, PGC_S_OVERRIDE);
	/*
	 * Its queries are short; JIT-compiling one whose estimate crosses
	 * jit_above_cost (a cross join of a tenant's samples and steps, say)
	 * would cost hundreds of milliseconds for nothing.
	 */
	SetConfigOption("jit", "off", PGC_SUSET, PGC_S_OVERRIDE);
	/*
	 * ALTER DATABASE/ROLE ... SET reaches the worker too: a database-wide
	 * default_transaction_isolation of repeatable read or serializable would
	 * fail every run (the commit re-reads under its lock what changed during
	 * the solve), and session_replication_role = replica would skip the
	 * extension's triggers and foreign keys on what the worker writes.
	 */
	SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("session_replication_role", "origin", PGC_SUSET, PGC_S_OVERRIDE);
	pgstat_report_appname("gpualloc planner");

	if (ga_shared != NULL)
	{
		ga_shared->worker_pgprocno = MyProc->pgprocno;
		on_shmem_exit(detach_from_shared, (Datum) 0);
	}
	run_ctx = AllocSetContextCreate(TopMemoryContext, "gpualloc planner run", ALLOCSET_DEFAULT_SIZES);
	elog(LOG, "gpualloc planner started in database \"%s\"", gpualloc_database);

	for (;;)
	{
		long		wait_ms;

		if (ga_shared != NULL && pg_atomic_exchange_u32(&ga_shared->wake_requested, 0) != 0 &&
			woken_at == 0)
			woken_at = GetCurrentTimestamp();
		if (ga_shared != NULL)
			pg_atomic_write_u64(&ga_shared->next_run_due, gpualloc_enabled ?
								(uint64) TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
																	 ms_until_next_run(last_run, woken_at)) : 0);
		wait_ms = Min(ms_until_next_run(last_run, woken_at), HOUSEKEEPING_MS);
		if (wait_ms > 0)
		{
			(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
							 wait_ms, PG_WAIT_EXTENSION);
			ResetLatch(MyLatch);
		}

		/*
		 * pg_cancel_backend() between runs has no run to cancel: raised here,
		 * outside any transaction, it would end the worker.
		 */
		QueryCancelPending = false;
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			bool		was_enabled = gpualloc_enabled;

			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			/* turned on: plan now, not a whole interval after the last run */
			if (gpualloc_enabled && !was_enabled)
				last_run = 0;
		}
		if (gpualloc_enabled && GetCurrentTimestamp() >= next_housekeeping)
		{
			next_housekeeping = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), HOUSEKEEPING_MS);
			MemoryContextReset(run_ctx);
			MemoryContextSwitchTo(run_ctx);
			/* both free GPUs: plan soon after either */
			if (expire_bookings(run_ctx) + stop_overdue_jobs(run_ctx) > 0 && woken_at == 0)
				woken_at = GetCurrentTimestamp();
			MemoryContextSwitchTo(TopMemoryContext);
		}

		/*
		 * The extension created again after DROP EXTENSION, or updated to
		 * this library's version, while the worker ran: plan now, not a
		 * whole interval after the last run.
		 */
		if (extension_appeared)
		{
			extension_appeared = false;
			last_run = 0;
		}
		if (ms_until_next_run(last_run, woken_at) > 0)
			continue;
		last_run = GetCurrentTimestamp();
		woken_at = 0;
		if (gpualloc_enabled)
		{
			WorkerRun	run;

			MemoryContextReset(run_ctx);
			MemoryContextSwitchTo(run_ctx);
			run = run_once(run_ctx);
			MemoryContextSwitchTo(TopMemoryContext);
			/* a run that found the extension has planned it: no second one */
			extension_appeared = false;

			/*
			 * A replan() call held the lock: it may have read the tables
			 * before the change that woke us, so run again once the
			 * debounce has passed (at least a second, not to spin on the
			 * lock) rather than a whole interval later.
			 */
			if (run == RUN_SKIPPED)
				woken_at = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   gpualloc_replan_debounce_s > 0 ? 0 : 1000);

			/*
			 * Until the extension is installed, look again soon rather than
			 * after a whole interval, so the first plan follows CREATE
			 * EXTENSION closely.
			 */
			if (run == RUN_NOTHING_TO_PLAN)
				last_run = next_run_in(EXTENSION_RECHECK_MS);

			/*
			 * The last committed allocation stays in force after a failure;
			 * plan again soon rather than an interval later.
			 */
			if (run == RUN_DONE)
				failures = 0;
			if (run == RUN_FAILED)
				failures++;
			if (run == RUN_FAILED && gpualloc_replan_retry_s > 0)
			{
				int64		ms = retry_ms(failures);

				last_run = next_run_in(ms);
				elog(LOG, "gpualloc planner: %d failed run%s in a row; trying again in %lld s",
					 failures, failures == 1 ? "" : "s", (long long) (ms / 1000));
			}
		}
	}
}
