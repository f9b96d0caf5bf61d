/*
 * plan_store.c — write a plan back: the run's row, the grid in compact form,
 * the current step into gpualloc.allocations, and the NOTIFY that tells
 * executors to re-read it.
 */
#include "postgres.h"

#include <math.h>

#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "gpualloc_pg.h"

static void
run_write(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls, int expected)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);

	if (rc != expected)
		elog(ERROR, "gpualloc: write failed (%s): %s", SPI_result_code_string(rc), sql);
}

int64
ga_store_plan_run(const char *mode, const char *trigger)
{
	Datum		args[2] = {CStringGetTextDatum(mode), CStringGetTextDatum(trigger)};
	Oid			types[2] = {TEXTOID, TEXTOID};
	bool		isnull;

	run_write("INSERT INTO gpualloc.plan_runs (mode, trigger) VALUES ($1, $2) RETURNING plan_id",
			  2, types, args, NULL, SPI_OK_INSERT_RETURNING);
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

static Datum
float_or_null(double v, char *null_flag)
{
	*null_flag = isfinite(v) ? ' ' : 'n';
	return Float8GetDatum(isfinite(v) ? v : 0);
}

static void
update_run(int64 plan_id, GaBuild *build, const ga_plan *plan, const char *status, const char *message)
{
	Datum		args[12];
	Oid			types[12] = {INT8OID, TEXTOID, TEXTOID, TIMESTAMPTZOID, INT4OID, INT4OID,
	INT4OID, INT4OID, INT4OID, FLOAT8OID, FLOAT8OID, FLOAT8OID};
	char		nulls[13] = "            ";
	Oid			type_solve_ms = FLOAT8OID;
	ga_problem *p = build->problem;

	args[0] = Int64GetDatum(plan_id);
	args[1] = CStringGetTextDatum(status);
	args[2] = CStringGetTextDatum(message ? message : "");
	nulls[2] = message ? ' ' : 'n';
	args[3] = TimestampTzGetDatum(build->plan_start);
	args[4] = Int32GetDatum(build->step_minutes);
	args[5] = Int32GetDatum(p ? p->params.n_steps : 0);
	args[6] = Int32GetDatum(p ? p->n_gpus : 0);
	args[7] = Int32GetDatum(p ? p->n_jobs : 0);
	args[8] = Int32GetDatum(p ? p->n_services : 0);
	args[9] = float_or_null(plan ? plan->objective : NAN, &nulls[9]);
	args[10] = float_or_null(plan ? plan->bound : NAN, &nulls[10]);
	args[11] = float_or_null(plan ? plan->gap : NAN, &nulls[11]);
	run_write("UPDATE gpualloc.plan_runs SET status = $2, message = $3, finished_at = pg_catalog.clock_timestamp(), "
			  "plan_start = $4, step = pg_catalog.make_interval(mins => $5), horizon_steps = $6, "
			  "n_gpus = $7, n_jobs = $8, n_services = $9, objective = $10, bound = $11, gap = $12 "
			  "WHERE plan_id = $1", 12, types, args, nulls, SPI_OK_UPDATE);
	if (plan != NULL)
	{
		Datum		a2[2] = {Int64GetDatum(plan_id), Float8GetDatum(plan->solve_ms)};
		Oid			t2[2] = {INT8OID, type_solve_ms};

		run_write("UPDATE gpualloc.plan_runs SET solve_ms = $2 WHERE plan_id = $1",
				  2, t2, a2, NULL, SPI_OK_UPDATE);
	}
}

void
ga_store_plan_failure(int64 plan_id, GaBuild *build, const char *message)
{
	update_run(plan_id, build, NULL, "failed", message);
}

/* Index of the pool holding global GPU g. */
static int
pool_of(const ga_problem *p, int g)
{
	for (int i = 0; i < p->n_pools; i++)
		if (g >= p->pools[i].first_gpu && g < p->pools[i].first_gpu + p->pools[i].n_gpus)
			return i;
	return -1;
}

/*
 * The grid as rectangles: each GPU's runs of one workload, merged across
 * neighbouring GPUs of the same pool that carry the same workload over the
 * same steps.  Rows go in with one INSERT from arrays.
 */
typedef struct BlockArrays
{
	int			n;
	int			cap;
	Datum	   *pool_id;
	Datum	   *job_id;
	bool	   *job_null;
	Datum	   *service_id;
	bool	   *service_null;
	Datum	   *gpu_first;
	Datum	   *gpu_count;
	Datum	   *step_first;
	Datum	   *step_count;
} BlockArrays;

static void
block_arrays_init(BlockArrays *b, int cap)
{
	b->n = 0;
	b->cap = Max(cap, 1);
	b->pool_id = palloc(sizeof(Datum) * b->cap);
	b->job_id = palloc(sizeof(Datum) * b->cap);
	b->job_null = palloc(sizeof(bool) * b->cap);
	b->service_id = palloc(sizeof(Datum) * b->cap);
	b->service_null = palloc(sizeof(bool) * b->cap);
	b->gpu_first = palloc(sizeof(Datum) * b->cap);
	b->gpu_count = palloc(sizeof(Datum) * b->cap);
	b->step_first = palloc(sizeof(Datum) * b->cap);
	b->step_count = palloc(sizeof(Datum) * b->cap);
}

/* Same workload and steps as the block just added on the previous GPU? */
static bool
extends_previous(const BlockArrays *b, int prev_index, Datum pool_id, int32 w_job, int32 w_svc,
				 int t0, int len, int rel)
{
	if (prev_index < 0)
		return false;
	return DatumGetInt32(b->pool_id[prev_index]) == DatumGetInt32(pool_id) &&
		DatumGetInt32(b->step_first[prev_index]) == t0 &&
		DatumGetInt32(b->step_count[prev_index]) == len &&
		DatumGetInt32(b->gpu_first[prev_index]) + DatumGetInt32(b->gpu_count[prev_index]) == rel &&
		(b->job_null[prev_index] ? -1 : (int32) DatumGetInt64(b->job_id[prev_index])) == w_job &&
		(b->service_null[prev_index] ? -1 : DatumGetInt32(b->service_id[prev_index])) == w_svc;
}

static void
collect_blocks(GaBuild *build, const ga_plan *plan, BlockArrays *b)
{
	ga_problem *p = build->problem;
	int			T = plan->n_steps;

	/* per step range of the previous GPU: where its block landed in b */
	int		   *prev_block = palloc(sizeof(int) * T);
	int		   *this_block = palloc(sizeof(int) * T);

	block_arrays_init(b, p->n_gpus * 4);
	for (int t = 0; t < T; t++)
		prev_block[t] = -1;
	for (int g = 0; g < p->n_gpus; g++)
	{
		int			pool = pool_of(p, g);
		int			rel = ga_layout_to_index(&build->layouts[pool], g - p->pools[pool].first_gpu);
		Datum		pool_id = Int32GetDatum(build->pool_ids[pool]);

		if (g == p->pools[pool].first_gpu)
			for (int t = 0; t < T; t++)
				prev_block[t] = -1;
		for (int t = 0; t < T; t++)
			this_block[t] = -1;
		for (int t = 0; t < T;)
		{
			int32		w = ga_plan_get(plan, g, t);
			int			t0 = t;
			int32		w_job;
			int32		w_svc;
			int			k;

			while (t < T && ga_plan_get(plan, g, t) == w)
				t++;
			if (w == GA_IDLE)
				continue;
			w_job = w < p->n_jobs ? w : -1;
			w_svc = w < p->n_jobs ? -1 : w - p->n_jobs;
			if (extends_previous(b, prev_block[t0], pool_id, w_job >= 0 ? (int32) p->jobs[w_job].id : -1,
								 w_svc >= 0 ? (int32) p->services[w_svc].id : -1, t0, t - t0, rel))
			{
				k = prev_block[t0];
				b->gpu_count[k] = Int32GetDatum(DatumGetInt32(b->gpu_count[k]) + 1);
				this_block[t0] = k;
				continue;
			}
			if (b->n == b->cap)
			{
				BlockArrays bigger;

				block_arrays_init(&bigger, b->cap * 2);
				memcpy(bigger.pool_id, b->pool_id, sizeof(Datum) * b->n);
				memcpy(bigger.job_id, b->job_id, sizeof(Datum) * b->n);
				memcpy(bigger.job_null, b->job_null, sizeof(bool) * b->n);
				memcpy(bigger.service_id, b->service_id, sizeof(Datum) * b->n);
				memcpy(bigger.service_null, b->service_null, sizeof(bool) * b->n);
				memcpy(bigger.gpu_first, b->gpu_first, sizeof(Datum) * b->n);
				memcpy(bigger.gpu_count, b->gpu_count, sizeof(Datum) * b->n);
				memcpy(bigger.step_first, b->step_first, sizeof(Datum) * b->n);
				memcpy(bigger.step_count, b->step_count, sizeof(Datum) * b->n);
				bigger.n = b->n;
				*b = bigger;
			}
			k = b->n++;
			b->pool_id[k] = pool_id;
			b->job_null[k] = w_job < 0;
			b->job_id[k] = Int64GetDatum(w_job >= 0 ? p->jobs[w_job].id : 0);
			b->service_null[k] = w_svc < 0;
			b->service_id[k] = Int32GetDatum(w_svc >= 0 ? (int32) p->services[w_svc].id : 0);
			b->gpu_first[k] = Int32GetDatum(rel);
			b->gpu_count[k] = Int32GetDatum(1);
			b->step_first[k] = Int32GetDatum(t0);
			b->step_count[k] = Int32GetDatum(t - t0);
			this_block[t0] = k;
		}
		memcpy(prev_block, this_block, sizeof(int) * T);
	}
}

static Datum
int_array(Datum *values, bool *nulls, int n, Oid elemtype)
{
	int			dims[1] = {n};
	int			lbs[1] = {1};
	int16		typlen;
	bool		typbyval;
	char		typalign;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	return PointerGetDatum(construct_md_array(values, nulls, 1, dims, lbs, elemtype,
											  typlen, typbyval, typalign));
}

static void
store_blocks(int64 plan_id, GaBuild *build, const ga_plan *plan)
{
	BlockArrays b;
	Datum		args[9];
	Oid			types[9] = {INT8OID, INT4ARRAYOID, INT8ARRAYOID, INT4ARRAYOID, INT4ARRAYOID,
	INT4ARRAYOID, INT4ARRAYOID, INT4ARRAYOID};

	collect_blocks(build, plan, &b);
	if (b.n == 0)
		return;
	args[0] = Int64GetDatum(plan_id);
	args[1] = int_array(b.pool_id, NULL, b.n, INT4OID);
	args[2] = int_array(b.job_id, b.job_null, b.n, INT8OID);
	args[3] = int_array(b.service_id, b.service_null, b.n, INT4OID);
	args[4] = int_array(b.gpu_first, NULL, b.n, INT4OID);
	args[5] = int_array(b.gpu_count, NULL, b.n, INT4OID);
	args[6] = int_array(b.step_first, NULL, b.n, INT4OID);
	args[7] = int_array(b.step_count, NULL, b.n, INT4OID);
	run_write("INSERT INTO gpualloc.plan_blocks "
			  "(plan_id, pool_id, job_id, service_id, gpu_first, gpu_count, step_first, step_count) "
			  "SELECT $1, * FROM ROWS FROM (pg_catalog.unnest($2), pg_catalog.unnest($3), pg_catalog.unnest($4), pg_catalog.unnest($5), pg_catalog.unnest($6), pg_catalog.unnest($7), pg_catalog.unnest($8))",
			  8, types, args, NULL, SPI_OK_INSERT);
}

void
ga_store_plan_result(int64 plan_id, GaBuild *build, const ga_plan *plan,
					 const char *status, const char *message)
{
	update_run(plan_id, build, plan, status, message);
	store_blocks(plan_id, build, plan);
}

/*
 * Make the committed allocation match step 0 of the plan, through the one
 * commit path (gpualloc_internal.commit_plan_step): under the commit lock it re-reads
 * the jobs and GPUs and writes around whatever changed while the plan was
 * solved, at the commit moment.  Committed rows are open-ended: a GPU's
 * workload stays in force until a later change, so a planner that stops or
 * fails never leaves a GPU unassigned.  Returns the number of GPUs whose
 * workload changed; the NOTIFY is queued by the commit path.
 */
int
ga_commit_current_step(int64 plan_id, GaBuild *build, const ga_plan *plan)
{
	ga_problem *p = build->problem;
	int			n = 0;
	Datum	   *gpu = palloc(sizeof(Datum) * (p->n_gpus + 1));
	Datum	   *job = palloc(sizeof(Datum) * (p->n_gpus + 1));
	bool	   *job_null = palloc(sizeof(bool) * (p->n_gpus + 1));
	Datum	   *svc = palloc(sizeof(Datum) * (p->n_gpus + 1));
	bool	   *svc_null = palloc(sizeof(bool) * (p->n_gpus + 1));
	Datum	   *booked = palloc(sizeof(Datum) * (build->n_booked + 1));
	Datum		args[5];
	Oid			types[5] = {INT8OID, INT4ARRAYOID, INT8ARRAYOID, INT4ARRAYOID, INT8ARRAYOID};
	bool		isnull;

	for (int g = 0; g < p->n_gpus; g++)
	{
		int32		w = ga_plan_get(plan, g, 0);

		if (build->gpu_ids[g] == 0)
			continue;
		gpu[n] = Int32GetDatum(build->gpu_ids[g]);
		job_null[n] = !(w != GA_IDLE && w < p->n_jobs);
		job[n] = Int64GetDatum(job_null[n] ? 0 : p->jobs[w].id);
		svc_null[n] = !(w != GA_IDLE && w >= p->n_jobs);
		svc[n] = Int32GetDatum(svc_null[n] ? 0 : (int32) p->services[w - p->n_jobs].id);
		n++;
	}
	for (int j = 0; j < build->n_booked; j++)
		booked[j] = Int64GetDatum(build->booked_job_ids[j]);
	args[0] = Int64GetDatum(plan_id);
	args[1] = int_array(gpu, NULL, n, INT4OID);
	args[2] = int_array(job, job_null, n, INT8OID);
	args[3] = int_array(svc, svc_null, n, INT4OID);
	args[4] = int_array(booked, NULL, build->n_booked, INT8OID);

	/*
	 * The commit lock is held until this transaction commits, and a commit
	 * waits for its WAL to reach the disk.  The plan's rows, written above,
	 * are most of that WAL: flushed now, before the lock, so submissions
	 * that book wait for the allocation's few rows only.  Up to the end of
	 * this transaction's last record: the insert position can lie past the
	 * header of a page nothing has been written to yet, and asking for a
	 * flush there is an error.
	 */
	XLogFlush(XactLastRecEnd);
	run_write("SELECT gpualloc_internal.commit_plan_step($1, $2, $3, $4, $5)", 5, types, args, NULL, SPI_OK_SELECT);
	return DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}
