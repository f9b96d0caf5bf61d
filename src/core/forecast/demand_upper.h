/*
 * demand_upper.h — the upper curve of the demand forecaster: conformal
 * bounds around the point forecast, in two units of error, the unit chosen
 * by recent pinball loss, under coverage control.
 *
 * The error of a forecast c of an hour whose value turns out y is scored as
 * (y - c) / scale, in one of two units (options):
 *   0  relative: scale = max(c, 0) + floor, errors proportional to traffic
 *      (a busy hour errs by more than a quiet one);
 *   1  time of day: scale = the mean absolute error of past forecasts at
 *      that hour of day (exponentially weighted) + floor, errors as large
 *      as they have been at that time of day, whatever the forecast says;
 *   2  absolute: scale = 1, errors of the same size at any hour and any
 *      level (a series whose errors come from jumps or bursts that may
 *      strike at any time).
 * floor is the caller's (a share of the recent mean traffic, plus
 * GA_UPPER_SCALE_GUARD), so a scale is never 0.  A scale no larger than
 * the guard measures nothing (no traffic seen, none forecast): an error in
 * it is not scored: the first hours of demand after an idle start would
 * count as errors of some 1e10 scales, and the bounds of the next day
 * would ask for 1e11 GPUs where 40 were used.  Each unit keeps its own conformal windows per horizon
 * (conformal.h), read with equal weights or with weights halving every
 * half_life scores: six options, each giving the bound c + Q(level) x
 * scale.  Which unit describes a series better, and whether its errors are
 * steady enough to trust a month of them, is not known in advance, so every
 * bound is scored with the pinball loss at the target quantile q,
 *     q (y - u)+ + (1 - q) (u - y)+,
 * the proper score of a q-quantile (exponentially weighted, per horizon),
 * and the option with the least loss, summed over the horizons, is used for
 * the whole curve.
 */
#ifndef GPUALLOC_DEMAND_UPPER_H
#define GPUALLOC_DEMAND_UPPER_H

#include "forecast/conformal.h"
#include "forecast/demand_blend.h"

#define GA_UPPER_UNITS 3
#define GA_UPPER_WEIGHTINGS 2
#define GA_UPPER_OPTIONS (GA_UPPER_UNITS * GA_UPPER_WEIGHTINGS)
#define GA_UPPER_MIN_SCORES 24
/* Added to every floor so a scale is never 0 (see the head of the file). */
#define GA_UPPER_SCALE_GUARD 1e-9

typedef struct ga_upper ga_upper;

typedef struct ga_upper_settings
{
	int			window;			/* scores kept per horizon and option */
	double		half_life;		/* of the weighted reading, > 0 */
	double		loss_half_life; /* of the pinball losses and hour errors */
	double		target;			/* the quantile the losses score */
} ga_upper_settings;

/* NULL on out of memory or bad settings. */
ga_upper   *ga_upper_create(const ga_upper_settings *s);
void		ga_upper_destroy(ga_upper *u);

/* The bounds of one hour's forecast, per option and chosen. */
typedef struct ga_upper_bound
{
	double		scale[GA_UPPER_OPTIONS];
	double		upper[GA_UPPER_OPTIONS];
	int			chosen;
	double		med;			/* the chosen option's median error, scaled */
	double		q_up;			/* its error at the level, in its unit */
	int			n_scores;		/* its scores at that horizon */
} ga_upper_bound;

/*
 * Bounds at level for center c of an hour h hours ahead (index 0 .. 23) at
 * hour of day d.  With fewer than GA_UPPER_MIN_SCORES scores an option's
 * median is 0 and its error at the level 1 (upper = c + scale).
 */
void		ga_upper_bound_at(const ga_upper *u, int h, int d, double c,
							  double floor, double level, ga_upper_bound *out);

/* Score the bound b made h hours ahead for an hour whose value was y. */
void		ga_upper_score(ga_upper *u, int h, double y, double c,
						   const ga_upper_bound *b);

/*
 * The series' level moved by r for good: errors measured in traffic units
 * (the absolute scores, the hour-of-day errors) are restated at the new
 * level, x r; scale-free scores are left as they are.
 */
void		ga_upper_rescale(ga_upper *u, double r);

/*
 * Once per observed hour at hour of day d: the mean absolute error of the
 * centers forecast for it, the unit of option 1.
 */
void		ga_upper_hour_error(ga_upper *u, int d, double err);

#endif
