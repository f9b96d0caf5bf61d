/*
 * test_forecast_batch.c — batch inference throughput tiers, quantization
 * tiers and rounding, and GPU suggestions.
 */
#include "unit.h"
#include "forecast/forecast_estimator.h"

#define NUM(k, v) ((ga_feature) {(k), true, (v), NULL})
#define TXT(k, v) ((ga_feature) {(k), false, 0, (v)})

static ga_job_estimate
estimate(const ga_estimator *est, const char *kind, const ga_feature *f, int n, int gpus)
{
	ga_job_estimate e = {0};
	ga_error	err = {0};
	ga_status	st = ga_estimate_job(est, kind, f, n, gpus, &e, &err);

	CHECK_MSG(st == GA_OK, "estimate failed: %s", err.message);
	return e;
}

TEST(quantization_books_whole_gpu_hours_with_margin)
{
	const double sizes[] = {0.5, 3, 7, 13, 34, 70, 120, 405};
	const char *algs[] = {"bitsandbytes", "awq", "gptq"};

	for (int a = 0; a < 3; a++)
		for (int i = 0; i < 8; i++)
		{
			ga_feature	f[] = {NUM("params_b", sizes[i]), TXT("algorithm", algs[a])};
			ga_job_estimate e = estimate(NULL, "quantization", f, 2, 1);
			double		median_gpu_hours = e.hours_p50 * e.gpus;

			CHECK_NEAR(e.work_gpu_hours, floor(e.work_gpu_hours), 0);
			CHECK(e.work_gpu_hours >= 1);
			CHECK(e.work_gpu_hours >= median_gpu_hours * GA_QUANT_SAFETY_MARGIN - 1e-9);
			CHECK(e.work_gpu_hours < fmax(1.0, median_gpu_hours * GA_QUANT_SAFETY_MARGIN) + 1);
			CHECK(e.hours_p10 <= e.hours_p50 && e.hours_p50 <= e.hours_p90);
		}
}

TEST(quantization_tiers_order_algorithms_and_sizes)
{
	double		prev[3] = {0, 0, 0};
	const double sizes[] = {1, 7, 30, 70, 150, 400};
	const char *algs[] = {"bnb", "awq", "gptq"};

	for (int i = 0; i < 6; i++)
	{
		double		h[3];

		for (int a = 0; a < 3; a++)
		{
			ga_feature	f[] = {NUM("params_b", sizes[i]), TXT("algorithm", algs[a])};

			h[a] = estimate(NULL, "quantization", f, 2, 1).hours_p50;
			CHECK(h[a] > prev[a]);
			prev[a] = h[a];
		}
		CHECK(h[0] < h[1] && h[1] < h[2]);
	}
}

TEST(quantization_learns_cell_bias)
{
	ga_estimator *est = ga_estimator_create();
	ga_feature	f[] = {NUM("params_b", 8), TXT("algorithm", "gptq"), TXT("gpu_model", "h100")};
	ga_feature	other[] = {NUM("params_b", 70), TXT("algorithm", "awq")};
	ga_job_estimate before = estimate(est, "quantization", f, 3, 1);
	ga_job_estimate other_before = estimate(est, "quantization", other, 2, 1);
	ga_error	err = {0};

	for (int i = 0; i < 30; i++)
		CHECK_INT_EQ(ga_estimator_add_history(est, "quantization", f, 3, 2,
											  before.hours_p50 * 4 / 2, &err), GA_OK);
	CHECK_INT_EQ(ga_estimator_fit(est, &err), GA_OK);
	/* 30 jobs against a prior worth 3: the cell moves 30/33 of the way in logs. */
	CHECK_NEAR(estimate(est, "quantization", f, 3, 1).hours_p50 / before.hours_p50,
			   pow(4.0, 30.0 / 33.0), 1e-6);
	/* Other cells keep their table value. */
	CHECK_NEAR(estimate(est, "quantization", other, 2, 1).hours_p50, other_before.hours_p50, 1e-12);
	ga_estimator_destroy(est);
}

TEST(inference_hours_follow_tokens_and_gpus)
{
	ga_feature	a[] = {NUM("params_b", 8), NUM("tokens_m", 100)};
	ga_feature	b[] = {NUM("params_b", 8), NUM("tokens_m", 200)};
	ga_feature	r[] = {NUM("params_b", 8), NUM("requests", 100000), NUM("avg_tokens", 1000)};
	ga_job_estimate ea = estimate(NULL, "inference", a, 2, 1);

	CHECK_NEAR(estimate(NULL, "inference", b, 2, 1).hours_p50, 2 * ea.hours_p50, 1e-9);
	CHECK_NEAR(estimate(NULL, "inference", a, 2, 4).hours_p50, ea.hours_p50 / 4, 1e-9);
	CHECK_NEAR(estimate(NULL, "batch_inference", r, 3, 1).hours_p50, ea.hours_p50, 1e-9);
	CHECK(ea.hours_p10 < ea.hours_p50 && ea.hours_p50 < ea.hours_p90);
}

TEST(inference_larger_models_and_slower_gpus_take_longer)
{
	ga_feature	small[] = {NUM("params_b", 7), NUM("tokens_m", 100)};
	ga_feature	large[] = {NUM("params_b", 70), NUM("tokens_m", 100)};
	ga_feature	slow[] = {NUM("params_b", 7), NUM("tokens_m", 100), TXT("gpu_model", "l4")};
	ga_feature	fast[] = {NUM("params_b", 7), NUM("tokens_m", 100), TXT("gpu_model", "h200")};
	double		h = estimate(NULL, "inference", small, 2, 1).hours_p50;

	CHECK(estimate(NULL, "inference", large, 2, 1).hours_p50 > 5 * h);
	CHECK(estimate(NULL, "inference", slow, 3, 1).hours_p50 > h);
	CHECK(estimate(NULL, "inference", fast, 3, 1).hours_p50 < h);
}

TEST(inference_throughput_learned_per_tier)
{
	ga_estimator *est = ga_estimator_create();
	ga_feature	f[] = {NUM("params_b", 8), NUM("tokens_m", 100)};
	ga_feature	big[] = {NUM("params_b", 70), NUM("tokens_m", 100)};
	ga_job_estimate prior = estimate(est, "inference", f, 2, 2);
	ga_job_estimate big_prior = estimate(est, "inference", big, 2, 2);
	ga_error	err = {0};

	/* Jobs that ran at half the prior throughput, one wild outlier. */
	for (int i = 0; i < 60; i++)
		CHECK_INT_EQ(ga_estimator_add_history(est, "inference", f, 2, 2,
											  prior.hours_p50 * (i == 0 ? 100.0 : 2.0), &err), GA_OK);
	CHECK_INT_EQ(ga_estimator_fit(est, &err), GA_OK);
	CHECK_NEAR(estimate(est, "inference", f, 2, 2).hours_p50 / prior.hours_p50, 2.0, 0.1);
	/*
	 * The tier without history keeps its prior but for what the
	 * second-order correction shares across tiers (its intercept and the
	 * median of its residuals), which the outlier moves by a few percent.
	 */
	CHECK_NEAR(estimate(est, "inference", big, 2, 2).hours_p50 / big_prior.hours_p50, 1.0, 0.03);
	CHECK_INT_EQ(ga_estimator_history(est, "inference"), 60);
	ga_estimator_destroy(est);
}

TEST(batch_gpu_suggestion_is_pow2_and_grows_with_size)
{
	const double sizes[] = {1, 8, 34, 70, 180, 405};
	int			prev_inf = 0;
	int			prev_q = 0;

	for (int i = 0; i < 6; i++)
	{
		ga_feature	inf[] = {NUM("params_b", sizes[i]), NUM("tokens_m", 1)};
		ga_feature	q[] = {NUM("params_b", sizes[i]), TXT("algorithm", "awq")};
		ga_job_estimate ei = estimate(NULL, "inference", inf, 2, 0);
		ga_job_estimate eq = estimate(NULL, "quantization", q, 2, 0);

		CHECK((ei.gpus_min & (ei.gpus_min - 1)) == 0 && ei.gpus >= ei.gpus_min);
		CHECK((eq.gpus_min & (eq.gpus_min - 1)) == 0 && eq.gpus == eq.gpus_min);
		CHECK(ei.gpus_min >= prev_inf && eq.gpus_min >= prev_q);
		CHECK(ei.gpus_min * 80 * 0.9 >= ei.memory_gb);
		prev_inf = ei.gpus_min;
		prev_q = eq.gpus_min;
	}
	CHECK(prev_inf >= 8 && prev_q >= 8);
}

TEST(batch_suggestion_adds_gpus_for_long_jobs)
{
	ga_feature	f[] = {NUM("params_b", 8), NUM("tokens_m", 1e5)};
	ga_job_estimate e = estimate(NULL, "inference", f, 2, 0);

	CHECK(e.gpus > e.gpus_min);
	CHECK(e.hours_p50 <= GA_TARGET_HOURS || e.gpus == GA_SUGGEST_MAX_GPUS);
}

static void
expect_rejected(const char *kind, const ga_feature *f, int n, const char *needle)
{
	ga_job_estimate e;
	ga_error	err = {0};

	CHECK_INT_EQ(ga_estimate_job(NULL, kind, f, n, 1, &e, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, needle);
}

TEST(batch_bad_features_are_named)
{
	ga_feature	alg[] = {NUM("params_b", 8), TXT("algorithm", "hqq")};
	ga_feature	no_alg[] = {NUM("params_b", 8)};
	ga_feature	bits[] = {NUM("params_b", 8), TXT("algorithm", "awq"), NUM("bits", 1)};
	ga_feature	both[] = {NUM("params_b", 8), NUM("tokens_m", 1), NUM("requests", 10)};
	ga_feature	none[] = {NUM("params_b", 8)};
	ga_feature	typo[] = {NUM("params_b", 8), NUM("token_m", 1)};
	ga_feature	prec[] = {NUM("params_b", 8), NUM("tokens_m", 1), TXT("precision", "int3")};
	ga_feature	gpu[] = {NUM("params_b", 8), NUM("tokens_m", 1), TXT("gpu_model", "a200")};
	ga_feature	nan_size[] = {NUM("params_b", NAN), NUM("tokens_m", 1)};
	ga_feature	text_tokens[] = {NUM("params_b", 8), TXT("tokens_m", "many")};

	expect_rejected("quantization", alg, 2, "algorithm");
	expect_rejected("quantization", alg, 2, "hqq");
	expect_rejected("quantization", no_alg, 1, "algorithm");
	expect_rejected("quantization", bits, 3, "bits");
	expect_rejected("inference", both, 3, "requests");
	expect_rejected("inference", none, 1, "tokens_m");
	expect_rejected("inference", typo, 2, "unknown inference feature \"token_m\"");
	expect_rejected("inference", prec, 3, "precision");
	expect_rejected("inference", gpu, 3, "gpu_model");
	expect_rejected("inference", nan_size, 2, "params_b");
	expect_rejected("inference", text_tokens, 2, "tokens_m");
	expect_rejected("training_job", none, 1, "kind");
}

/* Without a work estimate to check, features are still checked for known
 * keys, types and ranges, but none is required. */
TEST(features_validate_without_requiring_any)
{
	ga_feature	typo[] = {NUM("params_b", 8), NUM("token_m", 1)};
	ga_feature	huge[] = {NUM("params_b", 1e308)};
	ga_feature	text_size[] = {TXT("params_b", "big")};
	ga_feature	fine[] = {NUM("params_b", 8)};
	ga_error	err = {0};

	CHECK_INT_EQ(ga_job_features_validate("batch_inference", typo, 2, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "token_m");
	CHECK_INT_EQ(ga_job_features_validate("training", huge, 1, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "params_b");
	CHECK_INT_EQ(ga_job_features_validate("quantization", text_size, 1, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "params_b");
	CHECK_INT_EQ(ga_job_features_validate("training", fine, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_job_features_validate("quantization", NULL, 0, &err), GA_OK);
	CHECK_INT_EQ(ga_job_features_validate("finetune", fine, 1, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "finetune");
}
