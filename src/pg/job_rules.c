/*
 * job_rules.c — the rules every row of gpualloc.jobs keeps, checked in one
 * call by the table's one CHECK constraint, jobs_rules
 * (gpualloc_internal.job_row_rules).
 *
 * Why one C function rather than a CHECK per rule: PostgreSQL keeps a
 * table's CHECK expressions as node trees in text and reads them back,
 * plans and compiles them for every statement that writes the table.  The
 * fifteen expressions these rules were written as came to 15 kB of text,
 * read again by every submission: a fifth of submit_job's CPU time went
 * into them (perf, 4 clients submitting).  A call of the sixteen columns
 * is 2 kB, and the rules themselves cost a few comparisons.
 *
 * Each rule keeps the name its constraint had, and a row breaking one
 * fails with the message PostgreSQL gives for a named check constraint,
 * the rule in the detail.  NULLs count as they did in SQL: a rule that
 * SQL would have found unknown (a comparison with NULL) passes.
 */
#include "postgres.h"

#include <math.h>

#include "access/detoast.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "gpualloc_pg.h"

PG_FUNCTION_INFO_V1(gpualloc_job_row_rules);

/* Arguments, in the order of the constraint's call (sql/install/01_schema.sql). */
enum JobRuleArg
{
	ARG_KIND,
	ARG_PRIORITY,
	ARG_GPUS_MIN,
	ARG_GPUS_MAX,
	ARG_FEATURES,
	ARG_STATUS,
	ARG_STARTED_AT,
	ARG_FINISHED_AT,
	ARG_BLOCK_FIRST,
	ARG_BLOCK_SIZE,
	ARG_BOOKED_AT,
	ARG_COMMAND,
	ARG_TIME_LIMIT,
	ARG_NOT_BEFORE,
	ARG_DEADLINE,
	ARG_EST_WORK,
	N_JOB_RULE_ARGS
};

static void
broken(const char *rule, const char *text)
{
	ereport(ERROR,
			(errcode(ERRCODE_CHECK_VIOLATION),
			 errmsg("new row for relation \"jobs\" violates check constraint \"%s\"", rule),
			 errdetail("The rule: %s.", text)));
}

static bool
power_of_two(int64 n)
{
	return n > 0 && (n & (n - 1)) == 0;
}

static bool
one_of(const char *s, const char *const *allowed)
{
	for (int i = 0; allowed[i] != NULL; i++)
		if (strcmp(s, allowed[i]) == 0)
			return true;
	return false;
}

/* The rules on what a job asks for: kind, priority, sizes, features, times. */
static void
check_request(FunctionCallInfo fcinfo)
{
	static const char *const kinds[] = {"training", "batch_inference", "quantization", NULL};
	double		priority = PG_GETARG_FLOAT8(ARG_PRIORITY);
	int32		gpus_min = PG_GETARG_INT32(ARG_GPUS_MIN);
	int32		gpus_max = PG_GETARG_INT32(ARG_GPUS_MAX);

	if (!one_of(text_to_cstring(PG_GETARG_TEXT_PP(ARG_KIND)), kinds))
		broken("jobs_kind_check", "kind is training, batch_inference or quantization");
	/* NaN is above every number in SQL: it fails "< Infinity" there and isfinite here */
	if (!(priority > 0 && isfinite(priority)))
		broken("jobs_priority_check", "priority > 0 and finite");
	if (!power_of_two(gpus_min))
		broken("jobs_gpus_min_check", "gpus_min is a power of two");
	if (!power_of_two(gpus_max))
		broken("jobs_gpus_max_check", "gpus_max is a power of two");
	if (gpus_min > gpus_max)
		broken("jobs_size_range", "gpus_min <= gpus_max");
	if (!JB_ROOT_IS_OBJECT(PG_GETARG_JSONB_P(ARG_FEATURES)))
		broken("jobs_features_check", "features is a JSON object");
	if (!PG_ARGISNULL(ARG_COMMAND) &&
		toast_raw_datum_size(PG_GETARG_DATUM(ARG_COMMAND)) - VARHDRSZ > 8192)
		broken("jobs_command_check", "command is at most 8192 bytes");
	if (!PG_ARGISNULL(ARG_TIME_LIMIT) &&
		!DatumGetBool(DirectFunctionCall2(interval_gt, PG_GETARG_DATUM(ARG_TIME_LIMIT),
										  IntervalPGetDatum(&(Interval) {0}))))
		broken("jobs_time_limit_positive", "time_limit is NULL or positive");
	if (!PG_ARGISNULL(ARG_DEADLINE) && !PG_ARGISNULL(ARG_NOT_BEFORE) &&
		!(PG_GETARG_TIMESTAMPTZ(ARG_DEADLINE) > PG_GETARG_TIMESTAMPTZ(ARG_NOT_BEFORE)))
		broken("jobs_deadline_after_not_before", "deadline after not_before");
	if (!PG_ARGISNULL(ARG_EST_WORK))
	{
		double		work = PG_GETARG_FLOAT8(ARG_EST_WORK);

		if (!(work > 0 && work <= 1e7))
			broken("jobs_estimate_positive", "est_work_gpu_hours is NULL or in (0, 1e7]");
	}
}

/* The rules on where a job is: its status, block and times. */
static void
check_state(FunctionCallInfo fcinfo)
{
	static const char *const statuses[] = {"queued", "booked", "running", "succeeded", "failed",
	"cancelled", NULL};
	char	   *status = text_to_cstring(PG_GETARG_TEXT_PP(ARG_STATUS));

	if (!one_of(status, statuses))
		broken("jobs_status_check", "status is queued, booked, running, succeeded, failed or cancelled");
	if (!PG_ARGISNULL(ARG_BLOCK_SIZE))
	{
		int32		size = PG_GETARG_INT32(ARG_BLOCK_SIZE);

		if (!power_of_two(size) ||
			(!PG_ARGISNULL(ARG_BLOCK_FIRST) &&
			 (PG_GETARG_INT32(ARG_BLOCK_FIRST) < 0 || PG_GETARG_INT32(ARG_BLOCK_FIRST) % size != 0)))
			broken("jobs_block_aligned", "block_size is NULL or a power of two, and block_first a multiple of it");
	}
	if (strcmp(status, "running") == 0 && (PG_ARGISNULL(ARG_STARTED_AT) || PG_ARGISNULL(ARG_BLOCK_SIZE)))
		broken("jobs_running_has_block", "a running job has started_at and block_size");
	if ((strcmp(status, "booked") == 0) != !PG_ARGISNULL(ARG_BOOKED_AT))
		broken("jobs_booked_has_time", "booked_at is set exactly while the job is booked");
	if (!PG_ARGISNULL(ARG_FINISHED_AT) && !PG_ARGISNULL(ARG_STARTED_AT) &&
		PG_GETARG_TIMESTAMPTZ(ARG_FINISHED_AT) < PG_GETARG_TIMESTAMPTZ(ARG_STARTED_AT))
		broken("jobs_finished_after_start", "finished_at is not before started_at");
}

/*
 * gpualloc_internal.job_row_rules(kind, priority, gpus_min, gpus_max,
 * features, status, started_at, finished_at, block_first, block_size,
 * booked_at, command, time_limit, not_before, deadline,
 * est_work_gpu_hours): true, or an error naming the rule the row breaks.
 * The columns that are NOT NULL in the table are checked for NULL by the
 * table first; a NULL among them here passes as SQL's unknown would.
 */
Datum
gpualloc_job_row_rules(PG_FUNCTION_ARGS)
{
	static const int not_null[] = {ARG_KIND, ARG_PRIORITY, ARG_GPUS_MIN, ARG_GPUS_MAX, ARG_FEATURES,
	ARG_STATUS};

	if (PG_NARGS() != N_JOB_RULE_ARGS)
		elog(ERROR, "gpualloc: job_row_rules takes %d arguments, not %d", N_JOB_RULE_ARGS, PG_NARGS());
	for (int i = 0; i < (int) lengthof(not_null); i++)
		if (PG_ARGISNULL(not_null[i]))
			PG_RETURN_NULL();
	check_request(fcinfo);
	check_state(fcinfo);
	PG_RETURN_BOOL(true);
}
