/*
 * bench_durations.c — the duration estimators on a generated corpus.
 *
 * A corpus (fixed seed) per job kind, split into a history the estimator
 * learns from and a test set.  The truth is a model of its own, not the
 * estimators' (their prior is FLOPs over peak times a factor per variant,
 * or throughput per size tier, or a table per algorithm): a step-time model
 * with interactions for training (utilisation by model size,
 * communication by GPUs and strategy, memory-bound decoding for RL, fp8
 * and checkpointing by strategy, padding by sequence length), a roofline
 * for batch inference, load + calibration + the algorithm's own work for
 * quantization, each with its own hardware table, times heavy-tailed noise
 * (Student t with 3 degrees of freedom in log space, and one run in twenty
 * a straggler taking 1.5 to 3 times as long).  Methods: the estimator with
 * no history (prior), fitted on the history (forecaster), a generic
 * log-linear regression on the same features fitted on the same history
 * (loglinear), and a size-only baseline (median and 10th/90th percentile of
 * hours per model-size tier in the history).
 */
#include "bench_forecast.h"

#include "forecast/forecast_common.h"
#include "forecast/forecast_estimator.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- corpus */

static uint64_t rng_state = 0x5eed2024u;

static double
uniform(void)
{
	/* splitmix64 */
	uint64_t	z = (rng_state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	z ^= z >> 31;
	return ((z >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal(void)
{
	return sqrt(-2.0 * log(uniform())) * cos(2.0 * M_PI * uniform());
}

static int
pick(int n)
{
	int			i = (int) (uniform() * n);

	return i < n ? i : n - 1;
}

static double
log_uniform(double lo, double hi)
{
	return exp(log(lo) + uniform() * (log(hi) - log(lo)));
}

#define MAX_FEATURES 24

typedef struct gen_job
{
	ga_feature	f[MAX_FEATURES];
	int			n;
	int			gpus;
	double		hours;
	double		params_b;
} gen_job;

static void
put_number(gen_job *j, const char *key, double v)
{
	j->f[j->n++] = (ga_feature) {key, true, v, NULL};
}

static void
put_text(gen_job *j, const char *key, const char *v)
{
	j->f[j->n++] = (ga_feature) {key, false, 0, v};
}

static const double sizes_b[] = {0.5, 1, 3, 7, 8, 13, 14, 32, 34, 70, 72, 110};
static const char *const gen_gpus[] = {"a100", "h100", "h200", "l40s"};
static const double gen_mem[] = {80, 80, 141, 48};

/*
 * The truth's own hardware table, not the estimators': sustained dense
 * bf16 TFLOP/s a real training step reaches, and memory bandwidth in GB/s
 * (what decoding is bound by).
 */
static const double true_tflops[] = {180, 520, 560, 170};
static const double true_bandwidth[] = {2039, 3350, 4800, 864};

static const char *const strategies[] = {"full", "lora", "qlora"};
static const char *const techniques[] = {"sft", "dpo", "rlhf", "rlvr", "cpt"};
static const char *const combo_names[15] = {
	"full_sft", "full_dpo", "full_rlhf", "full_rlvr", "full_cpt",
	"lora_sft", "lora_dpo", "lora_rlhf", "lora_rlvr", "lora_cpt",
	"qlora_sft", "qlora_dpo", "qlora_rlhf", "qlora_rlvr", "qlora_cpt"
};

/*
 * Heavy-tailed noise in log space: Student t with 3 degrees of freedom
 * (scale sigma), and one run in twenty a straggler (preemption, a slow
 * node, a restart) taking 1.5 to 3 times as long.
 */
static double
heavy_noise(double sigma)
{
	double		chi2 = 0;
	double		t;

	for (int k = 0; k < 3; k++)
	{
		double		z = normal();

		chi2 += z * z;
	}
	t = normal() / sqrt(chi2 / 3);
	return exp(sigma * t) * (uniform() < 0.05 ? 1.5 + 1.5 * uniform() : 1.0);
}

/*
 * The truth for training, a step-time model with interactions rather than
 * FLOPs times a factor per variant:
 *   - compute per token: 2 x params forward, x2 more backward through the
 *     activations, + 2 x params for the weight gradients (full only; LoRA
 *     skips them, QLoRA also dequantizes, +35% of the forward), attention
 *     growing with seq_len relative to the model's width;
 *   - DPO runs the reference model forward too; RLHF and RLVR generate
 *     `rollouts` answers per prompt, decoding bound by memory bandwidth, half
 *     the tokens generated;
 *   - model FLOPs utilisation peaks for mid-sized models and falls with
 *     GPUs through communication, much more for full fine-tuning (gradients
 *     of every weight cross the network) than for adapters;
 *   - fp8 speeds up full fine-tuning only; checkpointing costs 30% of the
 *     compute for full, 15% for adapters; without packing, short sequences
 *     waste more on padding.
 */
static double
true_training_hours(int s, int t, double params_b, double tokens_m, double epochs,
					double seq_len, double rollouts, int gpu, bool fp8, bool ckpt,
					bool packing, int gpus)
{
	double		n = params_b * 1e9;
	double		width = cbrt(n * 128.0 / 12.0);
	double		tokens = tokens_m * 1e6 * epochs;
	double		per_token = 4 * n + (s == 0 ? 2 * n : 0) + (s == 2 ? 0.7 * n : 0);
	double		attention = 1 + seq_len / (4 * width);
	double		mfu = 0.55 * exp(-0.5 * pow((log10(params_b) - 1.0) / 1.2, 2));
	double		comm = 1 + (s == 0 ? 0.12 : 0.03) * log2(gpus) * sqrt(7.0 / (params_b + 1));
	double		rate = true_tflops[gpu] * 1e12 * (fp8 && s == 0 ? 1.6 : 1.0);
	double		compute_s;
	double		decode_s = 0;

	if (t == 1)
		per_token += 2 * n;
	if (ckpt)
		per_token *= s == 0 ? 1.3 : 1.15;
	if (!packing)
		tokens *= 1 + 0.8 * sqrt(512.0 / seq_len);
	compute_s = tokens * per_token * attention / (rate * mfu) * comm;
	if (t == 2 || t == 3)
	{
		/* Decoding: every weight read once per token, 16 answers a batch. */
		double		gen_tokens = 0.5 * tokens * rollouts;

		decode_s = gen_tokens * 2 * n / (true_bandwidth[gpu] * 1e9 * 16) * (t == 2 ? 1.4 : 1.0);
		compute_s *= 1 + 0.3 * rollouts / 8;
	}
	if (t == 4)
		compute_s *= 1 + seq_len / 8192;
	return (compute_s + decode_s) / gpus / 3600.0 * heavy_noise(0.2);
}

/* Power-of-two GPU count that fits the job, times 1, 2 or 4. */
static int
gpus_for(const char *kind, gen_job *j)
{
	ga_job_estimate e;
	ga_error	err;
	int			g;

	if (ga_estimate_job(NULL, kind, j->f, j->n, 0, &e, &err) != GA_OK)
		bench_die("corpus features", &err);
	g = e.gpus_min << pick(3);
	return g > 128 ? 128 : g;
}

static void
gen_training(gen_job *j)
{
	int			s = pick(3);
	int			t = pick(5);
	int			gpu = pick(4);
	bool		rl = t == 2 || t == 3;
	double		params = sizes_b[pick(12)];
	double		tokens = log_uniform(5, 2000) / (rl ? 10 : 1);
	double		epochs = 1 + pick(3);
	double		seq = 512 << pick(5);
	double		rollouts = 2 << pick(3);
	bool		fp8 = gpu != 0 && uniform() < 0.3;
	bool		ckpt = uniform() < 0.4;
	bool		packing = uniform() < 0.5;

	memset(j, 0, sizeof(*j));
	if (uniform() < 0.5)
		put_text(j, "variant", combo_names[s * 5 + t]);
	else
	{
		put_text(j, "strategy", strategies[s]);
		put_text(j, "technique", techniques[t]);
	}
	put_number(j, "params_b", params);
	put_number(j, "tokens_m", tokens);
	put_number(j, "epochs", epochs);
	put_number(j, "seq_len", seq);
	put_number(j, "batch_size", 32 << pick(4));
	put_text(j, "gpu_model", gen_gpus[gpu]);
	put_text(j, "precision", fp8 ? "fp8" : "bf16");
	put_number(j, "grad_checkpointing", ckpt);
	put_number(j, "packing", packing);
	if (rl)
		put_number(j, "rollouts", rollouts);
	j->params_b = params;
	j->gpus = gpus_for("training", j);
	j->hours = true_training_hours(s, t, params, tokens, epochs, seq, rollouts,
								   gpu, fp8, ckpt, packing, j->gpus);
}

static const char *const gen_precisions[] = {"bf16", "fp8", "int4"};
static const double precision_bytes[] = {2, 1, 0.5};

/*
 * The truth for batch inference: a roofline per GPU.  Decoding reads every
 * weight once per step of a batch (bound by bandwidth and the bytes per
 * weight), prefill is bound by compute; the batch a GPU holds shrinks as
 * the weights leave less memory for the KV cache; tensor parallelism costs
 * more the smaller the model.
 */
static void
gen_inference(gen_job *j)
{
	int			gpu = pick(4);
	int			prec = pick(3);
	double		params = sizes_b[pick(12)];
	double		tokens = log_uniform(10, 5000);
	double		weights_gb;
	double		batch;
	double		decode_tps;
	double		prefill_tps;
	double		tp_eff;

	memset(j, 0, sizeof(*j));
	put_number(j, "params_b", params);
	put_number(j, "tokens_m", tokens);
	put_text(j, "gpu_model", gen_gpus[gpu]);
	put_text(j, "precision", gen_precisions[prec]);
	j->params_b = params;
	j->gpus = gpus_for("inference", j);
	weights_gb = params * precision_bytes[prec];
	batch = fmax(4.0, fmin(256.0, 40.0 * (gen_mem[gpu] * j->gpus - weights_gb) / (params + 1)));
	decode_tps = true_bandwidth[gpu] * 1e9 * j->gpus / (weights_gb * 1e9) * batch;
	prefill_tps = true_tflops[gpu] * 1e12 * j->gpus * (prec == 0 ? 1.0 : 1.5) / (2 * params * 1e9);
	tp_eff = pow(j->gpus, -0.25 / sqrt(params / 7 + 0.3));
	/* A third of the tokens are prompts (prefill), two thirds generated. */
	j->hours = tokens * 1e6 * (1.0 / 3 / prefill_tps + 2.0 / 3 / decode_tps) /
		tp_eff / 3600.0 * heavy_noise(0.2);
}

static const char *const gen_algorithms[] = {"bitsandbytes", "awq", "gptq"};

/*
 * The truth for quantization: loading the weights (bandwidth of the
 * storage, not the GPU), calibration forwards over the samples, and the
 * algorithm's own work: none for bitsandbytes, a scale search over a grid
 * per layer for AWQ (linear in the weights), a Hessian inverse per layer
 * for GPTQ (growing with the width cubed, so faster than linearly with
 * size).
 */
static void
gen_quant(gen_job *j)
{
	int			gpu = pick(4);
	int			alg = pick(3);
	double		params = sizes_b[pick(12)];
	double		samples = 64 << pick(3);
	double		n;
	double		width;
	double		layers;
	double		load_s;
	double		calib_s = 0;
	double		solve_s = 0;

	memset(j, 0, sizeof(*j));
	put_number(j, "params_b", params);
	put_text(j, "algorithm", gen_algorithms[alg]);
	put_text(j, "gpu_model", gen_gpus[gpu]);
	put_number(j, "calib_samples", samples);
	j->params_b = params;
	j->gpus = gpus_for("quantization", j);
	n = params * 1e9;
	width = cbrt(n * 128.0 / 12.0);
	layers = n / (12 * width * width);
	load_s = 120 + params * 2e9 / 1.5e9;
	if (alg != 0)
		calib_s = samples * 2048 * 2 * n / (true_tflops[gpu] * 1e12 * 0.3);
	if (alg == 1)
		solve_s = 20 * calib_s / samples * 16 + 0.4 * params * 60;
	else if (alg == 2)
		solve_s = layers * 6 * pow(width, 3) * 4 / (true_tflops[gpu] * 1e12 * 0.05);
	j->hours = (load_s + (calib_s + solve_s) / j->gpus) / 3600.0 * heavy_noise(0.25);
}

static bench_results *results;

static void
add_duration_result(const char *estimator, const char *method, double *ape,
					int covered, int n)
{
	duration_result *r;

	if (results->n_duration == BENCH_MAX_DURATION_RESULTS)
		bench_die("more duration results than BENCH_MAX_DURATION_RESULTS", NULL);
	r = &results->duration[results->n_duration++];

	r->estimator = estimator;
	r->method = method;
	r->mdape = ga_quantile(ape, n, 0.5);
	r->coverage = (double) covered / n;
	r->n_test = n;
}

/* Estimator with whatever history est holds (none for the prior). */
static void
score_estimator(const char *kind, const char *method, const ga_estimator *est,
				const gen_job *test, int n_test)
{
	double	   *ape = malloc(sizeof(double) * n_test);
	int			covered = 0;

	for (int i = 0; i < n_test; i++)
	{
		ga_job_estimate e;
		ga_error	err;

		if (ga_estimate_job(est, kind, test[i].f, test[i].n, test[i].gpus, &e, &err) != GA_OK)
			bench_die("estimate", &err);
		ape[i] = fabs(e.hours_p50 - test[i].hours) / test[i].hours;
		covered += e.hours_p10 <= test[i].hours && test[i].hours <= e.hours_p90;
	}
	add_duration_result(kind, method, ape, covered, n_test);
	free(ape);
}

/* Median and 10th/90th percentile hours per size tier of the history. */
static void
score_size_only(const char *kind, const gen_job *train, int n_train,
				const gen_job *test, int n_test)
{
	double		p10[GA_N_SIZE_TIERS];
	double		p50[GA_N_SIZE_TIERS];
	double		p90[GA_N_SIZE_TIERS];
	double	   *buf = malloc(sizeof(double) * n_train);
	double	   *ape = malloc(sizeof(double) * n_test);
	int			covered = 0;

	for (int t = 0; t < GA_N_SIZE_TIERS; t++)
	{
		int			k = 0;

		for (int i = 0; i < n_train; i++)
			if (ga_size_tier(train[i].params_b) == t)
				buf[k++] = train[i].hours;
		p10[t] = k ? ga_quantile(buf, k, 0.1) : 1;
		p50[t] = k ? ga_quantile(buf, k, 0.5) : 1;
		p90[t] = k ? ga_quantile(buf, k, 0.9) : 1;
	}
	for (int i = 0; i < n_test; i++)
	{
		int			t = ga_size_tier(test[i].params_b);

		ape[i] = fabs(p50[t] - test[i].hours) / test[i].hours;
		covered += p10[t] <= test[i].hours && test[i].hours <= p90[t];
	}
	add_duration_result(kind, "size_only", ape, covered, n_test);
	free(buf);
	free(ape);
}

/* ---------------------------------------------------------------- loglinear */

/*
 * The generic baseline: ordinary least squares (a hair of ridge) of
 * log(hours) on the job's features, as any regression library would be
 * handed them: log of each number (a number that is only ever 0 or 1 taken
 * as is), an indicator per text value, an indicator for each key some jobs
 * lack, log of the GPUs; p10 and p90 from the quantiles of its residuals on
 * the history.  It knows nothing of FLOPs, GPUs' speeds or variants.
 */
#define LL_MAX_COLS 96
#define LL_RIDGE 1e-3

typedef struct ll_model
{
	int			n;
	char		name[LL_MAX_COLS][64];
	bool		binary[LL_MAX_COLS];	/* numeric column taken as is */
	double		beta[LL_MAX_COLS];
	double		r10;
	double		r90;
} ll_model;

/* Column index of name, added when add is set (else -1 if unknown). */
static int
ll_column(ll_model *m, const char *name, bool add)
{
	for (int c = 0; c < m->n; c++)
		if (strcmp(m->name[c], name) == 0)
			return c;
	if (!add || m->n == LL_MAX_COLS)
		return -1;
	snprintf(m->name[m->n], sizeof(m->name[0]), "%s", name);
	m->binary[m->n] = true;
	return m->n++;
}

/* Register the columns of a history job; numbers other than 0/1 are logged. */
static void
ll_learn_columns(ll_model *m, const gen_job *j)
{
	char		name[128];

	ll_column(m, "1", true);
	ll_column(m, "log:gpus", true);
	m->binary[ll_column(m, "log:gpus", false)] = false;
	for (int k = 0; k < j->n; k++)
	{
		const ga_feature *f = &j->f[k];

		if (f->is_number)
		{
			int			c;

			snprintf(name, sizeof(name), "num:%s", f->key);
			c = ll_column(m, name, true);
			if (c >= 0 && f->number != 0 && f->number != 1)
				m->binary[c] = false;
			snprintf(name, sizeof(name), "has:%s", f->key);
			ll_column(m, name, true);
		}
		else
		{
			snprintf(name, sizeof(name), "%s=%s", f->key, f->text);
			ll_column(m, name, true);
		}
	}
}

static void
ll_row(ll_model *m, const gen_job *j, double *row)
{
	char		name[128];
	int			c;

	memset(row, 0, sizeof(double) * m->n);
	row[ll_column(m, "1", false)] = 1;
	row[ll_column(m, "log:gpus", false)] = log(j->gpus);
	for (int k = 0; k < j->n; k++)
	{
		const ga_feature *f = &j->f[k];

		if (f->is_number)
		{
			snprintf(name, sizeof(name), "num:%s", f->key);
			if ((c = ll_column(m, name, false)) >= 0)
				row[c] = m->binary[c] ? f->number : log(fmax(f->number, 1e-9));
			snprintf(name, sizeof(name), "has:%s", f->key);
		}
		else
			snprintf(name, sizeof(name), "%s=%s", f->key, f->text);
		if ((c = ll_column(m, name, false)) >= 0 && (!f->is_number || name[0] == 'h'))
			row[c] = 1;
	}
}

static double
ll_predict(ll_model *m, const gen_job *j)
{
	double		row[LL_MAX_COLS];
	double		v = 0;

	ll_row(m, j, row);
	for (int c = 0; c < m->n; c++)
		v += m->beta[c] * row[c];
	return v;
}

static void
ll_fit(ll_model *m, const gen_job *train, int n_train)
{
	double	   *xtx;
	double		xty[LL_MAX_COLS] = {0};
	double		row[LL_MAX_COLS];
	double	   *res = malloc(sizeof(double) * n_train);

	memset(m, 0, sizeof(*m));
	for (int i = 0; i < n_train; i++)
		ll_learn_columns(m, &train[i]);
	xtx = calloc((size_t) m->n * m->n, sizeof(double));
	if (xtx == NULL || res == NULL)
		bench_die("memory", NULL);
	for (int i = 0; i < n_train; i++)
	{
		double		y = log(train[i].hours);

		ll_row(m, &train[i], row);
		for (int a = 0; a < m->n; a++)
		{
			xty[a] += row[a] * y;
			for (int b = 0; b < m->n; b++)
				xtx[a * m->n + b] += row[a] * row[b];
		}
	}
	for (int a = 1; a < m->n; a++)
		xtx[a * m->n + a] += LL_RIDGE * n_train;
	if (!ga_solve_spd(xtx, xty, m->n))
		bench_die("log-linear fit", NULL);
	memcpy(m->beta, xty, sizeof(double) * m->n);
	for (int i = 0; i < n_train; i++)
		res[i] = log(train[i].hours) - ll_predict(m, &train[i]);
	m->r10 = ga_quantile(res, n_train, 0.1);
	m->r90 = ga_quantile(res, n_train, 0.9);
	free(xtx);
	free(res);
}

static void
score_loglinear(const char *kind, const gen_job *train, int n_train,
				const gen_job *test, int n_test)
{
	ll_model   *m = malloc(sizeof(ll_model));
	double	   *ape = malloc(sizeof(double) * n_test);
	int			covered = 0;

	if (m == NULL || ape == NULL)
		bench_die("memory", NULL);
	ll_fit(m, train, n_train);
	for (int i = 0; i < n_test; i++)
	{
		double		mu = ll_predict(m, &test[i]);
		double		y = test[i].hours;

		ape[i] = fabs(exp(mu) - y) / y;
		covered += exp(mu + m->r10) <= y && y <= exp(mu + m->r90);
	}
	add_duration_result(kind, "loglinear", ape, covered, n_test);
	free(m);
	free(ape);
}

static void
backtest_durations(const char *kind, void (*gen) (gen_job *), int n_train, int n_test)
{
	gen_job    *jobs = malloc(sizeof(gen_job) * (n_train + n_test));
	ga_estimator *est = ga_estimator_create();
	ga_error	err;

	if (jobs == NULL || est == NULL)
		bench_die("memory", NULL);
	for (int i = 0; i < n_train + n_test; i++)
		gen(&jobs[i]);
	score_estimator(kind, "forecaster_prior", NULL, jobs + n_train, n_test);
	for (int i = 0; i < n_train; i++)
		if (ga_estimator_add_history(est, kind, jobs[i].f, jobs[i].n, jobs[i].gpus,
									 jobs[i].hours, &err) != GA_OK)
			bench_die("history", &err);
	if (ga_estimator_fit(est, &err) != GA_OK)
		bench_die("fit", &err);
	score_estimator(kind, "forecaster", est, jobs + n_train, n_test);
	score_loglinear(kind, jobs, n_train, jobs + n_train, n_test);
	score_size_only(kind, jobs, n_train, jobs + n_train, n_test);
	ga_estimator_destroy(est);
	free(jobs);
}

void
bench_durations(bench_results *res)
{
	results = res;
	backtest_durations("training", gen_training, 2000, 1000);
	backtest_durations("inference", gen_inference, 600, 300);
	backtest_durations("quantization", gen_quant, 600, 300);
}
