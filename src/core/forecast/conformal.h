/*
 * conformal.h — split-conformal upper bounds with online coverage control.
 *
 * A forecaster scores each of its forecasts once the truth is known; the
 * score is a scale-free error, here (actual - forecast) / scale.  For every
 * horizon 0 .. n_horizons-1 the last `window` scores are kept sorted, so the
 * bound at a level is an order statistic of recent out-of-sample errors
 * (split conformal prediction: no distribution assumed, only that the
 * coming errors resemble the recent ones).  With a half-life, a score's
 * weight halves with every half_life scores added after it (weighted
 * conformal prediction, Barber et al. 2023): a series whose errors change
 * is judged mostly by its latest ones, and a burst of old errors fades
 * instead of holding the bound up until it leaves the window.
 *
 * Real series drift, so the recent errors need not resemble the coming ones
 * and the realised coverage would wander from the target.  The controller
 * (adaptive conformal inference, Gibbs and Candes 2021) corrects for that:
 * after each scored hour it moves the level it asks for,
 *     level = target + d,   d = decay d + gain (missed share - (1 - target)),
 * so a run of misses raises the level and a run of hits lowers it.  With
 * decay 1, over any stretch of T updates the realised miss rate differs from
 * 1 - target by (level at the end - level at the start) / (gain T), however
 * the errors behave: coverage tracks its target online.  Two guards, because
 * real errors have heavy tails: the level stays within [lo, hi] (far in the
 * tail one more point of coverage costs a burst's worth of GPUs), and with
 * decay < 1 the correction fades, so a quiet stretch in which everything is
 * covered does not leave the level wound down when the series wakes up.
 */
#ifndef GPUALLOC_CONFORMAL_H
#define GPUALLOC_CONFORMAL_H

#include <stdbool.h>

typedef struct ga_conformal ga_conformal;

#define GA_CONFORMAL_MAX_WEIGHTINGS 4

/*
 * n_horizons >= 1, window >= 1; the same scores are read with each of
 * n_weightings (1 .. 4) half-lives >= 0 (0: equal weights).  NULL on out of
 * memory or bad sizes.
 */
ga_conformal *ga_conformal_create(int n_horizons, int window, int n_weightings,
								  const double *half_lives);
void		ga_conformal_destroy(ga_conformal *c);

/* Add a score at horizon h, dropping the oldest beyond the window. */
void		ga_conformal_add(ga_conformal *c, int h, double score);

/* Scores held at horizon h. */
int			ga_conformal_count(const ga_conformal *c, int h);

/*
 * The score at level in [0, 1] of horizon h read with the given weighting
 * (an index into the half-lives): with equal weights the order
 * statistic of rank level x (n + 1) (the finite-sample conformal rank),
 * interpolated between neighbours; with weights the smallest score whose
 * larger scores weigh at most (1 - level) x (total weight + 1).  Clamped to
 * the smallest and largest score; 0 when none.
 */
double		ga_conformal_quantile(const ga_conformal *c, int h, double level,
								  int weighting);

int			ga_conformal_weightings(const ga_conformal *c);

/* Multiply every score held by r > 0 (scores measured in a changed unit). */
void		ga_conformal_rescale(ga_conformal *c, double r);

/* The coverage controller: the level to ask for, moved by realised misses. */
typedef struct ga_coverage_control
{
	double		target;			/* nominal coverage, (0, 1) */
	double		gain;			/* step per scored hour, >= 0 (0: off) */
	double		decay;			/* of the correction per scored hour, (0, 1] */
	double		level;			/* current level asked for */
	double		lo;				/* level kept within [lo, hi] */
	double		hi;
} ga_coverage_control;

void		ga_coverage_control_init(ga_coverage_control *cc, double target,
									 double gain, double decay, double lo,
									 double hi);

/* One scored hour: missed of n forecasts of it fell below the truth. */
void		ga_coverage_control_update(ga_coverage_control *cc, int missed, int n);

#endif
