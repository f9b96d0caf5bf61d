/*
 * bench_forecast.h — what the forecast benchmark's parts share: their
 * results, gathered by bench_forecast.c into tables and JSON.
 *
 *   bench_demand.c     demand backtests (real series, splits, peers, tuning)
 *   bench_durations.c  duration estimators on a generated corpus
 */
#ifndef GPUALLOC_BENCH_FORECAST_H
#define GPUALLOC_BENCH_FORECAST_H

#include "forecast/forecast_demand.h"

/* The duration backtests' results: a fixed set of estimators and methods. */
#define BENCH_MAX_DURATION_RESULTS 64

/* A series' name: its file's name less the suffix, at most 63 characters. */
#define BENCH_SERIES_NAME_LEN 64

typedef struct demand_result
{
	char		series[BENCH_SERIES_NAME_LEN];
	const char *split;			/* "tune" or "test" */
	const char *method;
	double		nominal;		/* the quantile the upper curves aim at */
	int			hours;			/* hours scored */
	double		wape;			/* of the p50 (the point forecast) */
	double		coverage;		/* share of hours at or below the curve */
	double		held;			/* GPU-hours held above the actual */
	double		held_matched;	/* the same at matched coverage */
	double		coverage_matched;	/* the coverage actually matched */
	const char *matched_form;	/* "add" or "mul": the margin that won */
} demand_result;

typedef struct duration_result
{
	const char *estimator;
	const char *method;
	double		mdape;
	double		coverage;		/* of the p10 - p90 interval */
	int			n_test;
} duration_result;

typedef struct bench_results
{
	demand_result *demand;		/* one per series, split and method */
	int			n_demand;
	int			cap_demand;
	duration_result duration[BENCH_MAX_DURATION_RESULTS];
	int			n_duration;
} bench_results;

/* Report a fatal error (err may be NULL: errno) and exit. */
void		bench_die(const char *what, const ga_error *err);

/*
 * The demand backtests of every series in data_dir, appended to res.  With
 * tune set, instead: the grid search of the forecaster's constants on the
 * tuning split only, printed.
 */
void		bench_demand(const char *data_dir, bool tune, bench_results *res);

/* The duration backtests, appended to res. */
void		bench_durations(bench_results *res);

#endif
