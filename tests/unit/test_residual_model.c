/*
 * test_residual_model.c — the second-order correction of duration priors:
 * it learns interactions, keeps the prior without enough history, resists
 * stragglers, and its p10-p90 covers about 80% of new runs.
 */
#include "unit.h"
#include "forecast/residual_model.h"

#include <math.h>
#include <stdlib.h>

static double
uniform(unsigned *seed)
{
	return (rand_r(seed) + 0.5) / (RAND_MAX + 1.0);
}

static double
gaussian(unsigned *seed)
{
	return sqrt(-2 * log(uniform(seed))) * cos(2 * M_PI * uniform(seed));
}

/* y = 0.4 x0 x1 + 0.3 x0 when the flag is set, and noise. */
static double
truth(const double *x, const bool *flag)
{
	return 0.4 * x[0] * x[1] + (flag[0] ? 0.3 * x[0] : 0.0);
}

static void
draw(unsigned *seed, double *x, bool *flag)
{
	x[0] = 4 * uniform(seed) - 2;
	x[1] = 4 * uniform(seed) - 2;
	flag[0] = uniform(seed) < 0.5;
}

TEST(residual_model_learns_interactions)
{
	ga_residual_model *m = ga_residual_model_create(2, 1, 0.5);
	ga_error	err = {0};
	unsigned	seed = 3;

	for (int i = 0; i < 800; i++)
	{
		double		x[2];
		bool		flag[1];

		draw(&seed, x, flag);
		CHECK_INT_EQ(ga_residual_model_add(m, x, flag, truth(x, flag) + 0.05 * gaussian(&seed), &err),
					 GA_OK);
	}
	CHECK_INT_EQ(ga_residual_model_fit(m, &err), GA_OK);
	CHECK(ga_residual_model_interaction_weight(m) > 0);
	for (int i = 0; i < 50; i++)
	{
		double		x[2];
		bool		flag[1];

		draw(&seed, x, flag);
		CHECK_NEAR(ga_residual_model_predict(m, x, flag), truth(x, flag), 0.08);
	}
	ga_residual_model_destroy(m);
}

TEST(residual_model_without_enough_history_keeps_the_prior)
{
	ga_residual_model *m = ga_residual_model_create(2, 1, 0.5);
	ga_error	err = {0};
	double		x[2] = {1, 1};
	bool		flag[1] = {true};
	double		lo;
	double		hi;

	for (int i = 0; i < 9; i++)
		CHECK_INT_EQ(ga_residual_model_add(m, x, flag, 1.0, &err), GA_OK);
	CHECK_INT_EQ(ga_residual_model_fit(m, &err), GA_OK);
	CHECK_NEAR(ga_residual_model_predict(m, x, flag), 0.0, 1e-12);
	ga_residual_model_spread(m, &lo, &hi);
	CHECK_NEAR(hi, 1.2815515655 * 0.5, 1e-6);
	CHECK_NEAR(lo, -hi, 1e-12);
	/* The tenth row makes a fit: the constant shift is learned. */
	CHECK_INT_EQ(ga_residual_model_add(m, x, flag, 1.0, &err), GA_OK);
	CHECK_INT_EQ(ga_residual_model_fit(m, &err), GA_OK);
	CHECK_NEAR(ga_residual_model_predict(m, x, flag), 1.0, 1e-3);
	ga_residual_model_destroy(m);
}

/* One run in ten a straggler at 3x: the fit stays at the typical run. */
TEST(residual_model_resists_stragglers)
{
	ga_residual_model *m = ga_residual_model_create(1, 0, 0.5);
	ga_error	err = {0};
	unsigned	seed = 5;
	double		x[1] = {0};

	for (int i = 0; i < 400; i++)
	{
		double		xi[1] = {uniform(&seed)};
		double		y = 0.2 + 0.05 * gaussian(&seed) + (i % 10 == 0 ? log(3.0) : 0.0);

		CHECK_INT_EQ(ga_residual_model_add(m, xi, NULL, y, &err), GA_OK);
	}
	CHECK_INT_EQ(ga_residual_model_fit(m, &err), GA_OK);
	x[0] = 0.5;
	/* Least squares would sit at 0.2 + 0.11 = 0.31. */
	CHECK_NEAR(ga_residual_model_predict(m, x, NULL), 0.2, 0.03);
	ga_residual_model_destroy(m);
}

/* Heavy-tailed noise (t with 3 degrees of freedom): p10-p90 covers ~80%. */
TEST(residual_model_interval_covers_eighty_percent)
{
	ga_residual_model *m = ga_residual_model_create(2, 1, 0.5);
	ga_error	err = {0};
	unsigned	seed = 9;
	int			covered = 0;
	const int	n_test = 2000;

	for (int i = 0; i < 1000 + n_test; i++)
	{
		double		x[2];
		bool		flag[1];
		double		chi = 0;
		double		y;

		draw(&seed, x, flag);
		for (int k = 0; k < 3; k++)
		{
			double		g = gaussian(&seed);

			chi += g * g;
		}
		y = truth(x, flag) + 0.2 * gaussian(&seed) / sqrt(chi / 3);
		if (i < 1000)
			CHECK_INT_EQ(ga_residual_model_add(m, x, flag, y, &err), GA_OK);
		else
		{
			double		lo;
			double		hi;
			double		mid;

			if (i == 1000)
				CHECK_INT_EQ(ga_residual_model_fit(m, &err), GA_OK);
			mid = ga_residual_model_predict(m, x, flag);
			ga_residual_model_spread(m, &lo, &hi);
			covered += mid + lo <= y && y <= mid + hi;
		}
	}
	CHECK((double) covered / n_test > 0.75 && (double) covered / n_test < 0.85);
	ga_residual_model_destroy(m);
}

TEST(residual_model_rejects_bad_rows)
{
	ga_residual_model *m = ga_residual_model_create(1, 0, 0.5);
	ga_error	err = {0};
	double		x[1] = {1};
	double		bad[1] = {NAN};

	CHECK_INT_EQ(ga_residual_model_add(m, x, NULL, NAN, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "finite");
	CHECK_INT_EQ(ga_residual_model_add(m, bad, NULL, 0.0, &err), GA_EINVAL);
	CHECK_INT_EQ(ga_residual_model_count(m), 0);
	CHECK(ga_residual_model_create(0, 0, 0.5) == NULL);
	CHECK(ga_residual_model_create(1, GA_RESIDUAL_MAX_FLAGS + 1, 0.5) == NULL);
	CHECK(ga_residual_model_create(1, 0, 0.0) == NULL);
	ga_residual_model_destroy(m);
}
