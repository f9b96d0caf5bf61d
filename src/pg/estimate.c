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

/*
 * A pool's GPU model, lowercased, as the estimator names it: "a100-80gb" is
 * "a100" unless the estimator knows the full name.  NULL for a model it
 * does not know.  Changes model in place.
 */
static const char *
estimator_model_name(char *model)
{
	char	   *dash;

	if (model == NULL || ga_gpu_model_find(model) != NULL)
		return model;
	dash = strchr(model, '-');
	if (dash != NULL)
		*dash = '\0';
	return ga_gpu_model_find(model) != NULL ? model : NULL;
}

static GaSavedQuery pool_model_query = {
	"SELECT pg_catalog.lower(p.gpu_model) FROM gpualloc.pools p WHERE p.name = $1",
	1, {TEXTOID}, NULL
};

/* The pool's GPU model as the estimator names it: "A100-80GB" -> "a100". */
static const char *
pool_gpu_model(const char *pool)
{
	Datum		arg = CStringGetTextDatum(pool);

	ga_saved_query_expect(&pool_model_query, &arg, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("pool \"%s\" does not exist", pool)));
	return estimator_model_name(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
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
 * The most recent finished jobs of a kind, oldest first, with the model of
 * the pool each ran in: the estimator's history.  Bounded, so an estimate
 * costs the same after a year of jobs as after a week (jobs_history_idx
 * reads them newest first without a sort).
 */
#define GA_ESTIMATOR_HISTORY_MAX 5000

static GaSavedQuery history_query = {
	"SELECT h.features, h.block_size, h.hours, h.model FROM ("
	"  SELECT j.job_id, j.finished_at, j.features, j.block_size, "
	"         extract(epoch FROM j.finished_at - j.started_at) / 3600.0 AS hours, "
	"         pg_catalog.lower(p.gpu_model) AS model "
	"  FROM gpualloc.jobs j JOIN gpualloc.pools p ON p.pool_id = j.pool_id "
	"  WHERE j.kind = $1 AND j.status = 'succeeded' AND j.finished_at > j.started_at "
	"  ORDER BY j.kind, j.finished_at DESC, j.job_id DESC LIMIT " CppAsString2(GA_ESTIMATOR_HISTORY_MAX)
	") h ORDER BY h.finished_at, h.job_id",
	1, {TEXTOID}, NULL
};

/*
 * Finished jobs of this kind become the estimator's history.  A job whose
 * features the estimator rejects (it was submitted with its own work
 * estimate, so they were never checked) teaches nothing and is skipped.
 */
static void
learn_history(ga_estimator *est, const char *kind)
{
	Datum		arg = CStringGetTextDatum(kind);
	SPITupleTable *rows;
	ga_error	err;

	ga_saved_query_expect(&history_query, &arg, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return;
	rows = SPI_tuptable;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Jsonb	   *jb = DatumGetJsonbP(SPI_getbinval(rows->vals[i], rows->tupdesc, 1, &isnull));
		int			gpus = DatumGetInt32(SPI_getbinval(rows->vals[i], rows->tupdesc, 2, &isnull));
		double		hours = DatumGetFloat8(DirectFunctionCall1(numeric_float8,
															   SPI_getbinval(rows->vals[i], rows->tupdesc, 3, &isnull)));
		const char *model = estimator_model_name(SPI_getvalue(rows->vals[i], rows->tupdesc, 4));
		FeatureArray fa = features_from_jsonb(jb, false);

		if (model != NULL)
			fa = with_gpu_model(fa, model);
		(void) ga_estimator_add_history(est, kind, fa.items, fa.n, gpus, hours, &err);
	}
	if (ga_estimator_fit(est, &err) != GA_OK)
		ereport(WARNING,
				(errmsg("gpualloc: the %s estimator could not be refitted; using the prior", kind),
				 errdetail("%s", err.message)));
}

/*
 * The estimator of a kind, kept fitted across calls: refitting is reading
 * and fitting up to GA_ESTIMATOR_HISTORY_MAX jobs, far more than an
 * estimate.  Each call first reads the newest finished job of the kind, one
 * index probe: the same job as at the fit means the same history, else it
 * refits.  Every estimate of one statement sees one snapshot, so one fit
 * (refresh_estimates re-estimates the whole queue in one statement).  A job
 * reported finished with an earlier time than the newest, or deleted, is
 * learnt at the next refit.
 */
typedef struct FittedEstimator
{
	char		kind[32];
	int64		newest_job;		/* the newest finished job at the fit; 0: none */
	ga_estimator *est;
} FittedEstimator;

#define GA_FITTED_KINDS 3
static FittedEstimator fitted[GA_FITTED_KINDS];

static GaSavedQuery newest_finished_query = {
	"SELECT j.job_id FROM gpualloc.jobs j "
	"WHERE j.kind = $1 AND j.status = 'succeeded' AND j.finished_at > j.started_at "
	"ORDER BY j.kind, j.finished_at DESC, j.job_id DESC LIMIT 1",
	1, {TEXTOID}, NULL
};

static int64
newest_finished_job(const char *kind)
{
	Datum		arg = CStringGetTextDatum(kind);
	bool		isnull;

	ga_saved_query_expect(&newest_finished_query, &arg, NULL, SPI_OK_SELECT);
	if (SPI_processed == 0)
		return 0;
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

static FittedEstimator *
fitted_slot(const char *kind)
{
	for (int i = 0; i < GA_FITTED_KINDS; i++)
		if (strcmp(fitted[i].kind, kind) == 0)
			return &fitted[i];
	for (int i = 0; i < GA_FITTED_KINDS; i++)
		if (fitted[i].kind[0] == '\0')
			return &fitted[i];
	elog(ERROR, "gpualloc: no estimator slot for kind %s", kind);
	return NULL;
}

/* Inside SPI.  kind must be valid (one of the three). */
static ga_estimator *
fitted_estimator(const char *kind)
{
	FittedEstimator *f = fitted_slot(kind);
	int64		newest = newest_finished_job(kind);

	if (f->est != NULL && f->newest_job == newest)
		return f->est;
	if (f->est != NULL)
		ga_estimator_destroy(f->est);
	f->est = NULL;
	f->kind[0] = '\0';
	f->est = ga_estimator_create();
	if (f->est == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory creating the estimator")));
	/* the slot names its kind only once the history is in: an error refits */
	learn_history(f->est, kind);
	strlcpy(f->kind, kind, sizeof(f->kind));
	f->newest_job = newest;
	return f->est;
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

	SPI_connect();
	if (pool != NULL)
	{
		const char *model = pool_gpu_model(pool);

		if (model != NULL)
			fa = with_gpu_model(fa, model);
	}
	est = fitted_estimator(kind);
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

Datum
gpualloc_estimate_job(PG_FUNCTION_ARGS)
{
	const char *kind = kind_argument(fcinfo);
	int			gpus = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2);
	ga_job_estimate e;
	TupleDesc	tupdesc;
	Datum		values[9];
	bool		nulls[9] = {0};

	/* 0 stands for NULL (a suggested size) only when given as NULL */
	if (!PG_ARGISNULL(2) && (gpus <= 0 || (gpus & (gpus - 1)) != 0))
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
