/*
 * bench_forecast.c — backtests of the forecasters.
 *
 *   bench_forecast --data DIR --out FILE.json
 *
 * Demand: rolling origin over the two real hourly series in DIR.  An origin
 * falls every 24 h at midnight, from the eighth day of the series on (the
 * seasonal baseline needs a week).  At each origin every method sees only the
 * hours before it and forecasts the next 24 (fewer at the end of the series).
 *   genai  busy GPUs = sum_exec_seconds / 3600, from 2024-11-19 00:00
 *   venus  gpus_requested
 * Both are GPU series (capacity_per_gpu 1).  Methods:
 *   profile          weekly profile forecaster: WAPE of its p50, coverage and
 *                    held GPU-hours of its churn-shaped upper curve
 *   profile_upper    the same upper curve before churn shaping (for reference)
 *   seasonal_naive   same hour last week
 *   yesterday        same hour yesterday
 *   daily_peak       the previous day's peak, rounded up to whole GPUs, held
 *                    for the next 24 h (the static reservation)
 *   weekly_peak      the highest hourly value of the last 7 days, rounded up
 * For baselines, coverage and held GPU-hours are of their point forecast.
 * The shaped curve uses quantile DEMAND_QUANTILE and a churn limit of a
 * quarter of the last week's peak (at least 1 GPU) per step, the same rule
 * for both series.
 *
 * Durations: a generated corpus (fixed seed) per job kind, split into a
 * history the estimator learns from and a test set.  The truth is a law of
 * the features written here independently of the estimators, with constants
 * they do not know (efficiency curve, per-GPU and per-variant multipliers)
 * times lognormal noise.  Methods: the estimator with no history (prior),
 * fitted on the history (forecaster), and a size-only baseline (median and
 * 10th/90th percentile of hours per model-size tier in the history).
 *
 * Prints Markdown tables and writes a JSON list of result objects.
 */
#include "forecast/forecast_common.h"
#include "forecast/forecast_demand.h"
#include "forecast/forecast_estimator.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEMAND_QUANTILE GA_DEMAND_QUANTILE_DEFAULT
#define HORIZON 24
#define WARMUP_HOURS (7 * 24)
#define MAX_RESULTS 64

typedef struct series
{
	const char *name;
	int64_t		first_hour;
	int			n;
	double	   *value;			/* [n], NAN where the hour is missing */
} series;

typedef struct demand_result
{
	const char *series;
	const char *method;
	double		wape;
	double		coverage;
	double		held;
} demand_result;

typedef struct duration_result
{
	const char *estimator;
	const char *method;
	double		mdape;
	double		coverage;
	int			n_test;
} duration_result;

static demand_result demand_results[MAX_RESULTS];
static int	n_demand_results;
static duration_result duration_results[MAX_RESULTS];
static int	n_duration_results;

static void
die(const char *what, const ga_error *err)
{
	fprintf(stderr, "bench_forecast: %s: %s\n", what, err ? err->message : strerror(errno));
	exit(1);
}

/* ---------------------------------------------------------------- data */

/*
 * Read an hourly CSV with a header; value = column value_col / divisor, kept
 * from the hour `from` (NULL: from the first row) on.
 */
static series
read_series(const char *path, const char *name, int value_col, double divisor,
			const char *from)
{
	FILE	   *f = fopen(path, "r");
	char		line[512];
	series		s = {name, 0, 0, NULL};
	int			cap = 0;
	int64_t		from_hour = INT64_MIN;
	ga_error	err;

	if (f == NULL)
		die(path, NULL);
	if (from != NULL && ga_parse_hour(from, &from_hour, &err) != GA_OK)
		die(from, &err);
	if (fgets(line, sizeof(line), f) == NULL)
		die(path, NULL);
	while (fgets(line, sizeof(line), f) != NULL)
	{
		char	   *fields[8];
		int			nf = 0;
		int64_t		hour;
		int			idx;

		for (char *p = strtok(line, ",\r\n"); p && nf < 8; p = strtok(NULL, ",\r\n"))
			fields[nf++] = p;
		if (nf <= value_col)
			continue;
		if (ga_parse_hour(fields[0], &hour, &err) != GA_OK)
			die(path, &err);
		if (hour < from_hour)
			continue;
		if (s.n == 0)
			s.first_hour = hour;
		idx = (int) (hour - s.first_hour);
		while (idx >= cap)
		{
			cap = cap ? cap * 2 : 1024;
			s.value = realloc(s.value, sizeof(double) * cap);
			if (s.value == NULL)
				die("memory", NULL);
		}
		for (int i = s.n; i < idx; i++)
			s.value[i] = NAN;
		s.value[idx] = atof(fields[value_col]) / divisor;
		s.n = idx + 1;
	}
	fclose(f);
	return s;
}

/* ---------------------------------------------------------------- demand */

typedef struct accum
{
	double		abs_err;
	double		actual;
	double		held;
	int			covered;
	int			hours;
} accum;

static void
accumulate(accum *a, double actual, double point, double cover)
{
	a->abs_err += fabs(actual - point);
	a->actual += actual;
	a->held += fmax(0.0, cover - actual);
	a->covered += actual <= cover + 1e-9;
	a->hours++;
}

static double
max_over(const series *s, int from, int to)
{
	double		m = 0;

	for (int i = from < 0 ? 0 : from; i < to; i++)
		if (!isnan(s->value[i]) && s->value[i] > m)
			m = s->value[i];
	return m;
}

/* Feed the model every hour in [from, to). */
static void
observe_range(ga_demand_model *model, const series *s, int from, int to)
{
	ga_error	err;

	for (int i = from; i < to; i++)
		if (!isnan(s->value[i]) &&
			ga_demand_model_observe(model, s->first_hour + i, s->value[i], &err) != GA_OK)
			die("observe", &err);
}

enum
{
	M_PROFILE, M_PROFILE_UPPER, M_SEASONAL, M_YESTERDAY, M_DAILY_PEAK,
	M_WEEKLY_PEAK, N_METHODS
};

static const char *const method_names[N_METHODS] = {
	"profile", "profile_upper", "seasonal_naive", "yesterday", "daily_peak",
	"weekly_peak"
};

static void
forecast_origin(ga_demand_model *model, const series *s, int origin, int h,
				accum *acc)
{
	double		p50[HORIZON];
	double		upper[HORIZON];
	int			shaped[HORIZON];
	int			churn = (int) ceil(0.25 * max_over(s, origin - WARMUP_HOURS, origin));
	double		day_peak = ceil(max_over(s, origin - 24, origin) - 1e-9);
	double		week_peak = ceil(max_over(s, origin - WARMUP_HOURS, origin) - 1e-9);
	ga_error	err;

	if (ga_demand_forecast(model, s->first_hour + origin, h, 60, DEMAND_QUANTILE,
						   1.0, churn < 1 ? 1 : churn, 0, 0, p50, upper, shaped,
						   NULL, &err) != GA_OK)
		die("forecast", &err);
	for (int k = 0; k < h; k++)
	{
		int			t = origin + k;
		double		y = s->value[t];
		double		week = s->value[t - 168];
		double		day = s->value[t - 24];

		if (isnan(y) || isnan(week) || isnan(day))
			continue;
		accumulate(&acc[M_PROFILE], y, p50[k], shaped[k]);
		accumulate(&acc[M_PROFILE_UPPER], y, p50[k], ceil(upper[k] - 1e-9));
		accumulate(&acc[M_SEASONAL], y, week, week);
		accumulate(&acc[M_YESTERDAY], y, day, day);
		accumulate(&acc[M_DAILY_PEAK], y, day_peak, day_peak);
		accumulate(&acc[M_WEEKLY_PEAK], y, week_peak, week_peak);
	}
}

static void
backtest_demand(const series *s)
{
	ga_demand_model *model = ga_demand_model_create(NULL);
	accum		acc[N_METHODS] = {{0}};
	int			seen = 0;

	if (model == NULL)
		die("model", NULL);
	for (int origin = WARMUP_HOURS; origin < s->n; origin += HORIZON)
	{
		int			h = s->n - origin < HORIZON ? s->n - origin : HORIZON;

		observe_range(model, s, seen, origin);
		seen = origin;
		forecast_origin(model, s, origin, h, acc);
	}
	for (int m = 0; m < N_METHODS; m++)
	{
		demand_result *r = &demand_results[n_demand_results++];

		r->series = s->name;
		r->method = method_names[m];
		r->wape = acc[m].abs_err / acc[m].actual;
		r->coverage = (double) acc[m].covered / acc[m].hours;
		r->held = acc[m].held;
	}
	ga_demand_model_destroy(model);
}

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
static const double gen_peak[] = {312, 989, 989, 362};	/* bf16 dense */
static const double gen_mem[] = {80, 80, 141, 48};

/* Hidden: how far each GPU falls short of its peak in this fleet. */
static const double hidden_gpu_factor[] = {1.0, 0.78, 0.84, 0.92};

static const char *const strategies[] = {"full", "lora", "qlora"};
static const char *const techniques[] = {"sft", "dpo", "rlhf", "rlvr", "cpt"};
static const char *const combo_names[15] = {
	"full_sft", "full_dpo", "full_rlhf", "full_rlvr", "full_cpt",
	"lora_sft", "lora_dpo", "lora_rlhf", "lora_rlvr", "lora_cpt",
	"qlora_sft", "qlora_dpo", "qlora_rlhf", "qlora_rlvr", "qlora_cpt"
};

/* Hidden: per strategy x technique cost multipliers unknown to the prior. */
static const double hidden_combo_mult[15] = {
	1.10, 0.85, 1.60, 1.30, 0.95,
	1.35, 0.75, 2.00, 1.50, 1.20,
	0.80, 1.45, 1.70, 1.25, 0.90
};

/*
 * The truth law for training: dense FLOPs per token by strategy and
 * technique, an efficiency falling as gpus^-0.08, and the hidden factors.
 */
static double
true_training_hours(int s, int t, double params_b, double tokens_m, double epochs,
					double seq_len, double rollouts, int gpu, bool fp8, bool ckpt,
					bool packing, int gpus)
{
	double		d = cbrt(params_b * 1e9 * 128.0 / 12.0);
	double		update = s == 0 ? 6.0 : 4.2;
	double		extra = 0;
	double		tokens = tokens_m * 1e6 * epochs * (t == 2 || t == 3 ? rollouts : 1);
	double		eff = 0.33 * pow(gpus, -0.08) * hidden_gpu_factor[gpu];
	double		peak = fp8 ? 2 * gen_peak[gpu] * 0.6 : gen_peak[gpu];
	double		flops;

	if (ckpt)
		update *= 1.33;
	if (t == 1)
		extra = 2;
	else if (t == 2)
		extra = 4 + 9 * fmin(1.0, 512.0 / seq_len);
	else if (t == 3)
		extra = 2 + 9 * fmin(1.0, 512.0 / seq_len);
	if (s == 2)
		eff *= 0.65;
	if (!packing)
		tokens *= 1.25;
	flops = params_b * 1e9 * tokens * (update + extra) * (1 + seq_len / (6 * d));
	return flops / (gpus * peak * 1e12 * eff) / 3600.0 *
		hidden_combo_mult[s * 5 + t] * exp(0.25 * normal());
}

/* Power-of-two GPU count that fits the job, times 1, 2 or 4. */
static int
gpus_for(const char *kind, gen_job *j)
{
	ga_job_estimate e;
	ga_error	err;
	int			g;

	if (ga_estimate_job(NULL, kind, j->f, j->n, 0, &e, &err) != GA_OK)
		die("corpus features", &err);
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

/* Hidden: per-size-tier engine quality relative to a smooth size law. */
static const double hidden_tier_mult[GA_N_SIZE_TIERS] = {0.7, 1.25, 0.9, 1.3, 0.8, 1.1};

static void
gen_inference(gen_job *j)
{
	int			gpu = pick(4);
	int			prec = pick(3);
	double		params = sizes_b[pick(12)];
	double		tokens = log_uniform(10, 5000);
	double		speed = (gen_mem[gpu] / 80.0 + gen_peak[gpu] / 312.0) / 2.0;
	double		tps;

	memset(j, 0, sizeof(*j));
	put_number(j, "params_b", params);
	put_number(j, "tokens_m", tokens);
	put_text(j, "gpu_model", gen_gpus[gpu]);
	put_text(j, "precision", gen_precisions[prec]);
	j->params_b = params;
	j->gpus = gpus_for("inference", j);
	tps = 2.6e4 * pow(params, -0.9) * speed * (prec == 0 ? 1.0 : 1.45) *
		hidden_tier_mult[ga_size_tier(params)] * pow(j->gpus, -0.04);
	j->hours = tokens * 1e6 / (tps * j->gpus * 3600.0) * exp(0.2 * normal());
}

static const char *const gen_algorithms[] = {"bitsandbytes", "awq", "gptq"};

/* Hidden: per-algorithm GPU-hours per billion parameters (A100). */
static const double hidden_quant_rate[] = {0.012, 0.09, 0.16};

static void
gen_quant(gen_job *j)
{
	int			gpu = pick(4);
	int			alg = pick(3);
	double		params = sizes_b[pick(12)];
	double		samples = 64 << pick(3);
	double		speed = gen_peak[gpu] / 312.0;
	double		gpu_hours;

	memset(j, 0, sizeof(*j));
	put_number(j, "params_b", params);
	put_text(j, "algorithm", gen_algorithms[alg]);
	put_text(j, "gpu_model", gen_gpus[gpu]);
	put_number(j, "calib_samples", samples);
	j->params_b = params;
	j->gpus = gpus_for("quantization", j);
	gpu_hours = 0.05 + hidden_quant_rate[alg] * pow(params, 0.95) *
		(alg == 0 ? 1.0 : 0.5 + 0.5 * samples / 128.0) / sqrt(speed);
	j->hours = gpu_hours / j->gpus * exp(0.25 * normal());
}

/* ---------------------------------------------------------------- durations */

static void
add_duration_result(const char *estimator, const char *method, double *ape,
					int covered, int n)
{
	duration_result *r = &duration_results[n_duration_results++];

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
			die("estimate", &err);
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

static void
backtest_durations(const char *kind, void (*gen) (gen_job *), int n_train, int n_test)
{
	gen_job    *jobs = malloc(sizeof(gen_job) * (n_train + n_test));
	ga_estimator *est = ga_estimator_create();
	ga_error	err;

	if (jobs == NULL || est == NULL)
		die("memory", NULL);
	for (int i = 0; i < n_train + n_test; i++)
		gen(&jobs[i]);
	score_estimator(kind, "forecaster_prior", NULL, jobs + n_train, n_test);
	for (int i = 0; i < n_train; i++)
		if (ga_estimator_add_history(est, kind, jobs[i].f, jobs[i].n, jobs[i].gpus,
									 jobs[i].hours, &err) != GA_OK)
			die("history", &err);
	if (ga_estimator_fit(est, &err) != GA_OK)
		die("fit", &err);
	score_estimator(kind, "forecaster", est, jobs + n_train, n_test);
	score_size_only(kind, jobs, n_train, jobs + n_train, n_test);
	ga_estimator_destroy(est);
	free(jobs);
}

/* ---------------------------------------------------------------- output */

static void
print_tables(void)
{
	printf("## Demand backtest (24 h ahead, origins every 24 h at midnight)\n\n");
	printf("| series | method | WAPE p50 | coverage | GPU-hours held above actual |\n");
	printf("|---|---|---:|---:|---:|\n");
	for (int i = 0; i < n_demand_results; i++)
	{
		demand_result *r = &demand_results[i];

		printf("| %s | %s | %.3f | %.3f | %.1f |\n", r->series, r->method,
			   r->wape, r->coverage, r->held);
	}
	printf("\n## Duration estimators (generated corpus, seed fixed)\n\n");
	printf("| estimator | method | MdAPE p50 | p10-p90 coverage | test jobs |\n");
	printf("|---|---|---:|---:|---:|\n");
	for (int i = 0; i < n_duration_results; i++)
	{
		duration_result *r = &duration_results[i];

		printf("| %s | %s | %.3f | %.3f | %d |\n", r->estimator, r->method,
			   r->mdape, r->coverage, r->n_test);
	}
}

static const demand_result *
find_demand(const char *series_name, const char *method)
{
	for (int i = 0; i < n_demand_results; i++)
		if (strcmp(demand_results[i].series, series_name) == 0 &&
			strcmp(demand_results[i].method, method) == 0)
			return &demand_results[i];
	return NULL;
}

static const duration_result *
find_duration(const char *estimator, const char *method)
{
	for (int i = 0; i < n_duration_results; i++)
		if (strcmp(duration_results[i].estimator, estimator) == 0 &&
			strcmp(duration_results[i].method, method) == 0)
			return &duration_results[i];
	return NULL;
}

/* The targets, measured: printed, never enforced. */
static void
print_targets(void)
{
	const char *names[] = {"genai", "venus"};
	const char *kinds[] = {"training", "inference", "quantization"};

	printf("\n## Targets\n\n");
	for (int i = 0; i < 2; i++)
	{
		const demand_result *p = find_demand(names[i], "profile");
		const demand_result *sn = find_demand(names[i], "seasonal_naive");
		const demand_result *dp = find_demand(names[i], "daily_peak");
		const demand_result *wp = find_demand(names[i], "weekly_peak");
		double		wape_gain = 1 - p->wape / sn->wape;
		double		held_gain = 1 - p->held / dp->held;

		printf("- %s: p50 WAPE %.1f%% below seasonal naive (target >= 10%%: %s); "
			   "shaped coverage %.1f%% (target >= 95%%: %s); held GPU-hours %.1f%% below "
			   "daily peak (target >= 30%%: %s), %.1f%% below weekly peak\n",
			   names[i], 100 * wape_gain, wape_gain >= 0.10 ? "met" : "NOT met",
			   100 * p->coverage, p->coverage >= 0.95 ? "met" : "NOT met",
			   100 * held_gain, held_gain >= 0.30 ? "met" : "NOT met",
			   100 * (1 - p->held / wp->held));
	}
	for (int i = 0; i < 3; i++)
	{
		const duration_result *f = find_duration(kinds[i], "forecaster");
		const duration_result *b = find_duration(kinds[i], "size_only");
		double		ratio = f->mdape / b->mdape;

		printf("- %s: MdAPE %.3f = %.2f x size-only %.3f (target <= 0.5: %s); "
			   "p10-p90 coverage %.1f%% (target 70-90%%: %s)\n",
			   kinds[i], f->mdape, ratio, b->mdape, ratio <= 0.5 ? "met" : "NOT met",
			   100 * f->coverage,
			   f->coverage >= 0.7 && f->coverage <= 0.9 ? "met" : "NOT met");
	}
}

/* mkdir -p of the directory part of path. */
static void
make_parent_dirs(const char *path)
{
	char		buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/')
		{
			*p = '\0';
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				die(buf, NULL);
			*p = '/';
		}
}

static void
write_json(const char *path)
{
	FILE	   *f;

	make_parent_dirs(path);
	f = fopen(path, "w");
	if (f == NULL)
		die(path, NULL);
	fprintf(f, "[\n");
	for (int i = 0; i < n_demand_results; i++)
	{
		demand_result *r = &demand_results[i];

		fprintf(f, "  {\"series\": \"%s\", \"method\": \"%s\", \"wape\": %.6f, "
				"\"coverage\": %.6f, \"held_gpu_hours\": %.3f},\n",
				r->series, r->method, r->wape, r->coverage, r->held);
	}
	for (int i = 0; i < n_duration_results; i++)
	{
		duration_result *r = &duration_results[i];

		fprintf(f, "  {\"estimator\": \"%s\", \"method\": \"%s\", \"mdape\": %.6f, "
				"\"interval_coverage\": %.6f, \"n_test\": %d}%s\n",
				r->estimator, r->method, r->mdape, r->coverage, r->n_test,
				i + 1 < n_duration_results ? "," : "");
	}
	fprintf(f, "]\n");
	fclose(f);
}

int
main(int argc, char **argv)
{
	const char *data = "data/real";
	const char *out = "bench/results/forecast.json";
	char		path[1024];
	series		genai;
	series		venus;

	for (int i = 1; i + 1 < argc; i += 2)
	{
		if (strcmp(argv[i], "--data") == 0)
			data = argv[i + 1];
		else if (strcmp(argv[i], "--out") == 0)
			out = argv[i + 1];
		else
		{
			fprintf(stderr, "usage: bench_forecast [--data DIR] [--out FILE]\n");
			return 2;
		}
	}
	snprintf(path, sizeof(path), "%s/genai_inference_requests_hourly.csv", data);
	genai = read_series(path, "genai", 2, 3600.0, "2024-11-19 00:00");
	snprintf(path, sizeof(path), "%s/venus_gpu_requests_hourly.csv", data);
	venus = read_series(path, "venus", 1, 1.0, NULL);
	backtest_demand(&genai);
	backtest_demand(&venus);
	backtest_durations("training", gen_training, 2000, 1000);
	backtest_durations("inference", gen_inference, 600, 300);
	backtest_durations("quantization", gen_quant, 600, 300);
	print_tables();
	print_targets();
	write_json(out);
	free(genai.value);
	free(venus.value);
	return 0;
}
