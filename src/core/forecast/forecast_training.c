/*
 * forecast_training.c — analytic prior and fitted correction for training
 * job durations.
 */
#include "forecast/forecast_training.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KIND "training"

static const ga_feature_spec training_specs[] = {
	{"variant", GA_FEATURE_TEXT, 0, 0, false},
	{"strategy", GA_FEATURE_TEXT, 0, 0, false},
	{"technique", GA_FEATURE_TEXT, 0, 0, false},
	{"params_b", GA_FEATURE_NUMBER, 0, 1e5, true},
	{"trainable_share", GA_FEATURE_NUMBER, 0, 1, true},
	{"tokens_m", GA_FEATURE_NUMBER, 0, 1e9, true},
	{"dataset_k", GA_FEATURE_NUMBER, 0, 1e9, true},
	{"epochs", GA_FEATURE_NUMBER, 0, 1e4, true},
	{"seq_len", GA_FEATURE_NUMBER, 16, 1e7, false},
	{"batch_size", GA_FEATURE_NUMBER, 1, 1e8, false},
	{"gpu_model", GA_FEATURE_TEXT, 0, 0, false},
	{"precision", GA_FEATURE_TEXT, 0, 0, false},
	{"grad_checkpointing", GA_FEATURE_BOOL, 0, 0, false},
	{"num_nodes", GA_FEATURE_NUMBER, 1, 1e5, false},
	{"zero_stage", GA_FEATURE_NUMBER, 0, 3, false},
	{"packing", GA_FEATURE_BOOL, 0, 0, false},
	{"rollouts", GA_FEATURE_NUMBER, 1, 1e4, false},
	{"gen_tokens", GA_FEATURE_NUMBER, 1, 1e7, false},
	{"reward_params_b", GA_FEATURE_NUMBER, 0, 1e5, false},
	{"ref_model", GA_FEATURE_BOOL, 0, 0, false},
	{"lora_rank", GA_FEATURE_NUMBER, 1, 1e5, false},
	{"eval_frac", GA_FEATURE_NUMBER, 0, 1, false},
	{"offload", GA_FEATURE_BOOL, 0, 0, false},
	{"flash_attention", GA_FEATURE_BOOL, 0, 0, false},
};

#define N_TRAINING_SPECS ((int) (sizeof(training_specs) / sizeof(training_specs[0])))

static const char *const strategy_names[] = {"full", "lora", "qlora"};
static const char *const technique_names[] = {"sft", "dpo", "rlhf", "rlvr", "cpt"};

/*
 * Supported variant for every strategy x technique; the five unsupported
 * combinations point at the variant whose cost structure is closest.
 */
static const ga_train_variant variant_of[3][5] = {
	{GA_VARIANT_FULL_SFT, GA_VARIANT_FULL_DPO, GA_VARIANT_FULL_RLHF,
	GA_VARIANT_FULL_RLHF, GA_VARIANT_FULL_CPT},
	{GA_VARIANT_LORA_SFT, GA_VARIANT_LORA_DPO, GA_VARIANT_LORA_RLHF,
	GA_VARIANT_LORA_RLVR, GA_VARIANT_LORA_SFT},
	{GA_VARIANT_QLORA_SFT, GA_VARIANT_QLORA_DPO, GA_VARIANT_LORA_RLHF,
	GA_VARIANT_LORA_RLVR, GA_VARIANT_QLORA_SFT},
};

static const struct
{
	const char *name;
	ga_train_strategy strategy;
	ga_train_technique technique;
}			variants[GA_N_VARIANTS] = {
	{"full_sft", GA_STRATEGY_FULL, GA_TECHNIQUE_SFT},
	{"full_dpo", GA_STRATEGY_FULL, GA_TECHNIQUE_DPO},
	{"full_rlhf", GA_STRATEGY_FULL, GA_TECHNIQUE_RLHF},
	{"full_cpt", GA_STRATEGY_FULL, GA_TECHNIQUE_CPT},
	{"lora_sft", GA_STRATEGY_LORA, GA_TECHNIQUE_SFT},
	{"lora_dpo", GA_STRATEGY_LORA, GA_TECHNIQUE_DPO},
	{"lora_rlhf", GA_STRATEGY_LORA, GA_TECHNIQUE_RLHF},
	{"lora_rlvr", GA_STRATEGY_LORA, GA_TECHNIQUE_RLVR},
	{"qlora_sft", GA_STRATEGY_QLORA, GA_TECHNIQUE_SFT},
	{"qlora_dpo", GA_STRATEGY_QLORA, GA_TECHNIQUE_DPO},
};

const char *
ga_variant_name(ga_train_variant variant)
{
	if (variant < 0 || variant >= GA_N_VARIANTS)
		return "unknown";
	return variants[variant].name;
}

static int
name_index(const char *name, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (ga_text_equal(name, names[i]))
			return i;
	return -1;
}

static ga_status
resolve_pair(const char *strategy, const char *technique,
			 ga_train_variant *variant, bool *mapped, ga_error *err)
{
	int			s = name_index(strategy, strategy_names, 3);
	int			t = name_index(technique, technique_names, 5);
	ga_train_variant v;

	if (s < 0)
		return ga_error_set(err, GA_EINVAL,
							"training feature \"strategy\" must be full, lora or qlora, got \"%s\"",
							strategy);
	if (t < 0)
		return ga_error_set(err, GA_EINVAL,
							"training feature \"technique\" must be sft, dpo, rlhf, rlvr or cpt, got \"%s\"",
							technique);
	v = variant_of[s][t];
	*variant = v;
	*mapped = !((int) variants[v].strategy == s && (int) variants[v].technique == t);
	return GA_OK;
}

ga_status
ga_variant_lookup(const char *name, ga_train_variant *variant, bool *mapped,
				  ga_error *err)
{
	const char *sep = name ? strchr(name, '_') : NULL;
	char		strategy[16];

	if (sep == NULL || sep - name >= (long) sizeof(strategy))
		return ga_error_set(err, GA_EINVAL,
							"training feature \"variant\" must be strategy_technique "
							"(e.g. lora_dpo), got \"%s\"", name ? name : "");
	memcpy(strategy, name, sep - name);
	strategy[sep - name] = '\0';
	if (name_index(strategy, strategy_names, 3) < 0 ||
		name_index(sep + 1, technique_names, 5) < 0)
		return ga_error_set(err, GA_EINVAL,
							"training feature \"variant\" \"%s\" is unknown: strategy must be "
							"full, lora or qlora and technique sft, dpo, rlhf, rlvr or cpt",
							name);
	return resolve_pair(strategy, sep + 1, variant, mapped, err);
}

static ga_status
parse_variant(const ga_feature *f, int n, ga_training_job *job, ga_error *err)
{
	const char *variant = ga_feature_text(f, n, "variant");
	const char *strategy = ga_feature_text(f, n, "strategy");
	const char *technique = ga_feature_text(f, n, "technique");
	ga_status	st;

	if (variant != NULL && (strategy != NULL || technique != NULL))
		return ga_error_set(err, GA_EINVAL,
							"training features: give either \"variant\" or \"strategy\" and "
							"\"technique\", not both");
	if (variant != NULL)
		st = ga_variant_lookup(variant, &job->variant, &job->mapped, err);
	else if (strategy != NULL && technique != NULL)
		st = resolve_pair(strategy, technique, &job->variant, &job->mapped, err);
	else
		return ga_error_set(err, GA_EINVAL,
							"training feature \"%s\" is required (or \"variant\")",
							strategy == NULL ? "strategy" : "technique");
	if (st != GA_OK)
		return st;
	job->strategy = variants[job->variant].strategy;
	job->technique = variants[job->variant].technique;
	return GA_OK;
}

static ga_status
parse_precision(const ga_feature *f, int n, ga_training_job *job, ga_error *err)
{
	static const char *const names[] = {"bf16", "fp16", "fp8", "fp32"};
	const char *text = ga_feature_text(f, n, "precision");
	int			i = text ? name_index(text, names, 4) : GA_PRECISION_BF16;

	if (i < 0)
		return ga_error_set(err, GA_EINVAL,
							"training feature \"precision\" must be bf16, fp16, fp8 or fp32, got \"%s\"",
							text);
	job->precision = (ga_train_precision) i;
	if (job->precision == GA_PRECISION_FP8 && job->gpu->tflops_fp8 <= 0)
		return ga_error_set(err, GA_EINVAL,
							"training feature \"precision\" fp8 is not supported by gpu_model %s",
							job->gpu->name);
	return GA_OK;
}

static ga_status
parse_sizes(const ga_feature *f, int n, ga_training_job *job, ga_error *err)
{
	bool		adapters = job->strategy != GA_STRATEGY_FULL;
	double		fill;

	job->params_b = ga_feature_number(f, n, "params_b", NAN);
	if (isnan(job->params_b))
		return ga_error_set(err, GA_EINVAL, "training feature \"params_b\" is required");
	job->seq_len = ga_feature_number(f, n, "seq_len", 2048);
	job->packing = ga_feature_bool(f, n, "packing",
								   job->technique == GA_TECHNIQUE_CPT);
	job->tokens_m = ga_feature_number(f, n, "tokens_m", NAN);
	if (isnan(job->tokens_m))
	{
		double		dataset_k = ga_feature_number(f, n, "dataset_k", NAN);

		if (isnan(dataset_k))
			return ga_error_set(err, GA_EINVAL,
								"training feature \"tokens_m\" is required (or \"dataset_k\")");
		fill = job->packing ? 0.9 : 0.5;
		job->tokens_m = dataset_k * 1000 * job->seq_len * fill / 1e6;
	}
	job->lora_rank = ga_feature_number(f, n, "lora_rank", 16);
	job->trainable_share = ga_feature_number(f, n, "trainable_share",
											 adapters ? fmin(1.0, 0.0008 * job->lora_rank) : 1.0);
	job->epochs = ga_feature_number(f, n, "epochs", 1);
	job->batch_size = ga_feature_number(f, n, "batch_size", 64);
	return GA_OK;
}

static void
parse_technique_options(const ga_feature *f, int n, ga_training_job *job)
{
	bool		rl = job->technique == GA_TECHNIQUE_RLHF ||
		job->technique == GA_TECHNIQUE_RLVR;

	job->rollouts = rl ? ga_feature_number(f, n, "rollouts", 4) : 1;
	job->gen_tokens = ga_feature_number(f, n, "gen_tokens", 512);
	job->reward_params_b = ga_feature_number(f, n, "reward_params_b",
											 job->technique == GA_TECHNIQUE_RLHF ? job->params_b : 0);
	job->ref_model = ga_feature_bool(f, n, "ref_model",
									 job->technique == GA_TECHNIQUE_DPO || rl);
	job->eval_frac = ga_feature_number(f, n, "eval_frac", 0);
}

static void
parse_system_options(const ga_feature *f, int n, ga_training_job *job)
{
	job->grad_checkpointing = ga_feature_bool(f, n, "grad_checkpointing", false);
	job->num_nodes = (int) ga_feature_number(f, n, "num_nodes", 0);
	job->zero_stage = (int) ga_feature_number(f, n, "zero_stage",
											  job->strategy == GA_STRATEGY_FULL ? 3 : 0);
	job->offload = ga_feature_bool(f, n, "offload", false);
	job->flash_attention = ga_feature_bool(f, n, "flash_attention", true);
}

ga_status
ga_training_features_validate(const ga_feature *features, int n_features, ga_error *err)
{
	return ga_features_validate(features, n_features, training_specs, N_TRAINING_SPECS, KIND, err);
}

ga_status
ga_training_job_parse(const ga_feature *features, int n_features,
					  ga_training_job *job, ga_error *err)
{
	ga_status	st;

	memset(job, 0, sizeof(*job));
	st = ga_features_validate(features, n_features, training_specs,
							  N_TRAINING_SPECS, KIND, err);
	if (st == GA_OK)
		st = parse_variant(features, n_features, job, err);
	if (st == GA_OK)
		st = ga_feature_gpu_model(features, n_features, KIND, &job->gpu, err);
	if (st == GA_OK)
		st = parse_precision(features, n_features, job, err);
	if (st == GA_OK)
		st = parse_sizes(features, n_features, job, err);
	if (st != GA_OK)
		return st;
	parse_technique_options(features, n_features, job);
	parse_system_options(features, n_features, job);
	return GA_OK;
}

/*
 * Hidden size of a dense transformer of this size, assuming the usual
 * layer count of about hidden / 128: parameters ~ 12 x layers x hidden^2.
 */
static double
hidden_size(double params_b)
{
	return cbrt(params_b * 1e9 * 128.0 / 12.0);
}

static bool
is_rl(const ga_training_job *job)
{
	return job->technique == GA_TECHNIQUE_RLHF || job->technique == GA_TECHNIQUE_RLVR;
}

/*
 * FLOPs per trained token, in units of the model's parameter count.  A full
 * update costs 6 (forward 2, backward 4); adapters skip the frozen weights'
 * gradients (4 plus 6 per trainable share).  Attention adds seq_len / (6 d)
 * of the dense cost.  Reference and reward models run forward (2 each, the
 * reward model scaled by its size), and decoding rollouts runs at about a
 * quarter of training efficiency, so a generated token counts 2 / 0.25.
 */
static double
flops_per_token(const ga_training_job *job)
{
	double		attention = 1.0 + job->seq_len / (6.0 * hidden_size(job->params_b));
	double		update;
	double		extra = 0;

	if (job->strategy == GA_STRATEGY_FULL)
		update = 6.0;
	else
		update = 4.0 + 6.0 * job->trainable_share;
	if (job->grad_checkpointing)
		update += 2.0;
	if (job->ref_model)
		extra += 2.0;
	if (is_rl(job))
	{
		extra += 2.0 * job->reward_params_b / job->params_b;
		extra += 8.0 * fmin(1.0, job->gen_tokens / job->seq_len);
	}
	extra += 2.0 * job->eval_frac;
	return (update + extra) * attention;
}

double
ga_training_flops(const ga_training_job *job)
{
	double		tokens = job->tokens_m * 1e6 * job->epochs * job->rollouts;

	/* Without packing, padding to the batch's longest sequence is computed too. */
	if (!job->packing)
		tokens *= 1.3;
	return job->params_b * 1e9 * tokens * flops_per_token(job);
}

static double
peak_tflops(const ga_training_job *job)
{
	switch (job->precision)
	{
		case GA_PRECISION_FP8:
			return job->gpu->tflops_fp8;
		case GA_PRECISION_FP32:
			return job->gpu->tflops_fp32;
		default:
			return job->gpu->tflops_bf16;
	}
}

double
ga_training_efficiency(const ga_training_job *job, int gpus)
{
	/* Eight GPUs a node, rounded up without (gpus + 7) overflowing. */
	int			nodes = job->num_nodes > 0 ? job->num_nodes : gpus / 8 + (gpus % 8 != 0);
	double		tokens_per_gpu = job->batch_size * job->seq_len / gpus;
	double		eff = 0.40;

	/* Communication grows with the group: every doubling costs a little. */
	eff /= 1.0 + 0.06 * log2(gpus);
	eff /= 1.0 + 0.08 * log2(nodes);
	if (job->zero_stage == 3)
		eff *= 0.88;
	if (job->offload)
		eff *= 0.55;
	if (!job->flash_attention)
		eff *= 0.80;
	if (job->strategy == GA_STRATEGY_QLORA)
		eff *= 0.70;			/* dequantizing the 4-bit base every step */
	if (job->precision == GA_PRECISION_FP8)
		eff *= 0.70;			/* not every kernel runs in fp8 */
	/* Small per-GPU batches leave the tensor cores waiting on launches. */
	if (tokens_per_gpu < 8192)
		eff *= pow(tokens_per_gpu / 8192, 0.25);
	return eff;
}

double
ga_training_prior_hours(const ga_training_job *job, int gpus)
{
	double		rate = gpus * peak_tflops(job) * 1e12 * ga_training_efficiency(job, gpus);

	return ga_training_flops(job) / rate / 3600.0;
}

void
ga_training_memory_gb(const ga_training_job *job, double *sharded_gb,
					  double *per_gpu_gb)
{
	double		n = job->params_b * 1e9;
	double		trainable = n * job->trainable_share;
	double		weight_bytes = job->precision == GA_PRECISION_FP32 ? 4.0 : 2.0;
	double		d = hidden_size(job->params_b);
	double		bytes;

	if (job->strategy == GA_STRATEGY_QLORA)
		weight_bytes = 0.55;	/* 4-bit blocks plus their scales */
	bytes = n * weight_bytes;
	/* Gradients (2 bytes) and Adam in fp32 (master, m, v: 12 bytes). */
	bytes += trainable * (2.0 + (job->offload ? 0.0 : 12.0));
	/* An adapter's reference is its base with the adapter off: no copy. */
	if (job->ref_model && job->strategy == GA_STRATEGY_FULL)
		bytes += n * 2.0;
	bytes += job->reward_params_b * 1e9 * 2.0;
	*sharded_gb = bytes / 1e9;
	/* One sequence of activations per GPU: ~16 bytes per layer-hidden unit. */
	*per_gpu_gb = job->seq_len * (d * d / 128.0) *
		(job->grad_checkpointing ? 2.0 : 16.0) / 1e9;
}

int
ga_training_min_gpus(const ga_training_job *job)
{
	double		sharded;
	double		per_gpu;
	double		usable = 0.85 * job->gpu->memory_gb;
	int			g = 1;

	ga_training_memory_gb(job, &sharded, &per_gpu);
	while (g < 4096 && sharded / g + per_gpu > usable)
		g *= 2;
	return g;
}

/*
 * The correction's design: an intercept, one indicator per variant and five
 * standardized log features.  The indicators let the fit learn each
 * variant's bias; ridge keeps those without history at zero.
 */
#define N_CONT 5
#define N_COEF (1 + GA_N_VARIANTS + N_CONT)

struct ga_training_model
{
	int			n;
	int			cap;
	double	   *x;				/* [cap][N_CONT] raw continuous features */
	int		   *variant;		/* [cap] */
	double	   *y;				/* [cap] log(actual / prior) */
	double		mean[N_CONT];
	double		scale[N_CONT];
	double		beta[N_COEF];
	double		log_sigma;
};

/* Prior spread of log(actual / prior) and its weight in pseudo-jobs. */
#define PRIOR_LOG_SIGMA 0.50
#define PRIOR_SIGMA_WEIGHT 8.0
#define RIDGE_LAMBDA 2.0

static void
continuous_features(const ga_training_job *job, int gpus, double *x)
{
	x[0] = log(job->params_b);
	x[1] = log(job->tokens_m * job->epochs * job->rollouts);
	x[2] = log2((double) gpus);
	x[3] = log(job->seq_len);
	x[4] = log(peak_tflops(job));
}

static void
design_row(const ga_training_model *m, const double *raw, int variant, double *row)
{
	memset(row, 0, sizeof(double) * N_COEF);
	row[0] = 1.0;
	row[1 + variant] = 1.0;
	for (int k = 0; k < N_CONT; k++)
		row[1 + GA_N_VARIANTS + k] = (raw[k] - m->mean[k]) / m->scale[k];
}

ga_training_model *
ga_training_model_create(void)
{
	ga_training_model *m = calloc(1, sizeof(ga_training_model));

	if (m == NULL)
		return NULL;
	for (int k = 0; k < N_CONT; k++)
		m->scale[k] = 1.0;
	m->log_sigma = PRIOR_LOG_SIGMA;
	return m;
}

void
ga_training_model_destroy(ga_training_model *model)
{
	if (model == NULL)
		return;
	free(model->x);
	free(model->variant);
	free(model->y);
	free(model);
}

static bool
grow(ga_training_model *m)
{
	int			cap = m->cap ? m->cap * 2 : 64;
	double	   *x = realloc(m->x, sizeof(double) * N_CONT * cap);
	int		   *v;
	double	   *y;

	if (x == NULL)
		return false;
	m->x = x;
	v = realloc(m->variant, sizeof(int) * cap);
	if (v == NULL)
		return false;
	m->variant = v;
	y = realloc(m->y, sizeof(double) * cap);
	if (y == NULL)
		return false;
	m->y = y;
	m->cap = cap;
	return true;
}

ga_status
ga_training_model_add(ga_training_model *model, const ga_training_job *job,
					  int gpus, double actual_hours, ga_error *err)
{
	double		prior;
	double		y;

	if (gpus < 1)
		return ga_error_set(err, GA_EINVAL,
							"training history: gpus must be >= 1, got %d", gpus);
	if (!(actual_hours > 0) || !isfinite(actual_hours))
		return ga_error_set(err, GA_EINVAL,
							"training history: actual_hours must be a finite number > 0, got %g",
							actual_hours);
	prior = ga_training_prior_hours(job, gpus);
	y = log(actual_hours / prior);
	/* One infinite or NaN row would make every later fit NaN. */
	if (!isfinite(y))
		return ga_error_set(err, GA_EINVAL,
							"training history: actual_hours %g against a prior of %g hours is out of range",
							actual_hours, prior);
	if (model->n == model->cap && !grow(model))
		return ga_error_set(err, GA_ENOMEM, "out of memory adding training history");
	continuous_features(job, gpus, &model->x[model->n * N_CONT]);
	model->variant[model->n] = job->variant;
	model->y[model->n] = y;
	model->n++;
	return GA_OK;
}

int
ga_training_model_history(const ga_training_model *model)
{
	return model ? model->n : 0;
}

static void
standardize(ga_training_model *m)
{
	for (int k = 0; k < N_CONT; k++)
	{
		double		sum = 0;
		double		ss = 0;

		for (int i = 0; i < m->n; i++)
			sum += m->x[i * N_CONT + k];
		m->mean[k] = m->n ? sum / m->n : 0;
		for (int i = 0; i < m->n; i++)
		{
			double		d = m->x[i * N_CONT + k] - m->mean[k];

			ss += d * d;
		}
		/* A constant feature carries no signal; unit scale keeps it inert. */
		m->scale[k] = (m->n > 1 && ss > 1e-12) ? sqrt(ss / m->n) : 1.0;
	}
}

/* Normal equations with the ridge penalty on everything but the intercept. */
static void
normal_equations(const ga_training_model *m, double *a, double *b)
{
	double		row[N_COEF];

	memset(a, 0, sizeof(double) * N_COEF * N_COEF);
	memset(b, 0, sizeof(double) * N_COEF);
	for (int i = 0; i < m->n; i++)
	{
		design_row(m, &m->x[i * N_CONT], m->variant[i], row);
		for (int r = 0; r < N_COEF; r++)
		{
			b[r] += row[r] * m->y[i];
			for (int c = 0; c < N_COEF; c++)
				a[r * N_COEF + c] += row[r] * row[c];
		}
	}
	for (int r = 0; r < N_COEF; r++)
		a[r * N_COEF + r] += r == 0 ? 1e-6 : RIDGE_LAMBDA;
}

/*
 * Leverage of row i, x' A^-1 x, from a fresh factorisation per row: history
 * is small (thousands of rows, 16 coefficients) and fits are rare.
 */
static double
leverage(const double *a, const double *row)
{
	double		l[N_COEF * N_COEF];
	double		z[N_COEF];
	double		h = 0;

	memcpy(l, a, sizeof(l));
	memcpy(z, row, sizeof(z));
	if (!ga_solve_spd(l, z, N_COEF))
		return 0;
	for (int k = 0; k < N_COEF; k++)
		h += row[k] * z[k];
	return h;
}

/* Spread from leave-one-out residuals, shrunk towards the prior spread. */
static void
fit_spread(ga_training_model *m, const double *a)
{
	double		row[N_COEF];
	double		ss = PRIOR_SIGMA_WEIGHT * PRIOR_LOG_SIGMA * PRIOR_LOG_SIGMA;

	for (int i = 0; i < m->n; i++)
	{
		double		fit = 0;
		double		h;
		double		r;

		design_row(m, &m->x[i * N_CONT], m->variant[i], row);
		for (int k = 0; k < N_COEF; k++)
			fit += row[k] * m->beta[k];
		h = fmin(leverage(a, row), 0.95);
		r = (m->y[i] - fit) / (1.0 - h);
		ss += r * r;
	}
	m->log_sigma = sqrt(ss / (m->n + PRIOR_SIGMA_WEIGHT));
}

ga_status
ga_training_model_fit(ga_training_model *model, ga_error *err)
{
	double		a[N_COEF * N_COEF];
	double		a_copy[N_COEF * N_COEF];

	memset(model->beta, 0, sizeof(model->beta));
	if (model->n == 0)
	{
		model->log_sigma = PRIOR_LOG_SIGMA;
		return GA_OK;
	}
	standardize(model);
	normal_equations(model, a, model->beta);
	memcpy(a_copy, a, sizeof(a));
	if (!ga_solve_spd(a, model->beta, N_COEF))
	{
		memset(model->beta, 0, sizeof(model->beta));
		return ga_error_set(err, GA_ESOLVER,
							"training correction: ridge system is not positive definite");
	}
	fit_spread(model, a_copy);
	return GA_OK;
}

double
ga_training_model_correction(const ga_training_model *model,
							 const ga_training_job *job, int gpus)
{
	double		raw[N_CONT];
	double		row[N_COEF];
	double		s = 0;

	if (model == NULL || model->n == 0)
		return 1.0;
	continuous_features(job, gpus, raw);
	design_row(model, raw, job->variant, row);
	for (int k = 0; k < N_COEF; k++)
		s += row[k] * model->beta[k];
	/* Never let an extrapolating fit move the prior by more than 20x. */
	return exp(fmax(-3.0, fmin(3.0, s)));
}

/* Where each crossed indicator sits: 3 strategies, 5 techniques, 3 flags. */
enum
{
	CROSSED_STRATEGY = 0,
	CROSSED_TECHNIQUE = 3,
	CROSSED_FP8 = 8,
	CROSSED_CHECKPOINTING,
	CROSSED_PACKING
};
_Static_assert(CROSSED_PACKING + 1 == GA_TRAINING_CORRECTION_CROSSED,
			   "GA_TRAINING_CORRECTION_CROSSED counts the crossed indicators");

void
ga_training_correction_inputs(const ga_training_job *job, int gpus,
							  double predicted_hours, double *inputs)
{
	double	   *num = inputs;
	double	   *crossed = num + GA_TRAINING_CORRECTION_NUMBERS;
	double	   *plain = crossed + GA_TRAINING_CORRECTION_CROSSED;

	num[0] = log(job->params_b);
	num[1] = log(job->tokens_m * job->epochs);
	num[2] = log(fmax(job->rollouts, 1.0));
	num[3] = log2((double) gpus);
	num[4] = log(job->seq_len);
	num[5] = log(fmax(peak_tflops(job), 1.0));
	num[6] = log(predicted_hours);
	memset(crossed, 0, sizeof(double) * (GA_TRAINING_CORRECTION_CROSSED + GA_TRAINING_CORRECTION_PLAIN));
	crossed[CROSSED_STRATEGY + job->strategy] = 1;
	crossed[CROSSED_TECHNIQUE + job->technique] = 1;
	crossed[CROSSED_FP8] = job->precision == GA_PRECISION_FP8;
	crossed[CROSSED_CHECKPOINTING] = job->grad_checkpointing;
	crossed[CROSSED_PACKING] = job->packing;
	plain[job->variant] = 1;
	plain[GA_N_VARIANTS + ga_gpu_model_index(job->gpu)] = 1;
}

ga_status
ga_training_predict(const ga_training_model *model, const ga_training_job *job,
					int gpus, ga_duration *out, ga_error *err)
{
	double		z = ga_normal_quantile(0.9);

	if (gpus < 1)
		return ga_error_set(err, GA_EINVAL,
							"training estimate: gpus must be >= 1, got %d", gpus);
	out->prior = ga_training_prior_hours(job, gpus);
	out->p50 = out->prior * ga_training_model_correction(model, job, gpus);
	out->log_sigma = model ? model->log_sigma : PRIOR_LOG_SIGMA;
	out->p10 = out->p50 * exp(-z * out->log_sigma);
	out->p90 = out->p50 * exp(z * out->log_sigma);
	return GA_OK;
}
