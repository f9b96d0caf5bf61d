/*
 * queue_depth.c — which queued jobs a plan considers.
 *
 * A queue far longer than its pool can run within the horizon makes every
 * re-plan read, build and try jobs that cannot start before the horizon
 * ends, and the re-plan's cost grows with the queue while the plan does not
 * change.  So, as Slurm bounds what its backfill scheduler tests
 * (bf_max_job_test), a plan considers per pool and per smallest size
 * (gpus_min) the queued jobs in priority order, then submission order,
 * until their estimated work reaches gpualloc.queue_depth times the pool's
 * GPU-hours over the horizon.  Per size, so that the small jobs that fill
 * the gaps larger ones leave are never crowded out by larger jobs of higher
 * priority.  The jobs are read in index order (jobs_queue_idx) and the read
 * stops at the bound, so a re-plan reads what it may plan, not the queue.
 * Booked and running jobs are always in the plan (problem_build.c).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"

#include "gpualloc_pg.h"

/* Rows fetched per round trip of a size class's cursor. */
#define QUEUE_FETCH_ROWS 256

/* The distinct gpus_min of a pool's queued jobs: a skip scan of the index. */
static GaSavedQuery sizes_query = {
	"WITH RECURSIVE s(g) AS ("
	"  SELECT pg_catalog.min(j.gpus_min) FROM gpualloc.jobs j"
	"  WHERE j.status = 'queued' AND j.est_work_gpu_hours IS NOT NULL AND j.pool_id = $1"
	"  UNION ALL"
	"  SELECT (SELECT pg_catalog.min(j.gpus_min) FROM gpualloc.jobs j"
	"          WHERE j.status = 'queued' AND j.est_work_gpu_hours IS NOT NULL AND j.pool_id = $1"
	"            AND j.gpus_min > s.g)"
	"  FROM s WHERE s.g IS NOT NULL) "
	"SELECT s.g FROM s WHERE s.g IS NOT NULL",
	1, {INT4OID}
};

/* One size class of a pool, in the order the plan considers it. */
static GaSavedQuery class_query = {
	"SELECT j.job_id, j.est_work_gpu_hours FROM gpualloc.jobs j "
	"WHERE j.status = 'queued' AND j.est_work_gpu_hours IS NOT NULL "
	"  AND j.pool_id = $1 AND j.gpus_min = $2 "
	"ORDER BY j.priority DESC, j.job_id",
	2, {INT4OID, INT4OID}, NULL, true
};

typedef struct JobIds
{
	int			n;
	int			cap;
	Datum	   *ids;
} JobIds;

static void
job_ids_add(JobIds *ids, int64 id)
{
	if (ids->n == ids->cap)
	{
		ids->cap = Max(ids->cap * 2, 1024);
		ids->ids = ids->ids ? repalloc(ids->ids, sizeof(Datum) * ids->cap)
			: palloc(sizeof(Datum) * ids->cap);
	}
	ids->ids[ids->n++] = Int64GetDatum(id);
}

/* The gpus_min values of a pool's queued jobs, ascending. */
static int *
pool_sizes(int pool_id, int *n)
{
	Datum		arg = Int32GetDatum(pool_id);
	int		   *sizes;
	bool		isnull;

	ga_saved_query_expect(&sizes_query, &arg, NULL, SPI_OK_SELECT);
	*n = (int) SPI_processed;
	sizes = palloc(sizeof(int) * (*n + 1));
	for (int i = 0; i < *n; i++)
		sizes[i] = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_freetuptable(SPI_tuptable);
	return sizes;
}

/*
 * Add a size class's jobs in order until their work reaches bound_gpu_hours
 * (the job that crosses the bound is added too).
 */
static void
take_class(int pool_id, int size, double bound_gpu_hours, JobIds *ids)
{
	Datum		args[2] = {Int32GetDatum(pool_id), Int32GetDatum(size)};
	double		work = 0;
	Portal		portal = SPI_cursor_open(NULL, ga_saved_query_plan(&class_query), args, NULL, true);

	while (work < bound_gpu_hours)
	{
		SPI_cursor_fetch(portal, true, QUEUE_FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		for (uint64 r = 0; r < SPI_processed && work < bound_gpu_hours; r++)
		{
			HeapTuple	row = SPI_tuptable->vals[r];
			bool		isnull;

			job_ids_add(ids, DatumGetInt64(SPI_getbinval(row, SPI_tuptable->tupdesc, 1, &isnull)));
			work += DatumGetFloat8(SPI_getbinval(row, SPI_tuptable->tupdesc, 2, &isnull));
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
}

/*
 * The ids of the queued jobs the plan considers, as a bigint[] Datum, or
 * (Datum) 0 when gpualloc.queue_depth is 0 (every queued job).
 */
Datum
ga_queue_candidates(const GaPoolLayout *layouts, int n_pools)
{
	JobIds		ids = {0};
	double		horizon_hours = gpualloc_horizon_minutes / 60.0;

	if (gpualloc_queue_depth <= 0)
		return (Datum) 0;
	for (int i = 0; i < n_pools; i++)
	{
		double		bound = gpualloc_queue_depth * layouts[i].n_gpus * horizon_hours;
		int			n_sizes;
		int		   *sizes = pool_sizes(layouts[i].pool_id, &n_sizes);

		for (int k = 0; k < n_sizes; k++)
			take_class(layouts[i].pool_id, sizes[k], bound, &ids);
		pfree(sizes);
	}
	return ga_pg_int8_array(ids.ids, ids.n);
}
