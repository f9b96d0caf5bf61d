/*
 * forecast_common.h — feature pairs, GPU models and small numeric helpers
 * shared by the duration estimators (training, batch inference,
 * quantization).
 *
 * A job is described by key/value features, the shape the SQL layer gets when
 * it walks a jsonb object (or a scenario's "key=value;key=value" column).  A
 * value is either a number (is_number true, number set) or text (is_number
 * false, text set).  Booleans may be given as the number 0/1 or as the text
 * true/false/yes/no/on/off.  The core never keeps the caller's strings: every
 * estimator copies what it needs while parsing.
 */
#ifndef GPUALLOC_FORECAST_COMMON_H
#define GPUALLOC_FORECAST_COMMON_H

#include "model/common.h"

typedef struct ga_feature
{
	const char *key;
	bool		is_number;
	double		number;			/* when is_number */
	const char *text;			/* when !is_number; NUL-terminated */
} ga_feature;

/* How a feature's value must look; used by every estimator's key table. */
typedef enum ga_feature_type
{
	GA_FEATURE_NUMBER,			/* finite number inside [min, max] */
	GA_FEATURE_TEXT,			/* text; the estimator checks the vocabulary */
	GA_FEATURE_BOOL				/* 0/1 or true/false/yes/no/on/off */
} ga_feature_type;

typedef struct ga_feature_spec
{
	const char *key;
	ga_feature_type type;
	double		min;			/* numbers only: inclusive bounds */
	double		max;
	bool		min_exclusive;	/* numbers only: value must be > min */
} ga_feature_spec;

/*
 * Check every pair against a key table: the key must be known (so typos are
 * caught), appear once, and its value must have the declared type and range.
 * kind names the job kind in messages.
 */
ga_status	ga_features_validate(const ga_feature *features, int n_features,
								 const ga_feature_spec *specs, int n_specs,
								 const char *kind, ga_error *err);

/* Lookups on validated pairs. */
const ga_feature *ga_feature_find(const ga_feature *features, int n_features,
								  const char *key);
double		ga_feature_number(const ga_feature *features, int n_features,
							  const char *key, double fallback);
bool		ga_feature_bool(const ga_feature *features, int n_features,
							const char *key, bool fallback);
const char *ga_feature_text(const ga_feature *features, int n_features,
							const char *key);

/*
 * An owned list of pairs parsed from "key=value;key=value" (the scenario
 * format).  A value that parses completely as a number becomes a number,
 * anything else text.  Whitespace around keys and values is dropped; empty
 * items are skipped; an item without "=" or with an empty key is an error.
 */
typedef struct ga_feature_list
{
	int			n;
	ga_feature *items;
	char	   *storage;		/* the keys and texts point in here */
} ga_feature_list;

ga_feature_list *ga_feature_list_parse(const char *text, ga_error *err);
void		ga_feature_list_destroy(ga_feature_list *list);

/* GPU models the estimators know, with dense peak throughput per GPU. */
typedef struct ga_gpu_model
{
	const char *name;
	double		tflops_bf16;	/* dense bf16/fp16 tensor TFLOPS */
	double		tflops_fp8;		/* dense fp8 TFLOPS; 0 when unsupported */
	double		tflops_fp32;	/* tf32/fp32 TFLOPS */
	double		memory_gb;
	double		bandwidth_tbs;	/* HBM/GDDR bandwidth, TB/s */
} ga_gpu_model;

/* NULL when the name is unknown. */
const ga_gpu_model *ga_gpu_model_find(const char *name);

/* How many models are known, and a known model's place among them. */
#define GA_N_GPU_MODELS 10
int			ga_gpu_model_index(const ga_gpu_model *gpu);

/* The known names, comma separated, for error messages and documentation. */
const char *ga_gpu_model_names(void);

/*
 * The GPU model a job's "gpu_model" feature names (a100 when absent); an
 * unknown name is an error naming kind and the known models.
 */
ga_status	ga_feature_gpu_model(const ga_feature *features, int n_features,
								 const char *kind, const ga_gpu_model **gpu,
								 ga_error *err);

/*
 * Inference speed of a GPU relative to an A100 80GB, the reference of every
 * throughput table: the geometric mean of the bandwidth and compute ratios,
 * since batched decoding is bounded by both.
 */
double		ga_gpu_speed_ratio(const ga_gpu_model *gpu);

/* ASCII case-insensitive string equality. */
bool		ga_text_equal(const char *a, const char *b);

/* Smallest power of two >= x (x <= 1 gives 1); capped at 1 << 20. */
int			ga_pow2_ceil(double x);

/* Standard normal quantile, for p in (0, 1). */
double		ga_normal_quantile(double p);

/*
 * Solve the symmetric positive definite system A x = b (n x n, row major) by
 * Cholesky; A and b are overwritten.  Returns false when A is not positive
 * definite.
 */
bool		ga_solve_spd(double *a, double *b, int n);

/*
 * A robust centre of values[0..n): the mean after discarding the lowest and
 * highest fifth (the median for n < 5).  values is reordered.
 */
double		ga_trimmed_mean(double *values, int n);

/* Quantile q in [0, 1] of values[0..n) by linear interpolation; reorders values. */
double		ga_quantile(double *values, int n, double q);

#endif
