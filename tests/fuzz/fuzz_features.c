/*
 * fuzz_features.c — libFuzzer target for the features text of the scenario
 * format ("key=value;key=value", ga_feature_list_parse) and for what
 * consumes parsed features: ga_features_validate against a key table of
 * every value type, the lookups, and the duration estimators of
 * forecast_estimator.h, which the SQL function gpualloc.estimate_job feeds
 * with a caller's features.
 *
 * The input is lines of features text.  The first line is the job to
 * estimate; every later line is a finished job for the estimators' history,
 * with two keys of this harness giving its run: "_gpus" (GPUs it ran on,
 * default 1) and "_hours" (its wall-clock hours, default 1); those two are
 * taken out before the estimators see the rest.  Every kind is estimated,
 * without history and after fitting the history, at a suggested count and
 * at several given ones.
 *
 * Beyond the sanitizers, the target checks what the headers promise: a
 * parsed list's keys and texts are trimmed and non-empty keys; an estimate
 * has a GPU count of at least one, a positive minimum, and finite, ordered,
 * non-negative durations.  A broken promise aborts.
 */
#include "forecast/forecast_estimator.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond) \
	do { if (!(cond)) { fprintf(stderr, "fuzz_features: %s:%d: %s\n", __FILE__, __LINE__, #cond); abort(); } } while (0)

#define MAX_HISTORY 64

static const char *const kinds[] = {"training", "inference", "quantization"};

static void
check_error(const ga_error *err)
{
	CHECK(err->code != GA_OK);
	CHECK(memchr(err->message, '\0', sizeof(err->message)) != NULL);
	CHECK(err->message[0] != '\0');
}

static bool
trimmed(const char *s)
{
	size_t		n = strlen(s);

	return n == 0 || (!isspace((unsigned char) s[0]) && !isspace((unsigned char) s[n - 1]));
}

static void
check_list(const ga_feature_list *list)
{
	CHECK(list->n >= 0);
	for (int i = 0; i < list->n; i++)
	{
		const ga_feature *f = &list->items[i];

		CHECK(f->key != NULL && f->text != NULL);
		CHECK(f->key[0] != '\0' && trimmed(f->key) && trimmed(f->text));
		CHECK(strchr(f->key, ';') == NULL && strchr(f->key, '=') == NULL);
		CHECK(strchr(f->text, ';') == NULL);
	}
}

/* A key table with every value type, and every lookup on every key. */
static void
validate_and_look_up(const ga_feature_list *list)
{
	static const ga_feature_spec specs[] = {
		{"n", GA_FEATURE_NUMBER, -1, 1, false},
		{"x", GA_FEATURE_NUMBER, 0, 1e9, true},
		{"t", GA_FEATURE_TEXT, 0, 0, false},
		{"b", GA_FEATURE_BOOL, 0, 0, false},
		{"gpu_model", GA_FEATURE_TEXT, 0, 0, false},
	};
	const ga_gpu_model *gpu;
	ga_error	err = {0};

	if (ga_features_validate(list->items, list->n, specs, 5, "fuzz", &err) != GA_OK)
		check_error(&err);
	for (int i = 0; i < list->n; i++)
	{
		const char *key = list->items[i].key;

		CHECK(ga_feature_find(list->items, list->n, key) != NULL);
		(void) ga_feature_number(list->items, list->n, key, 0);
		(void) ga_feature_bool(list->items, list->n, key, false);
		(void) ga_feature_text(list->items, list->n, key);
	}
	if (ga_feature_gpu_model(list->items, list->n, "fuzz", &gpu, &err) == GA_OK)
		CHECK(gpu != NULL && ga_gpu_speed_ratio(gpu) > 0);
	else
		check_error(&err);
}

static void
check_estimate(const ga_job_estimate *e, int gpus)
{
	CHECK(e->gpus >= 1 && e->gpus_min >= 1);
	CHECK(gpus == 0 ? e->gpus_suggested && e->gpus >= e->gpus_min
		  : !e->gpus_suggested && e->gpus == gpus);
	CHECK(isfinite(e->hours_p10) && isfinite(e->hours_p50) && isfinite(e->hours_p90));
	CHECK(e->hours_p10 >= 0 && e->hours_p10 <= e->hours_p50 && e->hours_p50 <= e->hours_p90);
	CHECK(isfinite(e->work_gpu_hours) && e->work_gpu_hours >= 0);
	CHECK(isfinite(e->memory_gb) && e->memory_gb >= 0);
	CHECK(memchr(e->method, '\0', sizeof(e->method)) != NULL);
}

static void
estimate_all(const ga_estimator *est, const ga_feature_list *job)
{
	static const int counts[] = {0, 1, 3, 64, 1 << 30, INT_MAX};

	for (int k = 0; k < 3; k++)
		for (int c = 0; c < (int) (sizeof(counts) / sizeof(counts[0])); c++)
		{
			ga_job_estimate e;
			ga_error	err = {0};

			if (ga_estimate_job(est, kinds[k], job->items, job->n, counts[c], &e, &err) == GA_OK)
				check_estimate(&e, counts[c]);
			else
				check_error(&err);
		}
}

/*
 * Take the harness's "_gpus" and "_hours" out of a history line's list
 * (the list's items are moved up; its storage stays as it was).
 */
static void
take_run(ga_feature_list *list, int *gpus, double *hours)
{
	int			n = 0;

	*gpus = 1;
	*hours = 1;
	for (int i = 0; i < list->n; i++)
	{
		const ga_feature *f = &list->items[i];

		if (strcmp(f->key, "_gpus") == 0 && f->is_number)
			*gpus = f->number >= INT_MIN && f->number <= INT_MAX ? (int) f->number : 0;
		else if (strcmp(f->key, "_hours") == 0 && f->is_number)
			*hours = f->number;
		else
			list->items[n++] = *f;
	}
	list->n = n;
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	   *text = malloc(size + 1);
	char	   *line;
	char	   *next;
	ga_feature_list *job = NULL;
	ga_estimator *est;
	ga_error	err = {0};
	int			n_history = 0;

	CHECK(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';
	est = ga_estimator_create();
	CHECK(est != NULL);
	for (line = text; line != NULL; line = next)
	{
		ga_feature_list *list;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		list = ga_feature_list_parse(line, &err);
		if (list == NULL)
		{
			check_error(&err);
			if (job == NULL)
				break;
			continue;
		}
		check_list(list);
		if (job == NULL)
		{
			job = list;
			validate_and_look_up(job);
			continue;
		}
		if (n_history < MAX_HISTORY)
		{
			int			gpus;
			double		hours;

			take_run(list, &gpus, &hours);
			for (int k = 0; k < 3; k++)
				if (ga_estimator_add_history(est, kinds[k], list->items, list->n,
											 gpus, hours, &err) != GA_OK)
					check_error(&err);
			n_history++;
		}
		ga_feature_list_destroy(list);
	}
	if (job != NULL)
	{
		estimate_all(NULL, job);
		if (n_history > 0)
		{
			if (ga_estimator_fit(est, &err) == GA_OK)
				estimate_all(est, job);
			else
				check_error(&err);
		}
	}
	ga_feature_list_destroy(job);
	ga_estimator_destroy(est);
	free(text);
	return 0;
}
