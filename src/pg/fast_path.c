/*
 * fast_path.c — submit_job's fast path: a just-queued job is booked at once
 * on an aligned block that is free now and, in the latest plan, for the
 * job's estimated run: every GPU of the block present and up, no allocation
 * in force on it, no planned workload (batch or service) on it over those
 * steps, and no maintenance window or advance reservation of another tenant
 * on it before the run would end.  Largest block first, then lowest index.  Nothing is booked while
 * there is no current plan: nobody knows yet what the services will need.
 *
 * Its cost follows the latest plan's blocks and the GPUs the plan leaves
 * idle, never the queue: the plan's blocks over the job's steps give the
 * topology ranges the plan leaves idle, and only the GPUs in those ranges
 * are read (by the pool's (pool_id, node, slot) index) and checked for an
 * allocation in force.  On a busy cluster that is a handful of GPUs, and
 * none when no gap is wide enough for the job: then the plan and its
 * blocks, one statement, are all a submission reads.  The
 * booking itself goes through the one commit path,
 * gpualloc_internal.allocations_set, under the commit lock.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "gpualloc_pg.h"

/* Topology ranges [lo, hi) the plan leaves idle over the job's run. */
typedef struct IdleRanges
{
	int			n;
	int		   *lo;
	int		   *hi;
} IdleRanges;

/* GPUs of those ranges that are up and free now, in topology order. */
typedef struct FreeGpus
{
	int			n;
	int		   *index;			/* topology index */
	int		   *gpu_id;
} FreeGpus;

typedef struct Block
{
	int			first;			/* position in FreeGpus of its first GPU */
	int			size;
} Block;

/*
 * The latest successful plan (its id, the step under way, its horizon) and
 * its blocks in pool $1 over the steps of a run of $2 seconds from the
 * step under way, in topology order: one row with NULL blocks when the
 * plan puts nothing there, no row without a plan.
 */
static GaSavedQuery plan_blocks_now_query = {
	"WITH r AS ("
	"  SELECT r.plan_id, pg_catalog.floor(EXTRACT(epoch FROM pg_catalog.now() - r.plan_start) "
	"                                     / EXTRACT(epoch FROM r.step))::integer AS from_step, "
	"         r.horizon_steps, EXTRACT(epoch FROM r.step)::double precision AS step_secs "
	"  FROM gpualloc.plan_runs r WHERE r.status IN ('succeeded', 'fallback') "
	"  ORDER BY r.plan_id DESC LIMIT 1), "
	"w AS (SELECT r.*, LEAST(r.from_step + pg_catalog.ceil($2 / r.step_secs), 2147483647)::integer AS to_step "
	"      FROM r) "
	"SELECT w.plan_id, w.from_step, w.horizon_steps, b.gpu_first, b.gpu_first + b.gpu_count "
	"FROM w LEFT JOIN gpualloc.plan_blocks b ON b.plan_id = w.plan_id AND b.pool_id = $1 "
	"  AND b.step_first < w.to_step AND w.from_step < b.step_first + b.step_count "
	"ORDER BY 4",
	2, {INT4OID, FLOAT8OID}, NULL
};

/*
 * up GPUs without an allocation in force inside the ranges [$3[i], $4[i]),
 * outside every maintenance window and every advance reservation of another
 * tenant than the job's ($6) that the job's longest run would reach
 * ($5 seconds from now: at its smallest size and at most its time limit,
 * lengthened by its overrun margin, as the planner drains ahead of a window):
 * per range, an index scan of its nodes and an index probe per GPU, so the
 * cost follows the GPUs in the ranges, never the pool (a join over every
 * open allocation would follow the cluster's size)
 */
static GaSavedQuery free_gpus_query = {
	"SELECT x.idx, x.gpu_id "
	"FROM ROWS FROM (pg_catalog.unnest($3::integer[]), pg_catalog.unnest($4::integer[])) AS r(lo, hi) "
	"CROSS JOIN LATERAL ("
	"  SELECT g.node * $2 + g.slot AS idx, g.gpu_id FROM gpualloc.gpus g "
	"  WHERE g.pool_id = $1 AND g.node >= r.lo / $2 AND g.node <= (r.hi - 1) / $2 "
	"    AND g.node * $2 + g.slot >= r.lo AND g.node * $2 + g.slot < r.hi AND g.state = 'up' "
	"    AND NOT EXISTS (SELECT 1 FROM gpualloc.allocations a WHERE a.gpu_id = g.gpu_id AND a.end_seq IS NULL) "
	"    AND NOT EXISTS (SELECT 1 FROM gpualloc.maintenance_windows m "
	"                    WHERE m.pool_id = $1 AND m.first_gpu <= g.node * $2 + g.slot "
	"                      AND (m.gpus IS NULL OR g.node * $2 + g.slot < m.first_gpu + m.gpus) "
	"                      AND m.ends_at > pg_catalog.now() "
	"                      AND m.starts_at < pg_catalog.now() + pg_catalog.make_interval(secs => $5)) "
	"    AND NOT EXISTS (SELECT 1 FROM gpualloc.advance_reservations v "
	"                    WHERE v.pool_id = $1 AND v.tenant <> $6 AND v.first_gpu <= g.node * $2 + g.slot "
	"                      AND (v.gpus IS NULL OR g.node * $2 + g.slot < v.first_gpu + v.gpus) "
	"                      AND v.ends_at > pg_catalog.now() "
	"                      AND v.starts_at < pg_catalog.now() + pg_catalog.make_interval(secs => $5))) x "
	"ORDER BY 1",
	6, {INT4OID, INT4OID, INT4ARRAYOID, INT4ARRAYOID, FLOAT8OID, NAMEOID}, NULL
};

static GaSavedQuery commit_lock_query = {
	"SELECT gpualloc_internal.commit_lock()", 0, {0}, NULL
};

static GaSavedQuery book_query = {
	"SELECT gpualloc_internal.allocations_set($1, $2, '{}'::integer[], 'submit')",
	2, {INT4ARRAYOID, INT8ARRAYOID}, NULL
};

/*
 * The most GPUs the job's tenant may take in its pool now within its quota:
 * rules R9 and R10 on the GPUs each tenant holds, lending no guarantee its
 * tenant's forecast need claims over the job's longest run (at gpus_min).
 * gpus_max when the pool has no tenant policy, which costs one index
 * probe; 0 when no size may.
 */
static GaSavedQuery quota_query = {
	"SELECT CASE WHEN EXISTS (SELECT 1 FROM gpualloc.tenant_policies tp WHERE tp.pool_id = $2) "
	"            THEN gpualloc_internal.quota_max_gpus($1, $2, $3, $4, pg_catalog.make_interval(secs => $5)) "
	"            ELSE $4 END",
	5, {NAMEOID, INT4OID, INT4OID, INT4OID, FLOAT8OID}, NULL
};

static Datum
result_value(uint64 row, int col, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, isnull);
}

/* Keep [lo, hi) when an aligned block of the job's smallest size fits in it. */
static void
add_gap(const GaFastPathJob *job, IdleRanges *idle, int lo, int hi)
{
	int64		first_aligned = ((int64) lo + job->gpus_min - 1) / job->gpus_min * job->gpus_min;

	if (first_aligned + job->gpus_min > hi)
		return;
	idle->lo[idle->n] = lo;
	idle->hi[idle->n] = hi;
	idle->n++;
}

/* Hours the job runs on g GPUs: its work over g, at most its time limit. */
static double
run_hours(const GaFastPathJob *job, int g)
{
	double		hours = job->work_gpu_hours / g;

	return job->time_limit_hours > 0 && hours > job->time_limit_hours ? job->time_limit_hours : hours;
}

/*
 * The gaps between the latest plan's blocks over the job's run, from index
 * 0 to the pool's last: where the plan puts nothing.  A block of the job
 * lies inside one gap, so gaps too narrow for an aligned block of its
 * smallest size are left out.  False when there is no plan to go by, or
 * its horizon has passed.
 */
static bool
read_idle_ranges(const GaFastPathJob *job, IdleRanges *idle)
{
	Datum		args[2] = {Int32GetDatum(job->pool_id),
	Float8GetDatum(3600.0 * run_hours(job, job->gpus_min))};
	int			covered_to = 0;
	int			from_step;
	int			horizon_steps;
	bool		isnull;

	ga_saved_query_expect(&plan_blocks_now_query, args, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return false;
	from_step = DatumGetInt32(result_value(0, 2, &isnull));
	horizon_steps = DatumGetInt32(result_value(0, 3, &isnull));
	if (isnull || from_step >= horizon_steps)
		return false;
	idle->lo = palloc(sizeof(int) * (SPI_processed + 1));
	idle->hi = palloc(sizeof(int) * (SPI_processed + 1));
	idle->n = 0;
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		Datum		first = result_value(r, 4, &isnull);

		if (isnull)
			continue;
		add_gap(job, idle, covered_to, DatumGetInt32(first));
		covered_to = Max(covered_to, DatumGetInt32(result_value(r, 5, &isnull)));
	}
	add_gap(job, idle, covered_to, job->index_end);
	return true;
}

static Datum
int4_array(int *values, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * (n + 1));

	for (int i = 0; i < n; i++)
		d[i] = Int32GetDatum(values[i]);
	return PointerGetDatum(construct_array(d, n, INT4OID, sizeof(int32), true, TYPALIGN_INT));
}

static void
read_free_gpus(const GaFastPathJob *job, const IdleRanges *idle, FreeGpus *f)
{
	Datum		args[6] = {Int32GetDatum(job->pool_id), Int32GetDatum(job->node_size),
		int4_array(idle->lo, idle->n), int4_array(idle->hi, idle->n),
		Float8GetDatum(3600.0 * run_hours(job, job->gpus_min) * (1 + job->overrun_margin)),
	DirectFunctionCall1(namein, CStringGetDatum(job->tenant))};

	ga_saved_query_expect(&free_gpus_query, args, NULL, SPI_OK_SELECT);
	f->n = (int) SPI_processed;
	f->index = palloc(sizeof(int) * (f->n + 1));
	f->gpu_id = palloc(sizeof(int) * (f->n + 1));
	for (int i = 0; i < f->n; i++)
	{
		bool		isnull;

		f->index[i] = DatumGetInt32(result_value(i, 1, &isnull));
		f->gpu_id[i] = DatumGetInt32(result_value(i, 2, &isnull));
	}
}

/*
 * The largest, then lowest, aligned block of the job's sizes whose GPUs are
 * all free.  Free GPUs are sorted and distinct, so s of them from an aligned
 * index form a block exactly when the last is s - 1 above the first.
 */
static bool
search_block(const GaFastPathJob *job, const FreeGpus *f, Block *b)
{
	for (int64 s = job->gpus_max; s >= job->gpus_min; s /= 2)
		for (int i = 0; i + s <= f->n; i++)
			if (f->index[i] % s == 0 && f->index[i + s - 1] - f->index[i] == s - 1)
			{
				b->first = i;
				b->size = (int) s;
				return true;
			}
	return false;
}

/* A block free now and for the job's run in the latest plan, read afresh. */
static bool
free_block_now(const GaFastPathJob *job, FreeGpus *f, Block *b)
{
	IdleRanges	idle;

	if (!read_idle_ranges(job, &idle) || idle.n == 0)
		return false;
	read_free_gpus(job, &idle, f);
	return search_block(job, f, b);
}

static void
book(const GaFastPathJob *job, const FreeGpus *f, const Block *b)
{
	Datum	   *jobs = palloc(sizeof(Datum) * b->size);
	Datum		args[2];

	for (int i = 0; i < b->size; i++)
		jobs[i] = Int64GetDatum(job->job_id);
	args[0] = int4_array(f->gpu_id + b->first, b->size);
	args[1] = ga_pg_int8_array(jobs, b->size);
	ga_saved_query_expect(&book_query, args, NULL, SPI_OK_SELECT);
}

/* The job's largest size within its tenant's quota now; 0 when none fits. */
static int
quota_max_gpus(const GaFastPathJob *job)
{
	Datum		args[5] = {DirectFunctionCall1(namein, CStringGetDatum(job->tenant)),
		Int32GetDatum(job->pool_id), Int32GetDatum(job->gpus_min), Int32GetDatum(job->gpus_max),
	Float8GetDatum(3600.0 * run_hours(job, job->gpus_min))};
	bool		isnull;
	Datum		d;

	ga_saved_query_expect(&quota_query, args, NULL, SPI_OK_SELECT);
	d = result_value(0, 1, &isnull);
	return isnull ? 0 : DatumGetInt32(d);
}

/*
 * Book the job on a free block when there is one; returns the block's first
 * topology index, or -1.  Inside SPI.  Nothing free even before others'
 * uncommitted bookings: no need to queue behind them.  Otherwise book as the
 * only booker (submits and the planner's commit of step 0) and look again
 * with what they committed.
 */
int
ga_submit_fast_path(const GaFastPathJob *job)
{
	FreeGpus	f;
	Block		b;
	GaFastPathJob within_quota;
	TimestampTz now = GetCurrentTransactionStartTimestamp();

	/* a job waiting for another starts only once the planner sees that one ended */
	if (job->waits)
		return -1;
	if (!free_block_now(job, &f, &b))
		return -1;
	ga_saved_query_expect(&commit_lock_query, NULL, NULL, SPI_OK_SELECT);
	/* under the lock, the GPUs each tenant holds are settled: no larger block than its quota allows */
	within_quota = *job;
	within_quota.gpus_max = quota_max_gpus(job);
	if (within_quota.gpus_max < job->gpus_min)
		return -1;
	if (!free_block_now(&within_quota, &f, &b))
		return -1;
	/* a job that would miss its deadline even starting now is left to the planner */
	if (job->has_deadline &&
		(double) now + 3600.0 * 1e6 * run_hours(job, b.size) > (double) job->deadline)
		return -1;
	book(job, &f, &b);
	return f.index[b.first];
}
