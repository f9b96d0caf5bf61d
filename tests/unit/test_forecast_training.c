/*
 * test_forecast_training.c — training duration prior, variants, the ridge
 * correction and feature validation.
 */
#include "unit.h"
#include "forecast/forecast_estimator.h"

#include <stdlib.h>

#define NUM(k, v) ((ga_feature) {(k), true, (v), NULL})
#define TXT(k, v) ((ga_feature) {(k), false, 0, (v)})

static ga_training_job
parse_ok(const ga_feature *f, int n)
{
	ga_training_job job;
	ga_error	err = {0};
	ga_status	st = ga_training_job_parse(f, n, &job, &err);

	CHECK_MSG(st == GA_OK, "parse failed: %s", err.message);
	return job;
}

static double
prior_hours(const char *variant, double params_b, double tokens_m, int gpus)
{
	ga_feature	f[] = {TXT("variant", variant), NUM("params_b", params_b),
	NUM("tokens_m", tokens_m)};
	ga_training_job job = parse_ok(f, 3);

	return ga_training_prior_hours(&job, gpus);
}

TEST(training_prior_monotone_in_tokens_and_params)
{
	const char *variants[] = {"full_sft", "lora_dpo", "lora_rlvr", "qlora_sft"};

	for (int v = 0; v < 4; v++)
	{
		CHECK(prior_hours(variants[v], 8, 100, 8) < prior_hours(variants[v], 8, 200, 8));
		CHECK(prior_hours(variants[v], 8, 100, 8) < prior_hours(variants[v], 70, 100, 8));
		CHECK(prior_hours(variants[v], 1, 10, 1) > 0);
	}
	/* Compute roughly doubles with tokens: the law is linear in them. */
	CHECK_NEAR(prior_hours("full_sft", 8, 200, 8) / prior_hours("full_sft", 8, 100, 8), 2.0, 1e-9);
}

TEST(training_fewer_gpus_take_longer_but_less_gpu_time)
{
	for (int g = 1; g < 128; g *= 2)
	{
		double		h1 = prior_hours("full_sft", 8, 500, g);
		double		h2 = prior_hours("full_sft", 8, 500, 2 * g);

		CHECK(h1 > h2);
		/* Efficiency falls with GPU count: GPU-hours grow with the group. */
		CHECK(h1 * g < h2 * 2 * g);
	}
}

TEST(training_variant_costs_follow_technique)
{
	/* Adapters skip frozen-weight gradients; RL adds generation. */
	CHECK(prior_hours("lora_sft", 8, 100, 8) < prior_hours("full_sft", 8, 100, 8));
	CHECK(prior_hours("full_dpo", 8, 100, 8) > prior_hours("full_sft", 8, 100, 8));
	CHECK(prior_hours("lora_rlhf", 8, 100, 8) > prior_hours("lora_dpo", 8, 100, 8));
	CHECK(prior_hours("qlora_sft", 8, 100, 8) > prior_hours("lora_sft", 8, 100, 8));
}

TEST(training_variant_mapping_table)
{
	struct
	{
		const char *name;
		const char *expect;
		bool		mapped;
	}			cases[] = {
		{"full_sft", "full_sft", false}, {"full_dpo", "full_dpo", false},
		{"full_rlhf", "full_rlhf", false}, {"full_cpt", "full_cpt", false},
		{"lora_sft", "lora_sft", false}, {"lora_dpo", "lora_dpo", false},
		{"lora_rlhf", "lora_rlhf", false}, {"lora_rlvr", "lora_rlvr", false},
		{"qlora_sft", "qlora_sft", false}, {"qlora_dpo", "qlora_dpo", false},
		{"full_rlvr", "full_rlhf", true}, {"lora_cpt", "lora_sft", true},
		{"qlora_cpt", "qlora_sft", true}, {"qlora_rlhf", "lora_rlhf", true},
		{"QLoRA_RLVR", "lora_rlvr", true},
	};

	for (int i = 0; i < 15; i++)
	{
		ga_train_variant v;
		bool		mapped;
		ga_error	err = {0};

		CHECK_INT_EQ(ga_variant_lookup(cases[i].name, &v, &mapped, &err), GA_OK);
		CHECK_MSG(strcmp(ga_variant_name(v), cases[i].expect) == 0,
				  "%s -> %s, expected %s", cases[i].name, ga_variant_name(v), cases[i].expect);
		CHECK(mapped == cases[i].mapped);
	}
}

TEST(training_strategy_technique_equals_variant)
{
	ga_feature	a[] = {TXT("strategy", "lora"), TXT("technique", "cpt"),
	NUM("params_b", 8), NUM("tokens_m", 50)};
	ga_feature	b[] = {TXT("variant", "lora_sft"), NUM("params_b", 8),
	NUM("tokens_m", 50)};
	ga_training_job ja = parse_ok(a, 4);
	ga_training_job jb = parse_ok(b, 3);

	CHECK_INT_EQ(ja.variant, GA_VARIANT_LORA_SFT);
	CHECK(ja.mapped);
	/* A mapped combination takes its target's defaults: lora_sft does not pack. */
	CHECK(!ja.packing);
	CHECK_NEAR(ga_training_prior_hours(&ja, 4), ga_training_prior_hours(&jb, 4), 1e-9);
}

static void
expect_rejected(const ga_feature *f, int n, const char *needle)
{
	ga_job_estimate e;
	ga_error	err = {0};

	CHECK_INT_EQ(ga_estimate_job(NULL, "training", f, n, 8, &e, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, needle);
}

TEST(training_bad_features_are_named)
{
	ga_feature	unknown_variant[] = {TXT("variant", "full_ppo"), NUM("params_b", 8), NUM("tokens_m", 1)};
	ga_feature	unknown_strategy[] = {TXT("strategy", "dora"), TXT("technique", "sft"),
	NUM("params_b", 8), NUM("tokens_m", 1)};
	ga_feature	unknown_technique[] = {TXT("strategy", "lora"), TXT("technique", "kto"),
	NUM("params_b", 8), NUM("tokens_m", 1)};
	ga_feature	unknown_gpu[] = {TXT("variant", "lora_sft"), NUM("params_b", 8),
	NUM("tokens_m", 1), TXT("gpu_model", "tpu7")};
	ga_feature	negative[] = {TXT("variant", "lora_sft"), NUM("params_b", -3), NUM("tokens_m", 1)};
	ga_feature	nan_tokens[] = {TXT("variant", "lora_sft"), NUM("params_b", 8), NUM("tokens_m", NAN)};
	ga_feature	text_number[] = {TXT("variant", "lora_sft"), TXT("params_b", "eight"), NUM("tokens_m", 1)};
	ga_feature	typo[] = {TXT("variant", "lora_sft"), NUM("params_b", 8), NUM("tokens_m", 1),
	NUM("epoch", 2)};
	ga_feature	missing[] = {TXT("variant", "lora_sft"), NUM("tokens_m", 1)};
	ga_feature	fp8_a100[] = {TXT("variant", "lora_sft"), NUM("params_b", 8), NUM("tokens_m", 1),
	TXT("precision", "fp8")};
	ga_feature	bad_bool[] = {TXT("variant", "lora_sft"), NUM("params_b", 8), NUM("tokens_m", 1),
	TXT("packing", "maybe")};
	ga_feature	both[] = {TXT("variant", "lora_sft"), TXT("strategy", "lora"), NUM("params_b", 8),
	NUM("tokens_m", 1)};

	expect_rejected(unknown_variant, 3, "variant");
	expect_rejected(unknown_variant, 3, "full_ppo");
	expect_rejected(unknown_strategy, 4, "strategy");
	expect_rejected(unknown_strategy, 4, "dora");
	expect_rejected(unknown_technique, 4, "technique");
	expect_rejected(unknown_gpu, 4, "gpu_model");
	expect_rejected(unknown_gpu, 4, "tpu7");
	expect_rejected(negative, 3, "params_b");
	expect_rejected(nan_tokens, 3, "tokens_m");
	expect_rejected(text_number, 3, "params_b");
	expect_rejected(text_number, 3, "must be a number");
	expect_rejected(typo, 4, "unknown training feature \"epoch\"");
	expect_rejected(missing, 2, "params_b");
	expect_rejected(fp8_a100, 4, "precision");
	expect_rejected(bad_bool, 4, "packing");
	expect_rejected(both, 4, "variant");
}

TEST(training_feature_list_parses_scenario_text)
{
	ga_error	err = {0};
	ga_feature_list *list = ga_feature_list_parse(
												  " strategy=lora; technique=dpo;params_b=8;tokens_m=200;gpu_model=h100;",
												  &err);
	ga_job_estimate e;

	CHECK(list != NULL);
	if (list == NULL)
		return;
	CHECK_INT_EQ(list->n, 5);
	CHECK(!list->items[0].is_number);
	CHECK(list->items[2].is_number);
	CHECK_NEAR(list->items[3].number, 200, 0);
	CHECK_INT_EQ(ga_estimate_job(NULL, "training", list->items, list->n, 4, &e, &err), GA_OK);
	CHECK(e.hours_p50 > 0);
	CHECK_STR_CONTAINS(e.method, "lora_dpo");
	ga_feature_list_destroy(list);
	CHECK(ga_feature_list_parse("params_b", &err) == NULL);
	CHECK_STR_CONTAINS(err.message, "key=value");
	/* numbers are decimal: hexadecimal, inf and nan are text */
	list = ga_feature_list_parse("params_b=0x10;tokens_m=inf;epochs=nan;seq_len=2e3", &err);
	CHECK(list != NULL);
	if (list == NULL)
		return;
	CHECK(!list->items[0].is_number);
	CHECK(!list->items[1].is_number);
	CHECK(!list->items[2].is_number);
	CHECK(list->items[3].is_number && list->items[3].number == 2000);
	CHECK_INT_EQ(ga_estimate_job(NULL, "training", list->items, list->n, 4, &e, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "\"params_b\" must be a number, got text \"0x10\"");
	ga_feature_list_destroy(list);
}

/* Random job features, with the strings kept static. */
static int
random_job(ga_feature *f, unsigned *seed, const char *variant)
{
	static const double sizes[] = {1, 3, 8, 14, 34, 70};
	static const char *const gpus[] = {"a100", "h100", "l40s"};

	f[0] = TXT("variant", variant);
	f[1] = NUM("params_b", sizes[rand_r(seed) % 6]);
	f[2] = NUM("tokens_m", 5 + rand_r(seed) % 500);
	f[3] = NUM("seq_len", 512 << (rand_r(seed) % 4));
	f[4] = TXT("gpu_model", gpus[rand_r(seed) % 3]);
	return 5;
}

static double
noise(unsigned *seed, double sigma)
{
	double		u1 = (rand_r(seed) + 1.0) / (RAND_MAX + 2.0);
	double		u2 = (rand_r(seed) + 1.0) / (RAND_MAX + 2.0);

	return exp(sigma * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

TEST(training_ridge_recovers_multiplicative_bias)
{
	const char *variants[] = {"full_sft", "lora_dpo", "qlora_sft"};
	const double bias[] = {1.8, 0.5, 1.0};
	ga_training_model *model = ga_training_model_create();
	unsigned	seed = 7;
	ga_error	err = {0};

	for (int i = 0; i < 600; i++)
	{
		ga_feature	f[8];
		int			v = i % 3;
		int			n = random_job(f, &seed, variants[v]);
		ga_training_job job = parse_ok(f, n);
		int			g = 1 << (rand_r(&seed) % 5);

		CHECK_INT_EQ(ga_training_model_add(model, &job, g,
										   ga_training_prior_hours(&job, g) * bias[v] * noise(&seed, 0.1),
										   &err), GA_OK);
	}
	CHECK_INT_EQ(ga_training_model_fit(model, &err), GA_OK);
	for (int v = 0; v < 3; v++)
	{
		ga_feature	f[8];
		int			n = random_job(f, &seed, variants[v]);
		ga_training_job job = parse_ok(f, n);
		ga_duration d;

		CHECK_NEAR(ga_training_model_correction(model, &job, 8), bias[v], 0.1 * bias[v]);
		CHECK_INT_EQ(ga_training_predict(model, &job, 8, &d, &err), GA_OK);
		CHECK(d.p10 <= d.p50 && d.p50 <= d.p90);
		/* Noise of 0.1 in logs: the fitted spread must be close to it. */
		CHECK(d.log_sigma > 0.08 && d.log_sigma < 0.2);
	}
	ga_training_model_destroy(model);
}

TEST(training_zero_history_uses_prior_and_prior_spread)
{
	ga_feature	f[] = {TXT("variant", "full_cpt"), NUM("params_b", 7), NUM("tokens_m", 1000)};
	ga_training_job job = parse_ok(f, 3);
	ga_training_model *model = ga_training_model_create();
	ga_duration a;
	ga_duration b;
	ga_error	err = {0};

	CHECK_INT_EQ(ga_training_model_fit(model, &err), GA_OK);
	CHECK_INT_EQ(ga_training_predict(model, &job, 16, &a, &err), GA_OK);
	CHECK_INT_EQ(ga_training_predict(NULL, &job, 16, &b, &err), GA_OK);
	CHECK_NEAR(a.p50, a.prior, 1e-12);
	CHECK_NEAR(a.p50, b.p50, 1e-12);
	CHECK(a.p10 < a.p50 && a.p50 < a.p90);
	CHECK(a.p90 / a.p50 > 1.5);
	CHECK_INT_EQ(ga_training_predict(model, &job, 0, &a, &err), GA_EINVAL);
	CHECK_INT_EQ(ga_training_model_add(model, &job, 8, -1, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "actual_hours");
	ga_training_model_destroy(model);
}

TEST(training_gpu_suggestion_is_pow2_and_grows_with_size)
{
	const double sizes[] = {1, 8, 34, 70, 180, 400};
	int			prev = 0;

	for (int i = 0; i < 6; i++)
	{
		ga_feature	f[] = {TXT("variant", "full_sft"), NUM("params_b", sizes[i]),
		NUM("tokens_m", 1)};
		ga_job_estimate e;
		ga_error	err = {0};

		CHECK_INT_EQ(ga_estimate_job(NULL, "training", f, 3, 0, &e, &err), GA_OK);
		CHECK(e.gpus_suggested);
		CHECK(e.gpus_min >= 1 && (e.gpus_min & (e.gpus_min - 1)) == 0);
		CHECK(e.gpus >= e.gpus_min && (e.gpus & (e.gpus - 1)) == 0);
		CHECK(e.gpus_min >= prev);
		CHECK(e.memory_gb > sizes[i] * 16);
		prev = e.gpus_min;
	}
	CHECK(prev >= 64);
}

/*
 * The smallest group holds the sharded state and, on every GPU, the
 * activations: full_sft of 8B at seq_len 2048 has 128 GB of weights,
 * gradients and optimizer state, which two A100s (68 GB usable each) would
 * hold alone, but not with the 5 GB of activations each GPU also keeps.
 */
TEST(training_min_gpus_counts_activations)
{
	ga_feature	f[] = {TXT("variant", "full_sft"), NUM("params_b", 8), NUM("tokens_m", 10),
	NUM("seq_len", 2048)};
	ga_training_job job = parse_ok(f, 4);
	double		sharded;
	double		per_gpu;
	double		usable = 0.85 * job.gpu->memory_gb;

	ga_training_memory_gb(&job, &sharded, &per_gpu);
	CHECK(sharded / 2 <= usable);
	CHECK(sharded / 2 + per_gpu > usable);
	CHECK(sharded / 4 + per_gpu <= usable);
	CHECK_INT_EQ(ga_training_min_gpus(&job), 4);
}

/* Unpacked sequences are padded: 30% more tokens computed. */
TEST(training_padding_costs_unpacked_sequences)
{
	ga_feature	packed[] = {TXT("variant", "lora_sft"), NUM("params_b", 8), NUM("tokens_m", 100),
	NUM("packing", 1)};
	ga_feature	unpacked[] = {TXT("variant", "lora_sft"), NUM("params_b", 8), NUM("tokens_m", 100),
	NUM("packing", 0)};
	ga_training_job a = parse_ok(packed, 4);
	ga_training_job b = parse_ok(unpacked, 4);

	CHECK_NEAR(ga_training_flops(&b) / ga_training_flops(&a), 1.3, 1e-9);
}

TEST(training_estimator_history_and_fit)
{
	ga_estimator *est = ga_estimator_create();
	ga_feature	f[] = {TXT("variant", "lora_rlvr"), NUM("params_b", 8), NUM("tokens_m", 20),
	NUM("rollouts", 8)};
	ga_job_estimate before;
	ga_job_estimate after;
	ga_error	err = {0};

	CHECK_INT_EQ(ga_estimate_job(est, "training", f, 4, 8, &before, &err), GA_OK);
	for (int i = 0; i < 40; i++)
		CHECK_INT_EQ(ga_estimator_add_history(est, "training", f, 4, 8,
											  before.hours_p50 * 3.0, &err), GA_OK);
	CHECK_INT_EQ(ga_estimator_add_history(est, "training", f, 4, 0, 1.0, &err), GA_EINVAL);
	CHECK_INT_EQ(ga_estimator_history(est, "training"), 40);
	CHECK_INT_EQ(ga_estimator_fit(est, &err), GA_OK);
	CHECK_INT_EQ(ga_estimate_job(est, "training", f, 4, 8, &after, &err), GA_OK);
	CHECK(after.hours_p50 > 2.0 * before.hours_p50);
	/* Consistent history narrows the relative interval from the prior one. */
	CHECK(after.hours_p90 / after.hours_p10 < before.hours_p90 / before.hours_p10);
	CHECK_NEAR(after.work_gpu_hours, after.hours_p50 * 8, 1e-9);
	CHECK_INT_EQ(ga_estimate_job(est, "pretraining", f, 4, 8, &after, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "kind");
	ga_estimator_destroy(est);
}

/* A job's true hours at 8 GPUs when efficiency peaks for mid-sized models. */
static double
peaked_truth(const ga_feature *f, int n)
{
	ga_training_job job = parse_ok(f, n);
	double		lp = log(job.params_b / 8);

	return ga_training_prior_hours(&job, 8) * exp(0.3 * lp * lp);
}

/*
 * Efficiency that peaks for mid-sized models is curvature in log params_b,
 * which the per-variant ridge cannot follow: the estimator's second-order
 * correction learns it from history, and its interval covers about 80%.
 */
TEST(training_estimator_learns_curvature_the_prior_misses)
{
	ga_estimator *est = ga_estimator_create();
	unsigned	seed = 11;
	ga_error	err = {0};
	int			covered = 0;
	double		worst = 0;

	for (int i = 0; i < 300; i++)
	{
		ga_feature	f[8];
		int			n = random_job(f, &seed, "lora_sft");

		CHECK_INT_EQ(ga_estimator_add_history(est, "training", f, n, 8,
											  peaked_truth(f, n) * noise(&seed, 0.1), &err), GA_OK);
	}
	CHECK_INT_EQ(ga_estimator_fit(est, &err), GA_OK);
	for (int i = 0; i < 100; i++)
	{
		ga_feature	f[8];
		int			n = random_job(f, &seed, "lora_sft");
		ga_job_estimate e;
		double		actual;

		CHECK_INT_EQ(ga_estimate_job(est, "training", f, n, 8, &e, &err), GA_OK);
		CHECK_STR_CONTAINS(e.method, "second-order correction (300 jobs)");
		worst = fmax(worst, fabs(log(e.hours_p50 / peaked_truth(f, n))));
		actual = peaked_truth(f, n) * noise(&seed, 0.1);
		covered += e.hours_p10 <= actual && actual <= e.hours_p90;
	}
	CHECK_MSG(worst < 0.1, "worst log error %.3f", worst);
	CHECK_MSG(covered >= 65 && covered <= 92, "covered %d of 100", covered);
	ga_estimator_destroy(est);
}
