/*
 * bench_forecast.c — backtests of the forecasters.
 *
 *   bench_forecast --data DIR --out FILE.json
 *   bench_forecast --data DIR --tune
 *
 * Demand (bench_demand.c): rolling-origin backtests on the real series in
 * DIR, tuning and test splits, the forecaster against seasonal naive,
 * same-hour-yesterday, Holt-Winters and the daily-peak reservation.
 * Durations (bench_durations.c): the duration estimators on a generated
 * corpus.  Prints Markdown tables, the targets as measured, and writes a
 * JSON list of result objects.  --tune prints the search of the demand
 * forecaster's constants on the tuning split instead.
 */
#include "bench_forecast.h"
#include "json_text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bench_results results;

void
bench_die(const char *what, const ga_error *err)
{
	fprintf(stderr, "bench_forecast: %s: %s\n", what, err ? err->message : strerror(errno));
	exit(1);
}

/* ---------------------------------------------------------------- tables */

static const demand_result *
find_demand(const char *series, const char *split, const char *method)
{
	for (int i = 0; i < results.n_demand; i++)
	{
		const demand_result *r = &results.demand[i];

		if (strcmp(r->series, series) == 0 && strcmp(r->split, split) == 0 &&
			strcmp(r->method, method) == 0)
			return r;
	}
	return NULL;
}

/* v with fmt, or "—" when it is not a number (a WAPE of no demand). */
static const char *
num(char *buf, size_t len, const char *fmt, double v)
{
	if (!isfinite(v))
		return "—";
	snprintf(buf, len, fmt, v);
	return buf;
}

/* ", +x.x%": a against b; nothing when b is 0 or either is not a number. */
static const char *
change(char *buf, size_t len, double a, double b)
{
	if (!isfinite(a) || !isfinite(b) || b == 0)
		return "";
	snprintf(buf, len, ", %+.1f%%", 100 * (a / b - 1));
	return buf;
}

static void
print_demand_table(const char *split)
{
	printf("\n### Split %s\n\n", split);
	printf("| series | method | hours | WAPE p50 | coverage | held GPU-h | held at matched coverage |\n");
	printf("|---|---|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < results.n_demand; i++)
	{
		const demand_result *r = &results.demand[i];

		if (strcmp(r->split, split) != 0)
			continue;
		char		wape[32];

		printf("| %s | %s | %d | %s | %.3f | %.1f | %.1f (%s) |\n", r->series,
			   r->method, r->hours, num(wape, sizeof(wape), "%.3f", r->wape), r->coverage,
			   r->held, r->held_matched, r->matched_form);
	}
}

static void
print_duration_table(void)
{
	printf("\n## Duration estimators (generated corpus, seed fixed)\n\n");
	printf("| estimator | method | MdAPE p50 | p10-p90 coverage | test jobs |\n");
	printf("|---|---|---:|---:|---:|\n");
	for (int i = 0; i < results.n_duration; i++)
	{
		const duration_result *r = &results.duration[i];

		printf("| %s | %s | %.3f | %.3f | %d |\n", r->estimator, r->method,
			   r->mdape, r->coverage, r->n_test);
	}
}

static const duration_result *
find_duration(const char *estimator, const char *method)
{
	for (int i = 0; i < results.n_duration; i++)
		if (strcmp(results.duration[i].estimator, estimator) == 0 &&
			strcmp(results.duration[i].method, method) == 0)
			return &results.duration[i];
	return NULL;
}

/*
 * a <= b but for rounding: held GPU-hours are sums over thousands of hours
 * of values up to 1e9, so two equal curves may differ in the last bits.
 */
static bool
at_most(double a, double b)
{
	return a <= b + 1e-9 * fmax(1.0, fabs(b)) + 1e-6;
}

static const char *
verdict(bool met)
{
	return met ? "met" : "NOT met";
}

/*
 * "- series: p50 WAPE ...; ": against the better peer's.  A series with no
 * demand in the hours scored has no WAPE (0 / 0): said so, not judged.
 */
static void
print_wape_target(const char *series, double wape, double best)
{
	char		pct[32];

	if (!isfinite(wape) || !isfinite(best))
	{
		printf("- %s: p50 WAPE not defined (no demand in the hours scored); ", series);
		return;
	}
	printf("- %s: p50 WAPE %.3f vs best of seasonal naive and Holt-Winters %.3f (%s%s); ",
		   series, wape, best, verdict(wape <= best + 1e-12), change(pct, sizeof(pct), wape, best));
}

/* The demand targets of one series on the test split, as measured. */
static void
print_demand_target(const char *series)
{
	const char *peers[] = {"seasonal_naive", "yesterday", "holt_winters", "daily_peak"};
	const demand_result *g = find_demand(series, "test", "gpualloc");
	const demand_result *sn = find_demand(series, "test", "seasonal_naive");
	const demand_result *hw = find_demand(series, "test", "holt_winters");
	double		best_wape;
	double		best_held = INFINITY;
	const char *best_peer = "";
	char		pct[32];

	if (g == NULL || sn == NULL || hw == NULL)
	{
		printf("- %s: no hour of the test split was scored by every method\n", series);
		return;
	}
	best_wape = fmin(sn->wape, hw->wape);
	for (int k = 0; k < 4; k++)
	{
		const demand_result *r = find_demand(series, "test", peers[k]);

		if (r != NULL && r->held_matched < best_held)
		{
			best_held = r->held_matched;
			best_peer = peers[k];
		}
	}
	print_wape_target(series, g->wape, best_wape);
	printf("coverage %.1f%% (nominal %.1f%% +-1.5: %s); held at matched coverage %.1f vs %s %.1f (%s%s)\n",
		   100 * g->coverage, 100 * g->nominal,
		   verdict(fabs(g->coverage - g->nominal) <= 0.015), g->held_matched,
		   best_peer, best_held, verdict(at_most(g->held_matched, best_held)),
		   change(pct, sizeof(pct), g->held_matched, best_held));
}

/* The targets, measured: printed, never enforced. */
static void
print_targets(void)
{
	const char *kinds[] = {"training", "inference", "quantization"};

	printf("\n## Targets (test split and series never tuned on)\n\n");
	for (int i = 0; i < results.n_demand; i++)
	{
		const demand_result *r = &results.demand[i];
		bool		dup = false;

		/* a series' first test row stands for it */
		for (int k = 0; k < i && !dup; k++)
			dup = strcmp(results.demand[k].series, r->series) == 0 &&
				strcmp(results.demand[k].split, "test") == 0;
		if (dup || strcmp(r->split, "test") != 0)
			continue;
		print_demand_target(r->series);
	}
	for (int i = 0; i < 3; i++)
	{
		const duration_result *f = find_duration(kinds[i], "forecaster");
		const duration_result *b = find_duration(kinds[i], "loglinear");

		if (f == NULL || b == NULL)
			continue;
		printf("- %s: MdAPE %.3f = %.2f x the log-linear regression's %.3f (target <= 0.9: %s); "
			   "p10-p90 coverage %.1f%% (target 75-85%%: %s)\n",
			   kinds[i], f->mdape, f->mdape / b->mdape, b->mdape,
			   verdict(f->mdape <= 0.9 * b->mdape), 100 * f->coverage,
			   verdict(f->coverage >= 0.75 && f->coverage <= 0.85));
	}
}

/* ---------------------------------------------------------------- JSON */

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
				bench_die(buf, NULL);
			*p = '/';
		}
}

/* "key": v with fmt, or null when v is not a number; then sep. */
static void
json_number(FILE *f, const char *key, const char *fmt, double v, const char *sep)
{
	fprintf(f, "\"%s\": ", key);
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fprintf(f, "null");
	fprintf(f, "%s", sep);
}

static void
write_json(const char *path)
{
	FILE	   *f;
	bool		ok;

	make_parent_dirs(path);
	f = fopen(path, "w");
	if (f == NULL)
		bench_die(path, NULL);
	errno = 0;
	fprintf(f, "[\n");
	for (int i = 0; i < results.n_demand; i++)
	{
		const demand_result *r = &results.demand[i];

		fprintf(f, "  {\"series\": ");
		json_write_string(f, r->series);
		fprintf(f, ", \"split\": \"%s\", \"method\": \"%s\", ", r->split, r->method);
		json_number(f, "nominal", "%.3f", r->nominal, ", ");
		fprintf(f, "\"hours\": %d, ", r->hours);
		json_number(f, "wape", "%.6f", r->wape, ", ");
		json_number(f, "coverage", "%.6f", r->coverage, ", ");
		json_number(f, "held_gpu_hours", "%.3f", r->held, ", ");
		json_number(f, "held_gpu_hours_matched", "%.3f", r->held_matched, ", ");
		json_number(f, "coverage_matched", "%.6f", r->coverage_matched, ", ");
		fprintf(f, "\"matched_margin\": \"%s\"},\n", r->matched_form);
	}
	for (int i = 0; i < results.n_duration; i++)
	{
		const duration_result *r = &results.duration[i];

		fprintf(f, "  {\"estimator\": \"%s\", \"method\": \"%s\", ", r->estimator, r->method);
		json_number(f, "mdape", "%.6f", r->mdape, ", ");
		json_number(f, "interval_coverage", "%.6f", r->coverage, ", ");
		fprintf(f, "\"n_test\": %d}%s\n", r->n_test, i + 1 < results.n_duration ? "," : "");
	}
	fprintf(f, "]\n");
	/* a full disk shows only here: a file cut short is no result */
	ok = !ferror(f);
	if (fclose(f) != 0 || !ok)
	{
		fprintf(stderr, "bench_forecast: %s: cannot write the results: %s\n", path,
				errno != 0 ? strerror(errno) : "write error");
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	const char *data = "data/real";
	const char *out = "bench/results/forecast.json";
	bool		tune = false;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--data") == 0 && i + 1 < argc)
			data = argv[++i];
		else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--tune") == 0)
			tune = true;
		else
		{
			fprintf(stderr, "usage: bench_forecast [--data DIR] [--out FILE | --tune]\n");
			return 2;
		}
	}
	if (tune)
	{
		bench_demand(data, true, &results);
		return 0;
	}
	bench_demand(data, false, &results);
	bench_durations(&results);
	printf("## Demand backtest (24 h ahead, origins every 24 h at midnight, nominal quantile %.3f)\n",
		   results.n_demand ? results.demand[0].nominal : 0);
	print_demand_table("tune");
	print_demand_table("test");
	print_duration_table();
	print_targets();
	write_json(out);
	return 0;
}
