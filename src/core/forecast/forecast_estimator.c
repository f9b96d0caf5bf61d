/*
 * forecast_estimator.c — dispatch by job kind, GPU suggestion and history.
 */
#include "forecast/forecast_estimator.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum job_kind
{
	KIND_TRAINING,
	KIND_INFERENCE,
	KIND_QUANTIZATION
} job_kind;

struct ga_estimator
{
	ga_training_model *training;
	ga_batch_model *batch;
	int			n_inference;
	int			n_quant;
};

static ga_status
parse_kind(const char *kind, job_kind *out, ga_error *err)
{
	if (kind != NULL && ga_text_equal(kind, "training"))
		*out = KIND_TRAINING;
	else if (kind != NULL && (ga_text_equal(kind, "inference") ||
							  ga_text_equal(kind, "batch_inference")))
		*out = KIND_INFERENCE;
	else if (kind != NULL && (ga_text_equal(kind, "quantization") ||
							  ga_text_equal(kind, "quantize")))
		*out = KIND_QUANTIZATION;
	else
		return ga_error_set(err, GA_EINVAL,
							"kind must be training, inference or quantization, got \"%s\"",
							kind ? kind : "(null)");
	return GA_OK;
}

ga_estimator *
ga_estimator_create(void)
{
	ga_estimator *est = calloc(1, sizeof(ga_estimator));

	if (est == NULL)
		return NULL;
	est->training = ga_training_model_create();
	est->batch = ga_batch_model_create();
	if (est->training == NULL || est->batch == NULL)
	{
		ga_estimator_destroy(est);
		return NULL;
	}
	return est;
}

void
ga_estimator_destroy(ga_estimator *est)
{
	if (est == NULL)
		return;
	ga_training_model_destroy(est->training);
	ga_batch_model_destroy(est->batch);
	free(est);
}

ga_status
ga_estimator_add_history(ga_estimator *est, const char *kind,
						 const ga_feature *features, int n_features,
						 int gpus, double actual_hours, ga_error *err)
{
	job_kind	k;
	ga_status	st = parse_kind(kind, &k, err);
	ga_training_job tj;
	ga_inference_job ij;
	ga_quant_job qj;

	if (st != GA_OK)
		return st;
	switch (k)
	{
		case KIND_TRAINING:
			st = ga_training_job_parse(features, n_features, &tj, err);
			if (st == GA_OK)
				st = ga_training_model_add(est->training, &tj, gpus, actual_hours, err);
			break;
		case KIND_INFERENCE:
			st = ga_inference_job_parse(features, n_features, &ij, err);
			if (st == GA_OK)
				st = ga_batch_model_add_inference(est->batch, &ij, gpus, actual_hours, err);
			if (st == GA_OK)
				est->n_inference++;
			break;
		case KIND_QUANTIZATION:
			st = ga_quant_job_parse(features, n_features, &qj, err);
			if (st == GA_OK)
				st = ga_batch_model_add_quant(est->batch, &qj, gpus, actual_hours, err);
			if (st == GA_OK)
				est->n_quant++;
			break;
	}
	return st;
}

ga_status
ga_estimator_fit(ga_estimator *est, ga_error *err)
{
	ga_status	st = ga_training_model_fit(est->training, err);

	if (st != GA_OK)
		return st;
	return ga_batch_model_fit(est->batch, err);
}

int
ga_estimator_history(const ga_estimator *est, const char *kind)
{
	job_kind	k;

	if (est == NULL || parse_kind(kind, &k, NULL) != GA_OK)
		return 0;
	if (k == KIND_TRAINING)
		return ga_training_model_history(est->training);
	return k == KIND_INFERENCE ? est->n_inference : est->n_quant;
}

static void
fill_from_duration(ga_job_estimate *out, const ga_duration *d)
{
	out->hours_p10 = d->p10;
	out->hours_p50 = d->p50;
	out->hours_p90 = d->p90;
	out->work_gpu_hours = d->p50 * out->gpus;
}

static ga_status
estimate_training(const ga_estimator *est, const ga_feature *f, int n,
				  int gpus, ga_job_estimate *out, ga_error *err)
{
	const ga_training_model *model = est ? est->training : NULL;
	ga_training_job job;
	ga_duration d;
	double		sharded;
	double		per_gpu;
	ga_status	st = ga_training_job_parse(f, n, &job, err);

	if (st != GA_OK)
		return st;
	ga_training_memory_gb(&job, &sharded, &per_gpu);
	out->memory_gb = sharded + per_gpu;
	out->gpus_min = ga_training_min_gpus(&job);
	out->gpus = gpus > 0 ? gpus : out->gpus_min;
	st = ga_training_predict(model, &job, out->gpus, &d, err);
	while (st == GA_OK && gpus == 0 && d.p50 > GA_TARGET_HOURS &&
		   out->gpus < GA_SUGGEST_MAX_GPUS)
	{
		out->gpus *= 2;
		st = ga_training_predict(model, &job, out->gpus, &d, err);
	}
	if (st != GA_OK)
		return st;
	fill_from_duration(out, &d);
	snprintf(out->method, sizeof(out->method), "training %s prior x ridge(%d jobs)%s",
			 ga_variant_name(job.variant), ga_training_model_history(model),
			 job.mapped ? ", variant mapped" : "");
	return GA_OK;
}

static ga_status
estimate_inference(const ga_estimator *est, const ga_feature *f, int n,
				   int gpus, ga_job_estimate *out, ga_error *err)
{
	const ga_batch_model *model = est ? est->batch : NULL;
	ga_inference_job job;
	ga_duration d;
	ga_status	st = ga_inference_job_parse(f, n, &job, err);

	if (st != GA_OK)
		return st;
	out->memory_gb = ga_inference_memory_gb(&job);
	out->gpus_min = ga_inference_min_gpus(&job);
	out->gpus = gpus > 0 ? gpus : out->gpus_min;
	st = ga_inference_predict(model, &job, out->gpus, &d, err);
	while (st == GA_OK && gpus == 0 && d.p50 > GA_TARGET_HOURS &&
		   out->gpus < GA_SUGGEST_MAX_GPUS)
	{
		out->gpus *= 2;
		st = ga_inference_predict(model, &job, out->gpus, &d, err);
	}
	if (st != GA_OK)
		return st;
	fill_from_duration(out, &d);
	snprintf(out->method, sizeof(out->method),
			 "inference tier %d throughput %.0f tok/s/GPU (%d jobs)",
			 ga_size_tier(job.params_b), ga_inference_throughput(model, &job),
			 est ? est->n_inference : 0);
	return GA_OK;
}

static ga_status
estimate_quant(const ga_estimator *est, const ga_feature *f, int n,
			   int gpus, ga_job_estimate *out, ga_error *err)
{
	const ga_batch_model *model = est ? est->batch : NULL;
	ga_quant_job job;
	ga_duration d;
	double		work;
	ga_status	st = ga_quant_job_parse(f, n, &job, err);

	if (st != GA_OK)
		return st;
	out->memory_gb = ga_quant_memory_gb(&job);
	out->gpus_min = ga_quant_min_gpus(&job);
	out->gpus = gpus > 0 ? gpus : out->gpus_min;
	st = ga_quant_predict(model, &job, out->gpus, &d, &work, err);
	if (st != GA_OK)
		return st;
	fill_from_duration(out, &d);
	out->work_gpu_hours = work;
	snprintf(out->method, sizeof(out->method),
			 "quantization tier %d table +%.0f%% margin, whole GPU-hours (%d jobs)",
			 ga_size_tier(job.params_b), (GA_QUANT_SAFETY_MARGIN - 1) * 100,
			 est ? est->n_quant : 0);
	return GA_OK;
}

ga_status
ga_estimate_job(const ga_estimator *est, const char *kind,
				const ga_feature *features, int n_features, int gpus,
				ga_job_estimate *out, ga_error *err)
{
	job_kind	k;
	ga_status	st = parse_kind(kind, &k, err);

	if (st != GA_OK)
		return st;
	if (gpus < 0)
		return ga_error_set(err, GA_EINVAL,
							"gpus must be >= 1, or 0 to ask for a suggestion, got %d", gpus);
	*out = (ga_job_estimate) {0};
	out->gpus_suggested = gpus == 0;
	switch (k)
	{
		case KIND_TRAINING:
			st = estimate_training(est, features, n_features, gpus, out, err);
			break;
		case KIND_INFERENCE:
			st = estimate_inference(est, features, n_features, gpus, out, err);
			break;
		case KIND_QUANTIZATION:
			st = estimate_quant(est, features, n_features, gpus, out, err);
			break;
	}
	if (st != GA_OK)
		return st;

	/*
	 * Features inside their ranges can still be extreme enough together
	 * (a tiny model with a huge reward model, an interval widened by wild
	 * history) for a product to overflow: no infinite or NaN estimate
	 * reaches a caller, who would book it as work.
	 */
	if (!isfinite(out->hours_p10) || !isfinite(out->hours_p50) ||
		!isfinite(out->hours_p90) || !isfinite(out->work_gpu_hours) ||
		!isfinite(out->memory_gb))
		return ga_error_set(err, GA_EINVAL,
							"%s estimate is out of range for these features (p50 %g hours, p90 %g)",
							kind, out->hours_p50, out->hours_p90);
	return GA_OK;
}

ga_status
ga_job_features_validate(const char *kind, const ga_feature *features, int n_features,
						 ga_error *err)
{
	if (kind != NULL && strcmp(kind, "training") == 0)
		return ga_training_features_validate(features, n_features, err);
	if (kind != NULL && strcmp(kind, "batch_inference") == 0)
		return ga_inference_features_validate(features, n_features, err);
	if (kind != NULL && strcmp(kind, "quantization") == 0)
		return ga_quant_features_validate(features, n_features, err);
	return ga_error_set(err, GA_EINVAL, "unknown job kind \"%s\"", kind ? kind : "(null)");
}
