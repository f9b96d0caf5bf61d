/*
 * replan.c — gpualloc.replan(mode, time_limit): plan the horizon now and
 * commit its first step.
 *
 * Data flows one way: tables -> problem -> solver -> plan -> tables + NOTIFY.
 * One planner at a time (a transaction-level advisory lock shared with the
 * background worker).  A solver failure changes no allocation: the run is
 * recorded as failed with its reason, a full solve that fails falls back to
 * fast, and the last committed allocation stays in force.
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "gpualloc_pg.h"
#include "solve/solve.h"

PG_FUNCTION_INFO_V1(gpualloc_replan);

static double
time_limit_ms(const char *mode, NullableDatum limit)
{
	Interval   *iv;
	double		ms;

	if (limit.isnull)
		return strcmp(mode, "full") == 0 ? gpualloc_solver_time_limit_ms : GA_FAST_DEFAULT_MS;
	iv = DatumGetIntervalP(limit.value);
	ms = (iv->time + (double) iv->day * USECS_PER_DAY + (double) iv->month * 30 * USECS_PER_DAY) / 1000.0;
	if (!(ms > 0) || ms > 3600 * 1000.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("time_limit must be positive and at most 1 hour"),
				 errhint("For example: time_limit => '5 seconds'.")));
	return ms;
}

/*
 * Take the planner lock for this transaction: wait for it (replan()), or give
 * up at once when another planner holds it (the worker, which will run again).
 */
static bool
take_planner_lock(bool wait)
{
	Datum		key = Int64GetDatum(GPUALLOC_PLANNER_LOCK_KEY);
	Oid			type = INT8OID;
	bool		isnull;

	if (SPI_execute_with_args(wait ? "SELECT pg_catalog.pg_advisory_xact_lock($1) IS NULL"
							  : "SELECT pg_catalog.pg_try_advisory_xact_lock($1)",
							  1, &type, &key, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not take the planner lock");
	return wait || DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * How long a phase of a run took, at DEBUG1 (log_min_messages = debug1 or
 * client_min_messages = debug1 shows where a slow run spends its time).
 */
void
ga_log_phase(const char *what, TimestampTz *since)
{
	TimestampTz now = GetCurrentTimestamp();

	elog(DEBUG1, "gpualloc: %s in %.1f ms", what, (double) (now - *since) / 1000.0);
	*since = now;
}

/*
 * The whole run inside the caller's SPI connection: build, solve (full falls
 * back to fast), store, commit step 0.  Returns false, having done nothing,
 * when wait_for_lock is false and another planner is running.
 */
bool
ga_run_replan(const char *mode, double limit_ms, const char *trigger, bool wait_for_lock,
			  GaReplanResult *r)
{
	TimestampTz now = GetCurrentTransactionStartTimestamp();
	GaBuild    *build;
	GaPoolSolvers *solvers;
	TimestampTz phase_start;
	char		why[GA_ERROR_MESSAGE_LEN * 2];

	/*
	 * The commit re-reads under its lock what changed during the solve; a
	 * transaction snapshot would hide it.
	 */
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("gpualloc.replan() runs only in READ COMMITTED transactions"),
				 errhint("Call it outside an explicit REPEATABLE READ or SERIALIZABLE transaction.")));
	if (!take_planner_lock(wait_for_lock))
		return false;
	phase_start = GetCurrentTimestamp();
	/* the solvers' process starts overlap the build */
	solvers = ga_pg_pool_solvers_ahead();
	build = ga_build_problem(now);
	ga_log_phase("built the problem", &phase_start);
	r->plan_id = ga_store_plan_run(mode, trigger);
	r->mode = mode;
	r->status = "succeeded";
	r->message[0] = '\0';
	r->plan = ga_pg_solve_pools(build, mode, limit_ms, solvers, why, sizeof(why));
	if (r->plan == NULL && strcmp(mode, "full") == 0)
	{
		snprintf(r->message, sizeof(r->message), "%s; used the fast plan", why);
		r->status = "fallback";
		r->plan = ga_pg_solve_pools(build, "fast", GA_FAST_DEFAULT_MS, NULL, why, sizeof(why));
	}
	ga_log_phase("solved", &phase_start);
	if (r->plan != NULL && !(isfinite(r->plan->objective)))
	{
		/* a plan whose value is not a number ranks nothing: never commit it */
		snprintf(why, sizeof(why), "the plan's objective is not finite (%g)", r->plan->objective);
		r->plan = NULL;
	}
	if (r->plan == NULL)
	{
		strlcpy(r->message, why, sizeof(r->message));
		r->status = "failed";
		ga_store_plan_failure(r->plan_id, build, r->message);
		ereport(WARNING,
				(errmsg("gpualloc plan %lld failed; the last committed allocation stays in force",
						(long long) r->plan_id),
				 errdetail("%s", r->message)));
		return true;
	}
	if (build->jobs_without_estimate > 0 && r->message[0] == '\0')
		snprintf(r->message, sizeof(r->message), "%d queued jobs have no work estimate and were not planned",
				 build->jobs_without_estimate);
	ga_store_plan_result(r->plan_id, build, r->plan, r->status, r->message[0] ? r->message : NULL);
	ga_log_phase("stored the plan", &phase_start);
	r->gpus_changed = ga_commit_current_step(r->plan_id, build, r->plan);
	ga_log_phase("committed the current step", &phase_start);
	return true;
}

static Datum
float_datum(double v, bool *isnull)
{
	*isnull = !isfinite(v);
	return Float8GetDatum(*isnull ? 0 : v);
}

Datum
gpualloc_replan(PG_FUNCTION_ARGS)
{
	const char *mode;
	double		limit_ms;
	GaReplanResult r = {0};
	TupleDesc	tupdesc;
	Datum		values[9];
	bool		nulls[9] = {0};
	MemoryContext callcxt = CurrentMemoryContext;
	MemoryContext oldcxt;
	HeapTuple	result;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mode must be 'fast' or 'full', got NULL")));
	mode = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (strcmp(mode, "fast") != 0 && strcmp(mode, "full") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mode must be 'fast' or 'full', got '%s'", mode),
				 errhint("fast: the heuristic, in about a millisecond; full: the MILP under a time limit.")));
	limit_ms = time_limit_ms(mode, fcinfo->args[1]);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "gpualloc.replan must return a record");

	/*
	 * The plan lives in SPI's memory and is freed by SPI_finish, so the
	 * result is built first, in the caller's context.
	 */
	SPI_connect();
	ga_run_replan(mode, limit_ms, "manual", true, &r);
	oldcxt = MemoryContextSwitchTo(callcxt);
	values[0] = Int64GetDatum(r.plan_id);
	values[1] = CStringGetTextDatum(r.status);
	values[2] = CStringGetTextDatum(r.plan ? r.plan->mode : r.mode);
	values[3] = float_datum(r.plan ? r.plan->objective : NAN, &nulls[3]);
	values[4] = float_datum(r.plan ? r.plan->bound : NAN, &nulls[4]);
	values[5] = float_datum(r.plan ? r.plan->gap : NAN, &nulls[5]);
	values[6] = float_datum(r.plan ? r.plan->solve_ms : NAN, &nulls[6]);
	values[7] = Int32GetDatum(r.gpus_changed);
	values[8] = CStringGetTextDatum(r.message);
	nulls[8] = r.message[0] == '\0';
	result = heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls);
	MemoryContextSwitchTo(oldcxt);
	r.plan = NULL;
	SPI_finish();
	PG_RETURN_DATUM(HeapTupleGetDatum(result));
}
