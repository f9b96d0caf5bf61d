/*
 * pool_launch.c — start a plan run's pool solvers, hand them the parts,
 * and see them gone.
 *
 * A solver is a process the postmaster forks: about 10 ms before it runs,
 * and a few more before it has attached and read its first part.  A run
 * that starts its solvers only once the parts are written waits that long
 * for its last part.  So the planner starts them before it builds the
 * problem (ga_pg_pool_solvers_ahead), when the cluster has pools enough to
 * split; they wait on their latches in a small launch segment
 * (GaPoolLaunch) while the leader builds, and the leader publishes the
 * parts' segment there once it is written.  A run whose problem did not
 * split, or that failed before, gives them up: they exit without solving.
 *
 * The launch segment is the leader's while the run lasts: detaching it (at
 * the end of the run, or by an error's abort) raises its abandoned flag and
 * wakes every solver waiting on it.
 */
#include "postgres.h"

#include "executor/spi.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "storage/proc.h"

#include "gpualloc_pg.h"
#include "model/problem_split.h"
#include "pool_shared.h"

struct GaPoolSolvers
{
	dsm_segment *seg;
	GaPoolLaunch *launch;
	int			n;				/* solvers asked for */
	BackgroundWorkerHandle **handles;	/* [n], NULL: not running */
};

/* The pools of the cluster. */
static GaSavedQuery pool_ids_query = {
	"SELECT p.pool_id FROM gpualloc.pools p", 0, {0}, NULL
};

/*
 * The pairs of pools that a queued or booked job of several pools joins:
 * its first pool and each further one.  The jobs the problem build reads
 * further pools for (ALT_POOLS_SQL in problem_build.c).  Each row of
 * job_pools looks its job up by its key (the LATERAL with OFFSET 0 keeps the
 * lookup a probe), so the cost follows the jobs of several pools, never the
 * queue: joined as a table, the plan this session kept from a short queue
 * probed job_pools once per queued job, 100 ms a run at 45,000 queued.
 */
static GaSavedQuery pool_links_query = {
	"SELECT DISTINCT j.first_pool, jp.pool_id "
	"FROM gpualloc.job_pools jp "
	"CROSS JOIN LATERAL (SELECT COALESCE(j.requested_pool_id, j.pool_id) AS first_pool "
	"                    FROM gpualloc.jobs j WHERE j.job_id = jp.job_id "
	"                      AND j.status IN ('queued', 'booked') OFFSET 0) j",
	0, {0}, NULL
};

/* Wake every solver that has attached, so it looks at the launch again. */
static void
wake_solvers(GaPoolLaunch *launch)
{
	pg_memory_barrier();
	for (int i = 0; i < launch->n_solvers; i++)
	{
		uint32		procno = pg_atomic_read_u32(&launch->solver_procno[i]);

		if (procno != 0)
			SetLatch(&GetPGProcByNumber(procno - 1)->procLatch);
	}
}

/* Detaching the launch for any reason tells the waiting solvers to exit. */
static void
abandon_launch_on_detach(dsm_segment *seg, Datum arg)
{
	GaPoolLaunch *launch = (GaPoolLaunch *) DatumGetPointer(arg);

	pg_atomic_write_u32(&launch->abandoned, 1);
	wake_solvers(launch);
}

static dsm_segment *
create_launch(int n)
{
	Size		size = offsetof(GaPoolLaunch, solver_procno) + sizeof(pg_atomic_uint32) * n;
	dsm_segment *seg = dsm_create(size, 0);
	GaPoolLaunch *launch = dsm_segment_address(seg);

	launch->magic = GA_POOL_LAUNCH_MAGIC;
	pg_atomic_init_u32(&launch->abandoned, 0);
	pg_atomic_init_u32(&launch->parts, 0);
	launch->n_solvers = n;
	for (int i = 0; i < n; i++)
		pg_atomic_init_u32(&launch->solver_procno[i], 0);
	on_dsm_detach(seg, abandon_launch_on_detach, PointerGetDatum(launch));
	return seg;
}

/*
 * Start n pool solvers on a new launch segment; a solver without a free
 * worker slot is left out, and the parts it would have claimed go to the
 * others.  NULL when n < 1.
 */
GaPoolSolvers *
ga_pool_solvers_start(int n)
{
	GaPoolSolvers *s;

	if (n < 1)
		return NULL;
	s = palloc0(sizeof(GaPoolSolvers));
	s->n = n;
	s->handles = palloc0(sizeof(BackgroundWorkerHandle *) * n);
	s->seg = create_launch(n);
	s->launch = dsm_segment_address(s->seg);
	for (int i = 0; i < n; i++)
	{
		BackgroundWorker worker = {0};

		worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
		worker.bgw_start_time = BgWorkerStart_ConsistentState;
		worker.bgw_restart_time = BGW_NEVER_RESTART;
		snprintf(worker.bgw_library_name, BGW_MAXLEN, "gpualloc");
		snprintf(worker.bgw_function_name, BGW_MAXLEN, "gpualloc_pool_worker_main");
		snprintf(worker.bgw_name, BGW_MAXLEN, "gpualloc pool solver %d", i + 1);
		snprintf(worker.bgw_type, BGW_MAXLEN, "gpualloc pool solver");
		worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(s->seg));
		worker.bgw_notify_pid = MyProcPid;
		memcpy(worker.bgw_extra, &i, sizeof(int));
		if (!RegisterDynamicBackgroundWorker(&worker, &s->handles[i]))
		{
			s->handles[i] = NULL;
			ereport(DEBUG1,
					(errmsg("gpualloc: no free worker slot for pool solver %d; the others solve its parts",
							i + 1)));
		}
	}
	return s;
}

/* The index of pool_id among the cluster's ids, or -1 (a pool removed since). */
static int
pool_index(const int *ids, int n, int pool_id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == pool_id)
			return i;
	return -1;
}

/*
 * How many parts the coming run's problem can split into at most: the
 * cluster's pools, those a job of several pools joins counted as one
 * (ga_problem_split's groups).  A dependency between jobs of two pools
 * joins them too; finding those would read every waiting job's links, so
 * they are left to the split, and a solver started for such a pool is
 * given up.
 */
static int
pool_groups(void)
{
	int			n;
	int		   *ids;
	int		   *parent;
	int			groups;

	ga_saved_query_expect(&pool_ids_query, NULL, NULL, SPI_OK_SELECT);
	n = (int) SPI_processed;
	ids = palloc(sizeof(int) * (n + 1));
	parent = palloc(sizeof(int) * (n + 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		ids[i] = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		parent[i] = i;
	}
	groups = n;
	ga_saved_query_expect(&pool_links_query, NULL, NULL, SPI_OK_SELECT);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		null_a,
					null_b;
		Datum		a = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &null_a);
		Datum		b = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &null_b);
		int			ia = null_a ? -1 : pool_index(ids, n, DatumGetInt32(a));
		int			ib = null_b ? -1 : pool_index(ids, n, DatumGetInt32(b));

		/* not a pool removed since, nor two of one group already */
		if (ia >= 0 && ib >= 0 && ga_pool_groups_join(parent, ia, ib))
			groups--;
	}
	return groups;
}

/*
 * Solvers for the coming run, started before its problem is built: as many
 * as ga_pool_processes_wanted would give a problem split into pool_groups()
 * parts (the leader counting as one).  NULL when that is the leader alone.
 */
GaPoolSolvers *
ga_pg_pool_solvers_ahead(void)
{
	GaPoolSolvers *s;

	if (gpualloc_max_parallel_pools == 1)
		return NULL;
	s = ga_pool_solvers_start(ga_pool_processes_wanted(pool_groups()) - 1);
	if (s != NULL)
		elog(DEBUG1, "gpualloc: started %d pool solver(s) before building the problem", s->n);
	return s;
}

/*
 * The solvers that got a worker slot: the processes besides the leader
 * that share the parts, and so the run's time limit.
 */
int
ga_pool_solvers_count(const GaPoolSolvers *s)
{
	int			n = 0;

	for (int i = 0; s != NULL && i < s->n; i++)
		n += s->handles[i] != NULL;
	return n;
}

/* Hand the solvers the parts' segment, written in full. */
void
ga_pool_solvers_publish(GaPoolSolvers *s, dsm_segment *parts)
{
	pg_write_barrier();
	pg_atomic_write_u32(&s->launch->parts, dsm_segment_handle(parts));
	wake_solvers(s->launch);
}

/* Whether some solver has not exited yet (or not started). */
bool
ga_pool_solvers_running(const GaPoolSolvers *s)
{
	for (int i = 0; s != NULL && i < s->n; i++)
	{
		pid_t		pid;

		if (s->handles[i] != NULL && GetBackgroundWorkerPid(s->handles[i], &pid) != BGWH_STOPPED)
			return true;
	}
	return false;
}

/* Tell every solver to stop, without waiting: waiting ones exit, solving ones are terminated. */
void
ga_pool_solvers_signal(GaPoolSolvers *s)
{
	if (s == NULL || s->seg == NULL)
		return;					/* finished: none is left */
	pg_atomic_write_u32(&s->launch->abandoned, 1);
	wake_solvers(s->launch);
	for (int i = 0; i < s->n; i++)
		if (s->handles[i] != NULL)
			TerminateBackgroundWorker(s->handles[i]);
}

/*
 * End the solvers' part in the run and detach the launch.  Solvers handed
 * the parts exit once nothing is left to claim: wait until they are gone.
 * Solvers never handed any (the problem did not split) are told to exit
 * and not waited for: one still starting finds the launch gone and exits.
 */
void
ga_pool_solvers_finish(GaPoolSolvers *s)
{
	if (s == NULL || s->seg == NULL)
		return;
	if (pg_atomic_read_u32(&s->launch->parts) != 0)
		for (int i = 0; i < s->n; i++)
			if (s->handles[i] != NULL)
			{
				(void) WaitForBackgroundWorkerShutdown(s->handles[i]);
				s->handles[i] = NULL;
			}
	dsm_detach(s->seg);			/* raises abandoned, wakes the waiting */
	s->seg = NULL;
}
