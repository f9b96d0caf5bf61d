/*
 * forecast_batch.h — duration of batch inference and quantization jobs.
 *
 * Batch inference: hours = tokens / (per-GPU throughput x GPUs).  Throughput
 * is kept per model-size tier at the tier's reference size (scaled within the
 * tier by size^-0.8) on an A100 in bf16, and converted to other GPUs and
 * weight precisions by fixed ratios.  Each tier starts from a prior table and
 * moves towards the robust (trimmed) mean of the throughput its finished jobs
 * showed, weighted as if the prior were 3 jobs.  Data-parallel replicas scale
 * linearly, so the GPU-hours do not depend on the GPU count.
 *
 * Quantization: GPU-hours from a calibration table per algorithm and
 * size tier (on an A100), scaled by the calibration set and the GPU; each
 * (algorithm, tier) cell is corrected by the robust mean of log(actual /
 * table) over its finished jobs (prior weight 3).  The median is then given a
 * 25% safety margin and rounded up to whole GPU-hours: that is the work the
 * scheduler books (work_gpu_hours); the hours p10/p50/p90 stay the unpadded
 * forecast at g GPUs (GPU-hours / g), so they can be scored against outcomes.
 *
 * Size tiers (params_b upper bounds): <= 3, <= 10, <= 40, <= 80, <= 200, more.
 *
 * Inference features (key: type, unit, default; unknown keys are rejected):
 *   params_b     number  model parameters, billions, > 0          required
 *   tokens_m     number  tokens to process (input + output), millions, > 0;
 *                        required unless requests is given
 *   requests     number  requests to serve, > 0 (tokens = requests x avg_tokens)
 *   avg_tokens   number  mean input + output tokens per request, > 0   1024
 *   gpu_model    text    see ga_gpu_model_names()                  a100
 *   precision    text    bf16 | fp16 | fp8 | int8 | int4 weights   bf16
 *   seq_len      number  context per sequence for the KV cache     4096
 *   batch_size   number  concurrent sequences per replica          64
 *
 * Quantization features:
 *   params_b      number  model parameters, billions, > 0          required
 *   algorithm     text    bitsandbytes (or bnb) | awq | gptq        required
 *   gpu_model     text    see ga_gpu_model_names()                 a100
 *   bits          number  target bits per weight, 2..8             4
 *   calib_samples number  calibration samples (awq, gptq), >= 1    128
 *   seq_len       number  tokens per calibration sample, >= 16     2048
 */
#ifndef GPUALLOC_FORECAST_BATCH_H
#define GPUALLOC_FORECAST_BATCH_H

#include "forecast/forecast_training.h"

#define GA_N_SIZE_TIERS 6

/* Size tier of a model, 0 .. GA_N_SIZE_TIERS - 1. */
int			ga_size_tier(double params_b);

typedef struct ga_inference_job
{
	double		params_b;
	double		tokens_m;
	const ga_gpu_model *gpu;
	int			precision;		/* 0 bf16, 1 fp16, 2 fp8, 3 int8, 4 int4 */
	double		seq_len;
	double		batch_size;
} ga_inference_job;

/* Known keys, types and ranges only; what a job must give is not asked. */
ga_status	ga_inference_features_validate(const ga_feature *features, int n_features,
										   ga_error *err);
ga_status	ga_quant_features_validate(const ga_feature *features, int n_features,
									   ga_error *err);

ga_status	ga_inference_job_parse(const ga_feature *features, int n_features,
								   ga_inference_job *job, ga_error *err);

/* Weights plus the KV cache of batch_size sequences of seq_len, GB. */
double		ga_inference_memory_gb(const ga_inference_job *job);
int			ga_inference_min_gpus(const ga_inference_job *job);

typedef enum ga_quant_algorithm
{
	GA_QUANT_BITSANDBYTES,
	GA_QUANT_AWQ,
	GA_QUANT_GPTQ,
	GA_N_QUANT_ALGORITHMS
} ga_quant_algorithm;

typedef struct ga_quant_job
{
	double		params_b;
	ga_quant_algorithm algorithm;
	const ga_gpu_model *gpu;
	double		bits;
	double		calib_samples;
	double		seq_len;
} ga_quant_job;

ga_status	ga_quant_job_parse(const ga_feature *features, int n_features,
							   ga_quant_job *job, ga_error *err);

/* The checkpoint in bf16 plus 10% working space, GB. */
double		ga_quant_memory_gb(const ga_quant_job *job);
int			ga_quant_min_gpus(const ga_quant_job *job);

/* Prior GPU-hours of a quantization run from the calibration table. */
double		ga_quant_table_gpu_hours(const ga_quant_job *job);

/* Safety margin applied before rounding the booked work up. */
#define GA_QUANT_SAFETY_MARGIN 1.25

/* The work to book for a median of GPU-hours: with the margin, whole, >= 1. */
double		ga_quant_booked_work(double median_gpu_hours);

/* Learned state of both kinds. */
typedef struct ga_batch_model ga_batch_model;

ga_batch_model *ga_batch_model_create(void);
void		ga_batch_model_destroy(ga_batch_model *model);

ga_status	ga_batch_model_add_inference(ga_batch_model *model,
										 const ga_inference_job *job, int gpus,
										 double actual_hours, ga_error *err);
ga_status	ga_batch_model_add_quant(ga_batch_model *model,
									 const ga_quant_job *job, int gpus,
									 double actual_hours, ga_error *err);

/* Recompute tier throughputs, table corrections and spreads from history. */
ga_status	ga_batch_model_fit(ga_batch_model *model, ga_error *err);

/* Per-GPU tokens/s the model expects for this job (prior when unfitted). */
double		ga_inference_throughput(const ga_batch_model *model,
									const ga_inference_job *job);

/*
 * The inputs of the second-order corrections (feature_correction.h) at gpus
 * GPUs, given what the fitted model predicts there (hours for inference,
 * GPU-hours for quantization).  Inference: numbers log params_b, log
 * tokens_m, log2 gpus, log seq_len, log batch_size, log of the GPU's memory
 * and bandwidth, log of the prediction; crossed indicators of the weight
 * precision; plain indicators of the GPU model and the size tier.
 * Quantization: numbers log params_b, log2 gpus, log calib_samples, log
 * seq_len, bits, log of the GPU's bf16 TFLOPS and bandwidth, log of the
 * prediction; crossed indicators of the algorithm; plain indicators of the
 * GPU model and the size tier.
 */
#define GA_INFERENCE_CORRECTION_NUMBERS 8
#define GA_INFERENCE_CORRECTION_CROSSED 5
#define GA_QUANT_CORRECTION_NUMBERS 8
#define GA_QUANT_CORRECTION_CROSSED GA_N_QUANT_ALGORITHMS
#define GA_BATCH_CORRECTION_PLAIN (GA_N_GPU_MODELS + GA_N_SIZE_TIERS)
void		ga_inference_correction_inputs(const ga_inference_job *job, int gpus,
										   double predicted_hours, double *inputs);
void		ga_quant_correction_inputs(const ga_quant_job *job, int gpus,
									   double predicted_gpu_hours, double *inputs);

/* Forecasts at gpus GPUs; model may be NULL (priors only). */
ga_status	ga_inference_predict(const ga_batch_model *model,
								 const ga_inference_job *job, int gpus,
								 ga_duration *out, ga_error *err);

/*
 * For quantization the p10/p50/p90 are the spread of the fitted median,
 * while *work_gpu_hours is what the scheduler should book: the median
 * GPU-hours with the safety margin, rounded up to whole GPU-hours (>= 1).
 */
ga_status	ga_quant_predict(const ga_batch_model *model,
							 const ga_quant_job *job, int gpus,
							 ga_duration *out, double *work_gpu_hours,
							 ga_error *err);

#endif
