/*
 * forecast_estimator.h — one entry point for every batch job kind, the shape
 * the SQL layer calls: a kind name, the job's features as key/value pairs
 * (see forecast_training.h and forecast_batch.h for each kind's keys) and an
 * optional GPU count.
 *
 * Kinds: "training"; "inference" (also "batch_inference"); "quantization"
 * (also "quantize").  Kind names are case-insensitive.
 *
 * GPU suggestion when gpus is 0: gpus_min is the smallest power of two whose
 * memory (85% of it for training, 90% for inference and quantization) holds
 * what the job needs; training and inference then double the count while the
 * median duration exceeds GA_TARGET_HOURS and the count is below
 * GA_SUGGEST_MAX_GPUS (more GPUs only shorten the wait), while quantization
 * keeps gpus_min (its layer-by-layer passes do not parallelise well).
 *
 * Typical use:
 *     est = ga_estimator_create();
 *     for each finished job: ga_estimator_add_history(est, kind, f, n, gpus, hours, &err);
 *     ga_estimator_fit(est, &err);
 *     ga_estimate_job(est, kind, f, n, 0, &estimate, &err);
 *     ga_estimator_destroy(est);
 * History can grow at any time; estimates use the last fit.
 */
#ifndef GPUALLOC_FORECAST_ESTIMATOR_H
#define GPUALLOC_FORECAST_ESTIMATOR_H

#include "forecast/forecast_batch.h"

#define GA_TARGET_HOURS 24.0
#define GA_SUGGEST_MAX_GPUS 64

typedef struct ga_job_estimate
{
	int			gpus;			/* the count given, or the suggestion */
	int			gpus_min;		/* smallest power of two that fits in memory */
	bool		gpus_suggested; /* gpus was 0 on input */
	double		hours_p10;		/* at gpus */
	double		hours_p50;
	double		hours_p90;
	double		work_gpu_hours; /* hours_p50 x gpus; quantization: median
								 * GPU-hours x 1.25, rounded up to whole
								 * GPU-hours (the work to book) */
	double		memory_gb;		/* the job's total memory need */
	char		method[96];		/* e.g. "training prior x ridge(120 jobs)" */
} ga_job_estimate;

typedef struct ga_estimator ga_estimator;

/* NULL on out of memory. */
ga_estimator *ga_estimator_create(void);
void		ga_estimator_destroy(ga_estimator *est);

/*
 * Record a finished job (features as for ga_estimate_job, gpus >= 1 it ran
 * on, actual_hours > 0 of wall clock).  Bad input leaves the history as it
 * was and returns GA_EINVAL naming the problem; so does a run whose ratio to
 * the job's prior overflows (it would make every later fit NaN).
 */
ga_status	ga_estimator_add_history(ga_estimator *est, const char *kind,
									 const ga_feature *features, int n_features,
									 int gpus, double actual_hours,
									 ga_error *err);

/* Refit every kind's correction on all history recorded so far. */
ga_status	ga_estimator_fit(ga_estimator *est, ga_error *err);

/* Number of finished jobs recorded for kind (0 for an unknown kind). */
int			ga_estimator_history(const ga_estimator *est, const char *kind);

/*
 * Estimate a job.  gpus > 0 gives the count to estimate at; 0 asks for a
 * suggestion.  est may be NULL (analytic priors only).  Every number of an
 * estimate is finite: features so extreme together that one is not (an
 * overflow) get GA_EINVAL.
 */
ga_status	ga_estimate_job(const ga_estimator *est, const char *kind,
							const ga_feature *features, int n_features,
							int gpus, ga_job_estimate *out, ga_error *err);

/*
 * Check a job's features against its kind's key table (known keys, types,
 * ranges) without requiring any: for a job whose work the submitter gave.
 */
ga_status	ga_job_features_validate(const char *kind, const ga_feature *features,
									 int n_features, ga_error *err);

#endif
