/*
 * forecast_common.c — feature validation, the GPU model table and numeric
 * helpers for the estimators.
 */
#include "forecast/forecast_common.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Peak numbers are the vendors' dense (no sparsity) tensor figures; they only
 * set the scale of the analytic prior, the fitted correction absorbs the rest.
 */
/* ASCII case-insensitive equality, so the core needs no POSIX strings.h. */
bool
ga_text_equal(const char *a, const char *b)
{
	while (*a && tolower((unsigned char) *a) == tolower((unsigned char) *b))
	{
		a++;
		b++;
	}
	return *a == '\0' && *b == '\0';
}

static const ga_gpu_model gpu_models[] = {
	{"a100", 312, 0, 156, 80, 2.04},
	{"a100_40g", 312, 0, 156, 40, 1.56},
	{"h100", 989, 1979, 494, 80, 3.35},
	{"h200", 989, 1979, 494, 141, 4.80},
	{"b200", 2250, 4500, 1100, 180, 8.00},
	{"l40s", 362, 733, 183, 48, 0.86},
	{"l4", 121, 242, 60, 24, 0.30},
	{"a10", 125, 0, 62, 24, 0.60},
	{"v100", 125, 0, 16, 32, 0.90},
	{"mi300x", 1307, 2615, 653, 192, 5.30},
};

#define N_GPU_MODELS ((int) (sizeof(gpu_models) / sizeof(gpu_models[0])))
_Static_assert(N_GPU_MODELS == GA_N_GPU_MODELS, "GA_N_GPU_MODELS counts gpu_models");

int
ga_gpu_model_index(const ga_gpu_model *gpu)
{
	return (int) (gpu - gpu_models);
}

const ga_gpu_model *
ga_gpu_model_find(const char *name)
{
	if (name == NULL)
		return NULL;
	for (int i = 0; i < N_GPU_MODELS; i++)
		if (ga_text_equal(gpu_models[i].name, name))
			return &gpu_models[i];
	return NULL;
}

const char *
ga_gpu_model_names(void)
{
	return "a100, a100_40g, h100, h200, b200, l40s, l4, a10, v100, mi300x";
}

double
ga_gpu_speed_ratio(const ga_gpu_model *gpu)
{
	const ga_gpu_model *ref = &gpu_models[0];

	return sqrt((gpu->bandwidth_tbs / ref->bandwidth_tbs) *
				(gpu->tflops_bf16 / ref->tflops_bf16));
}

static const ga_feature_spec *
find_spec(const ga_feature_spec *specs, int n_specs, const char *key)
{
	for (int i = 0; i < n_specs; i++)
		if (strcmp(specs[i].key, key) == 0)
			return &specs[i];
	return NULL;
}

static bool
parse_bool_text(const char *text, bool *out)
{
	static const char *const yes[] = {"true", "t", "yes", "on", "1"};
	static const char *const no[] = {"false", "f", "no", "off", "0"};

	for (int i = 0; i < 5; i++)
	{
		if (ga_text_equal(text, yes[i]))
		{
			*out = true;
			return true;
		}
		if (ga_text_equal(text, no[i]))
		{
			*out = false;
			return true;
		}
	}
	return false;
}

static ga_status
check_number(const ga_feature *f, const ga_feature_spec *spec,
			 const char *kind, ga_error *err)
{
	if (!f->is_number)
		return ga_error_set(err, GA_EINVAL,
							"%s feature \"%s\" must be a number, got text \"%s\"",
							kind, f->key, f->text ? f->text : "");
	if (!isfinite(f->number))
		return ga_error_set(err, GA_EINVAL,
							"%s feature \"%s\" must be a finite number, got %g",
							kind, f->key, f->number);
	if (f->number < spec->min || (spec->min_exclusive && f->number <= spec->min))
		return ga_error_set(err, GA_EINVAL,
							"%s feature \"%s\" must be %s %g, got %g",
							kind, f->key, spec->min_exclusive ? ">" : ">=",
							spec->min, f->number);
	if (f->number > spec->max)
		return ga_error_set(err, GA_EINVAL,
							"%s feature \"%s\" must be <= %g, got %g",
							kind, f->key, spec->max, f->number);
	return GA_OK;
}

static ga_status
check_value(const ga_feature *f, const ga_feature_spec *spec,
			const char *kind, ga_error *err)
{
	bool		b;

	switch (spec->type)
	{
		case GA_FEATURE_NUMBER:
			return check_number(f, spec, kind, err);
		case GA_FEATURE_TEXT:
			if (f->is_number || f->text == NULL || f->text[0] == '\0')
				return ga_error_set(err, GA_EINVAL,
									"%s feature \"%s\" must be a non-empty text value",
									kind, f->key);
			return GA_OK;
		case GA_FEATURE_BOOL:
			if (f->is_number ? (f->number == 0 || f->number == 1)
				: (f->text != NULL && parse_bool_text(f->text, &b)))
				return GA_OK;
			return ga_error_set(err, GA_EINVAL,
								"%s feature \"%s\" must be a boolean (0/1, true/false)",
								kind, f->key);
	}
	return GA_OK;
}

ga_status
ga_features_validate(const ga_feature *features, int n_features,
					 const ga_feature_spec *specs, int n_specs,
					 const char *kind, ga_error *err)
{
	if (n_features < 0 || (n_features > 0 && features == NULL))
		return ga_error_set(err, GA_EINVAL,
							"%s features: n_features must be >= 0 with a non-NULL array",
							kind);
	for (int i = 0; i < n_features; i++)
	{
		const ga_feature *f = &features[i];
		const ga_feature_spec *spec;
		ga_status	st;

		if (f->key == NULL || f->key[0] == '\0')
			return ga_error_set(err, GA_EINVAL,
								"%s feature #%d has an empty key", kind, i + 1);
		spec = find_spec(specs, n_specs, f->key);
		if (spec == NULL)
			return ga_error_set(err, GA_EINVAL,
								"unknown %s feature \"%s\"", kind, f->key);
		for (int j = 0; j < i; j++)
			if (strcmp(features[j].key, f->key) == 0)
				return ga_error_set(err, GA_EINVAL,
									"%s feature \"%s\" is given more than once",
									kind, f->key);
		st = check_value(f, spec, kind, err);
		if (st != GA_OK)
			return st;
	}
	return GA_OK;
}

const ga_feature *
ga_feature_find(const ga_feature *features, int n_features, const char *key)
{
	for (int i = 0; i < n_features; i++)
		if (features[i].key != NULL && strcmp(features[i].key, key) == 0)
			return &features[i];
	return NULL;
}

double
ga_feature_number(const ga_feature *features, int n_features,
				  const char *key, double fallback)
{
	const ga_feature *f = ga_feature_find(features, n_features, key);

	return (f != NULL && f->is_number) ? f->number : fallback;
}

bool
ga_feature_bool(const ga_feature *features, int n_features,
				const char *key, bool fallback)
{
	const ga_feature *f = ga_feature_find(features, n_features, key);
	bool		b;

	if (f == NULL)
		return fallback;
	if (f->is_number)
		return f->number != 0;
	return (f->text != NULL && parse_bool_text(f->text, &b)) ? b : fallback;
}

const char *
ga_feature_text(const ga_feature *features, int n_features, const char *key)
{
	const ga_feature *f = ga_feature_find(features, n_features, key);

	return (f != NULL && !f->is_number) ? f->text : NULL;
}

/* Trim leading and trailing blanks in place; returns the new start. */
static char *
trim(char *s)
{
	char	   *end;

	while (isspace((unsigned char) *s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char) end[-1]))
		*--end = '\0';
	return s;
}

/*
 * A value is a number when it is written as a decimal one, as the scenario
 * format's numbers are: strtod alone would also read hexadecimal ("0x10"
 * as 16), "inf" and "nan".
 */
static bool
parse_full_number(const char *s, double *out)
{
	char	   *end;

	if (*s == '\0' || strspn(s, "0123456789+-.eE") != strlen(s))
		return false;
	*out = strtod(s, &end);
	return *end == '\0';
}

/* Store one "key=value" item (already cut out of the storage) in list. */
static ga_status
add_item(ga_feature_list *list, char *item, ga_error *err)
{
	char	   *eq = strchr(item, '=');
	ga_feature *f;

	if (*trim(item) == '\0')
		return GA_OK;
	if (eq == NULL)
		return ga_error_set(err, GA_EINVAL,
							"features item \"%s\" must have the form key=value",
							trim(item));
	*eq = '\0';
	if (*trim(item) == '\0')
		return ga_error_set(err, GA_EINVAL,
							"features item \"=%s\" has an empty key", trim(eq + 1));
	f = &list->items[list->n++];
	f->key = trim(item);
	f->text = trim(eq + 1);
	f->is_number = parse_full_number(f->text, &f->number);
	return GA_OK;
}

ga_feature_list *
ga_feature_list_parse(const char *text, ga_error *err)
{
	ga_feature_list *list;
	size_t		len;
	int			cap = 1;
	char	   *item;

	if (text == NULL)
		text = "";
	len = strlen(text);
	for (size_t i = 0; i < len; i++)
		cap += text[i] == ';';
	list = calloc(1, sizeof(ga_feature_list));
	if (list != NULL)
	{
		list->items = calloc(cap, sizeof(ga_feature));
		list->storage = malloc(len + 1);
	}
	if (list == NULL || list->items == NULL || list->storage == NULL)
	{
		ga_feature_list_destroy(list);
		ga_error_set(err, GA_ENOMEM, "out of memory parsing features");
		return NULL;
	}
	memcpy(list->storage, text, len + 1);
	item = list->storage;
	for (;;)
	{
		char	   *semi = strchr(item, ';');

		if (semi != NULL)
			*semi = '\0';
		if (add_item(list, item, err) != GA_OK)
		{
			ga_feature_list_destroy(list);
			return NULL;
		}
		if (semi == NULL)
			break;
		item = semi + 1;
	}
	return list;
}

void
ga_feature_list_destroy(ga_feature_list *list)
{
	if (list == NULL)
		return;
	free(list->items);
	free(list->storage);
	free(list);
}

int
ga_pow2_ceil(double x)
{
	int			p = 1;

	while (p < x && p < (1 << 20))
		p <<= 1;
	return p;
}

double
ga_normal_quantile(double p)
{
	double		lo = -12.0;
	double		hi = 12.0;

	/* Bisection on the CDF written with erfc: slow but exact to 1e-12. */
	for (int i = 0; i < 80; i++)
	{
		double		mid = 0.5 * (lo + hi);

		if (0.5 * erfc(-mid / sqrt(2.0)) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

bool
ga_solve_spd(double *a, double *b, int n)
{
	/* In-place Cholesky: the lower triangle of a becomes L with A = L L'. */
	for (int j = 0; j < n; j++)
	{
		double		d = a[j * n + j];

		for (int k = 0; k < j; k++)
			d -= a[j * n + k] * a[j * n + k];
		if (!(d > 0))
			return false;
		d = sqrt(d);
		a[j * n + j] = d;
		for (int i = j + 1; i < n; i++)
		{
			double		s = a[i * n + j];

			for (int k = 0; k < j; k++)
				s -= a[i * n + k] * a[j * n + k];
			a[i * n + j] = s / d;
		}
	}
	for (int i = 0; i < n; i++)
	{
		for (int k = 0; k < i; k++)
			b[i] -= a[i * n + k] * b[k];
		b[i] /= a[i * n + i];
	}
	for (int i = n - 1; i >= 0; i--)
	{
		for (int k = i + 1; k < n; k++)
			b[i] -= a[k * n + i] * b[k];
		b[i] /= a[i * n + i];
	}
	return true;
}

static int
compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

double
ga_trimmed_mean(double *values, int n)
{
	int			cut;
	double		sum = 0;

	if (n <= 0)
		return 0;
	qsort(values, n, sizeof(double), compare_double);
	if (n < 5)
		return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
	cut = n / 5;
	for (int i = cut; i < n - cut; i++)
		sum += values[i];
	return sum / (n - 2 * cut);
}

double
ga_quantile(double *values, int n, double q)
{
	double		pos;
	int			i;

	if (n <= 0)
		return 0;
	qsort(values, n, sizeof(double), compare_double);
	pos = q * (n - 1);
	i = (int) floor(pos);
	if (i >= n - 1)
		return values[n - 1];
	if (i < 0)
		return values[0];
	return values[i] + (pos - i) * (values[i + 1] - values[i]);
}

ga_status
ga_feature_gpu_model(const ga_feature *features, int n_features,
					 const char *kind, const ga_gpu_model **gpu, ga_error *err)
{
	const char *name = ga_feature_text(features, n_features, "gpu_model");

	*gpu = ga_gpu_model_find(name ? name : "a100");
	if (*gpu == NULL)
		return ga_error_set(err, GA_EINVAL,
							"%s feature \"gpu_model\" \"%s\" is unknown (known: %s)",
							kind, name, ga_gpu_model_names());
	return GA_OK;
}
