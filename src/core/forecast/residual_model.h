/*
 * residual_model.h — what the analytic priors of job durations miss, learned
 * from finished jobs: a regression of y = log(actual hours / prior hours) on
 * the job's features, shared by every job kind.
 *
 * Each kind describes a job by a few continuous features (logs of sizes,
 * counts, speeds) and a few 0/1 flags (its variant, precision, switches).
 * The design is a second-order response surface of them: an intercept, the
 * features and flags, every product of two continuous features (squares
 * included) and every flag times every continuous feature, so the fit can
 * learn that a slowdown grows with model size, or with GPUs for one strategy
 * only.  How much of that surface the history can carry is not fixed in
 * advance: the ridge penalty and the weight of the second-order terms are
 * chosen by K-fold cross-validation on the history itself (least mean
 * absolute out-of-fold error over a fixed grid), so a short history keeps
 * the prior nearly as it is and a long one earns the interactions.
 *
 * Run times have heavy tails (stragglers, retries), so the final fit is
 * robust: a few rounds of Huber reweighting (delta 1.345 robust standard
 * deviations of the residuals) after the chosen ridge fit.
 *
 * The interval is empirical: the 10th and 90th percentiles of the
 * out-of-fold residuals, pulled towards +-z(0.9) x prior_log_sigma as if the
 * prior were GA_RESIDUAL_PRIOR_WEIGHT jobs, so p10-p90 covers about 80% of
 * runs whatever the shape of the noise.
 */
#ifndef GPUALLOC_RESIDUAL_MODEL_H
#define GPUALLOC_RESIDUAL_MODEL_H

#include "model/common.h"

#define GA_RESIDUAL_MAX_CONT 10
#define GA_RESIDUAL_MAX_FLAGS 24
#define GA_RESIDUAL_PRIOR_WEIGHT 8.0
/* An extrapolating fit never moves a prior by more than e^3 (about 20x). */
#define GA_RESIDUAL_MAX_LOG 3.0

typedef struct ga_residual_model ga_residual_model;

/*
 * n_cont continuous features (1 .. GA_RESIDUAL_MAX_CONT), n_flags flags
 * (0 .. GA_RESIDUAL_MAX_FLAGS), the spread of y assumed without history.
 * NULL on out of memory or bad sizes.
 */
ga_residual_model *ga_residual_model_create(int n_cont, int n_flags,
											double prior_log_sigma);
void		ga_residual_model_destroy(ga_residual_model *m);

/* Record one finished job; y must be finite (GA_EINVAL otherwise). */
ga_status	ga_residual_model_add(ga_residual_model *m, const double *cont,
								  const bool *flags, double y, ga_error *err);

int			ga_residual_model_count(const ga_residual_model *m);

/* Refit on all history recorded; with none the correction is 0. */
ga_status	ga_residual_model_fit(ga_residual_model *m, ga_error *err);

/* The fitted log correction for a job (0 before any fit or history). */
double		ga_residual_model_predict(const ga_residual_model *m,
									  const double *cont, const bool *flags);

/* The 10th and 90th percentiles of log(actual / corrected prior). */
void		ga_residual_model_spread(const ga_residual_model *m,
									 double *log_p10, double *log_p90);

/* Columns of the design and the chosen penalty (for reports and tests). */
int			ga_residual_model_columns(const ga_residual_model *m);
double		ga_residual_model_lambda(const ga_residual_model *m);
double		ga_residual_model_interaction_weight(const ga_residual_model *m);

#endif
