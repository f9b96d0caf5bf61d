/*
 * test_forecast_common.c — the small statistics and rounding helpers the
 * estimators share.
 */
#include "unit.h"
#include "forecast/forecast_batch.h"
#include "forecast/forecast_common.h"

TEST(trimmed_mean_is_the_median_of_few_values)
{
	double		odd[] = {9, 1, 4};
	double		even[] = {4, 1, 3, 2};
	double		many[] = {100, 2, 3, 4, 1};

	CHECK_NEAR(ga_trimmed_mean(odd, 3), 4, 0);
	/* an even count: the mean of the two middle values */
	CHECK_NEAR(ga_trimmed_mean(even, 4), 2.5, 0);
	/* from five values a fifth is cut at each end */
	CHECK_NEAR(ga_trimmed_mean(many, 5), 3, 1e-12);
	CHECK_NEAR(ga_trimmed_mean(many, 0), 0, 0);
}

TEST(pow2_ceil_keeps_powers_of_two)
{
	CHECK_INT_EQ(ga_pow2_ceil(0.3), 1);
	CHECK_INT_EQ(ga_pow2_ceil(1), 1);
	CHECK_INT_EQ(ga_pow2_ceil(4), 4);
	CHECK_INT_EQ(ga_pow2_ceil(4.5), 8);
	CHECK_INT_EQ(ga_pow2_ceil(64), 64);
}

TEST(size_tier_upper_bound_belongs_to_its_tier)
{
	/* tiers end at 3, 10, 40, 80 and 200 billion parameters */
	CHECK_INT_EQ(ga_size_tier(1), 0);
	CHECK_INT_EQ(ga_size_tier(3), 0);
	CHECK_INT_EQ(ga_size_tier(3.5), 1);
	CHECK_INT_EQ(ga_size_tier(10), 1);
	CHECK_INT_EQ(ga_size_tier(80), 3);
	CHECK_INT_EQ(ga_size_tier(200), 4);
	CHECK_INT_EQ(ga_size_tier(201), GA_N_SIZE_TIERS - 1);
}
