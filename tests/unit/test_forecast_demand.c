/*
 * test_forecast_demand.c — weekly profile, level, quantiles and churn
 * shaping of the real-time demand forecaster.
 */
#include "unit.h"
#include "forecast/forecast_demand.h"

#include <stdlib.h>

/* 2024-11-18 00:00 UTC, a Monday. */
#define MONDAY 481080

static double
weekly_truth(int64_t hour)
{
	int			how = ga_hour_of_week(hour);
	int			hod = how % 24;
	bool		weekend = how >= 5 * 24;

	return (weekend ? 40.0 : 100.0) + 60.0 * sin(M_PI * hod / 24.0);
}

static ga_demand_model *
trained_model(int weeks, double noise, unsigned seed)
{
	ga_demand_model *m = ga_demand_model_create(NULL);
	ga_error	err = {0};

	for (int64_t h = MONDAY; h < MONDAY + weeks * GA_WEEK_HOURS; h++)
	{
		double		x = weekly_truth(h) * (1 + noise * ((rand_r(&seed) % 2001) / 1000.0 - 1));

		CHECK_INT_EQ(ga_demand_model_observe(m, h, x, &err), GA_OK);
	}
	return m;
}

TEST(demand_hour_parsing_and_week_buckets)
{
	int64_t		h;
	ga_error	err = {0};

	CHECK_INT_EQ(ga_parse_hour("2024-11-18 00:00", &h, &err), GA_OK);
	CHECK_INT_EQ(h, MONDAY);
	CHECK_INT_EQ(ga_hour_of_week(h), 0);
	CHECK_INT_EQ(ga_parse_hour("2024-11-24T23:00", &h, &err), GA_OK);
	CHECK_INT_EQ(ga_hour_of_week(h), 167);
	CHECK_INT_EQ(ga_parse_hour("2020-03-01 05:00", &h, &err), GA_OK);
	CHECK_INT_EQ(h, (18322) * 24 + 5);
	CHECK_INT_EQ(ga_parse_hour("2024-11-18 00:30", &h, &err), GA_EINVAL);
	CHECK_INT_EQ(ga_parse_hour("yesterday", &h, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "yesterday");
	/* the calendar's rules: a day its month has */
	CHECK_INT_EQ(ga_parse_hour("2026-02-30 05:00", &h, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "is not a day of its month");
}

/* Hours between two timestamps, as the parser counts them. */
static int64_t
hours_between(const char *from, const char *to)
{
	int64_t		a = -1;
	int64_t		b = -1;
	ga_error	err = {0};

	CHECK_INT_EQ(ga_parse_hour(from, &a, &err), GA_OK);
	CHECK_INT_EQ(ga_parse_hour(to, &b, &err), GA_OK);
	return b - a;
}

TEST(demand_hour_parsing_counts_leap_days)
{
	int64_t		h;
	ga_error	err = {0};

	CHECK_INT_EQ(ga_parse_hour("2024-02-29 05:00", &h, &err), GA_OK);
	CHECK_INT_EQ(h, 474773);
	CHECK_INT_EQ(hours_between("2024-01-31 00:00", "2024-02-01 00:00"), 24);
	CHECK_INT_EQ(hours_between("2024-02-28 00:00", "2024-03-01 00:00"), 48);
	/* every fourth year, but not centuries, unless divisible by 400 */
	CHECK_INT_EQ(hours_between("2100-02-28 00:00", "2100-03-01 00:00"), 24);
	CHECK_INT_EQ(hours_between("2000-02-28 00:00", "2000-03-01 00:00"), 48);
	CHECK_INT_EQ(hours_between("2023-02-28 00:00", "2023-03-01 00:00"), 24);
}

TEST(demand_profile_learns_weekly_pattern)
{
	ga_demand_model *m = trained_model(6, 0.05, 3);
	double		p50[48];
	double		upper[48];
	int			shaped[48];
	int64_t		from = MONDAY + 6 * GA_WEEK_HOURS;
	ga_demand_info info;
	ga_error	err = {0};

	for (int b = 0; b < GA_WEEK_HOURS; b += 7)
		CHECK_NEAR(ga_demand_model_profile(m, b), weekly_truth(MONDAY + b),
				   0.06 * weekly_truth(MONDAY + b));
	/* A Friday into the weekend: the drop must be in the forecast. */
	from += 4 * 24 + 12;
	CHECK_INT_EQ(ga_demand_forecast(m, from - 4 * 24 - 12, 1, 60, 0.9, 10, 0, 0, 0,
									p50, upper, shaped, &info, &err), GA_OK);
	CHECK_INT_EQ(ga_demand_forecast(m, from, 48, 60, 0.9, 10, 0, 0, 0,
									p50, upper, shaped, &info, &err), GA_OK);
	CHECK(!info.no_history);
	CHECK(info.n_residuals > 24);
	for (int t = 0; t < 48; t++)
	{
		double		truth = weekly_truth(from + t);

		CHECK_NEAR(p50[t], truth, 0.08 * truth);
		CHECK(upper[t] >= p50[t]);
		CHECK(upper[t] < 1.3 * truth);
		CHECK(shaped[t] >= (int) ceil(upper[t] / 10 - 1e-9));
	}
	ga_demand_model_destroy(m);
}

/*
 * The forecasts in these tests start on a Wednesday: in the first hours
 * after a weekend the hour-ahead candidates, right on every other day of
 * such a smooth series, carry Sunday's level into Monday (docs/simulator.md,
 * Demand forecasts, says so).
 */
TEST(demand_level_follows_recent_growth)
{
	ga_demand_model *m = ga_demand_model_create(NULL);
	int64_t		end = MONDAY + 5 * GA_WEEK_HOURS + 2 * 24;
	double		p50[24];
	ga_error	err = {0};

	/* Four weeks as usual, then a week at 1.5x the usual traffic. */
	for (int64_t h = MONDAY; h < end; h++)
		ga_demand_model_observe(m, h, weekly_truth(h) * (h >= end - GA_WEEK_HOURS ? 1.5 : 1.0), &err);
	CHECK_INT_EQ(ga_demand_forecast(m, end, 24, 60, 0.9, 1, 0, 0, 0, p50, NULL, NULL, NULL, &err), GA_OK);
	for (int t = 0; t < 24; t++)
	{
		CHECK(p50[t] > 1.2 * weekly_truth(end + t));
		CHECK(p50[t] < 1.7 * weekly_truth(end + t));
	}
	ga_demand_model_destroy(m);
}

TEST(demand_half_hour_steps_take_their_hour)
{
	ga_demand_model *m = trained_model(3, 0.1, 5);
	double		hourly[12];
	double		half[24];
	ga_error	err = {0};
	int64_t		from = MONDAY + 3 * GA_WEEK_HOURS;

	CHECK_INT_EQ(ga_demand_forecast(m, from, 12, 60, 0.95, 1, 0, 0, 0, hourly, NULL, NULL, NULL, &err), GA_OK);
	CHECK_INT_EQ(ga_demand_forecast(m, from, 24, 30, 0.95, 1, 0, 0, 0, half, NULL, NULL, NULL, &err), GA_OK);
	for (int t = 0; t < 24; t++)
		CHECK_NEAR(half[t], hourly[t / 2], 1e-12);
	CHECK_INT_EQ(ga_demand_forecast(m, from, 24, 45, 0.95, 1, 0, 0, 0, half, NULL, NULL, NULL, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "step_minutes");
	ga_demand_model_destroy(m);
}

TEST(demand_rejects_bad_traffic_and_order)
{
	ga_demand_model *m = ga_demand_model_create(NULL);
	ga_error	err = {0};

	CHECK_INT_EQ(ga_demand_model_observe(m, MONDAY, -1, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "traffic");
	CHECK_INT_EQ(ga_demand_model_observe(m, MONDAY, NAN, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "traffic");
	CHECK_INT_EQ(ga_demand_model_observe(m, MONDAY + 5, 3, &err), GA_OK);
	CHECK_INT_EQ(ga_demand_model_observe(m, MONDAY + 5, 3, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "hour");
	CHECK_INT_EQ(ga_demand_model_count(m), 1);
	ga_demand_model_destroy(m);
}

TEST(demand_handles_gaps_and_zero_history)
{
	ga_demand_model *m = ga_demand_model_create(NULL);
	double		p50[24];
	double		upper[24];
	int			shaped[24];
	ga_demand_info info;
	ga_error	err = {0};

	CHECK_INT_EQ(ga_demand_forecast(m, MONDAY, 24, 60, 0.95, 1, 2, 3, 8,
									p50, upper, shaped, &info, &err), GA_OK);
	CHECK(info.no_history);
	for (int t = 0; t < 24; t++)
		CHECK(p50[t] == 0 && upper[t] == 0 && shaped[t] == 3);
	/* Three weeks and two days with every fifth hour missing. */
	for (int64_t h = MONDAY; h < MONDAY + 3 * GA_WEEK_HOURS + 2 * 24; h++)
		if (h % 5 != 0)
			CHECK_INT_EQ(ga_demand_model_observe(m, h, weekly_truth(h), &err), GA_OK);
	CHECK_INT_EQ(ga_demand_forecast(m, MONDAY + 3 * GA_WEEK_HOURS + 2 * 24, 24, 60, 0.95, 10, 2,
									0, 0, p50, upper, shaped, &info, &err), GA_OK);
	CHECK(!info.no_history);
	for (int t = 0; t < 24; t++)
	{
		double		truth = weekly_truth(MONDAY + 3 * GA_WEEK_HOURS + 2 * 24 + t);

		CHECK(isfinite(p50[t]));
		CHECK_NEAR(p50[t], truth, 0.15 * truth);
	}
	ga_demand_model_destroy(m);
}

TEST(demand_forecast_clamps_and_limits_churn)
{
	ga_demand_model *m = trained_model(4, 0.2, 11);
	double		upper[48];
	int			shaped[48];
	ga_error	err = {0};

	CHECK_INT_EQ(ga_demand_forecast(m, MONDAY + 4 * GA_WEEK_HOURS, 48, 60, 0.95, 5, 2, 15, 30,
									NULL, upper, shaped, NULL, &err), GA_OK);
	for (int t = 0; t < 48; t++)
	{
		int			q = (int) ceil(upper[t] / 5 - 1e-9);

		CHECK(shaped[t] >= 15 && shaped[t] <= 30);
		CHECK(shaped[t] >= (q > 30 ? 30 : q));
		if (t > 0)
			CHECK(abs(shaped[t] - shaped[t - 1]) <= 2);
	}
	CHECK_INT_EQ(ga_demand_forecast(m, 0, 48, 60, 0.95, 0, 2, 0, 0, NULL, upper, shaped, NULL, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "capacity_per_gpu");
	CHECK_INT_EQ(ga_demand_forecast(m, 0, 48, 60, 0.95, 1, 2, 5, 4, NULL, upper, shaped, NULL, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "max_gpus");
	CHECK_INT_EQ(ga_demand_forecast(m, 0, 48, 60, 1.5, 1, 2, 0, 0, NULL, upper, shaped, NULL, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "quantile");
	ga_demand_model_destroy(m);
}

/*
 * Traffic that stops: three weeks of the weekly pattern, then 400 hours at
 * 0.  The forecasts made while it fell were too high, so the median
 * residual is well below 0 and would take the median below 0; it stays at
 * 0 or above, and the upper curve at or above the median.
 */
TEST(demand_forecast_never_negative)
{
	ga_demand_model *m = ga_demand_model_create(NULL);
	int64_t		end = MONDAY + 3 * GA_WEEK_HOURS + 400;
	ga_demand_info info;
	double		p50[48];
	double		upper[48];
	ga_error	err = {0};

	for (int64_t h = MONDAY; h < end; h++)
		CHECK_INT_EQ(ga_demand_model_observe(m, h, h < end - 400 ? weekly_truth(h) : 0, &err), GA_OK);
	CHECK_INT_EQ(ga_demand_forecast(m, end, 48, 60, 0.955, 10, 0, 0, 0,
									p50, upper, NULL, &info, &err), GA_OK);
	for (int t = 0; t < 48; t++)
	{
		CHECK_MSG(p50[t] >= 0, "step %d: p50 %g", t, p50[t]);
		CHECK_MSG(upper[t] >= p50[t], "step %d: upper %g below p50 %g", t, upper[t], p50[t]);
	}
	ga_demand_model_destroy(m);
}

TEST(demand_higher_quantile_covers_more)
{
	ga_demand_model *m = trained_model(5, 0.3, 17);
	double		lo[24];
	double		hi[24];
	ga_error	err = {0};

	ga_demand_forecast(m, MONDAY + 5 * GA_WEEK_HOURS, 24, 60, 0.6, 1, 0, 0, 0, NULL, lo, NULL, NULL, &err);
	ga_demand_forecast(m, MONDAY + 5 * GA_WEEK_HOURS, 24, 60, 0.99, 1, 0, 0, 0, NULL, hi, NULL, NULL, &err);
	for (int t = 0; t < 24; t++)
		CHECK(hi[t] > lo[t]);
	ga_demand_model_destroy(m);
}

/* Is c within limit step to step and at or above q everywhere? */
static bool
feasible(const int *c, const int *q, int n, int limit)
{
	for (int t = 0; t < n; t++)
		if (c[t] < q[t] || (t > 0 && abs(c[t] - c[t - 1]) > limit))
			return false;
	return true;
}

TEST(churn_shape_is_the_lowest_feasible_curve)
{
	unsigned	seed = 42;
	enum
	{
		N = 6, TOP = 5
	};

	for (int trial = 0; trial < 300; trial++)
	{
		int			q[N];
		int			out[N];
		int			c[N];
		int			limit = 1 + rand_r(&seed) % 2;
		int			qmax = 0;

		for (int t = 0; t < N; t++)
		{
			q[t] = rand_r(&seed) % (TOP + 1);
			qmax = q[t] > qmax ? q[t] : qmax;
		}
		ga_churn_shape(q, N, limit, out);
		CHECK(feasible(out, q, N, limit));
		for (int t = 0; t < N; t++)
			CHECK(out[t] <= qmax);
		/* Every feasible curve with values up to TOP lies on or above out. */
		for (int code = 0; code < 1296 * 36; code++)
		{
			int			x = code;

			for (int t = 0; t < N; t++, x /= TOP + 1)
				c[t] = x % (TOP + 1);
			if (!feasible(c, q, N, limit))
				continue;
			for (int t = 0; t < N; t++)
				if (c[t] < out[t])
				{
					CHECK_MSG(false, "trial %d: a feasible curve is below the shaped one at %d", trial, t);
					t = N;
					code = 1296 * 36;
				}
		}
	}
}

TEST(churn_shape_ramps_before_a_peak)
{
	int			q[] = {0, 0, 0, 0, 9, 0, 0, 0};
	int			out[8];
	int			expect[] = {0, 0, 3, 6, 9, 6, 3, 0};

	ga_churn_shape(q, 8, 3, out);
	for (int t = 0; t < 8; t++)
		CHECK_INT_EQ(out[t], expect[t]);
	/* In place works too. */
	ga_churn_shape(q, 8, 3, q);
	for (int t = 0; t < 8; t++)
		CHECK_INT_EQ(q[t], expect[t]);
}
