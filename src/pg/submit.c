/*
 * submit.c — gpualloc.submit_job(name, kind, pool, gpus_min, gpus_max,
 * priority, features, tenant, not_before, deadline, work_gpu_hours,
 * command, after_ok, after_any, time_limit, alt_pools): check a batch job, queue it,
 * and book it at once when it waits for no job and a block is free for its
 * whole run (fast_path.c).
 *
 * Every check raises the error the API documents (the field and the rule,
 * with an SQLSTATE) before anything is written.  Each lookup is an index
 * probe through a plan prepared once per backend, so a submission costs the
 * same with ten or fifty thousand jobs queued.  The function is SECURITY
 * DEFINER: the caller is the outer user, who may submit only for tenants it
 * is a member of (or any, as an admin).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "gpualloc_pg.h"

PG_FUNCTION_INFO_V1(gpualloc_submit_job);

#define GA_COMMAND_MAX_BYTES 8192

/* The arguments, NULL where the caller passed NULL. */
typedef struct SubmitArgs
{
	text	   *name;
	text	   *kind;
	text	   *pool;
	bool		has_gpus_min;
	int			gpus_min;
	bool		has_gpus_max;
	int			gpus_max;
	bool		has_priority;
	double		priority;
	Jsonb	   *features;
	const char *tenant;
	bool		has_not_before;
	TimestampTz not_before;
	bool		has_deadline;
	TimestampTz deadline;
	bool		has_work;
	double		work_gpu_hours;
	text	   *command;
	ArrayType  *after_ok;
	ArrayType  *after_any;
	Interval   *time_limit;
	ArrayType  *alt_pools;
} SubmitArgs;

/* What gets queued: the checked arguments and the work estimate. */
typedef struct QueuedJob
{
	const char *kind;
	int			pool_id;
	int			node_size;
	int			index_end;		/* the pool's topology indexes are below it */
	int			gpus_min;
	int			gpus_max;
	const char *tenant;
	ga_job_estimate est;
	GaDependencies deps;
	double		time_limit_hours;	/* 0: none */
	GaAltPools	alts;			/* further pools (job_pools.c) */
} QueuedJob;

/*
 * The pool row is key-shared as it is read, as the job's foreign key will
 * be: a remove_pool() in flight is waited for here, and then the pool is
 * not found, rather than found now and failing the key check at the insert.
 */
static GaSavedQuery pool_query = {
	"SELECT p.pool_id, p.node_size, "
	"       (SELECT pg_catalog.max(g.node) + 1 FROM gpualloc.gpus g WHERE g.pool_id = p.pool_id) * p.node_size "
	"FROM gpualloc.pools p WHERE p.name = $1 FOR KEY SHARE OF p",
	1, {TEXTOID}, NULL
};

/* the pool's usable GPUs, counted up to $2: a check reads no more GPUs than it asks for */
static GaSavedQuery capacity_query = {
	"SELECT pg_catalog.count(*)::integer FROM (SELECT 1 FROM gpualloc.gpus g "
	"WHERE g.pool_id = $1 AND g.state <> 'down' LIMIT $2) u",
	2, {INT4OID, INT4OID}, NULL
};

/* the tenant's cap; whether it has an active job of the name is an index probe under a lock (active_job_name.c) */
static GaSavedQuery tenant_query = {
	"SELECT t.max_priority FROM gpualloc.tenants t WHERE t.tenant = $1",
	1, {NAMEOID}, NULL
};

static GaSavedQuery insert_query = {
	"INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max, "
	"                           not_before, deadline, features, est_gpus, est_hours_p10, est_hours_p50, "
	"                           est_hours_p90, est_work_gpu_hours, est_method, command, time_limit) "
	"VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING job_id",
	18, {TEXTOID, TEXTOID, NAMEOID, INT4OID, FLOAT8OID, INT4OID, INT4OID, TIMESTAMPTZOID, TIMESTAMPTZOID,
	JSONBOID, INT4OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, TEXTOID, TEXTOID, INTERVALOID}, NULL
};

/* Numbers and times in messages read as SQL prints them. */
static char *
float_text(double v)
{
	return DatumGetCString(DirectFunctionCall1(float8out, Float8GetDatum(v)));
}

static char *
time_text(TimestampTz t)
{
	return DatumGetCString(DirectFunctionCall1(timestamptz_out, TimestampTzGetDatum(t)));
}

static bool
matches(text *value, const char *pattern)
{
	return DatumGetBool(DirectFunctionCall2Coll(textregexeq, DEFAULT_COLLATION_OID, PointerGetDatum(value),
												CStringGetTextDatum(pattern)));
}

static char *
text_or_null(text *value)
{
	return value == NULL ? "NULL" : text_to_cstring(value);
}

static Datum
first_value(bool *isnull)
{
	return SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
}

static void
read_args(FunctionCallInfo fcinfo, SubmitArgs *a)
{
	memset(a, 0, sizeof(*a));
	a->name = PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0);
	a->kind = PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1);
	a->pool = PG_ARGISNULL(2) ? NULL : PG_GETARG_TEXT_PP(2);
	a->has_gpus_min = !PG_ARGISNULL(3);
	a->gpus_min = a->has_gpus_min ? PG_GETARG_INT32(3) : 0;
	a->has_gpus_max = !PG_ARGISNULL(4);
	a->gpus_max = a->has_gpus_max ? PG_GETARG_INT32(4) : 0;
	a->has_priority = !PG_ARGISNULL(5);
	a->priority = a->has_priority ? PG_GETARG_FLOAT8(5) : 0;
	a->features = PG_ARGISNULL(6) ? NULL : PG_GETARG_JSONB_P(6);
	/* no tenant given: the caller submits for itself */
	a->tenant = PG_ARGISNULL(7) ? GetUserNameFromId(GetOuterUserId(), false)
		: pstrdup(NameStr(*PG_GETARG_NAME(7)));
	a->has_not_before = !PG_ARGISNULL(8);
	a->not_before = a->has_not_before ? PG_GETARG_TIMESTAMPTZ(8) : 0;
	a->has_deadline = !PG_ARGISNULL(9);
	a->deadline = a->has_deadline ? PG_GETARG_TIMESTAMPTZ(9) : 0;
	a->has_work = !PG_ARGISNULL(10);
	a->work_gpu_hours = a->has_work ? PG_GETARG_FLOAT8(10) : 0;
	a->command = PG_ARGISNULL(11) ? NULL : PG_GETARG_TEXT_PP(11);
	a->after_ok = PG_ARGISNULL(12) ? NULL : PG_GETARG_ARRAYTYPE_P(12);
	a->after_any = PG_ARGISNULL(13) ? NULL : PG_GETARG_ARRAYTYPE_P(13);
	a->time_limit = PG_ARGISNULL(14) ? NULL : PG_GETARG_INTERVAL_P(14);
	a->alt_pools = PG_ARGISNULL(15) ? NULL : PG_GETARG_ARRAYTYPE_P(15);
}

static void
check_name(text *name)
{
	if (name == NULL || !matches(name, "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$"))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("job name \"%s\" is not a valid name", text_or_null(name)),
				 errdetail("A job name is 1 to 63 characters: letters, digits, \"_\", \".\", \":\" or \"-\", starting with a letter or digit.")));
}

static const char *
check_kind(text *kind)
{
	const char *k = text_or_null(kind);

	if (kind == NULL ||
		(strcmp(k, "training") != 0 && strcmp(k, "batch_inference") != 0 && strcmp(k, "quantization") != 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("kind must be one of training, batch_inference, quantization; got %s", k),
				 errhint("Real-time inference is a service: use gpualloc.add_service().")));
	return k;
}

static void
find_pool(text *pool, QueuedJob *q)
{
	Datum		arg = PointerGetDatum(pool);
	bool		isnull;

	if (pool != NULL)
		ga_saved_query_expect(&pool_query, &arg, NULL, SPI_OK_SELECT);
	if (pool == NULL || SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("pool \"%s\" does not exist", text_or_null(pool)),
				 errhint("List pools with: SELECT name FROM gpualloc.pools;")));
	q->pool_id = DatumGetInt32(first_value(&isnull));
	q->node_size = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	q->index_end = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	if (isnull)
		q->index_end = 0;		/* no GPU yet: the size check refuses the job */
}

/* The pool's GPUs that are not down, or at_most when it has more. */
static int
usable_gpus(const QueuedJob *q, int at_most)
{
	Datum		args[2] = {Int32GetDatum(q->pool_id), Int32GetDatum(at_most)};
	bool		isnull;

	ga_saved_query_expect(&capacity_query, args, NULL, SPI_OK_SELECT);
	return DatumGetInt32(first_value(&isnull));
}

static void
check_features_object(Jsonb *features)
{
	if (features == NULL || !JB_ROOT_IS_OBJECT(features) || JB_ROOT_IS_SCALAR(features))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must be a JSON object, got %s",
						features == NULL ? "NULL"
						: TextDatumGetCString(DirectFunctionCall1(jsonb_typeof, JsonbPGetDatum(features)))),
				 errhint("For example: {\"params_b\": 8, \"tokens_m\": 200}")));
}

/* The largest power of two not above n (0 for n < 1). */
static int
pow2_floor(int n)
{
	int			p = 1;

	if (n < 1)
		return 0;
	while (p <= n / 2)
		p *= 2;
	return p;
}

static void
check_pow2(const char *field, bool given, int value)
{
	if (!given || value <= 0 || (value & (value - 1)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a power of two (1, 2, 4, 8, ...), got %s", field,
						given ? psprintf("%d", value) : "NULL")));
}

/* The sizes asked for, or the estimator's suggestion kept inside the pool. */
static void
decide_sizes(const SubmitArgs *a, const char *pool, QueuedJob *q)
{
	bool		has_min = a->has_gpus_min;
	bool		has_max = a->has_gpus_max || a->has_gpus_min;

	int			capacity;

	q->gpus_min = a->gpus_min;
	q->gpus_max = a->has_gpus_max ? a->gpus_max : a->gpus_min;
	if (!a->has_gpus_min && !a->has_gpus_max)
	{
		ga_job_estimate e;

		/* no size given: the estimator suggests one from the memory the job needs */
		ga_pg_estimate_job(q->kind, a->features, 0, pool, &e);
		q->gpus_min = e.gpus_min;
		/* the suggestion, not the caller, may exceed the pool: keep it inside */
		capacity = usable_gpus(q, PG_INT32_MAX);
		q->gpus_max = Max(Min(e.gpus, pow2_floor(capacity)), e.gpus_min);
		has_min = has_max = true;
	}
	check_pow2("gpus_min", has_min, q->gpus_min);
	check_pow2("gpus_max", has_max, q->gpus_max);
	if (q->gpus_min > q->gpus_max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpus_min %d exceeds gpus_max %d", q->gpus_min, q->gpus_max)));
	/* exact whenever it is below gpus_max, so the errors name the pool's size */
	capacity = usable_gpus(q, q->gpus_max);
	if (q->gpus_min > capacity)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpus_min %d is more GPUs than pool \"%s\" has (%d usable)", q->gpus_min, pool,
						capacity),
				 errhint("Add GPUs to the pool or ask for a smaller block.")));
	if (q->gpus_max > capacity)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpus_max %d is more GPUs than pool \"%s\" has (%d usable)", q->gpus_max, pool,
						capacity),
				 errhint("Ask for at most the pool's size; the planner picks the size between gpus_min and gpus_max.")));
}

static void
check_positive(const char *field, bool given, double value)
{
	if (!given || isnan(value) || value <= 0 || value == INFINITY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s must be a positive finite number, got %s", field,
						given ? float_text(value) : "NULL")));
}

static void
check_times(const SubmitArgs *a)
{
	if (a->has_not_before && TIMESTAMP_NOT_FINITE(a->not_before))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("not_before must be a finite time")));
	if (a->has_deadline && TIMESTAMP_IS_NOEND(a->deadline))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("deadline must be a finite time"),
				 errhint("Leave it NULL for no deadline.")));
	if (a->has_deadline && a->deadline <= GetCurrentTransactionStartTimestamp())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("deadline %s is not in the future", time_text(a->deadline))));
	if (a->has_deadline && a->has_not_before && a->deadline <= a->not_before)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("deadline %s is not after not_before %s", time_text(a->deadline),
						time_text(a->not_before))));
}

/* The submitter's own figure for the work, and the features it comes with. */
static void
check_work(const SubmitArgs *a, const char *kind)
{
	if (!a->has_work)
		return;
	check_positive("work_gpu_hours", true, a->work_gpu_hours);
	if (a->work_gpu_hours > GA_WORK_MAX_GPU_HOURS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("work_gpu_hours must be at most 1e7 (a thousand GPU-years), got %s",
						float_text(a->work_gpu_hours))));
	ga_pg_check_features(kind, a->features);
}

static void
check_command(text *command)
{
	int			bytes;

	if (command == NULL)
		return;
	bytes = DatumGetInt32(DirectFunctionCall1(textoctetlen, PointerGetDatum(command)));
	if (bytes > GA_COMMAND_MAX_BYTES || !matches(command, "\\S"))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("command must be 1 to 8192 bytes and not blank, got %d bytes", bytes),
				 errdetail("The command is the shell command line the executor runs for the job.")));
}

/*
 * The hard limit on the run, in hours: positive and at most a year, months
 * counted as 30 days as PostgreSQL does; 0 when none.
 */
static double
check_time_limit(Interval *limit)
{
	double		hours;

	if (limit == NULL)
		return 0;
	hours = ((double) limit->month * DAYS_PER_MONTH * HOURS_PER_DAY + (double) limit->day * HOURS_PER_DAY +
			 (double) limit->time / USECS_PER_HOUR);
	if (!(hours > 0) || hours > 366 * HOURS_PER_DAY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("time_limit must be a positive interval of at most 366 days, got %s",
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(limit)))),
				 errhint("Leave it NULL for no limit.")));
	return hours;
}

/* An admin (a member of gpualloc_admin, or a superuser) or a member of the tenant's role. */
bool
ga_pg_can_act_for(Oid caller, const char *tenant)
{
	Oid			admin = get_role_oid("gpualloc_admin", true);
	Oid			role = get_role_oid(tenant, true);

	if (superuser_arg(caller) || (OidIsValid(admin) && is_member_of_role(caller, admin)))
		return true;
	return OidIsValid(role) && is_member_of_role(caller, role);
}

/*
 * The tenant: the caller may act for it, it is registered, the priority
 * within its cap, and the name free among its active jobs (checked in that
 * order: whether another tenant is registered is not the caller's to learn,
 * as submitters cannot read gpualloc.tenants).
 */
static void
check_tenant(const char *tenant, double priority, text *name)
{
	Datum		args[1] = {DirectFunctionCall1(namein, CStringGetDatum(tenant))};
	Oid			caller = GetOuterUserId();
	bool		isnull;
	double		cap;

	/* the common case: a role submits for itself */
	if (strcmp(tenant, GetUserNameFromId(caller, false)) != 0 && !ga_pg_can_act_for(caller, tenant))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to submit jobs for tenant \"%s\"", tenant),
				 errhint("Submit as a member of the tenant's role.")));
	ga_saved_query_expect(&tenant_query, args, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("tenant \"%s\" is not registered", tenant),
				 errdetail("Only a registered tenant can own jobs."),
				 errhint("An admin registers it with: SELECT gpualloc.add_tenant(%s);",
						 quote_literal_cstr(tenant))));
	cap = DatumGetFloat8(first_value(&isnull));
	if (isnull)
		cap = gpualloc_max_priority;
	if (priority > cap)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("priority %s is above the maximum %s of tenant \"%s\"", float_text(priority),
						float_text(cap), tenant),
				 errhint("Ask an admin to raise it with gpualloc.set_tenant().")));
	if (ga_pg_claim_job_name(tenant, name))
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("tenant \"%s\" already has an active job named \"%s\"", tenant, text_to_cstring(name)),
				 errhint("Job names are unique per tenant among queued, booked and running jobs.")));
}

/* The work the planner books: the submitter's figure, else the estimate at gpus_max. */
static void
decide_work(const SubmitArgs *a, const char *pool, QueuedJob *q)
{
	ga_job_estimate *e = &q->est;

	if (a->has_work)
	{
		e->gpus = q->gpus_max;
		e->hours_p10 = e->hours_p50 = e->hours_p90 = a->work_gpu_hours / q->gpus_max;
		e->work_gpu_hours = a->work_gpu_hours;
		strlcpy(e->method, "submitted", sizeof(e->method));
		return;
	}
	ga_pg_estimate_job(q->kind, a->features, q->gpus_max, pool, e);
	if (isnan(e->work_gpu_hours) || e->work_gpu_hours > GA_WORK_MAX_GPU_HOURS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the estimated work of this job is %s GPU-hours, beyond 1e7",
						DatumGetCString(DirectFunctionCall1(numeric_out,
															DirectFunctionCall2(numeric_round,
																				DirectFunctionCall1(float8_numeric, Float8GetDatum(e->work_gpu_hours)),
																				Int32GetDatum(0))))),
				 errhint("Check its features (model size, tokens, epochs), or give work_gpu_hours.")));
	/* features far below any real job's (a model of 1e-300 parameters) */
	if (!(e->work_gpu_hours > 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the estimated work of this job is 0 GPU-hours"),
				 errdetail("Its features describe less work than a plan can hold."),
				 errhint("Check its features (model size, tokens, epochs), or give work_gpu_hours.")));
}

static int64
insert_job(const SubmitArgs *a, const QueuedJob *q)
{
	Datum		v[18];
	char		nulls[18];
	bool		isnull;

	memset(nulls, ' ', sizeof(nulls));
	v[0] = PointerGetDatum(a->name);
	v[1] = CStringGetTextDatum(q->kind);
	v[2] = DirectFunctionCall1(namein, CStringGetDatum(q->tenant));
	v[3] = Int32GetDatum(q->pool_id);
	v[4] = Float8GetDatum(a->priority);
	v[5] = Int32GetDatum(q->gpus_min);
	v[6] = Int32GetDatum(q->gpus_max);
	v[7] = TimestampTzGetDatum(a->not_before);
	nulls[7] = a->has_not_before ? ' ' : 'n';
	v[8] = TimestampTzGetDatum(a->deadline);
	nulls[8] = a->has_deadline ? ' ' : 'n';
	v[9] = JsonbPGetDatum(a->features);
	v[10] = Int32GetDatum(q->est.gpus);
	v[11] = Float8GetDatum(q->est.hours_p10);
	v[12] = Float8GetDatum(q->est.hours_p50);
	v[13] = Float8GetDatum(q->est.hours_p90);
	v[14] = Float8GetDatum(q->est.work_gpu_hours);
	v[15] = CStringGetTextDatum(q->est.method);
	v[16] = PointerGetDatum(a->command);
	nulls[16] = a->command != NULL ? ' ' : 'n';
	v[17] = IntervalPGetDatum(a->time_limit);
	nulls[17] = a->time_limit != NULL ? ' ' : 'n';
	ga_saved_query_expect(&insert_query, v, nulls, SPI_OK_INSERT_RETURNING);
	return DatumGetInt64(first_value(&isnull));
}

/* The further pools, checked against the job as it will be queued. */
static void
decide_alt_pools(const SubmitArgs *a, QueuedJob *q)
{
	GaAltPoolsJob job;

	job.kind = q->kind;
	job.features = a->features;
	job.pool_id = q->pool_id;
	job.gpus_min = q->gpus_min;
	job.gpus_max = q->gpus_max;
	job.submitted_work = a->has_work;
	job.work_gpu_hours = q->est.work_gpu_hours;
	ga_pg_check_alt_pools(a->alt_pools, &job, &q->alts);
}

/*
 * Book the new job at once when it may start now and a block is free.  Its
 * first pool only: its alternatives are weighed by the planner.
 */
static void
try_fast_path(const SubmitArgs *a, const QueuedJob *q, int64 job_id)
{
	GaFastPathJob job;

	if (a->has_not_before && a->not_before > GetCurrentTransactionStartTimestamp())
		return;
	job.waits = q->deps.waits;
	job.time_limit_hours = q->time_limit_hours;
	job.job_id = job_id;
	job.pool_id = q->pool_id;
	job.node_size = q->node_size;
	job.index_end = q->index_end;
	job.gpus_min = q->gpus_min;
	job.gpus_max = q->gpus_max;
	job.work_gpu_hours = q->est.work_gpu_hours;
	job.overrun_margin = ga_overrun_margin_of(gpualloc_overrun_margin, gpualloc_overrun_spread,
											  ga_duration_p90_ratio(q->est.hours_p50, q->est.hours_p90));
	job.has_deadline = a->has_deadline;
	job.deadline = a->deadline;
	job.tenant = a->tenant;
	(void) ga_submit_fast_path(&job);
}

Datum
gpualloc_submit_job(PG_FUNCTION_ARGS)
{
	SubmitArgs	a;
	QueuedJob	q;
	const char *pool;
	int64		job_id;

	read_args(fcinfo, &a);
	memset(&q, 0, sizeof(q));
	SPI_connect();
	check_name(a.name);
	q.kind = check_kind(a.kind);
	find_pool(a.pool, &q);
	pool = text_to_cstring(a.pool);
	check_features_object(a.features);
	decide_sizes(&a, pool, &q);
	check_positive("priority", a.has_priority, a.priority);
	check_times(&a);
	check_work(&a, q.kind);
	check_command(a.command);
	q.time_limit_hours = check_time_limit(a.time_limit);
	q.tenant = a.tenant;
	check_tenant(q.tenant, a.priority, a.name);
	ga_pg_check_dependencies(a.after_ok, a.after_any, &q.deps);
	decide_work(&a, pool, &q);
	decide_alt_pools(&a, &q);
	job_id = insert_job(&a, &q);
	ga_pg_insert_dependencies(job_id, &q.deps);
	ga_pg_insert_alt_pools(job_id, &q.alts);
	try_fast_path(&a, &q, job_id);
	SPI_finish();
	PG_RETURN_INT64(job_id);
}
