/*
 * demand.c — a service's demand forecast from its hourly history, for the
 * planner and for gpualloc.forecast_demand().
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "gpualloc_pg.h"
#include "forecast/forecast_demand.h"

PG_FUNCTION_INFO_V1(gpualloc_forecast_demand);

/* Hours since the epoch, the forecaster's time axis. */
static int64
hour_index(TimestampTz ts)
{
	int64		unix_usecs = ts + (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;

	return unix_usecs >= 0 ? unix_usecs / USECS_PER_HOUR
		: -((-unix_usecs + USECS_PER_HOUR - 1) / USECS_PER_HOUR);
}

/* The largest of curve[0 .. n). */
static int
peak_of(const int *curve, int n)
{
	int			peak = 0;

	for (int t = 0; t < n; t++)
		peak = Max(peak, curve[t]);
	return peak;
}

/*
 * The most traffic an hour may record (check_demand_row).  An upper curve
 * scales recent relative errors by the coming forecast, so after a burst
 * from next to nothing it can reach far past anything recorded; it is held
 * to what could have been.
 */
#define TRAFFIC_MAX 1e15

/*
 * Learn the service's history strictly before `from`, then forecast n_steps
 * steps starting at `from` (which the caller aligns to a step).  A start in
 * the middle of an hour drops the steps of that hour already gone.  Any
 * output may be NULL.  shaped is the churn-shaped GPU curve at
 * gpualloc.demand_quantile, the demand the planner plans for; protect the
 * same at gpualloc.protect_quantile, the service's protect curve
 * (docs/model.md, Protect curve and headroom).  day_peak, when asked for and
 * the horizon is shorter than a day, is the shaped curve's peak over the
 * next 24 hours, which the terminal charge expects past the horizon
 * (model/terminal.h); 0 otherwise.  Caller holds an SPI connection.
 */
void
ga_pg_forecast_service(const GaServiceForecastRequest *req, double *p50, double *upper, int *shaped,
					   int *protect, int *day_peak)
{
	int			offset = (int) ((req->from / USECS_PER_MINUTE) % 60) / req->step_minutes;
	int			day_steps = (MINS_PER_HOUR * HOURS_PER_DAY + req->step_minutes - 1) / req->step_minutes;
	bool		short_horizon = day_peak != NULL && req->n_steps < day_steps;
	int			n = (short_horizon ? day_steps : req->n_steps) + offset;
	double	   *all_p50 = palloc(sizeof(double) * n);
	double	   *all_upper = palloc(sizeof(double) * n);
	int		   *all_shaped = palloc(sizeof(int) * n);
	int		   *all_protect = palloc(sizeof(int) * n);
	ga_demand_model *model = ga_demand_model_create(NULL);
	Datum		args[2] = {Int32GetDatum(req->service_id), TimestampTzGetDatum(req->from)};
	Oid			types[2] = {INT4OID, TIMESTAMPTZOID};
	ga_status	rc = GA_OK;
	ga_error	err;

	if (model == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory creating the demand model")));
	if (SPI_execute_with_args("SELECT hour, traffic FROM gpualloc.demand_history "
							  "WHERE service_id = $1 AND hour < $2 ORDER BY hour",
							  2, types, args, NULL, true, 0) != SPI_OK_SELECT)
	{
		ga_demand_model_destroy(model);
		elog(ERROR, "gpualloc: could not read demand history");
	}
	for (uint64 i = 0; i < SPI_processed && rc == GA_OK; i++)
	{
		bool		isnull;
		TimestampTz hour = DatumGetTimestampTz(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		double		traffic = DatumGetFloat8(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));

		rc = ga_demand_model_observe(model, hour_index(hour), traffic, &err);
	}
	if (rc == GA_OK)
		rc = ga_demand_forecast(model, hour_index(req->from), n, req->step_minutes, gpualloc_demand_quantile,
								req->capacity_per_gpu, req->churn_limit, req->min_gpus, req->max_gpus,
								all_p50, all_upper, all_shaped, NULL, &err);
	if (rc == GA_OK && protect)
		rc = ga_demand_forecast(model, hour_index(req->from), n, req->step_minutes, gpualloc_protect_quantile,
								req->capacity_per_gpu, req->churn_limit, req->min_gpus, req->max_gpus,
								NULL, NULL, all_protect, NULL, &err);
	ga_demand_model_destroy(model);
	if (rc != GA_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("cannot forecast demand of service \"%s\"", req->name),
				 errdetail("%s", err.message)));
	for (int t = 0; t < req->n_steps; t++)
	{
		if (p50)
			p50[t] = all_p50[t + offset];
		if (upper)
			upper[t] = Min(all_upper[t + offset], TRAFFIC_MAX);
		if (shaped)
			shaped[t] = all_shaped[t + offset];
		if (protect)
			protect[t] = all_protect[t + offset];
	}
	if (day_peak)
		*day_peak = short_horizon ? peak_of(all_shaped + offset, day_steps) : 0;
}

static void
load_request(const char *service, GaServiceForecastRequest *req)
{
	Datum		arg = CStringGetTextDatum(service);
	Oid			type = TEXTOID;
	bool		isnull;
	HeapTuple	tup;
	TupleDesc	desc;

	if (SPI_execute_with_args("SELECT service_id, capacity_per_gpu, churn_limit, min_gpus, max_gpus "
							  "FROM gpualloc.services WHERE name = $1", 1, &type, &arg, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read services");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("service \"%s\" does not exist", service),
				 errhint("Add it with gpualloc.add_service().")));
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	req->service_id = DatumGetInt32(SPI_getbinval(tup, desc, 1, &isnull));
	req->capacity_per_gpu = DatumGetFloat8(SPI_getbinval(tup, desc, 2, &isnull));
	req->churn_limit = DatumGetInt32(SPI_getbinval(tup, desc, 3, &isnull));
	req->min_gpus = DatumGetInt32(SPI_getbinval(tup, desc, 4, &isnull));
	req->max_gpus = DatumGetInt32(SPI_getbinval(tup, desc, 5, &isnull));
	req->name = service;
}

static int
horizon_steps(Interval *horizon, int step_minutes)
{
	double		minutes = (horizon->time / 60.0e6) + horizon->day * 1440.0 + horizon->month * 30.0 * 1440.0;

	if (!(minutes >= step_minutes) || minutes > 14 * 1440.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("horizon must be between one step (%d min) and 14 days", step_minutes)));
	return (int) (minutes / step_minutes);
}

/* 2000-01-01 00:00 UTC, where demand history begins (as in check_demand_row) */
#define DEMAND_EPOCH ((TimestampTz) 0)

/*
 * forecast_demand(service, from, horizon): per step the p50 and upper-quantile
 * traffic and the churn-shaped GPU curve the planner would use, learned only
 * from history before `from` (floored to a step).
 */
Datum
gpualloc_forecast_demand(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	GaServiceForecastRequest req;
	int64		step_usecs = (int64) gpualloc_step_minutes * USECS_PER_MINUTE;
	TimestampTz from;
	double	   *p50;
	double	   *upper;
	int		   *shaped;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("service, from and horizon must not be NULL")));
	from = PG_GETARG_TIMESTAMPTZ(1);
	/* from the demand history's epoch to a year ahead: a forecast further out has nothing to learn from */
	if (TIMESTAMP_NOT_FINITE(from) || from < DEMAND_EPOCH ||
		from > GetCurrentTransactionStartTimestamp() + (int64) 366 * USECS_PER_DAY)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("from must be a time from 2000-01-01 to a year from now"),
				 errhint("A forecast is learned from the service's history before from.")));
	InitMaterializedSRF(fcinfo, 0);
	req.from = ga_pg_step_floor(from, gpualloc_step_minutes);
	req.step_minutes = gpualloc_step_minutes;
	req.n_steps = horizon_steps(PG_GETARG_INTERVAL_P(2), gpualloc_step_minutes);

	SPI_connect();
	load_request(text_to_cstring(PG_GETARG_TEXT_PP(0)), &req);
	p50 = palloc(sizeof(double) * req.n_steps);
	upper = palloc(sizeof(double) * req.n_steps);
	shaped = palloc(sizeof(int) * req.n_steps);
	ga_pg_forecast_service(&req, p50, upper, shaped, NULL, NULL);
	for (int t = 0; t < req.n_steps; t++)
	{
		Datum		values[5];
		bool		nulls[5] = {0};

		values[0] = TimestampTzGetDatum(req.from + t * step_usecs);
		values[1] = Float8GetDatum(p50[t]);
		values[2] = Float8GetDatum(upper[t]);
		values[3] = Int32GetDatum((int) Min(ceil(upper[t] / req.capacity_per_gpu - 1e-9), (double) PG_INT32_MAX));
		values[4] = Int32GetDatum(shaped[t]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	SPI_finish();
	PG_RETURN_NULL();
}
