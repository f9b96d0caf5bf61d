/*
 * forecast_training.h — duration of a training job from its features.
 *
 * Estimate = analytic prior x fitted correction.  The prior counts the FLOPs
 * of the run (about 6 x parameters x tokens for a full fine-tune, scaled per
 * variant) and divides by the GPUs' peak times an efficiency that falls with
 * GPU and node count.  The correction is a ridge regression of
 * log(actual / prior) on the variant and a few log-scaled features, fitted on
 * finished jobs; with no history it is zero and the prior stands alone.  The
 * prediction interval comes from the leave-one-out residual spread, pulled
 * towards a prior spread while history is small.
 *
 * Features (key: type, unit, default).  Unknown keys are rejected.
 *
 *   variant            text    one of the 10 variants below, or any
 *                              strategy_technique pair (mapped, see below);
 *                              alternatively give strategy and technique
 *   strategy           text    full | lora | qlora           (with technique)
 *   technique          text    sft | dpo | rlhf | rlvr | cpt (with strategy)
 *   params_b           number  model parameters, billions, > 0      required
 *   trainable_share    number  share of parameters trained, (0, 1]
 *                              default: full 1; lora/qlora 0.0008 x lora_rank
 *   tokens_m           number  training tokens per epoch, millions, > 0;
 *                              for rlhf/rlvr the tokens of one completion per
 *                              prompt (each prompt is sampled `rollouts`
 *                              times).  Required unless dataset_k is given.
 *   dataset_k          number  examples, thousands; when tokens_m is absent
 *                              tokens = dataset_k x 1000 x seq_len x fill,
 *                              fill 0.9 with packing, 0.5 without
 *   epochs             number  passes over the data, > 0             1
 *   seq_len            number  tokens per sequence, >= 16            2048
 *   batch_size         number  global batch, sequences, >= 1         64
 *   gpu_model          text    see ga_gpu_model_names()              a100
 *   precision          text    bf16 | fp16 | fp8 | fp32              bf16
 *                              (fp8 needs a GPU with fp8 support)
 *   grad_checkpointing bool    recompute activations                 false
 *   num_nodes          number  nodes the job spans, >= 1     ceil(gpus / 8)
 *   zero_stage         number  ZeRO/FSDP stage 0..3      full 3, others 0
 *   packing            bool    sequences packed, no padding   cpt true, else false
 *   rollouts           number  samples per prompt (rlhf/rlvr), >= 1  4
 *   gen_tokens         number  generated tokens per sample (rlhf/rlvr) 512
 *   reward_params_b    number  reward model size, billions, >= 0
 *                              default: rlhf params_b, others 0
 *   ref_model          bool    a frozen reference model runs forward
 *                              default: true for dpo/rlhf/rlvr, else false
 *   lora_rank          number  adapter rank (lora/qlora), >= 1       16
 *   eval_frac          number  extra forward-only tokens for evaluation,
 *                              share of training tokens, [0, 1]      0
 *   offload            bool    optimizer state offloaded to CPU      false
 *   flash_attention    bool    fused attention kernels               true
 *
 * The 10 supported variants and the mapping of the other five combinations
 * (a mapped combination is treated exactly as its target, defaults included):
 *
 *   full_sft  full_dpo  full_rlhf  full_cpt
 *   lora_sft  lora_dpo  lora_rlhf  lora_rlvr
 *   qlora_sft qlora_dpo
 *
 *   full_rlvr  -> full_rlhf   (on-policy generation plus a policy update)
 *   lora_cpt   -> lora_sft    (same next-token loss over adapter weights)
 *   qlora_cpt  -> qlora_sft
 *   qlora_rlhf -> lora_rlhf   (adapter RL; quantized base cost is secondary)
 *   qlora_rlvr -> lora_rlvr
 */
#ifndef GPUALLOC_FORECAST_TRAINING_H
#define GPUALLOC_FORECAST_TRAINING_H

#include "forecast/forecast_common.h"

typedef enum ga_train_variant
{
	GA_VARIANT_FULL_SFT,
	GA_VARIANT_FULL_DPO,
	GA_VARIANT_FULL_RLHF,
	GA_VARIANT_FULL_CPT,
	GA_VARIANT_LORA_SFT,
	GA_VARIANT_LORA_DPO,
	GA_VARIANT_LORA_RLHF,
	GA_VARIANT_LORA_RLVR,
	GA_VARIANT_QLORA_SFT,
	GA_VARIANT_QLORA_DPO,
	GA_N_VARIANTS
} ga_train_variant;

typedef enum ga_train_strategy
{
	GA_STRATEGY_FULL,
	GA_STRATEGY_LORA,
	GA_STRATEGY_QLORA
} ga_train_strategy;

typedef enum ga_train_technique
{
	GA_TECHNIQUE_SFT,
	GA_TECHNIQUE_DPO,
	GA_TECHNIQUE_RLHF,
	GA_TECHNIQUE_RLVR,
	GA_TECHNIQUE_CPT
} ga_train_technique;

typedef enum ga_train_precision
{
	GA_PRECISION_BF16,
	GA_PRECISION_FP16,
	GA_PRECISION_FP8,
	GA_PRECISION_FP32
} ga_train_precision;

/* A training job with every default filled in. */
typedef struct ga_training_job
{
	ga_train_variant variant;
	ga_train_strategy strategy;		/* of the variant (after mapping) */
	ga_train_technique technique;	/* of the variant (after mapping) */
	bool		mapped;				/* the request named another combination */
	double		params_b;
	double		trainable_share;
	double		tokens_m;			/* per epoch, one completion per prompt */
	double		epochs;
	double		seq_len;
	double		batch_size;
	const ga_gpu_model *gpu;
	ga_train_precision precision;
	bool		grad_checkpointing;
	int			num_nodes;			/* 0: derived from the GPU count */
	int			zero_stage;
	bool		packing;
	double		rollouts;
	double		gen_tokens;
	double		reward_params_b;
	bool		ref_model;
	double		lora_rank;
	double		eval_frac;
	bool		offload;
	bool		flash_attention;
} ga_training_job;

/* "full_sft", ... for a supported variant. */
const char *ga_variant_name(ga_train_variant variant);

/*
 * Resolve a variant name (any of the 15 strategy_technique pairs) to a
 * supported variant; *mapped tells whether the name was itself supported.
 */
ga_status	ga_variant_lookup(const char *name, ga_train_variant *variant,
							  bool *mapped, ga_error *err);

/* Validate features and fill job with them and the defaults above. */
/* Known keys, types and ranges only; what a job must give is not asked. */
ga_status	ga_training_features_validate(const ga_feature *features, int n_features,
										  ga_error *err);
ga_status	ga_training_job_parse(const ga_feature *features, int n_features,
								  ga_training_job *job, ga_error *err);

/* Total floating-point operations of the run. */
double		ga_training_flops(const ga_training_job *job);

/* Share of the GPUs' peak the run sustains on gpus GPUs, in (0, 1). */
double		ga_training_efficiency(const ga_training_job *job, int gpus);

/* Prior wall-clock hours on gpus GPUs (gpus >= 1). */
double		ga_training_prior_hours(const ga_training_job *job, int gpus);

/*
 * Memory the run needs, GB: the part that can be sharded over GPUs (weights,
 * gradients, optimizer state, reference and reward models) and the part
 * every GPU holds (activations of one micro-batch sequence).
 */
void		ga_training_memory_gb(const ga_training_job *job,
								  double *sharded_gb, double *per_gpu_gb);

/* Smallest power-of-two GPU count whose memory holds the run. */
int			ga_training_min_gpus(const ga_training_job *job);

/* Duration forecast at a GPU count, hours. */
typedef struct ga_duration
{
	double		p10;
	double		p50;
	double		p90;
	double		prior;			/* the analytic prior alone */
	double		log_sigma;		/* spread of log(actual / p50) used */
} ga_duration;

/* The fitted correction: history of finished jobs and ridge coefficients. */
typedef struct ga_training_model ga_training_model;

ga_training_model *ga_training_model_create(void);
void		ga_training_model_destroy(ga_training_model *model);

/* Record a finished job: its features, GPUs (>= 1) and hours (> 0). */
ga_status	ga_training_model_add(ga_training_model *model,
								  const ga_training_job *job, int gpus,
								  double actual_hours, ga_error *err);

/* Refit on all recorded history; fine to call with none (prior only). */
ga_status	ga_training_model_fit(ga_training_model *model, ga_error *err);

int			ga_training_model_history(const ga_training_model *model);

/* The multiplicative correction exp(x . beta) the fit gives this job. */
double		ga_training_model_correction(const ga_training_model *model,
										 const ga_training_job *job, int gpus);

/*
 * The inputs of a training job's second-order correction
 * (feature_correction.h) at gpus GPUs, given the hours the fitted model
 * predicts there: numbers log params_b, log(tokens_m x epochs), log
 * rollouts, log2 gpus, log seq_len, log of the GPU's peak TFLOPS at the
 * job's precision, log of the predicted hours; crossed indicators of the
 * strategy, the technique, fp8, gradient checkpointing and packing; plain
 * indicators of the variant and the GPU model.
 */
#define GA_TRAINING_CORRECTION_NUMBERS 7
#define GA_TRAINING_CORRECTION_CROSSED 11
#define GA_TRAINING_CORRECTION_PLAIN (GA_N_VARIANTS + GA_N_GPU_MODELS)
void		ga_training_correction_inputs(const ga_training_job *job, int gpus,
										  double predicted_hours, double *inputs);

/* Forecast on gpus GPUs (>= 1). model may be NULL (prior and prior spread). */
ga_status	ga_training_predict(const ga_training_model *model,
								const ga_training_job *job, int gpus,
								ga_duration *out, ga_error *err);

#endif
