/*
 * test_feature_correction.c — the second-order correction of the duration
 * models: it recovers curvature and interactions, stays near zero on noise,
 * resists stragglers, and refuses bad rows.
 */
#include "unit.h"
#include "forecast/feature_correction.h"

#include <math.h>

/* A fixed pseudo-random stream, so every run sees the same rows. */
static double
uniform01(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	z ^= z >> 31;
	return ((z >> 11) + 0.5) / 9007199254740992.0;
}

/* Inputs: two numbers, one crossed indicator, one plain indicator. */
static void
draw_inputs(uint64_t *state, double *x)
{
	x[0] = 4 * uniform01(state) - 2;
	x[1] = 4 * uniform01(state) - 2;
	x[2] = uniform01(state) < 0.5;
	x[3] = uniform01(state) < 0.3;
}

/* Curvature in x0, an x0 x1 interaction, a slope on x1 only where the flag is set. */
static double
structured(const double *x)
{
	return 0.3 * x[0] * x[0] - 0.5 * x[0] * x[1] + 0.4 * x[2] * x[1] + 0.2 * x[3];
}

static ga_correction *
fitted_on(int n, double (*truth) (const double *), double noise, double straggler_share,
		  uint64_t seed)
{
	ga_correction *c = ga_correction_create(2, 1, 1);
	ga_error	err = {0};
	uint64_t	state = seed;
	double		x[4];

	CHECK(c != NULL);
	for (int i = 0; i < n; i++)
	{
		double		y;

		draw_inputs(&state, x);
		y = truth(x) + noise * (2 * uniform01(&state) - 1);
		/* stragglers where x0 > 0 only: no shift of the whole fit undoes them */
		if (x[0] > 0 && uniform01(&state) < straggler_share)
			y += 2.0;
		CHECK_INT_EQ(ga_correction_add(c, x, y, &err), GA_OK);
	}
	CHECK_INT_EQ(ga_correction_fit(c, &err), GA_OK);
	return c;
}

/* Mean absolute error of the correction against truth on fresh inputs. */
static double
error_on_fresh_rows(const ga_correction *c, double (*truth) (const double *))
{
	uint64_t	state = 99;
	double		x[4];
	double		sum = 0;

	for (int i = 0; i < 200; i++)
	{
		draw_inputs(&state, x);
		sum += fabs(ga_correction_predict(c, x) - truth(x));
	}
	return sum / 200;
}

static double
zero(const double *x)
{
	(void) x;
	return 0;
}

TEST(correction_recovers_curvature_and_interactions)
{
	ga_correction *c = fitted_on(400, structured, 0.1, 0, 1);
	double		lo,
				hi;

	CHECK(ga_correction_fitted(c));
	CHECK_MSG(error_on_fresh_rows(c, structured) < 0.05, "error %.3f",
			  error_on_fresh_rows(c, structured));
	/* uniform noise of +-0.1: its 10th and 90th percentiles are about -+0.08 */
	CHECK(ga_correction_spread(c, &lo, &hi));
	CHECK(lo < -0.05 && lo > -0.12);
	CHECK(hi > 0.05 && hi < 0.12);
	ga_correction_destroy(c);
}

TEST(correction_of_noise_stays_near_zero)
{
	ga_correction *c = fitted_on(200, zero, 0.5, 0, 2);

	CHECK(ga_correction_fitted(c));
	CHECK_MSG(error_on_fresh_rows(c, zero) < 0.1, "error %.3f", error_on_fresh_rows(c, zero));
	ga_correction_destroy(c);
}

TEST(correction_resists_stragglers)
{
	/*
	 * One row in five where x0 > 0 runs 2.0 too long: least squares lifts
	 * that half of the predictions by about 0.4.
	 */
	ga_correction *c = fitted_on(400, structured, 0.1, 0.2, 3);

	CHECK_MSG(error_on_fresh_rows(c, structured) < 0.08, "error %.3f",
			  error_on_fresh_rows(c, structured));
	ga_correction_destroy(c);
}

TEST(correction_needs_enough_rows_and_refuses_bad_ones)
{
	ga_correction *c = fitted_on(GA_CORRECTION_MIN_ROWS - 1, structured, 0.1, 0, 4);
	ga_error	err = {0};
	double		x[4] = {1, 1, 1, 0};
	double		lo = 7,
				hi = 7;

	CHECK(!ga_correction_fitted(c));
	CHECK_NEAR(ga_correction_predict(c, x), 0, 0);
	CHECK(!ga_correction_spread(c, &lo, &hi));
	CHECK_NEAR(lo, 7, 0);
	CHECK_INT_EQ(ga_correction_add(c, x, NAN, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "log ratio");
	x[1] = INFINITY;
	CHECK_INT_EQ(ga_correction_add(c, x, 0.1, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "input 1");
	/* the refused rows were not added: one more good row makes the minimum */
	x[1] = 1;
	CHECK_INT_EQ(ga_correction_add(c, x, structured(x), &err), GA_OK);
	CHECK_INT_EQ(ga_correction_fit(c, &err), GA_OK);
	CHECK(ga_correction_fitted(c));
	ga_correction_destroy(c);
	CHECK(ga_correction_create(0, 0, 0) == NULL);
	CHECK(ga_correction_create(GA_CORRECTION_MAX_INPUTS, 1, 0) == NULL);
}
