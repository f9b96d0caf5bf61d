/*
 * forecast_demand.h — real-time inference demand: a weekly profile learned
 * from hourly traffic, turned into a churn-shaped GPU curve.
 *
 * Time is counted in whole UTC hours since 1970-01-01 00:00 (unix seconds /
 * 3600, floored); hour of week 0 is Monday 00:00.  Observations must arrive
 * in increasing hour order; missing hours are simply not observed (their
 * buckets keep their previous values).
 *
 * Model.  Several weekly profiles run side by side, each an exponentially
 * weighted mean per hour-of-week bucket with its own weight alpha (slow ones
 * average out noise, fast ones follow a changing pattern); the forecast
 * blends them with weights 1 / MAE^2 of their own 24-h-ahead forecasts over
 * the last selection_hours, so each series ends up led by the smoothing that
 * has been working for it.  Per profile and observed hour x at bucket b:
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
 * Residuals r = (x - f) / (f + floor), where f is the blended forecast made
 * 24 h before the hour (the horizon the planner uses), are kept for the last
 * residual_hours; floor = floor_share x the mean of the slowest profile.
 * Forecast for an hour: base = sum_k w_k profile_k x level_k x trend_k;
 * p50 = base + median(r) x (base + floor); upper = base + quantile_q(r) x
 * (base + floor), never below p50 or 0.  With fewer than 24 residuals the
 * median is taken as 0 and the upper residual as 1 (upper = 2 base + floor).
 *
 * GPUs: q[t] = ceil(upper / capacity_per_gpu) clamped to [min_gpus,
 * max_gpus], then ga_churn_shape() gives the lowest curve above q whose
 * step-to-step change stays within churn_limit.
 */
#ifndef GPUALLOC_FORECAST_DEMAND_H
#define GPUALLOC_FORECAST_DEMAND_H

/* GA_WEEK_HOURS and ga_hour_of_week, the profile's buckets */
#include "model/calendar.h"

#define GA_DEMAND_MAX_PROFILES 4

/*
 * The upper quantile of hourly demand services are planned for, by default
 * (gpualloc.demand_quantile, gpualloc-sim --quantile, the forecast
 * backtest).  Real-time demand is served only up to the plan, so a higher
 * quantile buys coverage with GPUs held.  At 0.98 the synthetic scenarios'
 * coverage rises (docs/simulator.md, Benchmark settings), but on the real
 * series the upper tail of the residuals is heavy: the shaped forecast of
 * the GenAI series then holds only 4.9% fewer GPU-hours than reserving the
 * daily peak (28.5% at 0.955), and that of the Venus series 61% more.
 */
#define GA_DEMAND_QUANTILE_DEFAULT 0.955

typedef struct ga_demand_params
{
	int			n_profiles;		/* weekly profiles blended (4) */
	double		alphas[GA_DEMAND_MAX_PROFILES];	/* their EW weights
												 * (0.15, 0.35, 0.7, 1) */
	int			selection_hours;	/* window scoring the profiles (336) */
	double		clip;			/* profile update clip, x (profile + floor) (3) */
	int			level_hours;	/* window of the level ratio (24) */
	double		level_damping;	/* exponent on the level ratio, [0, 1] (0.5) */
	double		trend_weight;	/* share of the day-over-day change kept (0.2) */
	int			residual_hours; /* residual window (672 = 4 weeks) */
	double		floor_share;	/* scale floor, share of mean profile (1) */
} ga_demand_params;

/* The defaults above; the same for every series. */
ga_demand_params ga_demand_params_default(void);

typedef struct ga_demand_model ga_demand_model;

/* params may be NULL for the defaults.  NULL on out of memory or bad params. */
ga_demand_model *ga_demand_model_create(const ga_demand_params *params);
void		ga_demand_model_destroy(ga_demand_model *model);

/*
 * Learn one hour.  hour must be after the last observed hour; traffic must be
 * finite and >= 0 (GA_EINVAL naming "traffic" or "hour" otherwise).
 */
ga_status	ga_demand_model_observe(ga_demand_model *model, int64_t hour,
									double traffic, ga_error *err);

/* Hours observed so far, and the last one (-1 when none). */
int64_t		ga_demand_model_count(const ga_demand_model *model);
int64_t		ga_demand_model_last_hour(const ga_demand_model *model);

/* Current profile value of an hour-of-week bucket (0 .. 167), NAN if unseen. */
double		ga_demand_model_profile(const ga_demand_model *model, int bucket);

typedef struct ga_demand_info
{
	bool		no_history;		/* nothing observed: p50 = upper = 0 */
	double		level;			/* damped level factor applied */
	double		trend;			/* daily trend factor at 24 h ahead */
	double		resid_median;	/* relative residual median used */
	double		resid_upper;	/* relative residual at the quantile used */
	int			n_residuals;
	double		weights[GA_DEMAND_MAX_PROFILES];	/* of the profiles */
} ga_demand_info;

/*
 * Forecast n_steps steps of step_minutes (a divisor of 60: a sub-hour step
 * takes its hour's value) starting at from_hour.  quantile in [0.5, 0.999];
 * capacity_per_gpu > 0 (traffic one GPU serves); churn_limit >= 1, or 0 for
 * no limit; min_gpus >= 0; max_gpus >= min_gpus, or 0 for no cap.
 *
 * Outputs (caller-allocated, n_steps each, any may be NULL): p50 and upper
 * in traffic units, shaped_gpus the churn-shaped GPU curve.  info may be NULL.
 * With no history the call succeeds, sets info->no_history, and returns
 * p50 = upper = 0 and shaped_gpus = min_gpus.
 */
ga_status	ga_demand_forecast(const ga_demand_model *model, int64_t from_hour,
							   int n_steps, int step_minutes, double quantile,
							   double capacity_per_gpu, int churn_limit,
							   int min_gpus, int max_gpus,
							   double *p50, double *upper, int *shaped_gpus,
							   ga_demand_info *info, ga_error *err);

/*
 * The lowest integer curve out[] >= q[] with |out[t+1] - out[t]| <=
 * churn_limit (churn_limit >= 1): a backward pass lifts each step so the
 * later rises can be climbed in time, a forward pass lifts each step so the
 * falls are gradual.  Any curve above q within the limit is >= out at every
 * step, and out never exceeds max(q).  in and out may be the same array.
 */
void		ga_churn_shape(const int *q, int n, int churn_limit, int *out);

/*
 * Parse "YYYY-MM-DD HH:MM" (UTC; "T" also accepted as separator, minutes
 * must be 00) into an hour index.
 */
ga_status	ga_parse_hour(const char *text, int64_t *hour, ga_error *err);

#endif
