/*
 * estimate.c — gpualloc.estimate_job(kind, features, gpus, pool): a batch
 * job's duration with its interval and a suggested GPU count, from the
 * analytic prior corrected by the finished jobs of the same kind.
 */
#include "postgres.h"

#include <math.h>
#include <stdlib.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "gpualloc_pg.h"
#include "forecast/forecast_estimator.h"

PG_FUNCTION_INFO_V1(gpualloc_estimate_job);
PG_FUNCTION_INFO_V1(gpualloc_check_features);

/* Stored features are bounded: they describe a job, not carry its data. */
#define GA_FEATURES_MAX_BYTES (64 * 1024)

typedef struct FeatureArray
{
	int			n;
	ga_feature *items;
} FeatureArray;

/* A jsonb object as key/value pairs: numbers, strings and booleans only. */
static FeatureArray
features_from_jsonb(Jsonb *jb, bool strict)
{
	FeatureArray fa = {0, NULL};
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	char	   *key = NULL;

	if (!JB_ROOT_IS_OBJECT(jb))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("features must be a JSON object")));
	if (strict && VARSIZE(jb) > GA_FEATURES_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("features take %zu bytes; at most %d are accepted", (size_t) VARSIZE(jb),
						GA_FEATURES_MAX_BYTES),
				 errhint("Features describe the job (model size, tokens, ...), not its data.")));
	fa.items = palloc0(sizeof(ga_feature) * (JB_ROOT_COUNT(jb) + 1));
	it = JsonbIteratorInit(&jb->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		ga_feature *f;

		if (tok == WJB_KEY)
		{
			key = pnstrdup(v.val.string.val, v.val.string.len);
			continue;
		}
		if (tok != WJB_VALUE)
			continue;
		f = &fa.items[fa.n];
		f->key = key;
		if (v.type == jbvNumeric)
		{
			f->is_number = true;
			/* through text: a number beyond double's range becomes infinite
			 * and is refused by name, instead of an anonymous overflow */
			f->number = strtod(DatumGetCString(DirectFunctionCall1(numeric_out,
																  NumericGetDatum(v.val.numeric))), NULL);
		}
		else if (v.type == jbvString)
			f->text = pnstrdup(v.val.string.val, v.val.string.len);
		else if (v.type == jbvBool)
			f->text = v.val.boolean ? "true" : "false";
		else if (strict)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("feature \"%s\" must be a number, a string or a boolean", key)));
		else
			continue;
		fa.n++;
	}
	return fa;
}

/* The pool's GPU model as the estimator names it: "A100-80GB" -> "a100". */
static const char *
pool_gpu_model(const char *pool)
{
	Datum		arg = CStringGetTextDatum(pool);
	Oid			type = TEXTOID;
	char	   *model;
	char	   *dash;

	if (SPI_execute_with_args("SELECT pg_catalog.lower(gpu_model) FROM gpualloc.pools WHERE name = $1",
							  1, &type, &arg, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read pools");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("pool \"%s\" does not exist", pool)));
	model = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if (ga_gpu_model_find(model) != NULL)
		return model;
	dash = strchr(model, '-');
	if (dash != NULL)
		*dash = '\0';
	return ga_gpu_model_find(model) != NULL ? model : NULL;
}

static FeatureArray
with_gpu_model(FeatureArray fa, const char *model)
{
	FeatureArray out;

	for (int i = 0; i < fa.n; i++)
		if (strcmp(fa.items[i].key, "gpu_model") == 0)
			return fa;
	out.n = fa.n + 1;
	out.items = palloc(sizeof(ga_feature) * out.n);
	memcpy(out.items, fa.items, sizeof(ga_feature) * fa.n);
	out.items[fa.n].key = "gpu_model";
	out.items[fa.n].is_number = false;
	out.items[fa.n].text = model;
	return out;
}

/*
 * Finished jobs of this kind become the estimator's history.  A job whose
 * features the estimator rejects (it was submitted with its own work
 * estimate, so they were never checked) teaches nothing and is skipped.
 */
static void
learn_history(ga_estimator *est, const char *kind)
{
	Datum		arg = CStringGetTextDatum(kind);
	Oid			type = TEXTOID;
	ga_error	err;

	if (SPI_execute_with_args("SELECT j.features, j.block_size, "
							  "       extract(epoch FROM j.finished_at - j.started_at) / 3600.0, p.name "
							  "FROM gpualloc.jobs j JOIN gpualloc.pools p USING (pool_id) "
							  "WHERE j.kind = $1 AND j.status = 'succeeded' AND j.finished_at > j.started_at",
							  1, &type, &arg, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "gpualloc: could not read finished jobs");
	if (SPI_processed == 0)
		return;
	{
		SPITupleTable *rows = SPI_tuptable;
		uint64		n = SPI_processed;

		for (uint64 i = 0; i < n; i++)
		{
			bool		isnull;
			Jsonb	   *jb = DatumGetJsonbP(SPI_getbinval(rows->vals[i], rows->tupdesc, 1, &isnull));
			int			gpus = DatumGetInt32(SPI_getbinval(rows->vals[i], rows->tupdesc, 2, &isnull));
			double		hours = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
																   SPI_getbinval(rows->vals[i], rows->tupdesc, 3, &isnull)));
			char	   *pool = SPI_getvalue(rows->vals[i], rows->tupdesc, 4);
			FeatureArray fa = features_from_jsonb(jb, false);
			const char *model = pool_gpu_model(pool);

			if (model != NULL)
				fa = with_gpu_model(fa, model);
			(void) ga_estimator_add_history(est, kind, fa.items, fa.n, gpus, hours, &err);
		}
	}
	if (ga_estimator_fit(est, &err) != GA_OK)
		ereport(WARNING,
				(errmsg("gpualloc: the %s estimator could not be refitted; using the prior", kind),
				 errdetail("%s", err.message)));
}

static void
destroy_estimator_callback(void *arg)
{
	ga_estimator_destroy((ga_estimator *) arg);
}

static const char *
kind_argument(FunctionCallInfo fcinfo)
{
	const char *kind;

	if (PG_ARGISNULL(0))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("kind must be one of training, batch_inference, quantization; got NULL")));
	kind = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (strcmp(kind, "training") != 0 && strcmp(kind, "batch_inference") != 0 && strcmp(kind, "quantization") != 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("kind must be one of training, batch_inference, quantization; got %s", kind)));
	if (PG_ARGISNULL(1))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("features must be a JSON object, got NULL")));
	return kind;
}

/*
 * Estimate a job: the features as the estimator of its kind reads them, on
 * the pool's GPU model when a pool is given, corrected by finished jobs of
 * the kind.  Errors name the feature and the rule.  kind must be valid.
 */
void
ga_pg_estimate_job(const char *kind, Jsonb *features, int gpus, const char *pool,
				   ga_job_estimate *e)
{
	FeatureArray fa = features_from_jsonb(features, true);
	ga_estimator *est;
	ga_error	err;
	MemoryContextCallback *cb;

	SPI_connect();
	if (pool != NULL)
	{
		const char *model = pool_gpu_model(pool);

		if (model != NULL)
			fa = with_gpu_model(fa, model);
	}
	est = ga_estimator_create();
	if (est == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory creating the estimator")));
	cb = palloc0(sizeof(MemoryContextCallback));
	cb->func = destroy_estimator_callback;
	cb->arg = est;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
	learn_history(est, kind);
	if (ga_estimate_job(est, kind, fa.items, fa.n, gpus, e, &err) != GA_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", err.message),
				 errhint("See the README's estimator section for each kind's features.")));
	SPI_finish();
}

/*
 * Known keys, types and ranges of a kind's features, and their size.  kind
 * must be valid.
 */
void
ga_pg_check_features(const char *kind, Jsonb *features)
{
	FeatureArray fa = features_from_jsonb(features, true);
	ga_error	err;

	if (ga_job_features_validate(kind, fa.items, fa.n, &err) != GA_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", err.message),
				 errhint("See the README's estimator section for each kind's features.")));
}

Datum
gpualloc_estimate_job(PG_FUNCTION_ARGS)
{
	const char *kind = kind_argument(fcinfo);
	int			gpus = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2);
	ga_job_estimate e;
	TupleDesc	tupdesc;
	Datum		values[9];
	bool		nulls[9] = {0};

	if (gpus < 0 || (gpus > 0 && (gpus & (gpus - 1)) != 0))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("gpus must be a power of two (1, 2, 4, 8, ...), got %d", gpus)));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "gpualloc.estimate_job must return a record");
	ga_pg_estimate_job(kind, PG_GETARG_JSONB_P(1), gpus,
					   PG_ARGISNULL(3) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(3)), &e);

	values[0] = Int32GetDatum(e.gpus);
	values[1] = Int32GetDatum(e.gpus_min);
	values[2] = BoolGetDatum(e.gpus_suggested);
	values[3] = Float8GetDatum(e.hours_p10);
	values[4] = Float8GetDatum(e.hours_p50);
	values[5] = Float8GetDatum(e.hours_p90);
	values[6] = Float8GetDatum(e.work_gpu_hours);
	values[7] = Float8GetDatum(e.memory_gb);
	values[8] = CStringGetTextDatum(e.method);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

/*
 * gpualloc_internal.check_features(kind, features): known keys, types and ranges of
 * the kind's features, and their size, whether or not the submitter gave its
 * own work estimate, so no junk is ever stored.
 */
Datum
gpualloc_check_features(PG_FUNCTION_ARGS)
{
	const char *kind = kind_argument(fcinfo);

	ga_pg_check_features(kind, PG_GETARG_JSONB_P(1));
	PG_RETURN_VOID();
}
