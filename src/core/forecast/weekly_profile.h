/*
 * weekly_profile.h — the weekly-profile candidate of the demand forecaster.
 *
 * Several weekly profiles run side by side, each an exponentially weighted
 * mean per hour-of-week bucket with its own weight alpha (slow ones average
 * out noise, fast ones follow a changing pattern); the forecast blends them
 * with weights 1 / MAE^2 of their own 24-h-ahead forecasts over the last
 * selection_hours, so each series ends up led by the smoothing that has been
 * working for it.  Per profile and observed hour x at bucket b:
 *   - profile[b] += alpha (min(x, clip x (profile[b] + floor)) - profile[b]),
 *     so one burst does not lift a bucket for weeks; a bucket never observed
 *     falls back to the mean of observed buckets at the same hour of day,
 *     then of all buckets;
 *   - level: (recent actual + k) / (recent profile + k) over the last
 *     level_hours, where "profile" is the bucket value before the hour was
 *     learned, damped towards 1 by the exponent level_damping and clamped to
 *     [1/3, 3];
 *   - trend: log of the last 24 h level over the 24 h before, times
 *     trend_weight, applied over the first 24 h ahead and held after.
 * floor = floor_share x the mean of the slowest profile.  Forecast of an
 * hour: sum_k w_k profile_k x level_k x trend_k.
 *
 * Hours are whole UTC hours since 1970 (forecast_demand.h); they arrive in
 * increasing order, gaps allowed.
 */
#ifndef GPUALLOC_WEEKLY_PROFILE_H
#define GPUALLOC_WEEKLY_PROFILE_H

#include "model/calendar.h"

#include <stdint.h>

#define GA_PROFILE_MAX 4
/* Hours remembered: the level, trend and selection windows, rounded up. */
#define GA_PROFILE_RING 512

typedef struct ga_profile_params
{
	int			n_profiles;
	double		alphas[GA_PROFILE_MAX];
	int			selection_hours;	/* <= GA_PROFILE_RING - 48 */
	double		clip;			/* > 1 */
	int			level_hours;	/* 1 .. 168 */
	double		level_damping;	/* [0, 1] */
	double		trend_weight;	/* [0, 1] */
	double		floor_share;	/* > 0 */
} ga_profile_params;

/* One weekly profile with its own smoothing weight, level and trend. */
typedef struct ga_profile_component
{
	double		alpha;
	double		profile[GA_WEEK_HOURS];
	int			profile_n[GA_WEEK_HOURS];
	double		expected[GA_PROFILE_RING];	/* bucket value before learning */
	double		level[GA_PROFILE_RING]; /* level in force after the hour */
	double		trend[GA_PROFILE_RING]; /* daily trend factor after the hour */
	double		f24[GA_PROFILE_RING];	/* forecast made a day earlier */
	bool		has_f24[GA_PROFILE_RING];
} ga_profile_component;

typedef struct ga_weekly_profile
{
	ga_profile_params p;
	int64_t		n_observed;
	int64_t		last_hour;
	int64_t		stamp[GA_PROFILE_RING];
	double		actual[GA_PROFILE_RING];
	double		weight[GA_PROFILE_RING][GA_PROFILE_MAX];	/* after the hour */
	ga_profile_component comp[GA_PROFILE_MAX];
} ga_weekly_profile;

bool		ga_profile_params_valid(const ga_profile_params *p);

/* p must be valid; the struct is large, so callers embed or allocate it. */
void		ga_profile_init(ga_weekly_profile *wp, const ga_profile_params *p);

/* Learn hour (after the last one) with value x >= 0. */
void		ga_profile_observe(ga_weekly_profile *wp, int64_t hour, double x);

/* Forecast of an hour from the state after the last observed hour. */
double		ga_profile_forecast(const ga_weekly_profile *wp, int64_t hour);

/* Blended bucket value of bucket b (NAN when never observed). */
double		ga_profile_bucket(const ga_weekly_profile *wp, int b);

/* The blended level and trend in force, and the blend weights. */
void		ga_profile_state(const ga_weekly_profile *wp, double *level,
							 double *trend, double *weights);

/*
 * A level shift by r began at hour onset: every bucket, every remembered
 * expectation and forecast, and the values before onset are multiplied by
 * r, so the profile stands at the new level at once and its level ratio
 * starts again from 1.
 */
void		ga_profile_rescale(ga_weekly_profile *wp, double r, int64_t onset);

#endif
