/*
 * problem_build.c — read the tables through SPI and build the core problem.
 *
 * Step 0 starts at now floored to the step length.  Running jobs are pinned
 * to their block from their real start; queued jobs are released at their
 * submission or not_before; each service's demand is the churn-shaped
 * forecast from its hourly history, and its protect curve the same at the
 * protect quantile.  The caller holds an SPI connection.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "gpualloc_pg.h"
#include "model/advance_reservation.h"
#include "model/tenant_quota.h"
#include "model/overrun.h"

static void
destroy_problem_callback(void *arg)
{
	GaBuild    *build = (GaBuild *) arg;

	ga_problem_destroy(build->problem);
	build->problem = NULL;
}

static Datum
column(int row, int col, bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, isnull);
}

static int
int_column(int row, int col, int if_null)
{
	bool		isnull;
	Datum		d = column(row, col, &isnull);

	return isnull ? if_null : DatumGetInt32(d);
}

static double
float_column(int row, int col, double if_null)
{
	bool		isnull;
	Datum		d = column(row, col, &isnull);

	return isnull ? if_null : DatumGetFloat8(d);
}

static void
run_query(const char *sql, int nargs, Oid *types, Datum *values)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL, true, 0);

	if (rc != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: query failed (%s): %s", SPI_result_code_string(rc), sql);
}

/* Steps from plan start to ts, rounded down (floor) or up (ceil). */
static int
steps_from(const GaBuild *build, TimestampTz ts, bool round_up)
{
	double		steps = (double) (ts - build->plan_start) /
		((double) build->step_minutes * USECS_PER_MINUTE);
	double		r = round_up ? ceil(steps - 1e-9) : floor(steps + 1e-9);

	if (r > 1e6)
		return 1000000;
	if (r < -1e6)
		return -1000000;
	return (int) r;
}

/*
 * First step a job may start in.  Released by now: step 0, which is under way
 * (the job starts now, not at the step's start).  Released later: the first
 * step that begins at or after the release, so it never starts early.
 */
static int
release_step(const GaBuild *build, TimestampTz released)
{
	if (released <= build->now)
		return 0;
	return Max(0, steps_from(build, released, true));
}

/*
 * Pools in pool_id order, each numbered by the planner chunk by chunk
 * (topology.c); numbers inside a chunk with no GPU behind them are unusable.
 */
static void
load_pools(GaBuild *build)
{
	ga_problem *p = build->problem;

	for (int i = 0; i < p->n_pools; i++)
	{
		GaPoolLayout *l = &build->layouts[i];

		build->pool_ids[i] = l->pool_id;
		strlcpy(p->pools[i].name, l->name, GA_NAME_LEN);
		p->pools[i].first_gpu = l->first_slot;
		p->pools[i].n_gpus = l->n_chunks * l->chunk;
	}
	for (int g = 0; g < p->n_gpus; g++)
		p->gpu_usable[g] = false;
}

static int
pool_index(const GaBuild *build, int pool_id)
{
	for (int i = 0; i < build->problem->n_pools; i++)
		if (build->pool_ids[i] == pool_id)
			return i;
	elog(ERROR, "gpualloc: pool %d vanished while planning", pool_id);
	return -1;
}

static void
load_gpus(GaBuild *build)
{
	ga_problem *p = build->problem;

	for (int i = 0; i < p->n_pools; i++)
	{
		GaPoolLayout *l = &build->layouts[i];

		for (int k = 0; k < l->n_gpus; k++)
		{
			int			g = l->first_slot + ga_layout_to_planner(l, l->index[k]);

			build->gpu_ids[g] = l->gpu_id[k];
			p->gpu_usable[g] = l->up[k];
		}
	}
}

/*
 * Queued, booked and running jobs.  Only running jobs are pinned: a booked
 * job has not started, so every plan places it afresh (on the same block
 * when that is still best); the commit path moves or releases its booking
 * only while it is still booked, so an executor's start always wins.
 *
 * The jobs to plan: running ones, and queued or booked ones with an
 * estimate whose every unfinished predecessor is planned too.  A job that
 * waits, directly or down a chain, for a queued job without an estimate
 * (or for a failed after_ok one, which the cancel trigger handles at once)
 * is not planned: it could never be placed after it.
 */
#define JOBS_BLOCKED \
	"WITH RECURSIVE blocked(job_id) AS (" \
	"  SELECT d.job_id FROM gpualloc.job_dependencies d JOIN gpualloc.jobs p ON p.job_id = d.after_job_id " \
	"  WHERE (p.status IN ('queued', 'booked') AND p.est_work_gpu_hours IS NULL) " \
	"     OR (d.kind = 'after_ok' AND p.status IN ('failed', 'cancelled')) " \
	"  UNION " \
	"  SELECT d.job_id FROM gpualloc.job_dependencies d JOIN blocked b ON d.after_job_id = b.job_id) "
/*
 * A tenant's index for the planner: its rank among the registered tenants,
 * so jobs and advance reservations of one tenant get the same number; one
 * scan of the tenants, joined to the rows that name them.
 */
#define TENANT_RANKS \
	"(SELECT t.tenant, (pg_catalog.row_number() OVER (ORDER BY t.tenant) - 1)::integer AS idx " \
	" FROM gpualloc.tenants t)"
/*
 * A running job is planned on the pool it runs on, with its work there; any
 * other on its first choice (a booking on an alternative is placed afresh
 * among all its pools).
 */
#define JOBS_COLUMNS \
	"SELECT j.job_id, j.name, " \
	"       CASE WHEN j.status = 'running' THEN j.pool_id ELSE coalesce(j.requested_pool_id, j.pool_id) END, " \
	"       j.priority, j.gpus_min, j.gpus_max, " \
	"       CASE WHEN j.status = 'running' AND j.requested_pool_id IS NOT NULL " \
	"            THEN coalesce((SELECT jp.est_work_gpu_hours FROM gpualloc.job_pools jp " \
	"                           WHERE jp.job_id = j.job_id AND jp.pool_id = j.pool_id), j.est_work_gpu_hours) " \
	"            ELSE j.est_work_gpu_hours END, " \
	"       greatest(j.submitted_at, coalesce(j.not_before, j.submitted_at)), j.deadline, " \
	"       j.status = 'running', j.started_at, j.block_first, j.block_size, j.status = 'booked', " \
	"       pg_catalog.date_part('epoch', j.time_limit) / 3600, j.status = 'queued', j.tenant::text, " \
	"       ti.idx, j.est_hours_p50, j.est_hours_p90 " \
	"FROM gpualloc.jobs j JOIN " TENANT_RANKS " ti ON ti.tenant = j.tenant "
#define JOBS_NOT_BLOCKED \
	"  AND (j.status = 'running' OR j.job_id NOT IN (SELECT b.job_id FROM blocked b)) "
#define JOBS_SQL \
	JOBS_BLOCKED \
	JOBS_COLUMNS \
	"WHERE j.status IN ('queued', 'booked', 'running') " \
	"  AND (j.status = 'running' OR j.est_work_gpu_hours IS NOT NULL) " \
	JOBS_NOT_BLOCKED \
	"ORDER BY j.job_id"
/* the same with the queued jobs bounded by gpualloc.queue_depth ($1) */
#define JOBS_BOUNDED_SQL \
	JOBS_BLOCKED \
	JOBS_COLUMNS \
	"WHERE j.status IN ('booked', 'running') " \
	"  AND (j.status = 'running' OR j.est_work_gpu_hours IS NOT NULL) " \
	JOBS_NOT_BLOCKED \
	"UNION ALL " \
	JOBS_COLUMNS \
	"WHERE j.job_id = ANY ($1::bigint[]) AND j.status = 'queued' AND j.est_work_gpu_hours IS NOT NULL " \
	JOBS_NOT_BLOCKED \
	"ORDER BY 1"

/*
 * Links of the planned jobs ($1) to unfinished predecessors: (job,
 * predecessor, after_ok).  Each predecessor is looked up by its key (the
 * LATERAL with OFFSET 0 keeps the lookup a probe): joined as a table, an
 * unanalysed job_dependencies (an empty one is never analysed) made the
 * planner hash every active job at each run.
 */
#define LINKS_SQL \
	"SELECT d.job_id, d.after_job_id, d.kind = 'after_ok' " \
	"FROM gpualloc.job_dependencies d " \
	"CROSS JOIN LATERAL (SELECT p.status FROM gpualloc.jobs p WHERE p.job_id = d.after_job_id OFFSET 0) p " \
	"WHERE d.job_id = ANY ($1::bigint[]) AND p.status IN ('queued', 'booked', 'running')"

/* The further pools of the queued and booked jobs, in preference order. */
#define ALT_POOLS_SQL \
	"SELECT jp.job_id, jp.pool_id, jp.est_work_gpu_hours " \
	"FROM gpualloc.job_pools jp JOIN gpualloc.jobs j ON j.job_id = jp.job_id " \
	"WHERE j.status IN ('queued', 'booked') " \
	"ORDER BY jp.job_id, jp.preference"

/* The time limit in steps, rounded up (the GPUs are held to that step's end); 0: none. */
static int
limit_steps(const GaBuild *build, double hours)
{
	double		steps;

	if (!(hours > 0))
		return 0;
	steps = ceil(hours * 60.0 / build->step_minutes - 1e-9);
	return steps > 1e6 ? 1000000 : Max(1, (int) steps);
}

static void
fill_job(GaBuild *build, int row, ga_job *job)
{
	ga_pool    *pool;
	double		work_hours = float_column(row, 7, NAN);
	bool		isnull;
	Datum		d;

	job->id = DatumGetInt64(column(row, 1, &isnull));
	strlcpy(job->name, SPI_getvalue(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, 2), GA_NAME_LEN);
	job->pool = pool_index(build, int_column(row, 3, 0));
	pool = &build->problem->pools[job->pool];
	job->priority = float_column(row, 4, 1);
	job->gpus_min = int_column(row, 5, 1);
	job->gpus_max = Min(int_column(row, 6, 1), Max(ga_pow2_floor(pool->n_gpus), 1));
	if (job->gpus_min > job->gpus_max)
		job->gpus_max = job->gpus_min;	/* cannot fit: the solver leaves it out */
	/* a running job with no estimate is assumed to outlast the horizon */
	if (isnan(work_hours))
		work_hours = (double) gpualloc_horizon_minutes / 60.0 * 2 * Max(int_column(row, 13, 1), 1);
	job->work_gpu_steps = work_hours * 60.0 / build->step_minutes;
	job->release_step = release_step(build, DatumGetTimestampTz(column(row, 8, &isnull)));
	d = column(row, 9, &isnull);
	job->deadline_step = isnull ? -1 : Max(0, steps_from(build, DatumGetTimestampTz(d), false));
	job->time_limit_steps = limit_steps(build, float_column(row, 15, 0));
	job->tenant = int_column(row, 18, -1);
	/* the estimate's spread sets how far the protect rule lengthens the run */
	job->duration_p90_ratio = ga_duration_p90_ratio(float_column(row, 19, 0), float_column(row, 20, 0));
	job->pinned = DatumGetBool(column(row, 10, &isnull));
	if (job->pinned)
	{
		TimestampTz started = DatumGetTimestampTz(column(row, 11, &isnull));
		int			rel;
		int			inside;

		job->pinned_size = int_column(row, 13, 1);
		rel = ga_layout_to_planner(&build->layouts[job->pool], int_column(row, 12, 0));
		if (rel < 0)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_EXCEPTION),
					 errmsg("running job %lld is on a block whose GPUs no longer exist", (long long) job->id)));
		job->pinned_first_gpu = pool->first_gpu + rel;
		job->pinned_start = steps_from(build, started, false);

		/*
		 * Steps are whole: a job started inside one runs into the step after
		 * its duration (or its time limit) counted from that step's start, so
		 * it holds that step too (else the plan would hand its block on
		 * before it ends).
		 */
		inside = steps_from(build, started, true) > job->pinned_start ? 1 : 0;
		job->pinned_end = ga_running_end_step(job->pinned_start,
											  ga_job_duration(job, job->pool, job->pinned_size) + inside);
		/* stopped at its limit: held no longer (one step more when overdue, until stopped) */
		if (job->time_limit_steps > 0)
			job->pinned_end = Min(job->pinned_end, Max(1, job->pinned_start + job->time_limit_steps + inside));
		job->deadline_step = -1;
		job->release_step = 0;
		job->gpus_min = job->gpus_max = job->pinned_size;
	}
}

/*
 * A queued job is planned at its priority times its tenant's priority
 * factor in its pool (fairshare.c); a booked or running job keeps its own:
 * it already holds its GPUs, and fair share orders the jobs still waiting.
 */
static void
apply_fairshare(const GaBuild *build, int row, ga_job *job, const GaFairshare *fs)
{
	bool		isnull;

	if (!DatumGetBool(column(row, 16, &isnull)))
		return;
	job->priority *= ga_fairshare_factor(fs, build->pool_ids[job->pool],
										 SPI_getvalue(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, 17));
}

/*
 * The jobs from the rows of JOBS_SQL, which must be SPI's last result, and
 * the ids of those booked now: the bookings the commit may move.
 */
static void
load_jobs(GaBuild *build, int n_jobs, const GaFairshare *fs)
{
	bool		isnull;

	build->booked_job_ids = palloc(sizeof(int64) * (n_jobs + 1));
	build->n_booked = 0;
	for (int j = 0; j < n_jobs; j++)
	{
		fill_job(build, j, &build->problem->jobs[j]);
		apply_fairshare(build, j, &build->problem->jobs[j], fs);
		if (DatumGetBool(column(j, 14, &isnull)))
			build->booked_job_ids[build->n_booked++] = build->problem->jobs[j].id;
	}
}

/* Index of the job with this id among the problem's (sorted by id), or -1. */
static int
job_index(const ga_problem *p, int64 id)
{
	int			lo = 0;
	int			hi = p->n_jobs - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;

		if (p->jobs[mid].id == id)
			return mid;
		if (p->jobs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/*
 * Each planned job's unfinished predecessors.  A running job's links are
 * left out (it already runs), and so is a link to a job not planned: such
 * a successor is not planned either (JOBS_SQL).
 */
static void
load_links(GaBuild *build)
{
	ga_problem *p = build->problem;
	Datum	   *ids = palloc(sizeof(Datum) * (p->n_jobs + 1));
	Datum		arg;
	Oid			type = INT8ARRAYOID;

	for (int j = 0; j < p->n_jobs; j++)
		ids[j] = Int64GetDatum(p->jobs[j].id);
	arg = ga_pg_int8_array(ids, p->n_jobs);
	run_query(LINKS_SQL, 1, &type, &arg);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		int			j = job_index(p, DatumGetInt64(column(r, 1, &isnull)));
		int			q = job_index(p, DatumGetInt64(column(r, 2, &isnull)));
		ga_job	   *job;

		if (j >= 0 && q < 0 && !p->jobs[j].pinned)
		{
			/*
			 * Its predecessor waits behind the queue depth (queue_depth.c),
			 * so it cannot start within this horizon either.
			 */
			p->jobs[j].release_step = p->params.n_steps;
			continue;
		}
		if (j < 0 || q < 0 || p->jobs[j].pinned || p->jobs[j].n_preds == GA_MAX_PREDS)
			continue;
		job = &p->jobs[j];
		job->preds[job->n_preds] = q;
		job->pred_kind[job->n_preds++] = DatumGetBool(column(r, 3, &isnull)) ? GA_DEP_OK : GA_DEP_ANY;
	}
}

/* The pool's index in the problem, or -1 when it is not in it. */
static int
pool_index_or_missing(const GaBuild *build, int pool_id)
{
	for (int i = 0; i < build->problem->n_pools; i++)
		if (build->pool_ids[i] == pool_id)
			return i;
	return -1;
}

/*
 * Each planned job's further pools (docs/model.md, Several pools), read in
 * one query: a pinned job runs where it runs, and a pool not in the problem
 * (removed meanwhile) or already the job's is left out.
 */
static void
load_alt_pools(GaBuild *build)
{
	ga_problem *p = build->problem;

	run_query(ALT_POOLS_SQL, 0, NULL, NULL);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		int			j = job_index(p, DatumGetInt64(column(r, 1, &isnull)));
		int			pool = pool_index_or_missing(build, int_column(r, 2, 0));
		ga_job	   *job;

		if (j < 0 || pool < 0)
			continue;
		job = &p->jobs[j];
		if (job->pinned || job->n_alt_pools == GA_MAX_JOB_POOLS - 1 || ga_job_pool_rank(job, pool) >= 0)
			continue;
		job->alt_pools[job->n_alt_pools].pool = pool;
		job->alt_pools[job->n_alt_pools].work_gpu_steps = float_column(r, 3, 0) * 60.0 / build->step_minutes;
		job->n_alt_pools++;
	}
}

/*
 * The churn-shaped upper-quantile GPU curve the service is planned for, its
 * protect curve at the protect quantile, and with a horizon shorter than a
 * day the peak of the planned curve over the next 24 hours (day_peak).
 */
static void
forecast_service(GaBuild *build, int s, int service_id, double capacity)
{
	ga_service *svc = &build->problem->services[s];
	GaServiceForecastRequest req;

	req.service_id = service_id;
	req.name = svc->name;
	req.from = build->plan_start;
	req.n_steps = build->problem->params.n_steps;
	req.step_minutes = build->step_minutes;
	req.capacity_per_gpu = capacity;
	req.churn_limit = svc->churn_limit;
	req.min_gpus = svc->min_gpus;
	req.max_gpus = svc->max_gpus;
	ga_pg_forecast_service(&req, NULL, NULL, svc->demand, svc->protect, &svc->day_peak);
}

/* A GPU's row id and the planner's number for it, sorted by row id. */
typedef struct GpuNumber
{
	int			gpu_id;
	int			g;
} GpuNumber;

static int
gpu_number_cmp(const void *a, const void *b)
{
	int			x = ((const GpuNumber *) a)->gpu_id;
	int			y = ((const GpuNumber *) b)->gpu_id;

	return (x > y) - (x < y);
}

/* The planner's numbers of the GPUs, searchable by row id (O(G log G) once). */
static GpuNumber *
gpu_numbers(const GaBuild *build, int *n)
{
	ga_problem *p = build->problem;
	GpuNumber  *numbers = palloc(sizeof(GpuNumber) * (p->n_gpus + 1));

	*n = 0;
	for (int g = 0; g < p->n_gpus; g++)
		if (build->gpu_ids[g] != 0)
		{
			numbers[*n].gpu_id = build->gpu_ids[g];
			numbers[*n].g = g;
			(*n)++;
		}
	qsort(numbers, *n, sizeof(GpuNumber), gpu_number_cmp);
	return numbers;
}

/* GPUs a service holds at plan time; unknown when it never held any. */
static void
load_held_gpus(GaBuild *build, int s, int service_id, TimestampTz now,
			   const GpuNumber *numbers, int n_numbers)
{
	ga_problem *p = build->problem;
	Datum		args[2] = {Int32GetDatum(service_id), TimestampTzGetDatum(now)};
	Oid			types[2] = {INT4OID, TIMESTAMPTZOID};
	int		   *held;
	int			n = 0;
	ga_error	err;

	/* the open rows, and the latest ended one to tell "held none" from "never held" */
	run_query("SELECT a.gpu_id, a.end_seq IS NULL AND pg_catalog.lower(a.during) <= $2 "
			  "FROM gpualloc.allocations a WHERE a.service_id = $1 AND (a.end_seq IS NULL "
			  "  OR a.allocation_id = (SELECT pg_catalog.max(b.allocation_id) FROM gpualloc.allocations b "
			  "                        WHERE b.service_id = $1))", 2, types, args);
	if (SPI_processed == 0)
		return;					/* first plan for this service */
	held = palloc(sizeof(int) * (SPI_processed + 1));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		GpuNumber	key;
		GpuNumber  *found;

		if (!DatumGetBool(column(i, 2, &isnull)))
			continue;
		key.gpu_id = int_column(i, 1, 0);
		found = bsearch(&key, numbers, n_numbers, sizeof(GpuNumber), gpu_number_cmp);
		if (found != NULL)
			held[n++] = found->g;
	}
	if (ga_problem_set_held(p, s, held, n, &err) != GA_OK)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("%s", err.message)));
	pfree(held);
}

static void
load_services(GaBuild *build, TimestampTz now)
{
	ga_problem *p = build->problem;
	int		   *ids = palloc(sizeof(int) * (p->n_services + 1));
	double	   *capacity = palloc(sizeof(double) * (p->n_services + 1));
	GpuNumber  *numbers;
	int			n_numbers;

	run_query("SELECT service_id, name, pool_id, priority, churn_limit, churn_budget, "
			  "       min_gpus, max_gpus, capacity_per_gpu "
			  "FROM gpualloc.services ORDER BY service_id", 0, NULL, NULL);
	for (int s = 0; s < p->n_services; s++)
	{
		ga_service *svc = &p->services[s];

		ids[s] = int_column(s, 1, 0);
		svc->id = ids[s];
		strlcpy(svc->name, SPI_getvalue(SPI_tuptable->vals[s], SPI_tuptable->tupdesc, 2), GA_NAME_LEN);
		svc->pool = pool_index(build, int_column(s, 3, 0));
		svc->priority = float_column(s, 4, 1);
		svc->churn_limit = int_column(s, 5, 1);
		svc->churn_budget = int_column(s, 6, -1);
		svc->min_gpus = int_column(s, 7, 0);
		svc->max_gpus = Min(int_column(s, 8, 0), p->pools[svc->pool].n_gpus);
		svc->min_gpus = Min(svc->min_gpus, svc->max_gpus);
		capacity[s] = float_column(s, 9, 1);
	}
	numbers = gpu_numbers(build, &n_numbers);
	for (int s = 0; s < p->n_services; s++)
	{
		forecast_service(build, s, ids[s], capacity[s]);
		load_held_gpus(build, s, ids[s], now, numbers, n_numbers);
	}
}

/*
 * The planner's pieces of a window over topology indexes [lo, hi) of pool
 * i: one per chunk it touches, since the planner numbers only the chunks
 * that hold GPUs, each contiguously.
 */
static int
window_pieces(const GaBuild *build, int i, int64 lo, int64 hi, int start, int end,
			  ga_window *out)
{
	const GaPoolLayout *l = &build->layouts[i];
	int			n = 0;

	for (int k = 0; k < l->n_chunks; k++)
	{
		int64		from = Max(lo, (int64) l->chunk_start[k]);
		int64		to = Min(hi, (int64) l->chunk_start[k] + l->chunk);

		if (from >= to)
			continue;
		out[n].pool = i;
		out[n].first_gpu = build->problem->pools[i].first_gpu + k * l->chunk +
			(int) (from - l->chunk_start[k]);
		out[n].n_gpus = (int) (to - from);
		out[n].start_step = start;
		out[n].end_step = end;
		n++;
	}
	return n;
}

/*
 * The pieces of the closed range of SPI row r (pool_id, first_gpu, gpus,
 * starts_at, ends_at) as step ranges: a range covering any part of a step
 * closes the whole step.
 */
static int
closed_pieces(const GaBuild *build, uint64 r, ga_window *out)
{
	bool		isnull;
	int			i = pool_index(build, int_column(r, 1, 0));
	int64		lo = int_column(r, 2, 0);
	Datum		gpus = column(r, 3, &isnull);
	int64		hi = isnull ? PG_INT32_MAX : lo + DatumGetInt32(gpus);
	int			start = steps_from(build, DatumGetTimestampTz(column(r, 4, &isnull)), false);
	int			end = steps_from(build, DatumGetTimestampTz(column(r, 5, &isnull)), true);

	if (end <= start)			/* both clamped: centuries away */
		return 0;
	return window_pieces(build, i, lo, hi, start, end, out);
}

/* Pieces a closed range can take at most: one per chunk of any pool. */
static int
max_pieces(const GaBuild *build)
{
	int			cap = 0;

	for (int i = 0; i < build->problem->n_pools; i++)
		cap += build->layouts[i].n_chunks;
	return cap;
}

/* Maintenance windows not over at the start of step 0. */
static void
load_windows(GaBuild *build)
{
	ga_problem *p = build->problem;
	Datum		args[1] = {TimestampTzGetDatum(build->plan_start)};
	Oid			types[1] = {TIMESTAMPTZOID};
	ga_window  *windows;
	int			n = 0;
	ga_error	err;

	run_query("SELECT w.pool_id, w.first_gpu, w.gpus, w.starts_at, w.ends_at "
			  "FROM gpualloc.maintenance_windows w WHERE w.ends_at > $1 "
			  "ORDER BY w.window_id", 1, types, args);
	windows = palloc(sizeof(ga_window) * ((size_t) max_pieces(build) * SPI_processed + 1));
	for (uint64 r = 0; r < SPI_processed; r++)
		n += closed_pieces(build, r, windows + n);
	if (ga_problem_set_windows(p, windows, n, &err) != GA_OK)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("%s", err.message)));
	pfree(windows);
}

/* Advance reservations not over at the start of step 0, with their tenant. */
static void
load_reservations(GaBuild *build)
{
	Datum		args[1] = {TimestampTzGetDatum(build->plan_start)};
	Oid			types[1] = {TIMESTAMPTZOID};
	int			cap = max_pieces(build);
	ga_window  *pieces = palloc(sizeof(ga_window) * (cap + 1));
	ga_advance_reservation *rs;
	int			n = 0;
	ga_error	err;

	run_query("SELECT r.pool_id, r.first_gpu, r.gpus, r.starts_at, r.ends_at, ti.idx "
			  "FROM gpualloc.advance_reservations r JOIN " TENANT_RANKS " ti ON ti.tenant = r.tenant "
			  "WHERE r.ends_at > $1 "
			  "ORDER BY r.reservation_id", 1, types, args);
	rs = palloc(sizeof(ga_advance_reservation) * ((size_t) cap * SPI_processed + 1));
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		int			tenant = int_column(r, 6, 0);
		int			k = closed_pieces(build, r, pieces);

		for (int i = 0; i < k; i++)
		{
			rs[n].cells = pieces[i];
			rs[n++].tenant = tenant;
		}
	}
	if (ga_problem_set_advance_reservations(build->problem, rs, n, &err) != GA_OK)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("%s", err.message)));
	pfree(rs);
	pfree(pieces);
}

/*
 * Each tenant's policy per pool as rules R9 and R10 read it
 * (gpualloc_internal.quota_rules): no limit is GA_NO_LIMIT; a borrow limit
 * without bound is the whole pool; cohorts are numbered by name.
 */
#define TENANT_POLICIES_SQL \
	"SELECT ti.idx, r.pool_id, r.g, coalesce(r.gpu_limit, -1), r.b, r.weight, " \
	"       CASE WHEN r.cohort IS NULL THEN -1 " \
	"            ELSE (pg_catalog.dense_rank() OVER (ORDER BY r.cohort NULLS LAST) - 1)::integer END " \
	"FROM gpualloc_internal.quota_rules r JOIN " TENANT_RANKS " ti ON ti.tenant = r.tenant " \
	"ORDER BY r.pool_id, ti.idx"

/*
 * A pool that lost GPUs after its guarantees were set may be guaranteed
 * more than it has: its guarantees are scaled down to fit for this plan
 * (each rounded down), so planning goes on, and the operator is told.
 */
static void
fit_guarantees(GaBuild *build, ga_tenant_policy *tp, int n)
{
	ga_problem *p = build->problem;

	for (int q = 0; q < p->n_pools; q++)
	{
		/* the GPUs it has, as set_tenant_policy counts them: not the span of its nodes */
		int			have = build->layouts[q].n_gpus;
		int			sum = 0;

		for (int i = 0; i < n; i++)
			sum += tp[i].pool == q ? tp[i].guarantee : 0;
		if (sum <= have)
			continue;
		ereport(WARNING,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("guarantees of pool \"%s\" sum to %d GPUs; the pool has %d",
						p->pools[q].name, sum, have),
				 errdetail("This plan scales each guarantee of the pool down in proportion."),
				 errhint("Lower the guarantees with gpualloc.set_tenant_policy, or add GPUs back.")));
		for (int i = 0; i < n; i++)
			if (tp[i].pool == q)
				tp[i].guarantee = (int) ((int64) tp[i].guarantee * have / sum);
	}
}

static void
load_tenant_policies(GaBuild *build)
{
	ga_tenant_policy *tp;
	ga_error	err;
	int			n;

	run_query(TENANT_POLICIES_SQL, 0, NULL, NULL);
	n = (int) SPI_processed;
	tp = palloc(sizeof(ga_tenant_policy) * (n + 1));
	for (int r = 0; r < n; r++)
	{
		int			q = pool_index(build, int_column(r, 2, 0));
		int			borrow = int_column(r, 5, 0);
		int			pool_gpus = build->problem->pools[q].n_gpus;

		tp[r].tenant = int_column(r, 1, 0);
		tp[r].pool = q;
		tp[r].guarantee = int_column(r, 3, 0);
		tp[r].limit = int_column(r, 4, GA_NO_LIMIT);
		tp[r].borrow_limit = borrow < pool_gpus ? borrow : pool_gpus;
		tp[r].weight = float_column(r, 6, 1);
		tp[r].cohort = int_column(r, 7, -1);
	}
	fit_guarantees(build, tp, n);
	if (ga_problem_set_tenant_policies(build->problem, tp, n, &err) != GA_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the tenant policies do not form valid quotas"),
				 errdetail("%s", err.message)));
	pfree(tp);
}

/*
 * Each guaranteed tenant's forecast need per pool and step (the view
 * gpualloc_internal.tenant_needs), learnt over gpualloc.lender_need_lookback:
 * rule R10 lends no part of a guarantee its tenant is expected to need, so
 * a job runs on borrowed GPUs only if it ends before the lender's need.
 */
#define TENANT_NEEDS_SQL \
	"SELECT ti.idx, n.pool_id, n.step, n.gpus " \
	"FROM gpualloc_internal.tenant_needs n JOIN " TENANT_RANKS " ti ON ti.tenant = n.tenant " \
	"ORDER BY n.pool_id, ti.idx, n.step"

static void
load_tenant_needs(GaBuild *build)
{
	int			T = build->problem->params.n_steps;
	ga_tenant_need *needs;
	int			n = 0;
	ga_error	err;

	/* the view plans from the step under way, as this build does */
	Assert(build->plan_start == ga_pg_step_floor(GetCurrentTransactionStartTimestamp(), build->step_minutes));
	run_query(TENANT_NEEDS_SQL, 0, NULL, NULL);
	needs = palloc(sizeof(ga_tenant_need) * (SPI_processed + 1));
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		int			tenant = int_column(r, 1, 0);
		int			pool = pool_index(build, int_column(r, 2, 0));
		int			t = int_column(r, 3, 0);

		if (n == 0 || needs[n - 1].tenant != tenant || needs[n - 1].pool != pool)
			needs[n++] = (ga_tenant_need) {tenant, pool, palloc0(sizeof(int) * T)};
		if (t >= 0 && t < T)
			needs[n - 1].gpus[t] = int_column(r, 4, 0);
	}
	if (ga_problem_set_tenant_needs(build->problem, needs, n, &err) != GA_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the tenants' forecast needs do not form valid quotas"),
				 errdetail("%s", err.message)));
}

static int
count_rows(const char *sql)
{
	bool		isnull;

	run_query(sql, 0, NULL, NULL);
	return (int) DatumGetInt64(column(0, 1, &isnull));
}

GaBuild *
ga_build_problem(TimestampTz now)
{
	GaBuild    *build = palloc0(sizeof(GaBuild));
	MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));
	ga_params	params = {0};
	int			n_pools;
	int			n_gpus;
	int			n_jobs;
	int			n_services;
	Datum		candidates;
	GaFairshare *fairshare;
	ga_error	err;

	/* each GUC is checked when set, but not against the other set later */
	if (gpualloc_horizon_minutes % gpualloc_step_minutes != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpualloc.horizon (%d min) is not a whole number of gpualloc.step (%d min)",
						gpualloc_horizon_minutes, gpualloc_step_minutes),
				 errhint("Set gpualloc.horizon to a multiple of gpualloc.step.")));
	build->now = now;
	build->step_minutes = gpualloc_step_minutes;
	build->plan_start = ga_pg_step_floor(now, build->step_minutes);

	params.n_steps = gpualloc_horizon_minutes / gpualloc_step_minutes;
	params.step_minutes = gpualloc_step_minutes;
	params.penalty = gpualloc_penalty;
	params.half_life_hours = gpualloc_half_life_minutes / 60.0;
	params.headroom = gpualloc_headroom;
	params.headroom_min = gpualloc_headroom_min;
	params.overrun_margin = gpualloc_overrun_margin;
	params.overrun_spread = gpualloc_overrun_spread;

	build->layouts = ga_layout_load(&n_pools, &n_gpus);
	n_services = count_rows("SELECT pg_catalog.count(*) FROM gpualloc.services");
	build->jobs_without_estimate =
		count_rows("SELECT pg_catalog.count(*) FROM gpualloc.jobs WHERE status IN ('queued', 'booked') AND est_work_gpu_hours IS NULL");
	/* copied out of SPI's result: the jobs' query must be the last one */
	fairshare = ga_fairshare_load(now);
	/* read once: the rows are kept in SPI's result until load_jobs */
	candidates = ga_queue_candidates(build->layouts, n_pools);
	if (candidates == (Datum) 0)
		run_query(JOBS_SQL, 0, NULL, NULL);
	else
	{
		Oid			type = INT8ARRAYOID;

		run_query(JOBS_BOUNDED_SQL, 1, &type, &candidates);
	}
	n_jobs = (int) SPI_processed;

	build->problem = ga_problem_create(n_pools, n_gpus, n_jobs, n_services, &params);
	if (build->problem == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY),
						errmsg("out of memory building a problem of %d GPUs and %d jobs", n_gpus, n_jobs)));
	/* the core's malloc'd problem goes with the memory context, errors included */
	cb->func = destroy_problem_callback;
	cb->arg = build;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);

	build->gpu_ids = palloc0(sizeof(int) * (n_gpus + 1));
	build->pool_ids = palloc0(sizeof(int) * (n_pools + 1));
	load_pools(build);
	load_gpus(build);
	load_jobs(build, n_jobs, fairshare);
	load_links(build);
	load_alt_pools(build);
	load_services(build, now);
	load_windows(build);
	load_reservations(build);
	load_tenant_policies(build);
	load_tenant_needs(build);

	if (ga_problem_finish(build->problem, &err) != GA_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("the cluster's tables do not form a valid planning problem"),
				 errdetail("%s", err.message)));
	return build;
}
