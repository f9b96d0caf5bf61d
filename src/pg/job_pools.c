/*
 * job_pools.c — submit_job's alt_pools: the pools of other GPU models a job
 * may also run on after its first, in preference order, each checked (it
 * exists, is named once, is not the first pool, can hold the job's smallest
 * block) and given the job's work there, then stored in gpualloc.job_pools.
 *
 * The work on an alternative: with features only, the estimator's on that
 * pool's GPU model, as for the first pool; with the submitter's own
 * work_gpu_hours (a figure for the first pool), that figure scaled by the
 * two pools' peak throughput, peak_tflops(first) / peak_tflops(alternative):
 * a pool twice as fast needs half the GPU-hours.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "gpualloc_pg.h"

/*
 * The pool named $1: its id, its peak throughput and that of pool $2 (the
 * first), and its usable GPUs counted up to $3 (a check reads no more GPUs
 * than it asks for).  Key-shared as it is read (see submit.c's pool_query).
 */
static GaSavedQuery alt_pool_query = {
	"SELECT p.pool_id, p.peak_tflops, "
	"       (SELECT f.peak_tflops FROM gpualloc.pools f WHERE f.pool_id = $2), "
	"       (SELECT pg_catalog.count(*)::integer FROM (SELECT 1 FROM gpualloc.gpus g "
	"        WHERE g.pool_id = p.pool_id AND g.state <> 'down' LIMIT $3) u) "
	"FROM gpualloc.pools p WHERE p.name = $1 FOR KEY SHARE OF p",
	3, {TEXTOID, INT4OID, INT4OID}, NULL
};

static GaSavedQuery insert_alt_query = {
	"INSERT INTO gpualloc.job_pools (job_id, pool_id, preference, est_work_gpu_hours, est_method) "
	"VALUES ($1, $2, $3, $4, $5)",
	5, {INT8OID, INT4OID, INT4OID, FLOAT8OID, TEXTOID}, NULL
};

static double
row_float(int col)
{
	bool		isnull;

	return DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, &isnull));
}

static int
row_int(int col)
{
	bool		isnull;

	return DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, &isnull));
}

static void
check_work_bound(const char *pool, double work)
{
	if (isnan(work) || work > GA_WORK_MAX_GPU_HOURS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("alt_pools: the job's work on pool \"%s\" would be %.0f GPU-hours, beyond 1e7", pool, work),
				 errhint("Check its features, or give work_gpu_hours.")));
	/* a tiny figure scaled by a fast pool's throughput underflows to 0 */
	if (!(work > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("alt_pools: the job's work on pool \"%s\" would be 0 GPU-hours", pool),
				 errhint("Give work_gpu_hours of at least a few GPU-seconds.")));
}

/*
 * The job's work on the alternative pool: the submitter's figure scaled by
 * the peak throughputs, else the estimator's on the pool's GPU model at
 * gpus_max (as for the first pool, and as refresh_estimates renews it),
 * which must not need more GPUs than gpus_max (a GPU of less memory needs
 * more of them).
 */
static void
estimate_alternative(const GaAltPoolsJob *job, const char *pool, double first_tflops, double tflops,
					 GaAltPool *alt)
{
	ga_job_estimate e;

	if (job->submitted_work)
	{
		alt->work_gpu_hours = job->work_gpu_hours * first_tflops / tflops;
		strlcpy(alt->method, "submitted_scaled", sizeof(alt->method));
		check_work_bound(pool, alt->work_gpu_hours);
		return;
	}
	ga_pg_estimate_job(job->kind, job->features, job->gpus_max, pool, &e);
	if (e.gpus_min > job->gpus_max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("alt_pools: on pool \"%s\" the job needs at least %d GPUs for its memory, above gpus_max %d",
						pool, e.gpus_min, job->gpus_max),
				 errhint("Raise gpus_max, or leave the pool out.")));
	alt->work_gpu_hours = e.work_gpu_hours;
	strlcpy(alt->method, e.method, sizeof(alt->method));
	check_work_bound(pool, alt->work_gpu_hours);
}

/* One alternative, named at position k (1-based preference). */
static void
check_one(const char *pool, const GaAltPoolsJob *job, const GaAltPools *seen, GaAltPool *alt)
{
	Datum		args[3] = {CStringGetTextDatum(pool), Int32GetDatum(job->pool_id), Int32GetDatum(job->gpus_max)};
	int			capacity;
	double		tflops;
	double		first_tflops;

	ga_saved_query_expect(&alt_pool_query, args, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("alt_pools: pool \"%s\" does not exist", pool),
				 errhint("List pools with: SELECT name FROM gpualloc.pools;")));
	alt->pool_id = row_int(1);
	tflops = row_float(2);
	first_tflops = row_float(3);
	capacity = row_int(4);
	if (alt->pool_id == job->pool_id)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("alt_pools: pool \"%s\" is the job's first pool", pool),
				 errdetail("alt_pools lists the pools the job may also run on, after its pool.")));
	for (int k = 0; k < seen->n; k++)
		if (seen->pools[k].pool_id == alt->pool_id)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("alt_pools: pool \"%s\" is named twice", pool)));
	if (job->gpus_min > capacity)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("alt_pools: gpus_min %d is more GPUs than pool \"%s\" has (%d usable)", job->gpus_min, pool,
						capacity),
				 errhint("Leave the pool out, or ask for a smaller block.")));
	estimate_alternative(job, pool, first_tflops, tflops, alt);
}

/*
 * Check the names (no NULL, at most GA_MAX_JOB_POOLS - 1) and each pool they
 * name, in order; nothing is written.  NULL or an empty array: none.
 */
void
ga_pg_check_alt_pools(ArrayType *names, const GaAltPoolsJob *job, GaAltPools *out)
{
	Datum	   *items;
	bool	   *nulls;
	int			n;

	memset(out, 0, sizeof(*out));
	if (names == NULL)
		return;
	if (ARR_NDIM(names) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("alt_pools must be a one-dimensional array of pool names")));
	deconstruct_array(names, TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &n);
	if (n > GA_MAX_JOB_POOLS - 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("alt_pools names %d pools; a job may name at most %d besides its first", n,
						GA_MAX_JOB_POOLS - 1)));
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("alt_pools must not contain NULL")));
		check_one(TextDatumGetCString(items[i]), job, out, &out->pools[out->n]);
		out->n++;
	}
}

void
ga_pg_insert_alt_pools(int64 job_id, const GaAltPools *alts)
{
	for (int i = 0; i < alts->n; i++)
	{
		Datum		args[5] = {Int64GetDatum(job_id), Int32GetDatum(alts->pools[i].pool_id), Int32GetDatum(i + 1),
		Float8GetDatum(alts->pools[i].work_gpu_hours), CStringGetTextDatum(alts->pools[i].method)};

		ga_saved_query_expect(&insert_alt_query, args, NULL, SPI_OK_INSERT);
	}
}
