/*
 * forecast_training.c — analytic prior and fitted correction for training
 * job durations.
 */
#include "forecast/forecast_training.h"

#include "forecast/residual_model.h"

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
 * The correction (residual_model.h): log(actual / prior) on eight
 * continuous features of the run and sixteen flags (strategy, technique,
 * precision, switches), with their second-order terms.
 */
#define N_CONT 8
#define N_FLAGS 17

/* Spread of log(actual / prior) assumed before any history. */
#define PRIOR_LOG_SIGMA 0.50

struct ga_training_model
{
	ga_residual_model *fit;
};

static int
nodes_of(const ga_training_job *job, int gpus)
{
	return job->num_nodes > 0 ? job->num_nodes : (gpus + 7) / 8;
}

static void
correction_features(const ga_training_job *job, int gpus, double *x, bool *flag)
{
	int			k = 0;

	x[0] = log(job->params_b);
	x[1] = log(job->tokens_m * job->epochs * job->rollouts);
	x[2] = log2((double) gpus);
	x[3] = log(job->seq_len);
	x[4] = log(peak_tflops(job));
	x[5] = log(job->trainable_share);
	x[6] = log(job->batch_size);
	x[7] = log((double) nodes_of(job, gpus));
	flag[k++] = job->strategy == GA_STRATEGY_FULL;
	flag[k++] = job->strategy == GA_STRATEGY_LORA;
	flag[k++] = job->strategy == GA_STRATEGY_QLORA;
	flag[k++] = job->technique == GA_TECHNIQUE_SFT;
	flag[k++] = job->technique == GA_TECHNIQUE_DPO;
	flag[k++] = job->technique == GA_TECHNIQUE_RLHF;
	flag[k++] = job->technique == GA_TECHNIQUE_RLVR;
	flag[k++] = job->technique == GA_TECHNIQUE_CPT;
	flag[k++] = job->precision == GA_PRECISION_FP16;
	flag[k++] = job->precision == GA_PRECISION_FP8;
	flag[k++] = job->precision == GA_PRECISION_FP32;
	flag[k++] = job->grad_checkpointing;
	flag[k++] = job->packing;
	flag[k++] = job->offload;
	flag[k++] = job->ref_model;
	flag[k++] = job->flash_attention;
	flag[k++] = job->zero_stage >= 3;
}

ga_training_model *
ga_training_model_create(void)
{
	ga_training_model *m = calloc(1, sizeof(ga_training_model));

	if (m == NULL)
		return NULL;
	m->fit = ga_residual_model_create(N_CONT, N_FLAGS, PRIOR_LOG_SIGMA);
	if (m->fit == NULL)
	{
		free(m);
		return NULL;
	}
	return m;
}

void
ga_training_model_destroy(ga_training_model *model)
{
	if (model == NULL)
		return;
	ga_residual_model_destroy(model->fit);
	free(model);
}

ga_status
ga_training_model_add(ga_training_model *model, const ga_training_job *job,
					  int gpus, double actual_hours, ga_error *err)
{
	double		x[N_CONT];
	bool		flag[N_FLAGS];
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
	correction_features(job, gpus, x, flag);
	return ga_residual_model_add(model->fit, x, flag, y, err);
}

int
ga_training_model_history(const ga_training_model *model)
{
	return model ? ga_residual_model_count(model->fit) : 0;
}

ga_status
ga_training_model_fit(ga_training_model *model, ga_error *err)
{
	return ga_residual_model_fit(model->fit, err);
}

double
ga_training_model_correction(const ga_training_model *model,
							 const ga_training_job *job, int gpus)
{
	double		x[N_CONT];
	bool		flag[N_FLAGS];

	if (model == NULL)
		return 1.0;
	correction_features(job, gpus, x, flag);
	return exp(ga_residual_model_predict(model->fit, x, flag));
}

ga_status
ga_training_predict(const ga_training_model *model, const ga_training_job *job,
					int gpus, ga_duration *out, ga_error *err)
{
	double		z = ga_normal_quantile(0.9);
	double		lo;
	double		hi;

	if (gpus < 1)
		return ga_error_set(err, GA_EINVAL,
							"training estimate: gpus must be >= 1, got %d", gpus);

	out->prior = ga_training_prior_hours(job, gpus);
	out->p50 = out->prior * ga_training_model_correction(model, job, gpus);
	ga_residual_model_spread(model ? model->fit : NULL, &lo, &hi);
	if (model == NULL)
		hi = -(lo = -z * PRIOR_LOG_SIGMA);
	out->log_sigma = (hi - lo) / (2 * z);
	out->p10 = out->p50 * exp(lo);
	out->p90 = out->p50 * exp(hi);
	return GA_OK;
}
