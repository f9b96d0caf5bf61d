/*
 * forecast_batch.c — throughput tiers for batch inference and calibration
 * tiers for quantization.
 */
#include "forecast/forecast_batch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double tier_upper_b[GA_N_SIZE_TIERS - 1] = {3, 10, 40, 80, 200};

/* Reference size of each tier, billions: throughput is stated at this size. */
static const double tier_ref_b[GA_N_SIZE_TIERS] = {1.5, 7, 30, 70, 150, 400};

/*
 * Prior tokens/s per A100 in bf16 for offline batched generation at each
 * tier's reference size (vLLM-class engine, prompts and outputs together).
 */
static const double tier_prior_tps[GA_N_SIZE_TIERS] = {
	13000, 4000, 1250, 640, 340, 150
};

/* Within a tier, throughput falls with size a little slower than 1/size. */
#define WITHIN_TIER_EXPONENT 0.8

/* GPU-hours of one quantization run on an A100, per algorithm and tier. */
static const double quant_table[GA_N_QUANT_ALGORITHMS][GA_N_SIZE_TIERS] = {
	{0.05, 0.15, 0.4, 0.8, 2.0, 5.0},	/* bitsandbytes: convert, no calibration */
	{0.25, 0.6, 2.0, 4.0, 10.0, 28.0},	/* awq: activation-aware scale search */
	{0.4, 1.0, 3.5, 7.0, 18.0, 48.0},	/* gptq: per-layer Hessian solves */
};

/* Pseudo-count of the prior tables against observed jobs. */
#define PRIOR_WEIGHT 3.0
#define PRIOR_SIGMA_WEIGHT 8.0
#define INFERENCE_PRIOR_SIGMA 0.35
#define QUANT_PRIOR_SIGMA 0.40

int
ga_size_tier(double params_b)
{
	for (int t = 0; t < GA_N_SIZE_TIERS - 1; t++)
		if (params_b <= tier_upper_b[t])
			return t;
	return GA_N_SIZE_TIERS - 1;
}

static const ga_feature_spec inference_specs[] = {
	{"params_b", GA_FEATURE_NUMBER, 0, 1e5, true},
	{"tokens_m", GA_FEATURE_NUMBER, 0, 1e12, true},
	{"requests", GA_FEATURE_NUMBER, 0, 1e15, true},
	{"avg_tokens", GA_FEATURE_NUMBER, 0, 1e8, true},
	{"gpu_model", GA_FEATURE_TEXT, 0, 0, false},
	{"precision", GA_FEATURE_TEXT, 0, 0, false},
	{"seq_len", GA_FEATURE_NUMBER, 16, 1e7, false},
	{"batch_size", GA_FEATURE_NUMBER, 1, 1e6, false},
};

static const ga_feature_spec quant_specs[] = {
	{"params_b", GA_FEATURE_NUMBER, 0, 1e5, true},
	{"algorithm", GA_FEATURE_TEXT, 0, 0, false},
	{"gpu_model", GA_FEATURE_TEXT, 0, 0, false},
	{"bits", GA_FEATURE_NUMBER, 2, 8, false},
	{"calib_samples", GA_FEATURE_NUMBER, 1, 1e7, false},
	{"seq_len", GA_FEATURE_NUMBER, 16, 1e7, false},
};

ga_status
ga_inference_features_validate(const ga_feature *features, int n_features, ga_error *err)
{
	return ga_features_validate(features, n_features, inference_specs,
								(int) (sizeof(inference_specs) / sizeof(inference_specs[0])),
								"inference", err);
}

ga_status
ga_quant_features_validate(const ga_feature *features, int n_features, ga_error *err)
{
	return ga_features_validate(features, n_features, quant_specs,
								(int) (sizeof(quant_specs) / sizeof(quant_specs[0])),
								"quantization", err);
}

static const char *const inference_precisions[] = {"bf16", "fp16", "fp8", "int8", "int4"};
static const double precision_bytes[] = {2.0, 2.0, 1.0, 1.0, 0.55};

static ga_status
inference_tokens(const ga_feature *f, int n, ga_inference_job *job, ga_error *err)
{
	double		requests = ga_feature_number(f, n, "requests", NAN);

	job->tokens_m = ga_feature_number(f, n, "tokens_m", NAN);
	if (!isnan(job->tokens_m) && !isnan(requests))
		return ga_error_set(err, GA_EINVAL,
							"inference features: give either \"tokens_m\" or \"requests\", not both");
	if (isnan(job->tokens_m))
	{
		if (isnan(requests))
			return ga_error_set(err, GA_EINVAL,
								"inference feature \"tokens_m\" is required (or \"requests\")");
		job->tokens_m = requests * ga_feature_number(f, n, "avg_tokens", 1024) / 1e6;
	}
	return GA_OK;
}

ga_status
ga_inference_job_parse(const ga_feature *features, int n_features,
					   ga_inference_job *job, ga_error *err)
{
	const char *precision;
	ga_status	st;

	memset(job, 0, sizeof(*job));
	st = ga_inference_features_validate(features, n_features, err);
	if (st == GA_OK)
		st = ga_feature_gpu_model(features, n_features, "inference", &job->gpu, err);
	if (st == GA_OK)
		st = inference_tokens(features, n_features, job, err);
	if (st != GA_OK)
		return st;
	job->params_b = ga_feature_number(features, n_features, "params_b", NAN);
	if (isnan(job->params_b))
		return ga_error_set(err, GA_EINVAL, "inference feature \"params_b\" is required");
	precision = ga_feature_text(features, n_features, "precision");
	job->precision = -1;
	for (int i = 0; i < 5; i++)
		if (ga_text_equal(precision ? precision : "bf16", inference_precisions[i]))
			job->precision = i;
	if (job->precision < 0)
		return ga_error_set(err, GA_EINVAL,
							"inference feature \"precision\" must be bf16, fp16, fp8, int8 or int4, got \"%s\"",
							precision);
	job->seq_len = ga_feature_number(features, n_features, "seq_len", 4096);
	job->batch_size = ga_feature_number(features, n_features, "batch_size", 64);
	return GA_OK;
}

double
ga_inference_memory_gb(const ga_inference_job *job)
{
	double		d = cbrt(job->params_b * 1e9 * 128.0 / 12.0);
	double		layers = d / 128.0;
	double		weights = job->params_b * 1e9 * precision_bytes[job->precision];

	/*
	 * KV cache: keys and values of every layer in bf16; grouped-query
	 * attention keeps about a quarter of the full heads.
	 */
	double		kv_per_token = 2.0 * layers * d * 2.0 * 0.25;

	return (weights + kv_per_token * job->seq_len * job->batch_size) / 1e9;
}

int
ga_inference_min_gpus(const ga_inference_job *job)
{
	return ga_pow2_ceil(ga_inference_memory_gb(job) / (0.9 * job->gpu->memory_gb));
}

static ga_status
quant_algorithm(const char *name, ga_quant_algorithm *out, ga_error *err)
{
	if (name == NULL)
		return ga_error_set(err, GA_EINVAL,
							"quantization feature \"algorithm\" is required (bitsandbytes, awq or gptq)");
	if (ga_text_equal(name, "bitsandbytes") || ga_text_equal(name, "bnb"))
		*out = GA_QUANT_BITSANDBYTES;
	else if (ga_text_equal(name, "awq"))
		*out = GA_QUANT_AWQ;
	else if (ga_text_equal(name, "gptq"))
		*out = GA_QUANT_GPTQ;
	else
		return ga_error_set(err, GA_EINVAL,
							"quantization feature \"algorithm\" must be bitsandbytes, awq or gptq, got \"%s\"",
							name);
	return GA_OK;
}

ga_status
ga_quant_job_parse(const ga_feature *features, int n_features,
				   ga_quant_job *job, ga_error *err)
{
	ga_status	st;

	memset(job, 0, sizeof(*job));
	st = ga_quant_features_validate(features, n_features, err);
	if (st == GA_OK)
		st = ga_feature_gpu_model(features, n_features, "quantization", &job->gpu, err);
	if (st == GA_OK)
		st = quant_algorithm(ga_feature_text(features, n_features, "algorithm"),
							 &job->algorithm, err);
	if (st != GA_OK)
		return st;
	job->params_b = ga_feature_number(features, n_features, "params_b", NAN);
	if (isnan(job->params_b))
		return ga_error_set(err, GA_EINVAL, "quantization feature \"params_b\" is required");
	job->bits = ga_feature_number(features, n_features, "bits", 4);
	job->calib_samples = ga_feature_number(features, n_features, "calib_samples", 128);
	job->seq_len = ga_feature_number(features, n_features, "seq_len", 2048);
	return GA_OK;
}

double
ga_quant_memory_gb(const ga_quant_job *job)
{
	return job->params_b * 2.0 * 1.1;
}

int
ga_quant_min_gpus(const ga_quant_job *job)
{
	return ga_pow2_ceil(ga_quant_memory_gb(job) / (0.9 * job->gpu->memory_gb));
}

double
ga_quant_table_gpu_hours(const ga_quant_job *job)
{
	double		hours = quant_table[job->algorithm][ga_size_tier(job->params_b)];

	/* Calibration passes scale with the calibration tokens; I/O does not. */
	if (job->algorithm != GA_QUANT_BITSANDBYTES)
	{
		double		ratio = job->calib_samples * job->seq_len / (128.0 * 2048.0);

		hours *= 0.4 + 0.6 * ratio;
	}
	return hours / ga_gpu_speed_ratio(job->gpu);
}

/*
 * A growable list of (cell, log value) observations; cells are tiers for
 * inference and algorithm x tier for quantization.
 */
typedef struct obs_list
{
	int			n;
	int			cap;
	int		   *cell;
	double	   *value;
} obs_list;

#define N_QUANT_CELLS (GA_N_QUANT_ALGORITHMS * GA_N_SIZE_TIERS)

struct ga_batch_model
{
	obs_list	inference;		/* log(tokens/s at tier reference, A100 bf16) */
	obs_list	quant;			/* log(actual GPU-hours / table) */
	double		log_tps[GA_N_SIZE_TIERS];
	double		quant_log_bias[N_QUANT_CELLS];
	double		inference_sigma;
	double		quant_sigma;
};

static void
reset_fit(ga_batch_model *m)
{
	for (int t = 0; t < GA_N_SIZE_TIERS; t++)
		m->log_tps[t] = log(tier_prior_tps[t]);
	memset(m->quant_log_bias, 0, sizeof(m->quant_log_bias));
	m->inference_sigma = INFERENCE_PRIOR_SIGMA;
	m->quant_sigma = QUANT_PRIOR_SIGMA;
}

ga_batch_model *
ga_batch_model_create(void)
{
	ga_batch_model *m = calloc(1, sizeof(ga_batch_model));

	if (m != NULL)
		reset_fit(m);
	return m;
}

static void
obs_free(obs_list *l)
{
	free(l->cell);
	free(l->value);
}

void
ga_batch_model_destroy(ga_batch_model *model)
{
	if (model == NULL)
		return;
	obs_free(&model->inference);
	obs_free(&model->quant);
	free(model);
}

static ga_status
obs_add(obs_list *l, int cell, double value, ga_error *err)
{
	if (l->n == l->cap)
	{
		int			cap = l->cap ? l->cap * 2 : 32;
		int		   *c = realloc(l->cell, sizeof(int) * cap);
		double	   *v;

		if (c == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory adding history");
		l->cell = c;
		v = realloc(l->value, sizeof(double) * cap);
		if (v == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory adding history");
		l->value = v;
		l->cap = cap;
	}
	l->cell[l->n] = cell;
	l->value[l->n] = value;
	l->n++;
	return GA_OK;
}

static ga_status
check_history(const char *kind, int gpus, double actual_hours, ga_error *err)
{
	if (gpus < 1)
		return ga_error_set(err, GA_EINVAL, "%s history: gpus must be >= 1, got %d",
							kind, gpus);
	if (!(actual_hours > 0) || !isfinite(actual_hours))
		return ga_error_set(err, GA_EINVAL,
							"%s history: actual_hours must be a finite number > 0, got %g",
							kind, actual_hours);
	return GA_OK;
}

/*
 * An observation whose log is infinite or NaN (hours or GPUs so extreme the
 * ratio overflows) would make every later fit of its kind NaN: refused.
 */
static ga_status
out_of_range(const char *kind, double actual_hours, ga_error *err)
{
	return ga_error_set(err, GA_EINVAL,
						"%s history: actual_hours %g is out of range for this job",
						kind, actual_hours);
}

/* Converts an observed or tabled tier throughput to this job's conditions. */
static double
job_speed_factor(const ga_inference_job *job)
{
	static const double precision_speed[] = {1.0, 1.0, 1.5, 1.3, 1.6};
	double		tier_ref = tier_ref_b[ga_size_tier(job->params_b)];
	double		speed = precision_speed[job->precision];

	/* Without fp8 tensor cores fp8 weights only save memory traffic. */
	if (job->precision == 2 && job->gpu->tflops_fp8 <= 0)
		speed = 1.2;
	return pow(tier_ref / job->params_b, WITHIN_TIER_EXPONENT) *
		ga_gpu_speed_ratio(job->gpu) * speed;
}

ga_status
ga_batch_model_add_inference(ga_batch_model *model, const ga_inference_job *job,
							 int gpus, double actual_hours, ga_error *err)
{
	double		tps;
	double		value;
	ga_status	st = check_history("inference", gpus, actual_hours, err);

	if (st != GA_OK)
		return st;
	tps = job->tokens_m * 1e6 / (actual_hours * 3600.0 * gpus);
	value = log(tps / job_speed_factor(job));
	if (!isfinite(value))
		return out_of_range("inference", actual_hours, err);
	return obs_add(&model->inference, ga_size_tier(job->params_b), value, err);
}

ga_status
ga_batch_model_add_quant(ga_batch_model *model, const ga_quant_job *job,
						 int gpus, double actual_hours, ga_error *err)
{
	int			cell = job->algorithm * GA_N_SIZE_TIERS + ga_size_tier(job->params_b);
	double		value;
	ga_status	st = check_history("quantization", gpus, actual_hours, err);

	if (st != GA_OK)
		return st;
	value = log(actual_hours * gpus / ga_quant_table_gpu_hours(job));
	if (!isfinite(value))
		return out_of_range("quantization", actual_hours, err);
	return obs_add(&model->quant, cell, value, err);
}

/*
 * Blend each cell's prior with the trimmed mean of its observations, then
 * return the pooled spread of observations around their cell's value.
 */
static ga_status
fit_cells(const obs_list *l, double *cells, int n_cells, double prior_sigma,
		  double *sigma, ga_error *err)
{
	double	   *buf = malloc(sizeof(double) * (l->n > 0 ? l->n : 1));
	double		ss = PRIOR_SIGMA_WEIGHT * prior_sigma * prior_sigma;

	if (buf == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory fitting batch model");
	for (int c = 0; c < n_cells; c++)
	{
		int			k = 0;

		for (int i = 0; i < l->n; i++)
			if (l->cell[i] == c)
				buf[k++] = l->value[i];
		if (k > 0)
			cells[c] = (PRIOR_WEIGHT * cells[c] + k * ga_trimmed_mean(buf, k)) /
				(PRIOR_WEIGHT + k);
	}
	for (int i = 0; i < l->n; i++)
	{
		double		r = l->value[i] - cells[l->cell[i]];

		ss += r * r;
	}
	*sigma = sqrt(ss / (PRIOR_SIGMA_WEIGHT + l->n));
	free(buf);
	return GA_OK;
}

ga_status
ga_batch_model_fit(ga_batch_model *model, ga_error *err)
{
	ga_status	st;

	reset_fit(model);
	st = fit_cells(&model->inference, model->log_tps, GA_N_SIZE_TIERS,
				   INFERENCE_PRIOR_SIGMA, &model->inference_sigma, err);
	if (st != GA_OK)
		return st;
	return fit_cells(&model->quant, model->quant_log_bias, N_QUANT_CELLS,
					 QUANT_PRIOR_SIGMA, &model->quant_sigma, err);
}

double
ga_inference_throughput(const ga_batch_model *model, const ga_inference_job *job)
{
	int			tier = ga_size_tier(job->params_b);
	double		log_tps = model ? model->log_tps[tier] : log(tier_prior_tps[tier]);

	return exp(log_tps) * job_speed_factor(job);
}

/* The GPU model and size tier indicators after the crossed ones. */
static void
batch_plain_inputs(const ga_gpu_model *gpu, double params_b, double *plain)
{
	memset(plain, 0, sizeof(double) * GA_BATCH_CORRECTION_PLAIN);
	plain[ga_gpu_model_index(gpu)] = 1;
	plain[GA_N_GPU_MODELS + ga_size_tier(params_b)] = 1;
}

void
ga_inference_correction_inputs(const ga_inference_job *job, int gpus,
							   double predicted_hours, double *inputs)
{
	double	   *num = inputs;
	double	   *crossed = num + GA_INFERENCE_CORRECTION_NUMBERS;

	num[0] = log(job->params_b);
	num[1] = log(job->tokens_m);
	num[2] = log2((double) gpus);
	num[3] = log(job->seq_len);
	num[4] = log(job->batch_size);
	num[5] = log(job->gpu->memory_gb);
	num[6] = log(job->gpu->bandwidth_tbs);
	num[7] = log(predicted_hours);
	memset(crossed, 0, sizeof(double) * GA_INFERENCE_CORRECTION_CROSSED);
	crossed[job->precision] = 1;
	batch_plain_inputs(job->gpu, job->params_b, crossed + GA_INFERENCE_CORRECTION_CROSSED);
}

void
ga_quant_correction_inputs(const ga_quant_job *job, int gpus,
						   double predicted_gpu_hours, double *inputs)
{
	double	   *num = inputs;
	double	   *crossed = num + GA_QUANT_CORRECTION_NUMBERS;

	num[0] = log(job->params_b);
	num[1] = log2((double) gpus);
	num[2] = log(job->calib_samples);
	num[3] = log(job->seq_len);
	num[4] = job->bits;
	num[5] = log(job->gpu->tflops_bf16);
	num[6] = log(job->gpu->bandwidth_tbs);
	num[7] = log(predicted_gpu_hours);
	memset(crossed, 0, sizeof(double) * GA_QUANT_CORRECTION_CROSSED);
	crossed[job->algorithm] = 1;
	batch_plain_inputs(job->gpu, job->params_b, crossed + GA_QUANT_CORRECTION_CROSSED);
}

static void
fill_interval(ga_duration *out, double sigma)
{
	double		z = ga_normal_quantile(0.9);

	out->log_sigma = sigma;
	out->p10 = out->p50 * exp(-z * sigma);
	out->p90 = out->p50 * exp(z * sigma);
}

ga_status
ga_inference_predict(const ga_batch_model *model, const ga_inference_job *job,
					 int gpus, ga_duration *out, ga_error *err)
{
	if (gpus < 1)
		return ga_error_set(err, GA_EINVAL,
							"inference estimate: gpus must be >= 1, got %d", gpus);
	out->prior = job->tokens_m * 1e6 /
		(ga_inference_throughput(NULL, job) * gpus * 3600.0);
	out->p50 = job->tokens_m * 1e6 /
		(ga_inference_throughput(model, job) * gpus * 3600.0);
	fill_interval(out, model ? model->inference_sigma : INFERENCE_PRIOR_SIGMA);
	return GA_OK;
}

double
ga_quant_booked_work(double median_gpu_hours)
{
	return fmax(1.0, ceil(median_gpu_hours * GA_QUANT_SAFETY_MARGIN - 1e-9));
}

ga_status
ga_quant_predict(const ga_batch_model *model, const ga_quant_job *job, int gpus,
				 ga_duration *out, double *work_gpu_hours, ga_error *err)
{
	int			cell = job->algorithm * GA_N_SIZE_TIERS + ga_size_tier(job->params_b);
	double		median;
	double		sigma = model ? model->quant_sigma : QUANT_PRIOR_SIGMA;

	if (gpus < 1)
		return ga_error_set(err, GA_EINVAL,
							"quantization estimate: gpus must be >= 1, got %d", gpus);
	median = ga_quant_table_gpu_hours(job) *
		exp(model ? model->quant_log_bias[cell] : 0.0);
	*work_gpu_hours = ga_quant_booked_work(median);
	out->prior = ga_quant_table_gpu_hours(job) / gpus;
	out->p50 = median / gpus;
	fill_interval(out, sigma);
	return GA_OK;
}
