/*
 * feature_correction.h — a second-order correction of a duration model,
 * learnt from finished jobs, its complexity chosen by cross-validation.
 *
 * Every kind's estimate starts from a model of its own (an analytic prior,
 * corrected per variant, size tier or algorithm).  What such a model gets
 * wrong is rarely a constant factor: efficiency that peaks for mid-sized
 * models, communication that grows with GPUs differently per strategy,
 * padding that matters only without packing.  In log space these are
 * curvature and interactions, so the correction is a ridge regression of
 * y = log(actual / model) on
 *   - the numbers (k of them, usually logs of the features), their squares
 *     and pairwise products;
 *   - "crossed" indicators (0/1), alone and times every number;
 *   - "plain" indicators, alone;
 * all standardized, with an unpenalized intercept.  The penalty is chosen
 * from a fixed grid by 5-fold cross-validation on the history (least mean
 * absolute error, robust to stragglers), so a history of noise shrinks the
 * correction to its intercept and a history with structure keeps it.  The
 * out-of-fold residuals at that penalty give the median (added to the
 * prediction: durations' noise is skewed) and the 10th and 90th
 * percentiles of what a prediction misses by.
 *
 * Below GA_CORRECTION_MIN_ROWS rows nothing is fitted and the correction is
 * 0: the kind's own model and spread stand.
 *
 * Inputs of a row, in order: the k numbers, the crossed indicators, the
 * plain ones (counts fixed at create).
 */
#ifndef GPUALLOC_FEATURE_CORRECTION_H
#define GPUALLOC_FEATURE_CORRECTION_H

#include "model/common.h"

#include <stdbool.h>

#define GA_CORRECTION_MIN_ROWS 40
#define GA_CORRECTION_MAX_INPUTS 48

typedef struct ga_correction ga_correction;

/* NULL on out of memory or counts out of range. */
ga_correction *ga_correction_create(int n_numbers, int n_crossed, int n_plain);
void		ga_correction_destroy(ga_correction *c);

/* Drop every row (the fit stays until the next ga_correction_fit). */
void		ga_correction_clear(ga_correction *c);

/* Add a row: inputs as described above, y finite. */
ga_status	ga_correction_add(ga_correction *c, const double *inputs, double y,
							  ga_error *err);

/* Fit on every row added; below GA_CORRECTION_MIN_ROWS, unfitted. */
ga_status	ga_correction_fit(ga_correction *c, ga_error *err);

bool		ga_correction_fitted(const ga_correction *c);

/* The log correction for a row's inputs; 0 when unfitted. */
double		ga_correction_predict(const ga_correction *c, const double *inputs);

/*
 * The 10th and 90th percentiles of log(actual / corrected prediction)
 * out of fold; false (and nothing written) when unfitted.
 */
bool		ga_correction_spread(const ga_correction *c, double *lo, double *hi);

#endif
