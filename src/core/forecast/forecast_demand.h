/*
 * forecast_demand.h — real-time inference demand: hourly traffic forecast
 * by a blend of candidates, an upper curve calibrated online, and its
 * churn-shaped GPU curve.
 *
 * Time is counted in whole UTC hours since 1970-01-01 00:00 (unix seconds /
 * 3600, floored); hour of week 0 is Monday 00:00.  Observations must arrive
 * in increasing hour order; missing hours are simply not observed.
 *
 * Candidates.  Each forecasts every hour of the next day from what has been
 * observed (docs/simulator.md, Demand forecasts, has the reasoning):
 *   - the weekly profile (weekly_profile.h): hour-of-week buckets with a
 *     damped level and trend;
 *   - n_hw damped Holt-Winters filters with a daily season, each with fixed
 *     constants (holt_winters.h), from slow to fast;
 *   - same hour yesterday, and same hour last week.
 * After every observed hour each candidate forecasts the next 24 hours;
 * when an hour is observed the forecasts made for it 1 .. 24 hours ahead
 * are scored.  The blend at horizon h weights candidate k by
 * 1 / E[k][h]^blend_power, E an exponentially weighted mean absolute error
 * of k's forecasts h hours ahead (blend_hours its half-life), so a series is
 * led by what has been forecasting it, per horizon: the last values
 * matter an hour ahead, the weekly pattern a day ahead.
 *
 * Quantiles.  The blend's error at horizon h, scaled by (blend + floor),
 * floor = floor_share x the recent mean, is kept for the last
 * residual_hours per horizon (conformal.h).  p50 = blend + median x scale,
 * upper = blend + Q(level) x scale, never below p50 or 0; the level is the
 * coverage controller's, which moves with the realised coverage of the
 * model's own past upper curves (coverage_gain per scored hour, towards
 * params.quantile, fading with a half-life of coverage_hours, and kept
 * within params.quantile +- coverage_span x (1 - params.quantile)).  A forecast at another quantile q scales the
 * controller's miss rate: 1 - level = (1 - q) (1 - controlled) / (1 -
 * params.quantile).  With fewer than 24 scores at a horizon, the median is
 * taken as 0 and the upper as 2 blend + floor.
 *
 * Level shifts (level_shift.h): when shift_hours consecutive hours stand
 * beyond the usual ratio to the weekly profile by at least shift_ratio, the
 * model's memory (profile buckets, the values the lag candidates look up)
 * is rescaled by the measured shift, so every candidate forecasts the new
 * level at once; forecasts made before the shift are no longer scored.
 *
 * GPUs: q[t] = ceil(upper / capacity_per_gpu) clamped to [min_gpus,
 * max_gpus], and never above GA_DEMAND_MAX_GPUS.  With a churn limit, a
 * rise the limit cannot follow in one step is ramped towards ahead of time:
 * the level after it is held from burst_lead_hours before it (upper raised
 * alike), since such a rise coming early would be missed for its whole
 * ramp; then ga_churn_shape() gives the lowest curve above q whose
 * step-to-step change stays within churn_limit.
 */
#ifndef GPUALLOC_FORECAST_DEMAND_H
#define GPUALLOC_FORECAST_DEMAND_H

/* GA_WEEK_HOURS and ga_hour_of_week, the profile's buckets */
#include "model/calendar.h"

/*
 * The most GPUs a forecast curve asks for in a step (2^30): above any
 * cluster, and low enough that churn shaping's sums stay inside an int.
 */
#define GA_DEMAND_MAX_GPUS (1 << 30)
#define GA_DEMAND_MAX_PROFILES 4
#define GA_DEMAND_MAX_HW 4
/* Candidates: the profile, the Holt-Winters filters, yesterday, last week. */
#define GA_DEMAND_MAX_CANDIDATES (GA_DEMAND_MAX_HW + 3)
/* Horizons scored: forecasts 1 .. 24 hours ahead. */
#define GA_DEMAND_HORIZONS 24

/*
 * The upper quantile of hourly demand services are planned for, by default
 * (gpualloc.demand_quantile, gpualloc-sim --quantile, the forecast
 * backtest).  Real-time demand is served only up to the plan, so a higher
 * quantile buys coverage with GPUs held.
 */
#define GA_DEMAND_QUANTILE_DEFAULT 0.955

/* Constants of one Holt-Winters candidate (season 24 h). */
typedef struct ga_demand_hw
{
	double		alpha;
	double		beta;
	double		gamma;
	double		phi;
} ga_demand_hw;

typedef struct ga_demand_params
{
	/* The weekly profile candidate (weekly_profile.h). */
	int			n_profiles;		/* weekly profiles blended */
	double		alphas[GA_DEMAND_MAX_PROFILES];	/* their EW weights */
	int			selection_hours;	/* window scoring the profiles */
	double		clip;			/* profile update clip, x (profile + floor) */
	int			level_hours;	/* window of the level ratio */
	double		level_damping;	/* exponent on the level ratio, [0, 1] */
	double		trend_weight;	/* share of the day-over-day change kept */
	/* Quantiles. */
	int			residual_hours; /* scores kept per horizon */
	int			residual_half_life; /* their weight halves, hours; 0: equal */
	double		floor_share;	/* scale floor, share of the recent mean */
	bool		median_correction;	/* p50 = blend + median error */
	/* The other candidates and the blend. */
	int			n_hw;			/* Holt-Winters candidates, 0 .. 4 */
	ga_demand_hw hw[GA_DEMAND_MAX_HW];
	bool		use_yesterday;
	bool		use_last_week;
	int			blend_hours;	/* half-life of the errors that choose among
								 * candidates and combiners */
	int			upper_hours;	/* half-life of the losses that choose the
								 * unit of the bounds */
	/* Coverage control. */
	double		quantile;		/* the level it calibrates, (0.5, 1) */
	double		coverage_gain;	/* level step per scored hour, >= 0 */
	int			coverage_hours; /* half-life of its correction, >= 1 */
	double		coverage_span;	/* level within quantile +- span (1 - q) */
	/* Bursts: a rise the churn limit cannot follow held this early, 0: off. */
	int			burst_lead_hours;
	/* Level shifts: 0 hours turns detection off. */
	int			shift_hours;
	double		shift_ratio;
} ga_demand_params;

/*
 * The defaults, the same for every series: chosen on the tuning split of the
 * forecast benchmark (tools/bench_forecast.c --tune, docs/simulator.md).
 */
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
	double		level;			/* the profile's damped level factor */
	double		trend;			/* its daily trend factor at 24 h ahead */
	double		resid_median;	/* relative error median, first step */
	double		resid_upper;	/* relative error at the level, first step */
	int			n_residuals;	/* errors held at the first step's horizon */
	double		weights[GA_DEMAND_MAX_PROFILES];	/* of the profiles */
	/* Candidates' blend weights at the first step's horizon. */
	int			n_candidates;
	double		candidate_weights[GA_DEMAND_MAX_CANDIDATES];
	double		coverage_level; /* the level asked for at the quantile */
	int			level_shifts;	/* shifts detected so far */
} ga_demand_info;

/* Candidates of a model, and the name of candidate k ("profile", "hw1", ...). */
int			ga_demand_candidate_count(const ga_demand_model *model);
const char *ga_demand_candidate_name(const ga_demand_model *model, int k);

/* Candidate k's forecast of hour from the state now (NAN: it has none). */
double		ga_demand_candidate_forecast(const ga_demand_model *model, int k,
										 int64_t hour);

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
 * The GPUs an upper curve of traffic asks for, at most GA_DEMAND_MAX_GPUS:
 * without a max_gpus the traffic's scale is the caller's, and an upper
 * curve well above the history must not wrap the int.  A hair of tolerance
 * so 2.0000000001 GPUs of traffic stays 2.
 */
int			ga_demand_upper_gpus(double upper, double capacity_per_gpu);

/*
 * Parse a whole hour "YYYY-MM-DD HH:00" (UTC; the forms and rules of
 * ga_parse_minutes in model/calendar.h) into an hour index.
 */
ga_status	ga_parse_hour(const char *text, int64_t *hour, ga_error *err);

#endif
