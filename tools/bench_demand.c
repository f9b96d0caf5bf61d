/*
 * bench_demand.c — rolling-origin backtests of the demand forecaster and
 * its peers on real hourly series, split into a tuning and a test part.
 *
 * Series (all in GPUs, capacity_per_gpu 1; data/real/README.md), each read
 * when its file is in the data directory:
 *   genai      busy GPUs = sum_exec_seconds / 3600, from 2024-11-19 00:00
 *              (after the ramp-up)
 *   venus      gpus_requested
 *   philly_*   GPUs in use, from every Philly trace philly_jobs/<vc>_jobs.csv
 *              (in name order): the mean over the hour of the GPUs of the
 *              jobs running (a job runs duration_s_v100 from its
 *              submission, without queueing), trace second 0 placed at
 *              Monday 2017-10-02 00:00, up to the hour of the last
 *              submission.
 *   <name>     every other <name>_hourly.csv: hourly rows hour_start,gpus.
 * genai and venus are the tuning series: every constant of the forecaster
 * was chosen on the first half of each (--tune) and their second half is
 * the test split; the other series were never used for tuning and are
 * scored whole (split "test").  A series too short for one origin is
 * reported and left out.
 *
 * Origins fall every 24 h at midnight, from the eighth day on (the seasonal
 * baseline needs a week); an origin belongs to the split its day falls in,
 * the halves meeting at the first midnight at or after the middle of the
 * series.  At each origin every method sees only the hours before it and
 * forecasts the next 24 (fewer at the end of the series):
 *   gpualloc         the forecaster (forecast_demand.h) at the quantile
 *                    NOMINAL: WAPE of its p50, coverage and held GPU-hours
 *                    of its upper curve
 *   gpualloc_shaped  that curve in whole GPUs, churn-shaped with a limit of
 *                    a quarter of the last week's peak (at least 1 GPU) per
 *                    hour: what a planner is handed
 *   seasonal_naive   same hour last week
 *   yesterday        same hour yesterday
 *   holt_winters     damped additive Holt-Winters, 24 h season, constants
 *                    fitted by least squares on all history before the
 *                    origin (holt_winters.h; statsmodels' model)
 *   daily_peak       the previous day's peak held for the next 24 h (the
 *                    static reservation)
 * For the peers the curve is their point forecast.  "held at matched
 * coverage" moves every method's curve by the smallest margin, additive
 * (curve + m) or multiplicative (curve x (1 + m)), whichever holds less,
 * that brings its coverage over the hours scored up to NOMINAL; the margin
 * is fitted in hindsight on those hours, for every method alike, so the
 * column compares the shapes of the curves rather than their calibration.
 */
#include "bench_forecast.h"

#include "forecast/holt_winters.h"
#include "model/calendar.h"
#include "sim/csv.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMINAL GA_DEMAND_QUANTILE_DEFAULT
#define HORIZON 24
#define WARMUP_HOURS (7 * 24)
#define PHILLY_START "2017-10-02 00:00"
#define MAX_SERIES_HOURS (5 * 8784)	/* five years, each counted as a leap year */
#define MAX_GPUS 1e9
#define GENAI_FILE "genai_inference_requests_hourly.csv"
#define VENUS_FILE "venus_gpu_requests_hourly.csv"
#define HOURLY_SUFFIX "_hourly.csv"
#define PHILLY_DIR "philly_jobs"
#define PHILLY_SUFFIX "_jobs.csv"

typedef struct series
{
	char		name[BENCH_SERIES_NAME_LEN];
	char		file[1024];		/* where it was read from, for errors */
	bool		tuning;			/* split into tune and test halves */
	int64_t		first_hour;
	int			n;
	double	   *value;			/* [n], NAN where the hour is missing */
} series;

/* ---------------------------------------------------------------- data */

static void
put_value(series *s, int64_t hour, double v, int *cap)
{
	int			idx;

	if (s->n == 0)
		s->first_hour = hour;
	idx = (int) (hour - s->first_hour);
	if (idx < 0)
		return;
	while (idx >= *cap)
	{
		*cap = *cap ? *cap * 2 : 1024;
		s->value = realloc(s->value, sizeof(double) * *cap);
		if (s->value == NULL)
			bench_die("memory", NULL);
	}
	for (int i = s->n; i < idx; i++)
		s->value[i] = NAN;
	s->value[idx] = v;
	if (idx + 1 > s->n)
		s->n = idx + 1;
}

/*
 * Field c of the current row, read as v: stop with the file, line, column
 * and rule unless lo <= v <= hi.
 */
static void
check_field(const ga_csv_reader *r, const ga_csv_columns *cols, int c, double v,
			double lo, double hi, const char *file, const char *rule)
{
	ga_error	err;

	if (!(v >= lo && v <= hi))
	{
		ga_csv_field_error(r, cols, c, &err, rule);
		bench_die(file, &err);
	}
}

/*
 * The series' name, prefix + base; a file that gives none (base empty: the
 * file is named just "_hourly.csv" or "_jobs.csv") or a name too long to
 * tell apart from another's is refused, naming the file, rather than
 * skipped or cut.
 */
static void
set_name(series *s, const char *file, const char *prefix, const char *base)
{
	if (*base == '\0')
	{
		fprintf(stderr, "bench_forecast: %s: the file's name gives its series no name (expected %s)\n",
				file, *prefix ? PHILLY_DIR "/<vc>" PHILLY_SUFFIX : "<name>" HOURLY_SUFFIX);
		exit(1);
	}
	if (strlen(prefix) + strlen(base) >= sizeof(s->name))
	{
		fprintf(stderr, "bench_forecast: %s: the series name \"%s%s\" is longer than %d characters\n",
				file, prefix, base, (int) sizeof(s->name) - 1);
		exit(1);
	}
	memcpy(s->name, prefix, strlen(prefix));
	memcpy(s->name + strlen(prefix), base, strlen(base) + 1);
	snprintf(s->file, sizeof(s->file), "%s", file);
}

/*
 * An hourly CSV: value = column col / divisor per row, kept from the hour
 * `from` (NULL: the first row) on.  Rows on whole hours, in time order,
 * spanning at most MAX_SERIES_HOURS; values from 0 to MAX_GPUS.
 */
static series
read_hourly(const char *dir, const char *file, const char *name, const char *col,
			double divisor, const char *from)
{
	const char *names[] = {"hour_start", col};
	ga_csv_reader r;
	ga_csv_columns cols;
	series		s;
	int			cap = 0;
	int64_t		from_min = INT64_MIN;
	int64_t		previous = INT64_MIN;
	ga_error	err;
	int			row;

	memset(&s, 0, sizeof(s));
	set_name(&s, file, "", name);
	if (from != NULL && ga_parse_minutes(from, &from_min, &err) != GA_OK)
		bench_die(from, &err);
	if (ga_csv_open(&r, dir, file, false, NULL, &err) != GA_OK ||
		ga_csv_header(&r, &cols, names, 2, &err) != GA_OK)
		bench_die(file, &err);
	while ((row = ga_csv_next(&r, &err)) > 0)
	{
		int64_t		minutes;
		double		v;

		if (ga_csv_minutes(&r, &cols, 0, &minutes, &err) != GA_OK ||
			ga_csv_number(&r, &cols, 1, &v, &err) != GA_OK)
			bench_die(file, &err);
		check_field(&r, &cols, 0, minutes % 60, 0, 0, file, "is not on a whole hour");
		/* every row, also those before `from` that are not kept */
		if (previous != INT64_MIN)
			check_field(&r, &cols, 0, (double) (minutes - previous), 1, INFINITY, file,
						"is not after the row before (rows go in time order)");
		previous = minutes;
		if (s.n > 0)
			check_field(&r, &cols, 0, minutes / 60 - s.first_hour, 0, MAX_SERIES_HOURS - 1, file,
						"is more than five years after the first row");
		check_field(&r, &cols, 1, v, 0, INFINITY, file, "must be >= 0");
		check_field(&r, &cols, 1, v, 0, MAX_GPUS * divisor, file, "must be at most 1e9 GPUs");
		if (minutes >= from_min)
			put_value(&s, minutes / 60, v / divisor, &cap);
	}
	if (row < 0)
		bench_die(file, &err);
	ga_csv_close(&r);
	return s;
}

/* Add gpus x the share of each hour that [start, end) seconds covers. */
static void
add_running(double *value, int n, double start, double end, double gpus)
{
	for (int h = (int) (start / 3600); h < n && h * 3600.0 < end; h++)
	{
		double		lo = fmax(start, h * 3600.0);
		double		hi = fmin(end, (h + 1) * 3600.0);

		if (hi > lo)
			value[h] += gpus * (hi - lo) / 3600.0;
	}
}

/*
 * The jobs' GPUs summed per hour stay within what an hourly series may
 * hold (MAX_GPUS), as each job's do: the forecaster's whole-GPU curve is
 * an int, and a trace past that is no cluster's.
 */
static void
check_philly_hours(const series *s)
{
	for (int h = 0; h < s->n; h++)
		if (s->value[h] > MAX_GPUS)
		{
			fprintf(stderr, "bench_forecast: %s: the jobs running in hour %d of the trace hold %.6g GPUs, "
					"more than the 1e9 an hourly series may hold\n", s->file, h, s->value[h]);
			exit(1);
		}
}

/* GPUs in use per hour of one Philly trace (see the head of the file). */
static series
read_philly(const char *dir, const char *vc)
{
	static const char *const names[] = {"submit_s", "gpus", "duration_s_v100"};
	char		file[NAME_MAX + sizeof(PHILLY_DIR) + 2];
	ga_csv_reader r;
	ga_csv_columns cols;
	series		s;
	double	   *job = NULL;		/* submit, gpus, duration per job */
	int			n_jobs = 0;
	int			cap = 0;
	double		last = 0;
	ga_error	err;
	int			row;

	memset(&s, 0, sizeof(s));
	snprintf(file, sizeof(file), "%s/%s%s", PHILLY_DIR, vc, PHILLY_SUFFIX);
	set_name(&s, file, "philly_", vc);
	if (ga_csv_open(&r, dir, file, false, NULL, &err) != GA_OK ||
		ga_csv_header(&r, &cols, names, 3, &err) != GA_OK)
		bench_die(file, &err);
	while ((row = ga_csv_next(&r, &err)) > 0)
	{
		if (n_jobs == cap)
		{
			cap = cap ? 2 * cap : 1024;
			job = realloc(job, sizeof(double) * 3 * cap);
			if (job == NULL)
				bench_die("memory", NULL);
		}
		for (int c = 0; c < 3; c++)
			if (ga_csv_number(&r, &cols, c, &job[3 * n_jobs + c], &err) != GA_OK)
				bench_die(file, &err);
		check_field(&r, &cols, 0, job[3 * n_jobs], 0, MAX_SERIES_HOURS * 3600.0 - 1, file,
					"must be from 0 to five years of seconds");
		check_field(&r, &cols, 1, job[3 * n_jobs + 1], 1, MAX_GPUS, file, "must be from 1 to 1e9");
		check_field(&r, &cols, 2, job[3 * n_jobs + 2], 0, MAX_SERIES_HOURS * 3600.0, file,
					"must be from 0 to five years of seconds");
		last = fmax(last, job[3 * n_jobs]);
		n_jobs++;
	}
	if (row < 0)
		bench_die(file, &err);
	ga_csv_close(&r);
	{
		int64_t		start_min;

		if (ga_parse_minutes(PHILLY_START, &start_min, &err) != GA_OK)
			bench_die(PHILLY_START, &err);
		s.first_hour = start_min / 60;
	}
	s.n = n_jobs > 0 ? (int) (last / 3600) + 1 : 0;
	s.value = calloc(s.n > 0 ? s.n : 1, sizeof(double));
	if (s.value == NULL)
		bench_die("memory", NULL);
	for (int j = 0; j < n_jobs; j++)
		add_running(s.value, s.n, job[3 * j], job[3 * j] + job[3 * j + 2], job[3 * j + 1]);
	free(job);
	check_philly_hours(&s);
	return s;
}

/* The series read so far. */
typedef struct series_list
{
	series	   *s;
	int			n;
	int			cap;
} series_list;

/* Keep s, or report and drop it when it holds no origin. */
static void
add_series(series_list *list, series s)
{
	if (s.n < WARMUP_HOURS + 24)
	{
		fprintf(stderr, "bench_forecast: %s: %d hours, fewer than the %d one origin needs; left out\n",
				s.name, s.n, WARMUP_HOURS + 24);
		free(s.value);
		return;
	}
	for (int i = 0; i < list->n; i++)
		if (strcmp(list->s[i].name, s.name) == 0)
		{
			fprintf(stderr, "bench_forecast: %s: its series is named \"%s\", as the series of %s is; "
					"series names must differ (rename one file)\n", s.file, s.name, list->s[i].file);
			exit(1);
		}
	if (list->n == list->cap)
	{
		list->cap = list->cap ? 2 * list->cap : 16;
		list->s = realloc(list->s, sizeof(series) * list->cap);
		if (list->s == NULL)
			bench_die("memory", NULL);
	}
	list->s[list->n++] = s;
}

static bool
ends_with(const char *name, const char *suffix)
{
	size_t		n = strlen(name);
	size_t		k = strlen(suffix);

	/* the suffix alone counts too: set_name refuses its empty name */
	return n >= k && strcmp(name + n - k, suffix) == 0;
}

/*
 * The names in directory `path` (NULL when it does not exist) that end in
 * `suffix`, in byte order, without the suffix; *n of them.
 */
static char **
names_ending(const char *path, const char *suffix, int *n)
{
	struct dirent **entries;
	char	  **names;
	int			k = 0;
	int			m = scandir(path, &entries, NULL, alphasort);

	*n = 0;
	if (m < 0)
	{
		if (errno == ENOENT || errno == ENOTDIR)
			return NULL;
		bench_die(path, NULL);
	}
	names = calloc(m > 0 ? (size_t) m : 1, sizeof(char *));
	if (names == NULL)
		bench_die("memory", NULL);
	for (int i = 0; i < m; i++)
	{
		const char *e = entries[i]->d_name;

		if (ends_with(e, suffix) && (names[k] = strndup(e, strlen(e) - strlen(suffix))) != NULL)
			k++;
		free(entries[i]);
	}
	free(entries);
	*n = k;
	return names;
}

static void
free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool
file_exists(const char *dir, const char *file)
{
	char		path[4096];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	fclose(f);
	return true;
}

/* The tuning series: their files and how each is read (head of the file). */
typedef struct tuning_file
{
	const char *file;
	const char *name;
	const char *column;
	double		divisor;
	const char *from;
} tuning_file;

static const tuning_file tuning_series[] = {
	{GENAI_FILE, "genai", "sum_exec_seconds", 3600.0, "2024-11-19 00:00"},
	{VENUS_FILE, "venus", "gpus_requested", 1.0, NULL},
};

#define N_TUNING_FILES ((int) (sizeof(tuning_series) / sizeof(tuning_series[0])))

static bool
is_tuning_file(const char *file)
{
	for (int i = 0; i < N_TUNING_FILES; i++)
		if (strcmp(file, tuning_series[i].file) == 0)
			return true;
	return false;
}

/* Every series of the data directory (see the head of the file). */
static series_list
load_series(const char *dir)
{
	series_list list = {0};
	char		path[4096];
	char	  **names;
	int			n;
	series		s;
	DIR		   *d = opendir(dir);

	if (d == NULL)
		bench_die(dir, NULL);
	closedir(d);
	for (int i = 0; i < N_TUNING_FILES; i++)
	{
		const tuning_file *t = &tuning_series[i];

		if (!file_exists(dir, t->file))
			continue;
		s = read_hourly(dir, t->file, t->name, t->column, t->divisor, t->from);
		s.tuning = true;
		add_series(&list, s);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, PHILLY_DIR);
	names = names_ending(path, PHILLY_SUFFIX, &n);
	for (int i = 0; i < n; i++)
		add_series(&list, read_philly(dir, names[i]));
	free_names(names, n);
	names = names_ending(dir, HOURLY_SUFFIX, &n);
	for (int i = 0; i < n; i++)
	{
		char		file[4096];

		snprintf(file, sizeof(file), "%s%s", names[i], HOURLY_SUFFIX);
		if (!is_tuning_file(file))
			add_series(&list, read_hourly(dir, file, names[i], "gpus", 1.0, NULL));
	}
	free_names(names, n);
	if (list.n == 0)
	{
		fprintf(stderr, "bench_forecast: no series to score in %s (expected %s, %s, %s/<vc>%s or <name>%s; "
				"see data/real/README.md)\n", dir, GENAI_FILE, VENUS_FILE, PHILLY_DIR, PHILLY_SUFFIX,
				HOURLY_SUFFIX);
		exit(1);
	}
	return list;
}

/* ---------------------------------------------------------------- scoring */

enum
{
	M_GPUALLOC, M_SHAPED, M_SEASONAL, M_YESTERDAY, M_HW, M_DAILY_PEAK, N_METHODS
};

static const char *const method_names[N_METHODS] = {
	"gpualloc", "gpualloc_shaped", "seasonal_naive", "yesterday",
	"holt_winters", "daily_peak"
};

enum
{
	SPLIT_TUNE, SPLIT_TEST, N_SPLITS
};

static const char *const split_names[N_SPLITS] = {"tune", "test"};

/* The hours one method was scored on: actual, point, curve. */
typedef struct track
{
	int			n;
	int			cap;
	double	   *y;
	double	   *point;
	double	   *cover;
} track;

static void
track_add(track *t, double y, double point, double cover)
{
	if (t->n == t->cap)
	{
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->y = realloc(t->y, sizeof(double) * t->cap);
		t->point = realloc(t->point, sizeof(double) * t->cap);
		t->cover = realloc(t->cover, sizeof(double) * t->cap);
		if (t->y == NULL || t->point == NULL || t->cover == NULL)
			bench_die("memory", NULL);
	}
	t->y[t->n] = y;
	t->point[t->n] = point;
	t->cover[t->n] = cover;
	t->n++;
}

static void
track_free(track *t)
{
	free(t->y);
	free(t->point);
	free(t->cover);
	memset(t, 0, sizeof(*t));
}

static int
compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* The k-th smallest (1-based) of v[0 .. n), v sorted in place. */
static double
kth(double *v, int n, int k)
{
	qsort(v, n, sizeof(double), compare_double);
	return v[k < 1 ? 0 : (k > n ? n - 1 : k - 1)];
}

/* Held GPU-hours and coverage of curve c (+ add) x mul over the track. */
static void
held_of(const track *t, double add, double mul, double *held, double *cov)
{
	int			covered = 0;

	*held = 0;
	for (int i = 0; i < t->n; i++)
	{
		double		c = t->cover[i] * mul + add;

		*held += fmax(0.0, c - t->y[i]);
		covered += t->y[i] <= c + 1e-9;
	}
	*cov = t->n ? (double) covered / t->n : 0;
}

/*
 * The smallest additive and multiplicative margins that reach coverage
 * `target`, and the held GPU-hours of the better one.
 */
static void
matched(const track *t, double target, demand_result *r)
{
	double	   *v = malloc(sizeof(double) * (t->n ? t->n : 1));
	int			k = (int) ceil(target * t->n - 1e-9);
	double		add_held,
				add_cov,
				mul_held = INFINITY,
				mul_cov = 0;
	double		m;

	if (v == NULL)
		bench_die("memory", NULL);
	if (t->n == 0)
	{
		/* no hour scored: no margin reaches anything */
		r->matched_form = "add";
		r->held_matched = r->coverage_matched = NAN;
		free(v);
		return;
	}
	for (int i = 0; i < t->n; i++)
		v[i] = t->y[i] - t->cover[i];
	m = kth(v, t->n, k);
	held_of(t, m, 1, &add_held, &add_cov);
	for (int i = 0; i < t->n; i++)
		v[i] = t->cover[i] > 0 ? t->y[i] / t->cover[i] : (t->y[i] > 0 ? INFINITY : 0);
	m = kth(v, t->n, k);
	if (isfinite(m))
		held_of(t, 0, m, &mul_held, &mul_cov);
	r->matched_form = mul_held < add_held ? "mul" : "add";
	r->held_matched = fmin(add_held, mul_held);
	r->coverage_matched = mul_held < add_held ? mul_cov : add_cov;
	free(v);
}

static void
summarise(const track *t, demand_result *r)
{
	double		abs_err = 0;
	double		actual = 0;

	for (int i = 0; i < t->n; i++)
	{
		abs_err += fabs(t->y[i] - t->point[i]);
		actual += t->y[i];
	}
	r->hours = t->n;
	r->nominal = NOMINAL;
	r->wape = actual > 0 ? abs_err / actual : NAN;
	held_of(t, 0, 1, &r->held, &r->coverage);
	matched(t, NOMINAL, r);
}

/* ---------------------------------------------------------------- backtest */

static double
max_over(const series *s, int from, int to)
{
	double		m = 0;

	for (int i = from < 0 ? 0 : from; i < to; i++)
		if (!isnan(s->value[i]) && s->value[i] > m)
			m = s->value[i];
	return m;
}

/* The first origin (index) at midnight on or after index i. */
static int
midnight_at_or_after(const series *s, int i)
{
	int			off = (int) ((s->first_hour + i) % 24);

	return off == 0 ? i : i + 24 - off;
}

static int
split_origin(const series *s)
{
	return s->tuning ? midnight_at_or_after(s, s->n / 2) : 0;
}

/* Feed the model every hour in [from, to). */
static void
observe_range(ga_demand_model *model, const series *s, int from, int to)
{
	ga_error	err;

	for (int i = from; i < to; i++)
		if (!isnan(s->value[i]) &&
			ga_demand_model_observe(model, s->first_hour + i, s->value[i], &err) != GA_OK)
			bench_die("observe", &err);
}

/* The Holt-Winters peer: fitted on everything before the origin. */
static void
holt_winters_peer(const series *s, int origin, int h, double *out)
{
	double	   *y = malloc(sizeof(double) * origin);
	double		last = 0;
	ga_hw_params p = {0, 0, 0, 0, 24};
	ga_hw		hw;

	if (y == NULL)
		bench_die("memory", NULL);
	/* A missing hour repeats the one before (the filter needs every hour). */
	for (int i = 0; i < origin; i++)
		y[i] = last = isnan(s->value[i]) ? last : s->value[i];
	if (isnan(ga_hw_fit(y, origin, &p)))
		bench_die("holt-winters fit", NULL);
	ga_hw_init(&hw, &p);
	for (int i = 0; i < origin; i++)
		ga_hw_update(&hw, y[i]);
	for (int k = 0; k < h; k++)
		out[k] = ga_hw_forecast(&hw, k + 1);
	free(y);
}

/*
 * The forecaster's p50 and upper curve from one origin (without a churn
 * limit: the curve as forecast), and its shaped GPU curve (with one).
 */
static void
forecaster_origin(ga_demand_model *model, const series *s, int origin, int h,
				  double *p50, double *upper, int *shaped)
{
	int			churn = (int) ceil(0.25 * max_over(s, origin - WARMUP_HOURS, origin));
	ga_error	err;

	if (ga_demand_forecast(model, s->first_hour + origin, h, 60, NOMINAL, 1.0,
						   0, 0, 0, p50, upper, NULL, NULL, &err) != GA_OK ||
		ga_demand_forecast(model, s->first_hour + origin, h, 60, NOMINAL, 1.0,
						   churn < 1 ? 1 : churn, 0, 0, NULL, NULL, shaped,
						   NULL, &err) != GA_OK)
		bench_die("forecast", &err);
}

/* Score one origin's forecasts into the split's tracks. */
static void
score_origin(const series *s, int origin, int h, const double *p50,
			 const double *upper, const int *shaped, const double *hw,
			 track *tr)
{
	double		day_peak = max_over(s, origin - 24, origin);

	for (int k = 0; k < h; k++)
	{
		int			t = origin + k;
		double		y = s->value[t];
		double		week = s->value[t - 168];
		double		day = s->value[t - 24];

		if (isnan(y) || isnan(week) || isnan(day))
			continue;
		if (p50)
		{
			track_add(&tr[M_GPUALLOC], y, p50[k], upper[k]);
			track_add(&tr[M_SHAPED], y, p50[k], shaped[k]);
		}
		if (hw)
		{
			track_add(&tr[M_SEASONAL], y, week, week);
			track_add(&tr[M_YESTERDAY], y, day, day);
			track_add(&tr[M_HW], y, hw[k], hw[k]);
			track_add(&tr[M_DAILY_PEAK], y, day_peak, day_peak);
		}
	}
}

/*
 * Run the origins of s up to index stop (exclusive), the forecaster with
 * params p (NULL: skip it) and the peers when asked; tr[split][method].
 */
static void
backtest(const series *s, const ga_demand_params *p, bool peers, int stop,
		 track tr[N_SPLITS][N_METHODS])
{
	ga_demand_model *model = p ? ga_demand_model_create(p) : NULL;
	int			split = split_origin(s);
	int			seen = 0;

	if (p && model == NULL)
		bench_die("forecaster constants", NULL);
	for (int origin = midnight_at_or_after(s, WARMUP_HOURS); origin < stop; origin += HORIZON)
	{
		int			h = s->n - origin < HORIZON ? s->n - origin : HORIZON;
		double		p50[HORIZON];
		double		upper[HORIZON];
		int			shaped[HORIZON];
		double		hw[HORIZON];

		if (model)
		{
			observe_range(model, s, seen, origin);
			seen = origin;
			forecaster_origin(model, s, origin, h, p50, upper, shaped);
		}
		if (peers)
			holt_winters_peer(s, origin, h, hw);
		score_origin(s, origin, h, model ? p50 : NULL, upper, shaped,
					 peers ? hw : NULL, tr[origin < split ? SPLIT_TUNE : SPLIT_TEST]);
	}
	ga_demand_model_destroy(model);
}

static void
record(bench_results *res, const series *s, int split, int m, const track *t)
{
	demand_result *r;

	if (t->n == 0)
		return;
	if (res->n_demand == res->cap_demand)
	{
		res->cap_demand = res->cap_demand ? 2 * res->cap_demand : 64;
		res->demand = realloc(res->demand, sizeof(demand_result) * res->cap_demand);
		if (res->demand == NULL)
			bench_die("memory", NULL);
	}
	r = &res->demand[res->n_demand++];
	snprintf(r->series, sizeof(r->series), "%s", s->name);
	r->split = split_names[split];
	r->method = method_names[m];
	summarise(t, r);
}

/* ---------------------------------------------------------------- tuning */

/*
 * The tuning objective on one series' tuning split, lower is better: p50
 * WAPE over the better of seasonal naive and Holt-Winters, plus held
 * GPU-hours at matched coverage over the best peer's (the mean of the upper
 * curve's and the shaped curve's), plus 20 x the points by which coverage
 * misses NOMINAL beyond half a point (1.5 points off costs 0.2).
 */
typedef struct tune_peers
{
	double		best_wape;
	double		best_held;
	int			hours;			/* scored on the tuning split: 0 leaves the
								 * series out of the tuning */
} tune_peers;

static double
objective(const demand_result *r, const demand_result *shaped,
		  const tune_peers *peer, double *parts)
{
	parts[0] = r->wape / peer->best_wape;
	parts[1] = 0.5 * (r->held_matched + shaped->held_matched) / peer->best_held;
	parts[2] = 20 * fmax(0.0, fabs(r->coverage - NOMINAL) - 0.005);
	return parts[0] + parts[1] + parts[2];
}

static tune_peers
peers_on_tuning_split(const series *s)
{
	track		tr[N_SPLITS][N_METHODS];
	tune_peers	peer = {INFINITY, INFINITY, 0};

	memset(tr, 0, sizeof(tr));
	backtest(s, NULL, true, split_origin(s), tr);
	peer.hours = tr[SPLIT_TUNE][M_SEASONAL].n;
	for (int m = M_SEASONAL; m < N_METHODS; m++)
	{
		demand_result r;

		summarise(&tr[SPLIT_TUNE][m], &r);
		if (m == M_SEASONAL || m == M_HW)
			peer.best_wape = fmin(peer.best_wape, r.wape);
		peer.best_held = fmin(peer.best_held, r.held_matched);
		track_free(&tr[SPLIT_TUNE][m]);
	}
	return peer;
}

/* Mean objective of constants p over the tuning series. */
static double
evaluate(const series *all, int n, const tune_peers *peers,
		 const ga_demand_params *p, double *mean_parts)
{
	double		total = 0;
	int			used = 0;

	memset(mean_parts, 0, sizeof(double) * 3);
	for (int i = 0; i < n; i++)
	{
		track		tr[N_SPLITS][N_METHODS];
		demand_result r;
		demand_result shaped;
		double		parts[3];

		if (!all[i].tuning || peers[i].hours == 0)
			continue;
		memset(tr, 0, sizeof(tr));
		backtest(&all[i], p, false, split_origin(&all[i]), tr);
		summarise(&tr[SPLIT_TUNE][M_GPUALLOC], &r);
		summarise(&tr[SPLIT_TUNE][M_SHAPED], &shaped);
		total += objective(&r, &shaped, &peers[i], parts);
		for (int k = 0; k < 3; k++)
			mean_parts[k] += parts[k];
		used++;
		for (int m = 0; m < N_METHODS; m++)
			track_free(&tr[SPLIT_TUNE][m]);
	}
	for (int k = 0; k < 3; k++)
		mean_parts[k] /= used;
	return total / used;
}

/* One constant the search moves, over its candidate values. */
typedef struct tune_axis
{
	const char *name;
	int			n;
	double		values[8];
	void		(*set) (ga_demand_params *p, double v);
} tune_axis;

static void
set_blend_hours(ga_demand_params *p, double v)
{
	p->blend_hours = (int) v;
}

static void
set_upper_hours(ga_demand_params *p, double v)
{
	p->upper_hours = (int) v;
}

static void
set_residual_hours(ga_demand_params *p, double v)
{
	p->residual_hours = (int) v;
}

static void
set_residual_half_life(ga_demand_params *p, double v)
{
	p->residual_half_life = (int) v;
}

static void
set_floor_share(ga_demand_params *p, double v)
{
	p->floor_share = v;
}

static void
set_coverage_gain(ga_demand_params *p, double v)
{
	p->coverage_gain = v;
}

static void
set_coverage_hours(ga_demand_params *p, double v)
{
	p->coverage_hours = (int) v;
}

static void
set_coverage_span(ga_demand_params *p, double v)
{
	p->coverage_span = v;
}

static void
set_median_correction(ga_demand_params *p, double v)
{
	p->median_correction = v != 0;
}

static void
set_burst_lead(ga_demand_params *p, double v)
{
	p->burst_lead_hours = (int) v;
}

static void
set_shift_hours(ga_demand_params *p, double v)
{
	p->shift_hours = (int) v;
}

static void
set_shift_ratio(ga_demand_params *p, double v)
{
	p->shift_ratio = v;
}

/* Holt-Winters candidates: a slow and a fast one, or four. */
static void
set_hw_set(ga_demand_params *p, double v)
{
	static const ga_demand_hw bank[4] = {
		{0.2, 0.01, 0.1, 0.9}, {0.7, 0.02, 0.2, 0.9},
		{0.05, 0.01, 0.05, 0.95}, {0.95, 0.0, 0.1, 0.8}
	};

	p->n_hw = (int) v;
	for (int j = 0; j < p->n_hw; j++)
		p->hw[j] = bank[j];
}

static const tune_axis axes[] = {
	{"blend_hours", 5, {12, 24, 72, 168, 336}, set_blend_hours},
	{"upper_hours", 4, {168, 672, 2016, 8760}, set_upper_hours},
	{"residual_hours", 5, {168, 336, 672, 1344, 2016}, set_residual_hours},
	{"residual_half_life", 5, {24, 48, 72, 168, 336}, set_residual_half_life},
	{"floor_share", 6, {0.01, 0.03, 0.1, 0.3, 1, 3}, set_floor_share},
	{"median_correction", 2, {0, 1}, set_median_correction},
	{"coverage_gain", 5, {0, 0.002, 0.005, 0.02, 0.05}, set_coverage_gain},
	{"coverage_hours", 4, {24, 72, 168, 672}, set_coverage_hours},
	{"coverage_span", 4, {0.25, 0.5, 0.75, 1}, set_coverage_span},
	{"burst_lead_hours", 3, {0, 1, 2}, set_burst_lead},
	{"shift_hours", 5, {0, 8, 12, 18, 24}, set_shift_hours},
	{"shift_ratio", 4, {1.5, 2, 3, 4}, set_shift_ratio},
	{"hw_candidates", 2, {2, 4}, set_hw_set},
};

#define N_AXES ((int) (sizeof(axes) / sizeof(axes[0])))
#define TUNE_PASSES 3

/*
 * Coordinate descent from the defaults: each pass tries every value of
 * every axis with the others held, keeping the best; printed as it goes.
 */
static void
tune_forecaster(const series *all, int n)
{
	tune_peers *peers = calloc(n, sizeof(tune_peers));
	ga_demand_params best = ga_demand_params_default();
	double		parts[3];
	double		best_obj;
	int			n_tuning = 0;

	if (peers == NULL)
		bench_die("memory", NULL);
	for (int i = 0; i < n; i++)
		if (all[i].tuning)
		{
			peers[i] = peers_on_tuning_split(&all[i]);
			if (peers[i].hours > 0)
				n_tuning++;
			else
				fprintf(stderr, "bench_forecast --tune: %s: its first half holds no hour that could be "
						"scored; left out of the tuning\n", all[i].name);
		}
	if (n_tuning == 0)
	{
		fprintf(stderr, "bench_forecast --tune: no tuning series (%s or %s) with a first half to tune on "
				"in the data directory\n", GENAI_FILE, VENUS_FILE);
		exit(1);
	}
	best_obj = evaluate(all, n, peers, &best, parts);
	printf("start: objective %.4f (wape %.3f, held %.3f, coverage %.3f)\n",
		   best_obj, parts[0], parts[1], parts[2]);
	for (int pass = 0; pass < TUNE_PASSES; pass++)
		for (int a = 0; a < N_AXES; a++)
			for (int v = 0; v < axes[a].n; v++)
			{
				ga_demand_params p = best;
				double		obj;

				axes[a].set(&p, axes[a].values[v]);
				obj = evaluate(all, n, peers, &p, parts);
				printf("pass %d %-15s %-7g objective %.4f (wape %.3f, held %.3f, coverage %.3f)%s\n",
					   pass, axes[a].name, axes[a].values[v], obj, parts[0], parts[1],
					   parts[2], obj < best_obj - 1e-9 ? "  <- best" : "");
				fflush(stdout);
				if (obj < best_obj - 1e-9)
				{
					best_obj = obj;
					best = p;
				}
			}
	printf("\nchosen:");
	for (int a = 0; a < N_AXES; a++)
		for (int v = 0; v < axes[a].n; v++)
		{
			ga_demand_params p = best;

			axes[a].set(&p, axes[a].values[v]);
			if (memcmp(&p, &best, sizeof(p)) == 0)
			{
				printf(" %s=%g", axes[a].name, axes[a].values[v]);
				break;
			}
		}
	printf("\n");
	free(peers);
}

/* ---------------------------------------------------------------- entry */

static void
free_series(series *all, int n)
{
	for (int i = 0; i < n; i++)
		free(all[i].value);
	free(all);
}

void
bench_demand(const char *data_dir, bool tune, bench_results *res)
{
	series_list list = load_series(data_dir);
	series	   *all = list.s;
	int			n = list.n;
	ga_demand_params p = ga_demand_params_default();

	if (tune)
	{
		tune_forecaster(all, n);
		free_series(all, n);
		return;
	}
	for (int i = 0; i < n; i++)
	{
		track		tr[N_SPLITS][N_METHODS];
		int			before = res->n_demand;

		memset(tr, 0, sizeof(tr));
		backtest(&all[i], &p, true, all[i].n, tr);
		for (int split = 0; split < N_SPLITS; split++)
			for (int m = 0; m < N_METHODS; m++)
			{
				record(res, &all[i], split, m, &tr[split][m]);
				track_free(&tr[split][m]);
			}
		if (res->n_demand == before)
			fprintf(stderr, "bench_forecast: %s: no hour could be scored (an hour is scored when it, "
					"the same hour a day before and a week before all have rows); left out\n",
					all[i].name);
	}
	free_series(all, n);
	if (res->n_demand == 0)
	{
		fprintf(stderr, "bench_forecast: no hour of any series in %s could be scored\n", data_dir);
		exit(1);
	}
}
