/*
 * forecast_estimator.c — dispatch by job kind, GPU suggestion and history.
 */
#include "forecast/forecast_estimator.h"

#include "forecast/feature_correction.h"

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

/* A job as its kind's parser reads it. */
typedef union kind_job
{
	ga_training_job training;
	ga_inference_job inference;
	ga_quant_job quant;
} kind_job;

typedef struct finished_job
{
	int			gpus;
	double		hours;
	kind_job	job;
} finished_job;

/*
 * Each kind's history and the second-order correction
 * (feature_correction.h) learnt on top of the kind's own fitted model.
 */
typedef struct kind_state
{
	finished_job *jobs;
	int			n;
	int			cap;
	ga_correction *correction;
} kind_state;

#define N_KINDS 3

struct ga_estimator
{
	ga_training_model *training;
	ga_batch_model *batch;
	kind_state	kinds[N_KINDS];
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
	est->kinds[KIND_TRAINING].correction =
		ga_correction_create(GA_TRAINING_CORRECTION_NUMBERS, GA_TRAINING_CORRECTION_CROSSED,
							 GA_TRAINING_CORRECTION_PLAIN);
	est->kinds[KIND_INFERENCE].correction =
		ga_correction_create(GA_INFERENCE_CORRECTION_NUMBERS, GA_INFERENCE_CORRECTION_CROSSED,
							 GA_BATCH_CORRECTION_PLAIN);
	est->kinds[KIND_QUANTIZATION].correction =
		ga_correction_create(GA_QUANT_CORRECTION_NUMBERS, GA_QUANT_CORRECTION_CROSSED,
							 GA_BATCH_CORRECTION_PLAIN);
	if (est->training == NULL || est->batch == NULL ||
		est->kinds[KIND_TRAINING].correction == NULL ||
		est->kinds[KIND_INFERENCE].correction == NULL ||
		est->kinds[KIND_QUANTIZATION].correction == NULL)
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
	for (int k = 0; k < N_KINDS; k++)
	{
		free(est->kinds[k].jobs);
		ga_correction_destroy(est->kinds[k].correction);
	}
	free(est);
}

static ga_status
parse_job(job_kind k, const ga_feature *f, int n, kind_job *job, ga_error *err)
{
	switch (k)
	{
		case KIND_TRAINING:
			return ga_training_job_parse(f, n, &job->training, err);
		case KIND_INFERENCE:
			return ga_inference_job_parse(f, n, &job->inference, err);
		case KIND_QUANTIZATION:
			return ga_quant_job_parse(f, n, &job->quant, err);
	}
	return ga_error_set(err, GA_EINVAL, "unknown job kind");
}

static ga_status
add_to_model(ga_estimator *est, job_kind k, const finished_job *fj, ga_error *err)
{
	switch (k)
	{
		case KIND_TRAINING:
			return ga_training_model_add(est->training, &fj->job.training, fj->gpus, fj->hours, err);
		case KIND_INFERENCE:
			return ga_batch_model_add_inference(est->batch, &fj->job.inference, fj->gpus,
												fj->hours, err);
		case KIND_QUANTIZATION:
			return ga_batch_model_add_quant(est->batch, &fj->job.quant, fj->gpus, fj->hours, err);
	}
	return ga_error_set(err, GA_EINVAL, "unknown job kind");
}

static ga_status
remember(kind_state *ks, const finished_job *fj, ga_error *err)
{
	if (ks->n == ks->cap)
	{
		int			cap = ks->cap ? 2 * ks->cap : 64;
		finished_job *jobs = realloc(ks->jobs, sizeof(finished_job) * cap);

		if (jobs == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory adding history");
		ks->jobs = jobs;
		ks->cap = cap;
	}
	ks->jobs[ks->n++] = *fj;
	return GA_OK;
}

ga_status
ga_estimator_add_history(ga_estimator *est, const char *kind,
						 const ga_feature *features, int n_features,
						 int gpus, double actual_hours, ga_error *err)
{
	job_kind	k;
	finished_job fj = {.gpus = gpus, .hours = actual_hours};
	ga_status	st = parse_kind(kind, &k, err);

	if (st == GA_OK)
		st = parse_job(k, features, n_features, &fj.job, err);
	if (st == GA_OK)
		st = add_to_model(est, k, &fj, err);
	if (st == GA_OK)
		st = remember(&est->kinds[k], &fj, err);
	return st;
}

/*
 * The kind's own model at gpus (est NULL: its prior), and, when inputs is
 * not NULL, the inputs of the correction for that prediction.
 */
static ga_status
model_estimate(const ga_estimator *est, job_kind k, const kind_job *job, int gpus,
			   ga_duration *d, double *inputs, ga_error *err)
{
	ga_status	st;
	double		work;

	switch (k)
	{
		case KIND_TRAINING:
			st = ga_training_predict(est ? est->training : NULL, &job->training, gpus, d, err);
			if (st == GA_OK && inputs)
				ga_training_correction_inputs(&job->training, gpus, d->p50, inputs);
			return st;
		case KIND_INFERENCE:
			st = ga_inference_predict(est ? est->batch : NULL, &job->inference, gpus, d, err);
			if (st == GA_OK && inputs)
				ga_inference_correction_inputs(&job->inference, gpus, d->p50, inputs);
			return st;
		case KIND_QUANTIZATION:
			st = ga_quant_predict(est ? est->batch : NULL, &job->quant, gpus, d, &work, err);
			if (st == GA_OK && inputs)
				ga_quant_correction_inputs(&job->quant, gpus, d->p50 * gpus, inputs);
			return st;
	}
	return ga_error_set(err, GA_EINVAL, "unknown job kind");
}

/*
 * The correction learns what the kind's fitted model still misses on its
 * own history, so it is refitted after that model.
 */
static ga_status
fit_correction(ga_estimator *est, job_kind k, ga_error *err)
{
	kind_state *ks = &est->kinds[k];
	double		inputs[GA_CORRECTION_MAX_INPUTS];

	ga_correction_clear(ks->correction);
	for (int i = 0; i < ks->n; i++)
	{
		const finished_job *fj = &ks->jobs[i];
		ga_duration d;
		double		y;
		ga_status	st = model_estimate(est, k, &fj->job, fj->gpus, &d, inputs, err);

		if (st != GA_OK)
			return st;
		/* a row whose ratio or inputs overflow teaches nothing: skipped */
		y = log(fj->hours / d.p50);
		if (!isfinite(y))
			continue;
		st = ga_correction_add(ks->correction, inputs, y, err);
		if (st == GA_ENOMEM)
			return st;
	}
	return ga_correction_fit(ks->correction, err);
}

ga_status
ga_estimator_fit(ga_estimator *est, ga_error *err)
{
	ga_status	st = ga_training_model_fit(est->training, err);

	if (st == GA_OK)
		st = ga_batch_model_fit(est->batch, err);
	for (int k = 0; k < N_KINDS && st == GA_OK; k++)
		st = fit_correction(est, (job_kind) k, err);
	return st;
}

int
ga_estimator_history(const ga_estimator *est, const char *kind)
{
	job_kind	k;

	if (est == NULL || parse_kind(kind, &k, NULL) != GA_OK)
		return 0;
	return est->kinds[k].n;
}

/* The kind's model, times its correction where one is fitted. */
static ga_status
corrected_estimate(const ga_estimator *est, job_kind k, const kind_job *job, int gpus,
				   ga_duration *d, ga_error *err)
{
	const ga_correction *c = est ? est->kinds[k].correction : NULL;
	double		inputs[GA_CORRECTION_MAX_INPUTS];
	double		lo;
	double		hi;
	ga_status	st;

	/* the correction's inputs are worked out only when it is fitted */
	if (!ga_correction_fitted(c))
		return model_estimate(est, k, job, gpus, d, NULL, err);
	st = model_estimate(est, k, job, gpus, d, inputs, err);
	if (st != GA_OK)
		return st;
	d->p50 *= exp(ga_correction_predict(c, inputs));
	ga_correction_spread(c, &lo, &hi);
	d->p10 = d->p50 * exp(lo);
	d->p90 = d->p50 * exp(hi);
	d->log_sigma = (hi - lo) / (2 * ga_normal_quantile(0.9));
	return GA_OK;
}

/* ", corrected (N jobs)" when the kind's correction is fitted. */
static const char *
correction_note(const ga_estimator *est, job_kind k, char *buf, size_t size)
{
	buf[0] = '\0';
	if (est != NULL && ga_correction_fitted(est->kinds[k].correction))
		snprintf(buf, size, ", second-order correction (%d jobs)", est->kinds[k].n);
	return buf;
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
	kind_job	job;
	ga_duration d;
	double		sharded;
	double		per_gpu;
	char		note[64];
	ga_status	st = ga_training_job_parse(f, n, &job.training, err);

	if (st != GA_OK)
		return st;
	ga_training_memory_gb(&job.training, &sharded, &per_gpu);
	out->memory_gb = sharded + per_gpu;
	out->gpus_min = ga_training_min_gpus(&job.training);
	out->gpus = gpus > 0 ? gpus : out->gpus_min;
	st = corrected_estimate(est, KIND_TRAINING, &job, out->gpus, &d, err);
	while (st == GA_OK && gpus == 0 && d.p50 > GA_TARGET_HOURS &&
		   out->gpus < GA_SUGGEST_MAX_GPUS)
	{
		out->gpus *= 2;
		st = corrected_estimate(est, KIND_TRAINING, &job, out->gpus, &d, err);
	}
	if (st != GA_OK)
		return st;
	fill_from_duration(out, &d);
	snprintf(out->method, sizeof(out->method), "training %s prior x ridge(%d jobs)%s%s",
			 ga_variant_name(job.training.variant),
			 ga_training_model_history(est ? est->training : NULL),
			 correction_note(est, KIND_TRAINING, note, sizeof(note)),
			 job.training.mapped ? ", variant mapped" : "");
	return GA_OK;
}

static ga_status
estimate_inference(const ga_estimator *est, const ga_feature *f, int n,
				   int gpus, ga_job_estimate *out, ga_error *err)
{
	kind_job	job;
	ga_duration d;
	char		note[64];
	ga_status	st = ga_inference_job_parse(f, n, &job.inference, err);

	if (st != GA_OK)
		return st;
	out->memory_gb = ga_inference_memory_gb(&job.inference);
	out->gpus_min = ga_inference_min_gpus(&job.inference);
	out->gpus = gpus > 0 ? gpus : out->gpus_min;
	st = corrected_estimate(est, KIND_INFERENCE, &job, out->gpus, &d, err);
	while (st == GA_OK && gpus == 0 && d.p50 > GA_TARGET_HOURS &&
		   out->gpus < GA_SUGGEST_MAX_GPUS)
	{
		out->gpus *= 2;
		st = corrected_estimate(est, KIND_INFERENCE, &job, out->gpus, &d, err);
	}
	if (st != GA_OK)
		return st;
	fill_from_duration(out, &d);
	snprintf(out->method, sizeof(out->method),
			 "inference tier %d throughput %.0f tok/s/GPU (%d jobs)%s",
			 ga_size_tier(job.inference.params_b),
			 ga_inference_throughput(est ? est->batch : NULL, &job.inference),
			 est ? est->kinds[KIND_INFERENCE].n : 0,
			 correction_note(est, KIND_INFERENCE, note, sizeof(note)));
	return GA_OK;
}

static ga_status
estimate_quant(const ga_estimator *est, const ga_feature *f, int n,
			   int gpus, ga_job_estimate *out, ga_error *err)
{
	kind_job	job;
	ga_duration d;
	char		note[64];
	ga_status	st = ga_quant_job_parse(f, n, &job.quant, err);

	if (st != GA_OK)
		return st;
	out->memory_gb = ga_quant_memory_gb(&job.quant);
	out->gpus_min = ga_quant_min_gpus(&job.quant);
	out->gpus = gpus > 0 ? gpus : out->gpus_min;
	st = corrected_estimate(est, KIND_QUANTIZATION, &job, out->gpus, &d, err);
	if (st != GA_OK)
		return st;
	fill_from_duration(out, &d);
	out->work_gpu_hours = ga_quant_booked_work(d.p50 * out->gpus);
	snprintf(out->method, sizeof(out->method),
			 "quantization tier %d table +%.0f%% margin, whole GPU-hours (%d jobs)%s",
			 ga_size_tier(job.quant.params_b), (GA_QUANT_SAFETY_MARGIN - 1) * 100,
			 est ? est->kinds[KIND_QUANTIZATION].n : 0,
			 correction_note(est, KIND_QUANTIZATION, note, sizeof(note)));
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
