/*
 * gen_scenarios.c — writes the benchmark scenarios (scenario format v1, see
 * docs/model.md, Scenario format) from fixed seeds and from the real traces in data/real.
 *
 *   gen_scenarios [--out DIR] [--data DIR] [--stats] [--seed-shift K [--all]]
 *
 * Scenarios 1-7 are synthetic: hourly service traffic with a daily and a
 * weekly shape and autocorrelated noise, three weeks of it before the window
 * so the weekly forecaster has something to learn; batch jobs drawn from
 * per-scenario templates whose true work comes from a cost model of this
 * file (FLOPs over sustained throughput, tokens over per-GPU throughput,
 * calibration tables) times a hidden log-normal factor, so the features
 * carry real information but never the exact answer; and a history.csv of
 * finished jobs drawn the same way for the duration estimators.  The cost
 * model here is deliberately not the estimators' own model: the estimators
 * have to learn the difference from history, as they would on a real
 * cluster.
 *
 * Scenarios 8-10 are built from data/real (see scenarios/README.md for the
 * mapping): a week of Microsoft Philly arrivals on a 64-GPU pool each, with
 * the Alibaba GenAI serving series (8, 9) or the SenseTime Venus GPU
 * requests (10) as the real-time service; 9 and 10 have bursts far larger
 * than the service's churn limit lets it follow in a step.
 *
 * Every random draw comes from a private splitmix64 stream seeded per
 * scenario, and everything printed is rounded, so the output is the same
 * byte for byte on every run.  --stats prints the offered load of each
 * scenario on stderr.  --seed-shift K (K > 0) writes only the scenarios
 * with tenant quotas, each drawn with its seed plus K: variants for tuning
 * constants on scenarios that are not the benchmark's own; with --all,
 * every synthetic scenario (01-07, 11-16) so drawn.  K is a whole number
 * from 1 to LONG_MAX, nothing after it.
 *
 * --data DIR holds the real traces (data/real/README.md).  A file that
 * cannot give its scenario what it takes stops that scenario with the
 * file's name and the rule: a Philly trace needs a week of arrivals from
 * trace day 14 on (09: a second, overlapping none); the GenAI series a row
 * for every hour of the fixed window and a positive hour before its end;
 * the Venus series a week from a Monday 00:00, its hours in a row after
 * four weeks of rows, with a positive 95th-percentile hour.
 */
#include "forecast/forecast_common.h"
#include "model/calendar.h"
#include "sim/csv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_JOBS 1024
/* longest --out or --data: paths under them are built in 1,024 bytes */
#define MAX_DIR_ARG 900
#define FEATURES_LEN 256

/* ------------------------------------------------------------------------
 * Random numbers: splitmix64, so the sequence never depends on the C
 * library's rand().
 */
typedef struct rng
{
	uint64_t	state;
} rng;

static uint64_t
rng_next(rng *r)
{
	uint64_t	z = (r->state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double
rng_uniform(rng *r)
{
	return (double) (rng_next(r) >> 11) * 0x1.0p-53;
}

static double
rng_normal(rng *r)
{
	double		u1 = 1.0 - rng_uniform(r);	/* (0, 1]: log is finite */
	double		u2 = rng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static double
rng_loguniform(rng *r, double lo, double hi)
{
	return exp(log(lo) + rng_uniform(r) * (log(hi) - log(lo)));
}

/* A factor with median 1 and log standard deviation sigma. */
static double
rng_factor(rng *r, double sigma)
{
	return exp(sigma * rng_normal(r));
}

static int
rng_pick(rng *r, const double *weights, int n)
{
	double		total = 0;
	double		x;

	for (int i = 0; i < n; i++)
		total += weights[i];
	x = rng_uniform(r) * total;
	for (int i = 0; i < n; i++)
	{
		if (x < weights[i])
			return i;
		x -= weights[i];
	}
	return n - 1;
}

/* ------------------------------------------------------------------------
 * Scenario description.
 */
typedef struct service_spec
{
	const char *name;
	int			priority;
	double		capacity_per_gpu;	/* requests per hour one GPU serves */
	int			churn_limit;
	int			min_gpus;
	int			max_gpus;
	double		trough_gpus;		/* weekday night level */
	double		peak_gpus;			/* weekday afternoon level */
	double		peak_hour;			/* hour of day (UTC) of the peak */
	double		weekend_factor;		/* weekend swing relative to weekdays */
	double		noise_sigma;		/* hour-to-hour log noise */
} service_spec;

typedef struct job_template
{
	double		weight;
	const char *kind;			/* training | batch_inference | quantization */
	const char *variant;		/* training: strategy_technique; quantization:
								 * algorithm; inference: NULL */
	double		params_lo;		/* model size range, billions (a model of */
	double		params_hi;		/* the size ladder below is picked) */
	double		tokens_lo;		/* millions, drawn log-uniform */
	double		tokens_hi;
	int			min_gpus;		/* the smallest block the user asks for */
	int			widen;			/* gpus_max = gpus_min << widen */
	int			priority;		/* 0: drawn from the scenario's mix */
} job_template;

typedef struct scenario_spec
{
	const char *dir;			/* also the scenario's name */
	const char *description;
	uint64_t	seed;
	const char *start;
	int			days;
	int			nodes;
	int			gpus_per_node;
	const service_spec *services;
	int			n_services;
	const job_template *templates;
	int			n_templates;
	int			n_jobs;			/* arrivals spread over the window */
	int			backlog;		/* jobs already queued at the start */
	const job_template *burst;	/* optional burst of arrivals */
	int			n_burst_templates;
	int			burst_jobs;
	double		burst_at_h;		/* hours after start */
	double		burst_len_h;
	bool		equal_priority;
	int			history_jobs;
	int			h100_nodes;		/* a second pool "h100" of these nodes: jobs
								 * get a first pool and an alternative
								 * (assign_pools); 0 = one pool */
} scenario_spec;

/* Demand history before the window: three weeks. */
#define HISTORY_DAYS 21

static const int priority_levels[] = {1, 2, 3, 5};

#define N_PRIORITY_LEVELS 4

/* Common open-weight model sizes, billions. */
static const double model_ladder[] = {1.5, 3, 7, 8, 13, 14, 32, 70, 72};

#define N_LADDER (int) (sizeof(model_ladder) / sizeof(model_ladder[0]))

typedef struct gen_job
{
	const char *kind;
	int			priority;
	int64_t		submit;
	int			gpus_min;
	int			gpus_max;
	double		work;			/* true GPU-hours */
	char		features[FEATURES_LEN];
	/* pipelines (scenario 11): generation numbers of the jobs it waits for */
	int			id;				/* its generation number */
	int			after_ok;		/* -1: none */
	int			after_any;		/* -1: none */
	double		time_limit_hours;	/* 0: none */
	const char *pool;			/* its first pool; NULL: the scenario's one */
	char		alt_pools[48];	/* the alt_pools column; "" = none */
	const char *tenant;			/* NULL: none (no tenant column) */
} gen_job;

/* ------------------------------------------------------------------------
 * The cost model that decides each job's true work.
 */
static double
pick_params(rng *r, double lo, double hi)
{
	double		options[N_LADDER];
	int			n = 0;

	for (int i = 0; i < N_LADDER; i++)
		if (model_ladder[i] >= lo && model_ladder[i] <= hi)
			options[n++] = model_ladder[i];
	if (n == 0)
		return lo;
	return options[(int) (rng_uniform(r) * n)];
}

/*
 * Training: about 6 FLOPs per parameter and token for a full update, more for
 * preference and RL techniques (extra forward passes and rollouts), less for
 * adapters; sustained at 36% of an A100's 312 bf16 TFLOP/s for models of 7B
 * and more, less for small models that cannot fill the GPU.
 */
static double
training_gpu_hours(const char *strategy, const char *technique,
				   double params_b, double tokens_m, double epochs)
{
	double		tech = 1.0;
	double		strat = 1.0;
	double		mfu = params_b >= 7 ? 0.36 : 0.26;

	if (strcmp(technique, "dpo") == 0)
		tech = 2.3;
	else if (strcmp(technique, "rlhf") == 0)
		tech = 5.5;
	else if (strcmp(technique, "rlvr") == 0)
		tech = 4.5;
	if (strcmp(strategy, "lora") == 0)
		strat = 0.70;
	else if (strcmp(strategy, "qlora") == 0)
		strat = 0.95;
	return 6.0 * params_b * 1e9 * tokens_m * 1e6 * epochs * tech * strat /
		(312e12 * mfu) / 3600.0;
}

/* Memory that must fit in the block, GB, against 80 GB GPUs. */
static int
memory_gpus(const char *kind, const char *strategy, double params_b)
{
	double		gb;

	if (strcmp(kind, "training") == 0)
	{
		if (strcmp(strategy, "full") == 0)
			gb = params_b * 18.0 + 10.0;	/* weights, gradients, Adam */
		else if (strcmp(strategy, "lora") == 0)
			gb = params_b * 2.0 + 12.0;
		else
			gb = params_b * 0.6 + 12.0;
		return ga_pow2_ceil(gb / 68.0);
	}
	if (strcmp(kind, "batch_inference") == 0)
		return ga_pow2_ceil((params_b * 2.4 + 8.0) / 72.0);	/* weights + KV */
	return ga_pow2_ceil(params_b * 2.2 / 72.0);
}

/* Calibration GPU-hours of a 7B model on an A100, per algorithm. */
static double
quant_base_hours(const char *algorithm)
{
	if (strcmp(algorithm, "awq") == 0)
		return 0.7;
	if (strcmp(algorithm, "gptq") == 0)
		return 1.2;
	return 0.12;
}

static void
make_job(rng *r, const job_template *t, int pool_gpus, gen_job *j)
{
	double		params = pick_params(r, t->params_lo, t->params_hi);
	char		strategy[16] = "";
	double		hidden;

	j->kind = t->kind;
	if (strcmp(t->kind, "training") == 0)
	{
		const char *us = strchr(t->variant, '_');
		double		tokens = rng_loguniform(r, t->tokens_lo, t->tokens_hi);
		int			epochs = 1;
		int			seq_len = rng_uniform(r) < 0.5 ? 2048 : 4096;

		snprintf(strategy, sizeof(strategy), "%.*s", (int) (us - t->variant), t->variant);
		/* Fine-tunes often take a few passes; pre-training and RL one. */
		if (strcmp(us + 1, "sft") == 0 || strcmp(us + 1, "dpo") == 0)
			epochs = 1 + (int) (rng_uniform(r) * 3);
		snprintf(j->features, FEATURES_LEN,
				 "strategy=%s;technique=%s;params_b=%g;tokens_m=%.0f;epochs=%d;seq_len=%d",
				 strategy, us + 1, params, tokens, epochs, seq_len);
		j->work = training_gpu_hours(strategy, us + 1, params, tokens, epochs);
		/* Data loading, restarts and stragglers the features do not show. */
		hidden = rng_factor(r, 0.30);
	}
	else if (strcmp(t->kind, "batch_inference") == 0)
	{
		double		tokens = rng_loguniform(r, t->tokens_lo, t->tokens_hi);
		double		tps = 11000.0 * pow(7.0 / params, 0.85);

		snprintf(j->features, FEATURES_LEN, "params_b=%g;tokens_m=%.0f", params, tokens);
		j->work = tokens * 1e6 / tps / 3600.0;
		/* Output lengths and batch fill vary from dataset to dataset. */
		hidden = rng_factor(r, 0.25);
	}
	else
	{
		snprintf(j->features, FEATURES_LEN, "params_b=%g;algorithm=%s", params, t->variant);
		j->work = quant_base_hours(t->variant) * pow(params / 7.0, 0.95);
		hidden = rng_factor(r, 0.30);
	}
	j->work = fmax(0.1, j->work * hidden);
	j->gpus_min = memory_gpus(t->kind, strategy, params);
	if (j->gpus_min < t->min_gpus)
		j->gpus_min = t->min_gpus;
	if (j->gpus_min > pool_gpus)
		j->gpus_min = pool_gpus;
	j->gpus_max = j->gpus_min << t->widen;
	if (j->gpus_max > pool_gpus)
		j->gpus_max = pool_gpus;
	j->priority = t->priority;
}

/* Most work is routine; a few jobs are urgent. */
static const double priority_weights[N_PRIORITY_LEVELS] = {0.35, 0.30, 0.20, 0.15};

static int
draw_priority(rng *r)
{
	return priority_levels[rng_pick(r, priority_weights, N_PRIORITY_LEVELS)];
}

/*
 * Relative arrival rate: submissions cluster in weekday working hours, with
 * a trickle at night and on weekends (scripts and sweeps).
 */
static double
arrival_rate(int64_t t)
{
	double		h = ga_minute_of_day(t) / 60.0;

	if (ga_day_of_week(t) >= 5)
		return 0.25;
	return h >= 8 && h < 19 ? 1.0 : 0.30;
}

/* ------------------------------------------------------------------------
 * Output.
 */
/* Directory path and its parents; false, saying which and why, if one cannot be made. */
static bool
make_dir(const char *path)
{
	char		buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
	{
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			break;				/* buf names it; the mkdir below fails alike */
		*p = '/';
	}
	if (mkdir(buf, 0755) == 0 || errno == EEXIST)
		return true;
	fprintf(stderr, "cannot create %s: %s\n", buf, strerror(errno));
	return false;
}

static FILE *
open_out(const char *dir, const char *file)
{
	char		path[1024];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (f == NULL)
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
	return f;
}

static bool
close_out(FILE *f)
{
	bool		ok = !ferror(f);

	return fclose(f) == 0 && ok;
}

static bool
write_scenario_csv(const char *dir, const char *name, const char *description,
				   int64_t start, int64_t end)
{
	FILE	   *f = open_out(dir, "scenario.csv");
	char		a[64],
				b[64];

	if (f == NULL)
		return false;
	ga_format_minutes(start, a, sizeof(a));
	ga_format_minutes(end, b, sizeof(b));
	fprintf(f, "key,value\n");
	fprintf(f, "name,%s\n", name);
	/* The description is free text: quote it, commas included. */
	fprintf(f, "description,\"%s\"\n", description);
	fprintf(f, "start,%s\nend,%s\n", a, b);
	fprintf(f, "step_minutes,30\nhorizon_hours,24\nreplan_minutes,30\n");
	fprintf(f, "penalty,8\nhalf_life_hours,12\n");
	return close_out(f);
}

/* The pool's nodes, then h100_nodes nodes of a second pool "h100". */
static bool
write_gpus_csv(const char *dir, const char *pool, int nodes, int per_node,
			   int h100_nodes)
{
	FILE	   *f = open_out(dir, "gpus.csv");

	if (f == NULL)
		return false;
	fprintf(f, "pool,node,gpus\n");
	for (int n = 0; n < nodes; n++)
		fprintf(f, "%s,node%02d,%d\n", pool, n + 1, per_node);
	for (int n = 0; n < h100_nodes; n++)
		fprintf(f, "h100,node%02d,%d\n", nodes + n + 1, per_node);
	return close_out(f);
}

static void
write_service_row(FILE *f, const service_spec *sv, const char *pool, int priority)
{
	fprintf(f, "%s,%s,%d,%g,%d,%d,%d\n", sv->name, pool, priority,
			sv->capacity_per_gpu, sv->churn_limit, sv->min_gpus, sv->max_gpus);
}

static int
cmp_submit(const void *a, const void *b)
{
	const gen_job *x = a;
	const gen_job *y = b;

	return (x->submit > y->submit) - (x->submit < y->submit);
}

/* The name the job of generation number id is written under ("" when none). */
static const char *
name_of(const gen_job *jobs, int n, int id, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; id >= 0 && i < n; i++)
		if (jobs[i].id == id)
			snprintf(buf, len, "j%03d", i + 1);
	return buf;
}

/*
 * With links, the optional columns after_ok, after_any and time_limit_hours
 * too; without, the nine columns of every other scenario, unchanged.  Jobs
 * with tenants (all or none) add the optional column tenant.
 */
static bool
write_jobs_csv(const char *dir, const char *pool, gen_job *jobs, int n, bool links)
{
	FILE	   *f = open_out(dir, "jobs.csv");
	char		ts[64];
	char		ok_name[16],
				any_name[16],
				limit[32];
	bool		alt = false;

	if (f == NULL)
		return false;
	/* A stable sort key: equal submit times keep their generation order. */
	for (int i = 1; i < n; i++)
	{
		gen_job		x = jobs[i];
		int			k = i - 1;

		while (k >= 0 && cmp_submit(&jobs[k], &x) > 0)
		{
			jobs[k + 1] = jobs[k];
			k--;
		}
		jobs[k + 1] = x;
	}
	for (int i = 0; i < n; i++)
		alt |= jobs[i].alt_pools[0] != '\0';
	fprintf(f, "job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features%s%s%s\n",
			links ? ",after_ok,after_any,time_limit_hours" : "", alt ? ",alt_pools" : "",
			n > 0 && jobs[0].tenant ? ",tenant" : "");
	for (int i = 0; i < n; i++)
	{
		ga_format_minutes(jobs[i].submit, ts, sizeof(ts));
		fprintf(f, "j%03d,%s,%s,%d,%s,%d,%d,%.2f,%s", i + 1, jobs[i].kind,
				jobs[i].pool != NULL ? jobs[i].pool : pool,
				jobs[i].priority, ts, jobs[i].gpus_min, jobs[i].gpus_max,
				jobs[i].work, jobs[i].features);
		if (links)
		{
			limit[0] = '\0';
			if (jobs[i].time_limit_hours > 0)
				snprintf(limit, sizeof(limit), "%.1f", jobs[i].time_limit_hours);
			fprintf(f, ",%s,%s,%s", name_of(jobs, n, jobs[i].after_ok, ok_name, sizeof(ok_name)),
					name_of(jobs, n, jobs[i].after_any, any_name, sizeof(any_name)), limit);
		}
		if (alt)
			fprintf(f, ",%s", jobs[i].alt_pools);
		if (jobs[0].tenant)
			fprintf(f, ",%s", jobs[i].tenant);
		fprintf(f, "\n");
	}
	return close_out(f);
}

/* ------------------------------------------------------------------------
 * Synthetic scenarios.
 */

/*
 * Weekday level: trough at night, a smooth peak in the afternoon; on
 * weekends the swing above the trough shrinks by weekend_factor.
 */
static double
service_level(const service_spec *sv, int64_t t)
{
	double		phase = 2.0 * M_PI * (ga_minute_of_day(t) / 60.0 - sv->peak_hour) / 24.0;
	double		shape = pow((1.0 + cos(phase)) / 2.0, 2.0);
	double		swing = (sv->peak_gpus - sv->trough_gpus) * shape;

	if (ga_day_of_week(t) >= 5)
		swing *= sv->weekend_factor;
	return sv->trough_gpus + swing;
}

static bool
write_synthetic_demand(const char *dir, const scenario_spec *s, rng *r,
					   int64_t start, int64_t end)
{
	FILE	   *f = open_out(dir, "demand.csv");
	char		ts[64];

	if (f == NULL)
		return false;
	fprintf(f, "service,ts,traffic\n");
	for (int i = 0; i < s->n_services; i++)
	{
		const service_spec *sv = &s->services[i];
		double		e = 0;

		for (int64_t t = start - HISTORY_DAYS * 1440; t < end; t += 60)
		{
			/* AR(1) noise: busy hours come in runs, as real traffic does. */
			e = 0.6 * e + sv->noise_sigma * rng_normal(r);
			ga_format_minutes(t, ts, sizeof(ts));
			fprintf(f, "%s,%s,%.1f\n", sv->name, ts,
					fmax(0.0, service_level(sv, t) * exp(e)) * sv->capacity_per_gpu);
		}
	}
	return close_out(f);
}

static void assign_tenants(const scenario_spec *s, gen_job *jobs, int n);
static bool write_tenants_csv(const char *dir, const char *name, const char *pool);
static bool write_reservations_csv(const char *dir, const char *name, const char *pool,
								   int64_t start);
static bool write_windows_csv(const char *dir, const char *name, const char *pool,
							  int64_t start);

static bool
write_synthetic_history(const char *dir, const scenario_spec *s, rng *r, int pool_gpus)
{
	FILE	   *f = open_out(dir, "history.csv");
	double		weights[32];
	int			n_all = s->n_templates + s->n_burst_templates;
	const job_template *all[32];

	if (f == NULL)
		return false;
	/* Burst kinds have history too: the cluster has run them before. */
	for (int i = 0; i < s->n_templates; i++)
	{
		all[i] = &s->templates[i];
		weights[i] = s->templates[i].weight;
	}
	for (int i = 0; i < s->n_burst_templates; i++)
	{
		all[s->n_templates + i] = &s->burst[i];
		weights[s->n_templates + i] = s->burst[i].weight;
	}
	fprintf(f, "job,kind,pool,gpus,features,actual_hours\n");
	for (int i = 0; i < s->history_jobs; i++)
	{
		gen_job		j;
		int			gpus;

		make_job(r, all[rng_pick(r, weights, n_all)], pool_gpus, &j);
		/* It ran on some block between its minimum and maximum. */
		gpus = j.gpus_min;
		while (gpus < j.gpus_max && rng_uniform(r) < 0.5)
			gpus <<= 1;
		fprintf(f, "h%03d,%s,a100,%d,%s,%.3f\n", i + 1, j.kind, gpus, j.features,
				j.work / gpus);
	}
	return close_out(f);
}

/* ------------------------------------------------------------------------
 * Input: CSV files read with the scenario reader's own CSV reader
 * (sim/csv.h), so the traces and the generator's output are read by the
 * rules of the scenario format and a bad field is reported with its file,
 * line and column.  Times everywhere are minutes since 1970-01-01 00:00
 * UTC, parsed and formatted by the core's calendar (model/calendar.h), so
 * what is written is what the reader reads.
 */
typedef ga_status (*row_fn) (const ga_csv_reader *r, const ga_csv_columns *cols,
							 void *arg, ga_error *err);

/*
 * Find the n named columns of dir/name (path name itself when dir is NULL)
 * and hand every row to fn; false, with the error printed, on any problem.
 */
static bool
read_rows(const char *dir, const char *name, const char *const *names, int n,
		  row_fn fn, void *arg)
{
	ga_csv_reader r;
	ga_csv_columns cols;
	ga_error	err;
	ga_status	rc;
	int			row = 0;

	rc = ga_csv_open(&r, dir, name, false, NULL, &err);
	if (rc == GA_OK)
	{
		rc = ga_csv_header(&r, &cols, names, n, &err);
		while (rc == GA_OK && (row = ga_csv_next(&r, &err)) > 0)
			rc = fn(&r, &cols, arg, &err);
		if (rc == GA_OK && row < 0)
			rc = GA_EINVAL;
		ga_csv_close(&r);
	}
	if (rc != GA_OK)
		fprintf(stderr, "%s\n", err.message);
	return rc == GA_OK;
}

/*
 * Offered load of a scenario, for tuning and for the README: batch work
 * against the pool's GPU-hours, and the services' demand in GPUs (traffic
 * over capacity, rounded up per hour) read back from what was written.
 */
typedef struct load_stats
{
	int64_t		start;
	int64_t		end;
	int			n_sv;
	char		names[8][64];
	double		caps[8];
	double		demand;			/* GPU-hours over the window */
	double		peak;
} load_stats;

static ga_status
stats_service(const ga_csv_reader *r, const ga_csv_columns *cols, void *arg,
			  ga_error *err)
{
	load_stats *st = arg;

	if (st->n_sv >= 8)
		return GA_OK;
	if (ga_csv_name(r, cols, 0, st->names[st->n_sv], sizeof(st->names[0]), err) != GA_OK ||
		ga_csv_number(r, cols, 1, &st->caps[st->n_sv], err) != GA_OK)
		return GA_EINVAL;
	st->n_sv++;
	return GA_OK;
}

static ga_status
stats_demand(const ga_csv_reader *r, const ga_csv_columns *cols, void *arg,
			 ga_error *err)
{
	load_stats *st = arg;
	int64_t		t;
	double		traffic;

	if (ga_csv_minutes(r, cols, 1, &t, err) != GA_OK ||
		ga_csv_number(r, cols, 2, &traffic, err) != GA_OK)
		return GA_EINVAL;
	if (t < st->start || t >= st->end)
		return GA_OK;
	for (int s = 0; s < st->n_sv; s++)
		if (strcmp(st->names[s], ga_csv_field(r, cols, 0)) == 0)
		{
			double		gpus = ceil(traffic / st->caps[s] - 1e-9);

			st->demand += gpus;
			st->peak = fmax(st->peak, gpus);
		}
	return GA_OK;
}

static void
print_stats(const char *dir, const char *name, int pool_gpus, int64_t start,
			int64_t end, const gen_job *jobs, int n)
{
	static const char *const service_cols[] = {"service", "capacity_per_gpu"};
	static const char *const demand_cols[] = {"service", "ts", "traffic"};
	load_stats	st = {.start = start, .end = end};
	double		work = 0;
	double		hours = (double) (end - start) / 60.0;

	for (int i = 0; i < n; i++)
		work += jobs[i].work;
	if (!read_rows(dir, "services.csv", service_cols, 2, stats_service, &st) ||
		!read_rows(dir, "demand.csv", demand_cols, 3, stats_demand, &st))
		return;
	fprintf(stderr, "%-20s jobs %3d  batch work %6.0f GPU-h  service %5.0f GPU-h (peak %2.0f)  "
			"capacity %6.0f GPU-h  load %.2f\n",
			name, n, work, st.demand, st.peak, pool_gpus * hours,
			(work + st.demand) / (pool_gpus * hours));
}

/*
 * A synthetic scenario's directory with everything but its jobs and
 * history: scenario.csv, gpus.csv, services.csv and demand.csv.
 */
static bool
write_synthetic_cluster(const char *out, const scenario_spec *s, char *dir,
						size_t dir_len, int64_t *start, int64_t *end)
{
	rng			r_demand = {s->seed * 4 + 1};
	FILE	   *f;
	bool		ok = true;

	if (ga_parse_minutes(s->start, start, NULL) != GA_OK)
		return false;
	*end = *start + (int64_t) s->days * 1440;
	snprintf(dir, dir_len, "%s/%s", out, s->dir);
	if (!make_dir(dir))
	{
		fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
		return false;
	}
	ok &= write_scenario_csv(dir, s->dir, s->description, *start, *end);
	ok &= write_gpus_csv(dir, "a100", s->nodes, s->gpus_per_node, s->h100_nodes);

	f = open_out(dir, "services.csv");
	if (f == NULL)
		return false;
	fprintf(f, "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n");
	for (int i = 0; i < s->n_services; i++)
		write_service_row(f, &s->services[i], "a100",
						  s->equal_priority ? 1 : s->services[i].priority);
	ok &= close_out(f);
	ok &= write_synthetic_demand(dir, s, &r_demand, *start, *end);
	return ok;
}

/*
 * Two pools (scenario 13): an H100 runs a job H100_SPEEDUP_LO to _HI times
 * as fast as an A100 (drawn per job, log-uniform).  Half the jobs prefer
 * h100 (their work is written in H100 GPU-hours, the A100 alternative a
 * factor above 1), the rest a100 (the H100 alternative a factor below 1);
 * ONE_POOL_SHARE of them name no alternative, and a job too wide for the
 * h100 pool stays on a100 alone.  The draws come from their own stream, so
 * the jobs themselves are those of the same spec on one pool.
 */
#define H100_SPEEDUP_LO 1.6
#define H100_SPEEDUP_HI 2.6
#define ONE_POOL_SHARE 0.15

static void
assign_pools(const scenario_spec *s, gen_job *jobs, int n)
{
	rng			r = {s->seed * 4 + 4};
	int			h100_gpus = s->h100_nodes * s->gpus_per_node;

	for (int i = 0; i < n; i++)
	{
		gen_job    *j = &jobs[i];
		double		speedup = rng_loguniform(&r, H100_SPEEDUP_LO, H100_SPEEDUP_HI);
		bool		prefers_h100 = rng_uniform(&r) < 0.5;
		bool		one_pool = rng_uniform(&r) < ONE_POOL_SHARE;

		j->pool = "a100";
		if (j->gpus_min > h100_gpus)
			continue;
		if (prefers_h100)
		{
			j->pool = "h100";
			j->work /= speedup;
			if (!one_pool)
				snprintf(j->alt_pools, sizeof(j->alt_pools), "a100:%.3f", speedup);
		}
		else if (!one_pool)
			snprintf(j->alt_pools, sizeof(j->alt_pools), "h100:%.3f", 1 / speedup);
	}
}

static bool
generate_synthetic(const char *out, const scenario_spec *s, bool stats)
{
	char		dir[1024];
	int			pool_gpus = s->nodes * s->gpus_per_node;
	int64_t		start,
				end;
	rng			r_jobs = {s->seed * 4 + 2};
	rng			r_hist = {s->seed * 4 + 3};
	gen_job    *jobs;
	int			n = 0;
	double		weights[32];
	bool		ok = write_synthetic_cluster(out, s, dir, sizeof(dir), &start, &end);

	if (!ok)
		return false;
	jobs = calloc(MAX_JOBS, sizeof(gen_job));
	if (jobs == NULL)
		return false;
	for (int i = 0; i < s->n_templates; i++)
		weights[i] = s->templates[i].weight;
	for (int i = 0; i < s->backlog + s->n_jobs && n < MAX_JOBS; i++)
	{
		gen_job    *j = &jobs[n++];
		int			prio;

		make_job(&r_jobs, &s->templates[rng_pick(&r_jobs, weights, s->n_templates)],
				 pool_gpus, j);
		/* Drawn for every job, so equal-priority variants keep the same jobs. */
		prio = draw_priority(&r_jobs);
		if (j->priority == 0)
			j->priority = prio;
		if (i < s->backlog)
			j->submit = start;
		else
		{
			/* Thinning: uniform times accepted with the relative rate. */
			int64_t		t;

			do
				t = start + (int64_t) (rng_uniform(&r_jobs) * (double) (end - start - 120));
			while (rng_uniform(&r_jobs) >= arrival_rate(t));
			j->submit = t;
		}
	}
	for (int i = 0; i < s->burst_jobs && n < MAX_JOBS; i++)
	{
		gen_job    *j = &jobs[n++];
		double		bw[32];
		int			prio;

		for (int k = 0; k < s->n_burst_templates; k++)
			bw[k] = s->burst[k].weight;
		make_job(&r_jobs, &s->burst[rng_pick(&r_jobs, bw, s->n_burst_templates)],
				 pool_gpus, j);
		prio = draw_priority(&r_jobs);
		if (j->priority == 0)
			j->priority = prio;
		j->submit = start + (int64_t) ((s->burst_at_h + rng_uniform(&r_jobs) * s->burst_len_h) * 60.0);
	}
	if (s->equal_priority)
		for (int i = 0; i < n; i++)
			jobs[i].priority = 1;
	if (s->h100_nodes > 0)
		assign_pools(s, jobs, n);
	assign_tenants(s, jobs, n);
	ok &= write_jobs_csv(dir, "a100", jobs, n, false);
	ok &= write_synthetic_history(dir, s, &r_hist, pool_gpus);
	ok &= write_windows_csv(dir, s->dir, "a100", start);
	ok &= write_reservations_csv(dir, s->dir, "a100", start);
	ok &= write_tenants_csv(dir, s->dir, "a100");
	if (stats)
		print_stats(dir, s->dir, pool_gpus + s->h100_nodes * s->gpus_per_node, start, end, jobs, n);
	free(jobs);
	return ok;
}

/* ------------------------------------------------------------------------
 * The scenario set.  Capacities are requests per GPU-hour; levels are in
 * GPUs, so a level of 6 with capacity 400 is 2400 requests an hour.
 */

/* (1) training-heavy, 8 GPUs: a chat service with a high peak and a low night. */
static const service_spec s1_services[] = {
	{"chat", 4, 400, 2, 1, 8, 1.3, 5.3, 14, 0.6, 0.05},
};
static const job_template s1_jobs[] = {
	{0.35, "training", "lora_sft", 7, 14, 40, 250, 1, 2, 0},
	{0.15, "training", "qlora_sft", 32, 72, 10, 50, 1, 1, 0},
	{0.20, "training", "full_sft", 1.5, 7, 60, 400, 1, 2, 0},
	{0.15, "training", "lora_dpo", 7, 8, 20, 120, 1, 2, 0},
	{0.10, "training", "lora_rlvr", 7, 8, 5, 25, 1, 2, 0},
	{0.05, "batch_inference", NULL, 7, 8, 300, 2000, 1, 2, 0},
};

/* (2) mixed control, 8 GPUs, all four kinds. */
static const service_spec s2_services[] = {
	{"chat", 4, 400, 2, 1, 6, 0.9, 3.2, 14, 0.6, 0.08},
};
static const job_template s2_jobs[] = {
	{0.25, "training", "lora_sft", 7, 14, 40, 230, 1, 2, 0},
	{0.15, "training", "full_sft", 1.5, 8, 60, 380, 1, 1, 0},
	{0.05, "training", "lora_dpo", 7, 8, 19, 120, 1, 1, 0},
	{0.30, "batch_inference", NULL, 7, 72, 120, 1150, 1, 2, 0},
	{0.25, "quantization", "awq", 7, 72, 0, 0, 1, 0, 0},
};

/* (3) a quantization burst over steady training. */
static const service_spec s3_services[] = {
	{"chat", 4, 400, 2, 1, 6, 0.9, 3.0, 14, 0.6, 0.08},
};
static const job_template s3_jobs[] = {
	{0.45, "training", "lora_sft", 7, 14, 40, 230, 1, 2, 0},
	{0.25, "training", "full_sft", 3, 8, 50, 300, 1, 1, 0},
	{0.15, "training", "lora_dpo", 7, 14, 15, 100, 1, 1, 0},
	{0.15, "batch_inference", NULL, 7, 14, 80, 500, 1, 2, 0},
};
static const job_template s3_burst[] = {
	{0.45, "quantization", "awq", 7, 72, 0, 0, 1, 0, 5},
	{0.35, "quantization", "gptq", 7, 72, 0, 0, 1, 0, 5},
	{0.20, "quantization", "bitsandbytes", 7, 72, 0, 0, 1, 0, 3},
};

/* (4) batch-inference heavy, two services with different daily phases. */
static const service_spec s4_services[] = {
	{"chat", 4, 400, 2, 1, 5, 0.7, 2.6, 14, 0.6, 0.08},
	{"code", 4, 250, 1, 0, 4, 0.2, 2.0, 10, 0.3, 0.10},
};
static const job_template s4_jobs[] = {
	{0.40, "batch_inference", NULL, 7, 14, 210, 2080, 1, 3, 0},
	{0.30, "batch_inference", NULL, 32, 72, 80, 630, 1, 2, 0},
	{0.20, "training", "lora_sft", 7, 14, 40, 250, 1, 2, 0},
	{0.10, "quantization", "gptq", 7, 32, 0, 0, 1, 0, 0},
};

/* (5) large power-of-two shapes on 16 GPUs: 8-GPU blocks among small jobs. */
static const service_spec s5_services[] = {
	{"chat", 4, 400, 2, 1, 8, 1.0, 4.0, 14, 0.6, 0.07},
};
static const job_template s5_jobs[] = {
	{0.20, "training", "full_cpt", 7, 8, 350, 1160, 8, 1, 0},
	{0.15, "training", "full_sft", 13, 14, 70, 350, 4, 1, 0},
	{0.35, "training", "lora_sft", 7, 14, 20, 120, 1, 1, 0},
	{0.20, "batch_inference", NULL, 7, 14, 70, 470, 1, 1, 0},
	{0.10, "quantization", "awq", 7, 32, 0, 0, 1, 0, 0},
};

/*
 * (6) scale under contention: 64 GPUs, 30 jobs, two services.  At this size
 * a few jobs carry most of the work, so the mix is built around them: long
 * continued pre-training on 16-32 GPUs and 70B full fine-tunes that need a
 * 32-GPU block (they may ask for all 64, which the services never leave
 * free), beside mid-size fine-tunes and the shorter batch inference and
 * quantization that can fill the gaps they leave.  The token ranges set the
 * batch work so that, with the services, the offered load is 1.35, as
 * contended as scenarios 1-5.  The services swing daily (chat 3 to 12 GPUs,
 * code 1 to 6): reserving the daily peak, about 21 GPUs, idles half of it
 * on average and some 17 GPUs every night, while the large jobs compete
 * for the one aligned 32-GPU block left below it.
 */
static const service_spec s6_services[] = {
	{"chat", 4, 400, 4, 2, 24, 3.0, 12.0, 14, 0.6, 0.06},
	{"code", 4, 250, 2, 1, 12, 1.0, 6.0, 10, 0.3, 0.08},
};
static const job_template s6_jobs[] = {
	{0.20, "training", "full_cpt", 7, 14, 2000, 6000, 16, 1, 0},
	{0.10, "training", "full_sft", 70, 72, 50, 200, 32, 1, 0},
	{0.13, "training", "full_sft", 13, 32, 100, 500, 8, 1, 0},
	{0.17, "training", "lora_sft", 32, 72, 80, 400, 4, 2, 0},
	{0.25, "batch_inference", NULL, 32, 72, 150, 1000, 8, 1, 0},
	{0.15, "quantization", "gptq", 32, 72, 0, 0, 4, 0, 0},
};

static const scenario_spec scenarios[] = {
	{"01_training_heavy",
		"8 GPUs; a chat service needing about 6 GPUs in the afternoon and 2 at night; "
		"plentiful training work of 1-8 GPUs. Stresses the static reservation of the daily peak.",
		101, "2026-03-02 00:00", 4, 1, 8, s1_services, 1, s1_jobs, 6, 30, 4,
	NULL, 0, 0, 0, 0, false, 60, 0},
	{"02_mixed",
		"8 GPUs; one chat service; training, batch inference and quantization mixed. "
		"The control: moderate contention of every kind.",
		202, "2026-03-02 00:00", 4, 1, 8, s2_services, 1, s2_jobs, 5, 34, 3,
	NULL, 0, 0, 0, 0, false, 60, 0},
	{"03_quant_burst",
		"8 GPUs; steady training and batch inference, then 14 quantization jobs of a new "
		"model release within 3 hours on day 2. Stresses short urgent jobs behind long "
		"non-preemptible ones.",
		303, "2026-03-02 00:00", 4, 1, 8, s3_services, 1, s3_jobs, 4, 22, 3,
	s3_burst, 3, 14, 34, 3, false, 60, 0},
	{"04_inference_heavy",
		"8 GPUs; two services with different daily phases; mostly batch inference with "
		"wide size ranges. Stresses size choice and packing around two demand curves.",
		404, "2026-03-02 00:00", 4, 1, 8, s4_services, 2, s4_jobs, 4, 30, 3,
	NULL, 0, 0, 0, 0, false, 60, 0},
	{"05_large_shapes",
		"16 GPUs (2 nodes); 8- and 16-GPU continued pre-training and 4-GPU fine-tunes "
		"among many 1-2 GPU jobs. Stresses aligned-block fragmentation.",
		505, "2026-03-02 00:00", 4, 2, 8, s5_services, 1, s5_jobs, 5, 34, 3,
	NULL, 0, 0, 0, 0, false, 60, 0},
	{"06_scale_64",
		"64 GPUs (8 nodes); two services with a daily swing; 30 jobs over 3 days: "
		"continued pre-training on 16-32 GPUs and 70B fine-tunes on 32-64 among 4-32 GPU "
		"fine-tunes, batch inference and quantization. Stresses large aligned blocks, "
		"priorities and the services' idle nights under contention at scale.",
		606, "2026-03-02 00:00", 3, 8, 8, s6_services, 2, s6_jobs, 6, 26, 4,
	NULL, 0, 0, 0, 0, false, 60, 0},
	{"07_equal_priority",
		"Scenario 2 with every priority (jobs and service) equal to 1. "
		"Isolates packing and reservation from priority ordering.",
		202, "2026-03-02 00:00", 4, 1, 8, s2_services, 1, s2_jobs, 5, 34, 3,
	NULL, 0, 0, 0, 0, true, 60, 0},
	{"12_maintenance",
		"16 GPUs (2 nodes); one chat service; training, batch inference and quantization; "
		"node02 closed for maintenance 8 hours on day 2 and the whole pool 2 hours on day 3. "
		"Stresses draining ahead of a window without leaving the GPUs idle long before it.",
		1212, "2026-03-02 00:00", 4, 2, 8, s5_services, 1, s2_jobs, 5, 58, 4,
	NULL, 0, 0, 0, 0, false, 60, 0},
	{"13_two_pools",
		"24 GPUs: an A100 pool of 16 (2 nodes) with one chat service and an H100 pool of 8 "
		"(1 node); training, batch inference and quantization, half preferring each pool, "
		"85% of them runnable on the other too (alt_pools) at 1.6-2.6 times the A100's "
		"speed on H100. Stresses choosing each job's pool and size.",
		1313, "2026-03-02 00:00", 4, 2, 8, s5_services, 1, s2_jobs, 5, 116, 8,
	NULL, 0, 0, 0, 0, false, 60, 1},
	{"14_reservations",
		"Scenario 12's cluster, service and job mix (another draw) with its two maintenance "
		"windows, jobs of two tenants, and node01 reserved for tenant vision 12 hours on day 3. "
		"Stresses keeping other work off a reservation and starting its tenant's queued jobs "
		"as soon as it opens.",
		1414, "2026-03-02 00:00", 4, 2, 8, s5_services, 1, s2_jobs, 5, 58, 4,
	NULL, 0, 0, 0, 0, false, 60, 0},
	{"15_tenant_flood",
		"16 GPUs (2 nodes); one chat service; scenario 12's job mix, more of it, from three "
		"tenants with 4 GPUs guaranteed each in one cohort (tenants.csv): tenant flood submits "
		"ten times the others' work. Stresses keeping the others' guarantees theirs while the "
		"flood borrows what they leave idle.",
		1515, "2026-03-02 00:00", 4, 2, 8, s5_services, 1, s2_jobs, 5, 96, 8,
	NULL, 0, 0, 0, 0, false, 60, 0},
	{"16_idle_guarantee",
		"16 GPUs (2 nodes); one chat service; scenario 12's job mix from three tenants of one "
		"cohort (tenants.csv): tenant night, guaranteed 8 GPUs, submits only from 12:00 to "
		"24:00 and about half of what its guarantee runs in an afternoon, so its guarantee "
		"sits idle every morning while vision and speech (3 GPUs each, submitting all day) "
		"borrow it. Stresses borrowing that never keeps a lender from its guarantee.",
		1616, "2026-03-02 00:00", 4, 2, 8, s5_services, 1, s2_jobs, 5, 70, 4,
	NULL, 0, 0, 0, 0, false, 60, 0},
};

#define N_SCENARIOS (int) (sizeof(scenarios) / sizeof(scenarios[0]))

/*
 * (11) pipelines, 8 GPUs, one chat service: each pipeline is a
 * fine-tune, then a quantization of the result that runs only if the
 * fine-tune succeeded (after_ok), then a batch evaluation of the quantized
 * model (after_ok on the quantization); a few evaluations of the base model
 * wait for the fine-tune however it ends (after_any).  The fine-tunes carry
 * a time limit, as Slurm users set one: twice their true run for most, and
 * below it for one in six, which are stopped at the limit and take their
 * after_ok successors with them.  Independent fine-tunes and batch jobs
 * arrive among the pipelines.
 */
static const service_spec s11_services[] = {
	{"chat", 4, 400, 2, 1, 8, 1.0, 4.0, 14, 0.6, 0.07},
};
static const job_template s11_train[] = {
	{0.6, "training", "lora_sft", 7, 14, 30, 200, 2, 1, 0},
	{0.4, "training", "full_sft", 7, 8, 40, 250, 4, 1, 0},
};
static const job_template s11_quant[] = {
	{0.6, "quantization", "awq", 7, 14, 0, 0, 1, 0, 0},
	{0.4, "quantization", "gptq", 7, 14, 0, 0, 1, 0, 0},
};
static const job_template s11_eval[] = {
	{1.0, "batch_inference", NULL, 7, 14, 80, 600, 1, 2, 0},
};
static const job_template s11_other[] = {
	{0.5, "training", "lora_sft", 7, 14, 40, 250, 1, 2, 0},
	{0.5, "batch_inference", NULL, 7, 72, 100, 900, 1, 2, 0},
};
/* what the cluster ran before the window: every kind of the scenario */
static const job_template s11_history[] = {
	{0.3, "training", "lora_sft", 7, 14, 30, 250, 1, 1, 0},
	{0.2, "training", "full_sft", 7, 8, 40, 250, 4, 1, 0},
	{0.2, "quantization", "awq", 7, 14, 0, 0, 1, 0, 0},
	{0.1, "quantization", "gptq", 7, 14, 0, 0, 1, 0, 0},
	{0.2, "batch_inference", NULL, 7, 72, 80, 900, 1, 2, 0},
};
static const scenario_spec s11_spec = {
	"11_pipelines",
	"8 GPUs; one chat service; 14 pipelines of fine-tune, then quantization "
	"(after_ok), then batch evaluation (after_ok), some with an evaluation of the base model "
	"after the fine-tune (after_any), fine-tunes with a time limit; 16 independent jobs. "
	"Stresses chains planned across the horizon and jobs stopped at their limit.",
	1111, "2026-03-02 00:00", 4, 1, 8, s11_services, 1, s11_other, 2, 16, 0,
	s11_history, 5, 0, 0, 0, false, 60, 0
};

#define S11_PIPELINES 14

static gen_job *
add_gen_job(rng *r, const job_template *t, int n_t, int pool_gpus, gen_job *jobs, int *n)
{
	double		w[8];
	gen_job    *j = &jobs[*n];

	for (int k = 0; k < n_t; k++)
		w[k] = t[k].weight;
	make_job(r, &t[rng_pick(r, w, n_t)], pool_gpus, j);
	j->priority = draw_priority(r);
	j->id = (*n)++;
	j->after_ok = j->after_any = -1;
	return j;
}

/* One pipeline submitted at `at`: its jobs a minute apart, in order. */
static void
add_pipeline(rng *r, int64_t at, int pool_gpus, gen_job *jobs, int *n)
{
	gen_job    *train = add_gen_job(r, s11_train, 2, pool_gpus, jobs, n);
	gen_job    *quant;
	gen_job    *eval;
	double		run = train->work / train->gpus_max;

	train->submit = at;
	/* a limit from the user's guess: twice the run, or short of it */
	train->time_limit_hours = ceil((rng_uniform(r) < 1.0 / 6 ? 0.7 : 2.0) * run * 10) / 10;
	quant = add_gen_job(r, s11_quant, 2, pool_gpus, jobs, n);
	quant->submit = at + 1;
	quant->priority = train->priority;
	quant->after_ok = train->id;
	eval = add_gen_job(r, s11_eval, 1, pool_gpus, jobs, n);
	eval->submit = at + 2;
	eval->priority = train->priority;
	eval->after_ok = quant->id;
	if (rng_uniform(r) < 0.4)
	{
		gen_job    *base = add_gen_job(r, s11_eval, 1, pool_gpus, jobs, n);

		base->submit = at + 3;
		base->priority = train->priority;
		base->after_any = train->id;
	}
}

static bool
generate_pipelines(const char *out, const scenario_spec *s, bool stats)
{
	char		dir[1024];
	int			pool_gpus = s->nodes * s->gpus_per_node;
	int64_t		start,
				end;
	rng			r_jobs = {s->seed * 4 + 2};
	rng			r_hist = {s->seed * 4 + 3};
	gen_job    *jobs;
	int			n = 0;
	bool		ok = write_synthetic_cluster(out, s, dir, sizeof(dir), &start, &end);

	if (!ok || (jobs = calloc(MAX_JOBS, sizeof(gen_job))) == NULL)
		return false;
	/* pipelines over the first three days, the backlog's two at the start */
	for (int i = 0; i < S11_PIPELINES; i++)
		add_pipeline(&r_jobs, i < 2 ? start : start + (int64_t) (rng_uniform(&r_jobs) * 3 * 1440),
					 pool_gpus, jobs, &n);
	for (int i = 0; i < s->n_jobs; i++)
	{
		gen_job    *j = add_gen_job(&r_jobs, s11_other, 2, pool_gpus, jobs, &n);

		j->submit = start + (int64_t) (rng_uniform(&r_jobs) * (double) (end - start - 120));
	}
	ok &= write_jobs_csv(dir, "a100", jobs, n, true);
	ok &= write_synthetic_history(dir, s, &r_hist, pool_gpus);
	if (stats)
		print_stats(dir, s->dir, pool_gpus, start, end, jobs, n);
	free(jobs);
	return ok;
}

/*
 * Maintenance windows of the synthetic scenarios (windows.csv): GPUs
 * [first_gpu, first_gpu + gpus) of the pool, closed from start_h to end_h
 * hours after the window's start.
 */
typedef struct window_spec
{
	const char *dir;
	int			first_gpu;
	int			gpus;
	double		start_h;
	double		end_h;
} window_spec;

static const window_spec maintenance[] = {
	{"12_maintenance", 8, 8, 32, 40},	/* node02, Tuesday 08:00-16:00 */
	{"12_maintenance", 0, 16, 50, 52},	/* the pool, Wednesday 02:00-04:00 */
	{"14_reservations", 8, 8, 32, 40},	/* as in 12 */
	{"14_reservations", 0, 16, 50, 52},
};

#define N_MAINTENANCE (int) (sizeof(maintenance) / sizeof(maintenance[0]))

/* windows.csv of a synthetic scenario, when it has maintenance windows. */
static bool
write_windows_csv(const char *dir, const char *name, const char *pool, int64_t start)
{
	FILE	   *f = NULL;
	char		from[32],
				to[32];

	for (int i = 0; i < N_MAINTENANCE; i++)
	{
		const window_spec *w = &maintenance[i];

		if (strcmp(w->dir, name) != 0)
			continue;
		if (f == NULL)
		{
			if ((f = open_out(dir, "windows.csv")) == NULL)
				return false;
			fprintf(f, "pool,first_gpu,gpus,start,end\n");
		}
		ga_format_minutes(start + (int64_t) (w->start_h * 60), from, sizeof(from));
		ga_format_minutes(start + (int64_t) (w->end_h * 60), to, sizeof(to));
		fprintf(f, "%s,%d,%d,%s,%s\n", pool, w->first_gpu, w->gpus, from, to);
	}
	return f == NULL || close_out(f);
}

/*
 * Advance reservations of the synthetic scenarios (reservations.csv), as
 * the windows, held for a tenant; a scenario listed here also gives each
 * of its jobs one of its tenants (assign_tenants).
 */
typedef struct reservation_spec
{
	const char *dir;
	const char *tenant;
	int			first_gpu;
	int			gpus;
	double		start_h;
	double		end_h;
} reservation_spec;

static const reservation_spec reservations[] = {
	{"14_reservations", "vision", 0, 8, 56, 68},	/* node01, Wednesday 08:00-20:00 */
};

#define N_RESERVATIONS (int) (sizeof(reservations) / sizeof(reservations[0]))

/* The tenants jobs are drawn from, each equally likely. */
static const char *const tenant_names[] = {"vision", "speech"};

/*
 * Tenant quotas of the synthetic scenarios (tenants.csv): a row each, and
 * the relative rate at which the tenant submits jobs in the first and the
 * second half of each day (UTC).  In 16_idle_guarantee, night draws 0.4 of
 * the 2.4 afternoon rate, a sixth of the afternoon's jobs: 32 to 79
 * GPU-hours a day in the committed draw and four others, against the 96
 * its 8 GPUs run from 12:00 to 24:00, so its guarantee is really idle in
 * the mornings, which is what the scenario is for.  (At 2 of 3, night
 * submitted 220 GPU-hours a day, its backlog ran on through every morning
 * and there was little idle guarantee to borrow.)
 */
typedef struct tenant_spec
{
	const char *dir;
	const char *tenant;
	double		rate_am;		/* 00:00-12:00 */
	double		rate_pm;		/* 12:00-24:00 */
	int			guarantee;
	int			limit;			/* -1: none */
	int			borrow;
	double		weight;
	const char *cohort;
} tenant_spec;

static const tenant_spec tenant_specs[] = {
	{"15_tenant_flood", "flood", 10, 10, 4, -1, 8, 1, "lab"},
	{"15_tenant_flood", "vision", 1, 1, 4, -1, 8, 1, "lab"},
	{"15_tenant_flood", "speech", 1, 1, 4, -1, 8, 1, "lab"},
	{"16_idle_guarantee", "night", 0, 0.4, 8, -1, 0, 1, "lab"},
	{"16_idle_guarantee", "vision", 1, 1, 3, -1, 8, 1, "lab"},
	{"16_idle_guarantee", "speech", 1, 1, 3, -1, 8, 1, "lab"},
};

#define N_TENANT_SPECS (int) (sizeof(tenant_specs) / sizeof(tenant_specs[0]))

/*
 * A tenant of tenants.csv for a job submitted at minute `submit`, drawn by
 * the rates of its half-day; NULL when the scenario has no tenants.csv.
 */
static const char *
draw_quota_tenant(const scenario_spec *s, rng *r, int64_t submit)
{
	bool		pm = submit % 1440 >= 720;
	double		total = 0;
	double		x;
	const char *last = NULL;

	for (int i = 0; i < N_TENANT_SPECS; i++)
		if (strcmp(tenant_specs[i].dir, s->dir) == 0)
			total += pm ? tenant_specs[i].rate_pm : tenant_specs[i].rate_am;
	if (total <= 0)
		return NULL;
	x = rng_uniform(r) * total;
	for (int i = 0; i < N_TENANT_SPECS; i++)
	{
		double		rate = pm ? tenant_specs[i].rate_pm : tenant_specs[i].rate_am;

		if (strcmp(tenant_specs[i].dir, s->dir) != 0 || rate <= 0)
			continue;
		last = tenant_specs[i].tenant;
		if (x < rate)
			break;
		x -= rate;
	}
	return last;
}

/* tenants.csv of a synthetic scenario, when it has tenant quotas. */
static bool
write_tenants_csv(const char *dir, const char *name, const char *pool)
{
	FILE	   *f = NULL;

	for (int i = 0; i < N_TENANT_SPECS; i++)
	{
		const tenant_spec *t = &tenant_specs[i];

		if (strcmp(t->dir, name) != 0)
			continue;
		if (f == NULL)
		{
			if ((f = open_out(dir, "tenants.csv")) == NULL)
				return false;
			fprintf(f, "tenant,pool,guarantee,limit,borrow,weight,cohort\n");
		}
		fprintf(f, "%s,%s,%d,", t->tenant, pool, t->guarantee);
		if (t->limit >= 0)
			fprintf(f, "%d", t->limit);
		fprintf(f, ",%d,%g,%s\n", t->borrow, t->weight, t->cohort);
	}
	return f == NULL || close_out(f);
}

/*
 * Give every job a tenant when the scenario has reservations (each of
 * tenant_names equally likely) or tenant quotas (draw_quota_tenant), from
 * a stream of its own (seed * 4 + 4), so the jobs drawn before are the
 * same with or without it.
 */
static void
assign_tenants(const scenario_spec *s, gen_job *jobs, int n)
{
	rng			r = {s->seed * 4 + 4};
	bool		has = false;

	for (int i = 0; i < N_RESERVATIONS; i++)
		has |= strcmp(reservations[i].dir, s->dir) == 0;
	for (int i = 0; has && i < n; i++)
		jobs[i].tenant = tenant_names[rng_uniform(&r) < 0.5 ? 0 : 1];
	for (int i = 0; !has && i < n; i++)
		jobs[i].tenant = draw_quota_tenant(s, &r, jobs[i].submit);
}

/* reservations.csv of a synthetic scenario, when it has reservations. */
static bool
write_reservations_csv(const char *dir, const char *name, const char *pool, int64_t start)
{
	FILE	   *f = NULL;
	char		from[32],
				to[32];

	for (int i = 0; i < N_RESERVATIONS; i++)
	{
		const reservation_spec *v = &reservations[i];

		if (strcmp(v->dir, name) != 0)
			continue;
		if (f == NULL)
		{
			if ((f = open_out(dir, "reservations.csv")) == NULL)
				return false;
			fprintf(f, "tenant,pool,first_gpu,gpus,start,end\n");
		}
		ga_format_minutes(start + (int64_t) (v->start_h * 60), from, sizeof(from));
		ga_format_minutes(start + (int64_t) (v->end_h * 60), to, sizeof(to));
		fprintf(f, "%s,%s,%d,%d,%s,%s\n", v->tenant, pool, v->first_gpu, v->gpus, from, to);
	}
	return f == NULL || close_out(f);
}

/* ------------------------------------------------------------------------
 * Scenarios 8-10: real weeks.  Each takes a week of Philly arrivals (the
 * busiest week of a trace, or the next busiest that overlaps none taken
 * before) and one real hourly series as its service.
 */
#define REAL_DAYS 7
#define REAL_MAX_JOB_GPUS 32
#define REAL_MIN_HISTORY_DAYS 14
#define REAL_HISTORY_JOBS 300
/* Venus: the window needs four weeks of the series before it. */
#define VENUS_HISTORY_DAYS 28




typedef enum real_series
{
	SERIES_GENAI,				/* sum_exec_seconds, published timestamps */
	SERIES_VENUS				/* gpus_requested, published timestamps */
} real_series;

typedef struct real_spec
{
	const char *dir;
	uint64_t	seed;
	const char *vc;				/* the Philly virtual cluster */
	int			week_rank;		/* which of its busiest weeks */
	int			nodes;			/* of 8 V100 GPUs */
	real_series series;
	const char *start;			/* window start; NULL: chosen (Venus) */
	double		peak_gpus;		/* GPUs the reference hour maps to */
	int			churn_limit;
	int			min_gpus;
	int			max_gpus;
	int			priority;
} real_spec;

typedef struct philly_job
{
	int64_t		submit_s;
	int			gpus;			/* rounded up to a power of two, capped */
	double		duration_s;
	char		family[32];
	int			batch_size;
} philly_job;

/*
 * Approximate parameter counts of the trace's model families, billions
 * (ResNet-18/50 and CycleGAN as published; the rest are the sizes of the
 * usual reference implementations, to the nearest order of magnitude).
 */
static double
family_params_b(const char *family)
{
	if (strncmp(family, "ResNet-18", 9) == 0)
		return 0.0117;
	if (strncmp(family, "ResNet-50", 9) == 0)
		return 0.0256;
	if (strncmp(family, "Transformer", 11) == 0)
		return 0.065;
	if (strncmp(family, "LM", 2) == 0)
		return 0.03;
	if (strncmp(family, "Recommendation", 14) == 0)
		return 0.01;
	if (strncmp(family, "CycleGAN", 8) == 0)
		return 0.0114;
	return 0.001;				/* A3C */
}

typedef struct philly_trace
{
	int			n;
	int			cap;
	philly_job *jobs;
} philly_trace;

static ga_status
add_philly_job(const ga_csv_reader *r, const ga_csv_columns *cols, void *arg,
			   ga_error *err)
{
	philly_trace *tr = arg;
	philly_job *p;
	int			submit,
				gpus;
	const char *type;
	const char *bs;

	if (tr->n == tr->cap)
	{
		int			nc = tr->cap > 0 ? tr->cap * 2 : 4096;
		philly_job *jobs = realloc(tr->jobs, sizeof(philly_job) * nc);

		if (jobs == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory");
		tr->jobs = jobs;
		tr->cap = nc;
	}
	p = &tr->jobs[tr->n];
	if (ga_csv_int(r, cols, 0, &submit, err) != GA_OK ||
		ga_csv_int(r, cols, 1, &gpus, err) != GA_OK ||
		ga_csv_number(r, cols, 2, &p->duration_s, err) != GA_OK)
		return GA_EINVAL;
	p->submit_s = submit;
	p->gpus = ga_pow2_ceil(gpus);
	if (p->gpus > REAL_MAX_JOB_GPUS)
		p->gpus = REAL_MAX_JOB_GPUS;
	type = ga_csv_field(r, cols, 3);
	snprintf(p->family, sizeof(p->family), "%s", type);
	bs = strstr(type, "batch size ");
	p->batch_size = bs ? atoi(bs + 11) : 0;
	tr->n++;
	return GA_OK;
}

/* The jobs of a Philly trace file, in file (submission) order. */
static int
read_philly(const char *path, philly_job **out)
{
	static const char *const names[] = {"submit_s", "gpus", "duration_s_v100", "job_type"};
	philly_trace tr = {0};

	if (!read_rows(NULL, path, names, 4, add_philly_job, &tr))
	{
		free(tr.jobs);
		return -1;
	}
	*out = tr.jobs;
	return tr.n;
}

/*
 * The trace carries no features, only a model family and a batch size.  A
 * user would declare the size of the run (samples times epochs); we stand in
 * for that with a token count proportional to the job's true V100 GPU-hours,
 * times a log-normal declaration error of sigma 0.5, so the estimator sees
 * information about the work but not the duration itself.
 */
static void
philly_features(rng *r, const philly_job *p, char *buf, size_t len)
{
	double		params = family_params_b(p->family);
	double		gpu_hours = p->duration_s / 3600.0 * p->gpus;
	/* Tokens a V100 at 30% of its 125 TFLOP/s processes in those GPU-hours. */
	double		tokens_m = gpu_hours * 3600.0 * 125e12 * 0.30 /
		(6.0 * params * 1e9) / 1e6 * rng_factor(r, 0.5);
	int			n;

	n = snprintf(buf, len, "variant=full_sft;params_b=%g;tokens_m=%.0f;gpu_model=v100;precision=fp16",
				 params, fmax(1.0, tokens_m));
	if (p->batch_size > 0 && n > 0 && (size_t) n < len)
		snprintf(buf + n, len - n, ";batch_size=%d", p->batch_size);
}

/* A service's hourly series, read whole: times and values as published. */
typedef struct hourly
{
	int			n;
	int			cap;
	int64_t    *t;				/* minutes since the epoch */
	double	   *v;
} hourly;

static ga_status
hourly_row(const ga_csv_reader *r, const ga_csv_columns *cols, void *arg,
		   ga_error *err)
{
	hourly	   *h = arg;

	if (h->n == h->cap)
	{
		int			nc = h->cap > 0 ? h->cap * 2 : 1024;
		int64_t    *t = realloc(h->t, sizeof(int64_t) * nc);
		double	   *v = t ? realloc(h->v, sizeof(double) * nc) : NULL;

		if (t == NULL || v == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory");
		h->t = t;
		h->v = v;
		h->cap = nc;
	}
	if (ga_csv_minutes(r, cols, 0, &h->t[h->n], err) != GA_OK ||
		ga_csv_number(r, cols, 1, &h->v[h->n], err) != GA_OK)
		return GA_EINVAL;
	h->n++;
	return GA_OK;
}

/* The file of a real series under the data directory. */
static void
series_path(const char *data, real_series series, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", data,
			 series == SERIES_GENAI ? "genai_inference_requests_hourly.csv" :
			 "venus_gpu_requests_hourly.csv");
}

static bool
read_hourly(const char *path, real_series series, hourly *h)
{
	static const char *const genai_cols[] = {"hour_start", "sum_exec_seconds"};
	static const char *const venus_cols[] = {"hour_start", "gpus_requested"};

	memset(h, 0, sizeof(*h));
	return read_rows(NULL, path, series == SERIES_GENAI ? genai_cols : venus_cols,
					 2, hourly_row, h);
}

static void
free_hourly(hourly *h)
{
	free(h->t);
	free(h->v);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* The value at position floor(q n) of v[0 .. n) sorted (v is reordered). */
static double
sorted_at(double *v, int n, double q)
{
	int			i = (int) (q * n);

	qsort(v, n, sizeof(double), cmp_double);
	return v[i < n ? i : n - 1];
}

/*
 * Venus: of the weeks from Monday 00:00 with four weeks of the series
 * before them, the burstiest: the largest 99th-percentile rise from one
 * hour to the next, over the week's 95th-percentile hour.  -1 if none;
 * *weeks: how many weeks were candidates (a week whose 95th-percentile
 * hour is 0 is one, but gives no ratio), so the caller can say which rule
 * the series broke.
 */
static int64_t
venus_window(const hourly *h, int *weeks)
{
	double	   *buf = malloc(sizeof(double) * REAL_DAYS * 24);
	double		best = -INFINITY;
	int64_t		best_start = -1;

	*weeks = 0;
	if (buf == NULL)
		return -1;
	for (int i = VENUS_HISTORY_DAYS * 24; i + REAL_DAYS * 24 <= h->n; i++)
	{
		int			len = REAL_DAYS * 24;
		double		rise,
					p95;

		if (ga_minute_of_day(h->t[i]) != 0 || ga_day_of_week(h->t[i]) != 0 ||
			h->t[i + len - 1] - h->t[i] != (int64_t) (len - 1) * 60)
			continue;
		(*weeks)++;
		for (int k = 1; k < len; k++)
			buf[k - 1] = h->v[i + k] - h->v[i + k - 1];
		rise = sorted_at(buf, len - 1, 0.99);
		for (int k = 0; k < len; k++)
			buf[k] = h->v[i + k];
		p95 = sorted_at(buf, len, 0.95);
		if (p95 > 0 && rise / p95 > best)
		{
			best = rise / p95;
			best_start = h->t[i];
		}
	}
	free(buf);
	return best_start;
}

/*
 * demand.csv and the service's capacity.  GenAI: sum_exec_seconds / 3600 is
 * the average number of GPUs busy serving in the hour; traffic is the
 * execution seconds scaled so the series' busiest hour before the window's
 * end needs peak_gpus GPUs, one GPU serving 3600 execution seconds an hour;
 * every row before the end is written.  Venus: traffic is the GPUs
 * requested, one GPU serving `capacity` of them, capacity chosen (whole) so
 * the window's 95th-percentile hour needs peak_gpus GPUs; four weeks before
 * the window are written.  *scale is what one traffic unit is in the
 * series' own unit, for --stats.
 */
static bool
write_series_demand(const char *dir, const real_spec *spec, const hourly *h,
					int64_t start, int64_t end, double *capacity, double *scale)
{
	FILE	   *f;
	int64_t		from = spec->series == SERIES_GENAI ? INT64_MIN :
		start - VENUS_HISTORY_DAYS * 1440;
	const char *name = spec->series == SERIES_GENAI ? "genai" : "venus";
	double		busiest = 0;
	char		ts[64];
	bool		ok;

	if (spec->series == SERIES_GENAI)
	{
		for (int i = 0; i < h->n; i++)
			if (h->t[i] < end)
				busiest = fmax(busiest, h->v[i] / 3600.0);
		*capacity = 3600;
		*scale = spec->peak_gpus / busiest;
	}
	else
	{
		double	   *buf = malloc(sizeof(double) * h->n);
		int			n = 0;

		if (buf == NULL)
			return false;
		for (int i = 0; i < h->n; i++)
			if (h->t[i] >= start && h->t[i] < end)
				buf[n++] = h->v[i];
		*capacity = fmax(1.0, round(sorted_at(buf, n, 0.95) / spec->peak_gpus));
		*scale = 1;
		free(buf);
	}
	f = open_out(dir, "demand.csv");
	if (f == NULL)
		return false;
	fprintf(f, "service,ts,traffic\n");
	for (int i = 0; i < h->n; i++)
	{
		if (h->t[i] < from || h->t[i] >= end)
			continue;
		ga_format_minutes(h->t[i], ts, sizeof(ts));
		if (spec->series == SERIES_GENAI)
			fprintf(f, "%s,%s,%.1f\n", name, ts, h->v[i] * spec->peak_gpus / busiest);
		else
			fprintf(f, "%s,%s,%.1f\n", name, ts, h->v[i]);
	}
	ok = close_out(f);
	return ok;
}

/*
 * The trace day a week of arrivals starts on: of the day-aligned 7-day
 * windows that leave at least two weeks of trace before them, the one whose
 * arrivals ask for the most GPU-hours inside the window; rank k > 0 takes
 * the busiest of those that overlap none of the k taken before.  -1 if
 * none.
 */
static int
busiest_week(const philly_job *pj, int np, int64_t last_submit, int rank)
{
	int64_t		week_s = REAL_DAYS * 86400;
	int			taken[8];
	int			best_day = -1;

	for (int k = 0; k <= rank && k < 8; k++)
	{
		double		best_load = -1;

		best_day = -1;
		for (int day = REAL_MIN_HISTORY_DAYS; (int64_t) (day + REAL_DAYS) * 86400 <= last_submit; day++)
		{
			int64_t		a = (int64_t) day * 86400;
			double		load = 0;
			bool		overlaps = false;

			for (int t = 0; t < k; t++)
				overlaps |= abs(day - taken[t]) < REAL_DAYS;
			if (overlaps)
				continue;
			for (int i = 0; i < np; i++)
				if (pj[i].submit_s >= a && pj[i].submit_s < a + week_s)
					load += pj[i].gpus * fmin(pj[i].duration_s, (double) (a + week_s - pj[i].submit_s)) / 3600.0;
			if (load > best_load)
			{
				best_load = load;
				best_day = day;
			}
		}
		if (best_day < 0)
			return -1;
		taken[k] = best_day;
	}
	return best_day;
}

/*
 * The trace day the scenario's week of arrivals starts on (busiest_week),
 * or -1 with the file and the rule it breaks printed.
 */
static int
real_week(const char *path, const philly_job *pj, int np, int rank)
{
	int64_t		last_submit = 0;
	int			day;

	if (np == 0)
	{
		fprintf(stderr, "%s: has no jobs; the scenario takes a week of its arrivals\n", path);
		return -1;
	}
	for (int i = 0; i < np; i++)
		if (pj[i].submit_s > last_submit)
			last_submit = pj[i].submit_s;
	day = busiest_week(pj, np, last_submit, rank);
	if (day < 0)
		fprintf(stderr, "%s: its submissions end on trace day %.1f; the scenario needs %d week%s of them "
				"(%d days each, overlapping none) from trace day %d on\n",
				path, last_submit / 86400.0, rank + 1, rank > 0 ? "s" : "", REAL_DAYS,
				REAL_MIN_HISTORY_DAYS);
	return day;
}

/*
 * The GenAI series over a fixed window [start, end): it needs a row for
 * every hour of the window, or the service would have no demand where the
 * scenario measures it, and a positive hour before end, the busiest of
 * which is scaled to the spec's peak (with none, the scale is 0 / 0).
 * False, with the file and the rule printed, where it has not.
 */
static bool
check_genai(const char *path, const hourly *h, int64_t start, int64_t end)
{
	int			hours = (int) ((end - start) / 60);
	bool	   *seen = calloc(hours, sizeof(bool));
	int			covered = 0;
	double		busiest = 0;
	char		a[64],
				b[64];

	if (seen == NULL)
	{
		fprintf(stderr, "out of memory\n");
		return false;
	}
	for (int i = 0; i < h->n; i++)
	{
		int64_t		off = h->t[i] - start;

		if (h->t[i] >= end)
			continue;
		busiest = fmax(busiest, h->v[i]);
		if (off >= 0 && off % 60 == 0 && !seen[off / 60])
		{
			seen[off / 60] = true;
			covered++;
		}
	}
	free(seen);
	ga_format_minutes(start, a, sizeof(a));
	ga_format_minutes(end, b, sizeof(b));
	if (covered < hours)
		fprintf(stderr, "%s: covers %d of the %d hours from %s to %s; the scenario needs a row for every one\n",
				path, covered, hours, a, b);
	else if (!(busiest > 0))
		fprintf(stderr, "%s: sum_exec_seconds has no positive value before %s; the scenario scales the "
				"series by its busiest hour, so it needs one\n", path, b);
	return covered == hours && busiest > 0;
}

/*
 * The start of the scenario's week on its series: fixed by the spec
 * (GenAI, checked by check_genai) or chosen (Venus, venus_window).  False,
 * with the file and the rule printed, where the series cannot give one.
 */
static bool
real_window(const char *path, const real_spec *spec, const hourly *h, int64_t *start)
{
	int			weeks;

	if (spec->start != NULL)
	{
		ga_parse_minutes(spec->start, start, NULL);
		return spec->series != SERIES_GENAI || check_genai(path, h, *start, *start + REAL_DAYS * 1440);
	}
	*start = venus_window(h, &weeks);
	if (*start >= 0)
		return true;
	if (weeks == 0)
		fprintf(stderr, "%s: has %d hourly rows and no week from a Monday 00:00 with its %d hours in a row "
				"after %d rows of the series; the scenario needs %d rows at least\n",
				path, h->n, REAL_DAYS * 24, VENUS_HISTORY_DAYS * 24, (VENUS_HISTORY_DAYS + REAL_DAYS) * 24);
	else
		fprintf(stderr, "%s: none of its %d candidate weeks has a positive 95th-percentile hour of "
				"gpus_requested; the scenario scales the service by it\n", path, weeks);
	return false;
}

static void
real_description(const real_spec *spec, int day, int64_t start, char *buf, size_t len)
{
	char		ts[64];

	ga_format_minutes(start, ts, sizeof(ts));
	ts[10] = '\0';
	if (spec->series == SERIES_GENAI && spec->week_rank == 0)
		snprintf(buf, len,
				 "64 GPUs (8 nodes); Microsoft Philly arrivals of virtual cluster %s, trace days "
				 "%d-%d (its busiest week), and the Alibaba GenAI serving series of 2024-12-01 to "
				 "2024-12-07 scaled to a 16-GPU peak. Real arrival bursts and heavy-tailed durations.",
				 spec->vc, day, day + REAL_DAYS);
	else if (spec->series == SERIES_GENAI)
		snprintf(buf, len,
				 "64 GPUs (8 nodes); Microsoft Philly arrivals of virtual cluster %s, trace days "
				 "%d-%d, and the Alibaba GenAI serving series of the week from %s scaled to a "
				 "%.0f-GPU peak with a churn limit of %d GPUs a step: its jumps (up to three times "
				 "its level from one hour to the next) are more than the service can follow in a step.",
				 spec->vc, day, day + REAL_DAYS, ts, spec->peak_gpus, spec->churn_limit);
	else
		snprintf(buf, len,
				 "%d GPUs (%d nodes); Microsoft Philly arrivals of virtual cluster %s, trace days "
				 "%d-%d (its busiest week), and the SenseTime Venus GPU requests of the week from %s "
				 "(the series' burstiest) as the service, its 95th-percentile hour at %.0f GPUs and "
				 "bursts of several times that, churn limit %d GPUs a step.",
				 spec->nodes * 8, spec->nodes, spec->vc, day, day + REAL_DAYS, ts,
				 spec->peak_gpus, spec->churn_limit);
}

/* The week's arrivals, shifted so trace day `day` starts at start. */
static int
real_jobs(const philly_job *pj, int np, int day, int64_t start, rng *r, gen_job *jobs)
{
	int64_t		week_s = REAL_DAYS * 86400;
	int			n = 0;

	for (int i = 0; i < np && n < MAX_JOBS; i++)
	{
		int64_t		off = pj[i].submit_s - (int64_t) day * 86400;
		gen_job    *j;

		if (off < 0 || off >= week_s)
			continue;
		j = &jobs[n++];
		j->kind = "training";
		j->submit = start + off / 60;
		j->gpus_min = j->gpus_max = pj[i].gpus;
		j->work = pj[i].duration_s / 3600.0 * pj[i].gpus;
		/* The trace has no priorities: drawn like the synthetic ones. */
		j->priority = draw_priority(r);
		philly_features(r, &pj[i], j->features, FEATURES_LEN);
	}
	return n;
}

/* History: the most recent jobs that finished before trace day `day`. */
static bool
real_history(const char *dir, const philly_job *pj, int np, int day, rng *r)
{
	FILE	   *f = open_out(dir, "history.csv");
	int			written = 0;
	int			first = np;
	int			k = 0;

	if (f == NULL)
		return false;
	fprintf(f, "job,kind,pool,gpus,features,actual_hours\n");
	/* Walk back from the week's start until enough finished jobs are found. */
	for (int i = np - 1; i >= 0 && written < REAL_HISTORY_JOBS; i--)
		if (pj[i].submit_s + pj[i].duration_s <= (double) day * 86400)
		{
			first = i;
			written++;
		}
	for (int i = first; i < np && k < written; i++)
	{
		char		feat[FEATURES_LEN];

		if (pj[i].submit_s + pj[i].duration_s > (double) day * 86400)
			continue;
		philly_features(r, &pj[i], feat, sizeof(feat));
		fprintf(f, "h%03d,training,v100,%d,%s,%.3f\n", ++k, pj[i].gpus, feat,
				pj[i].duration_s / 3600.0);
	}
	return close_out(f);
}

static bool
generate_real(const char *out, const char *data, const real_spec *spec, bool stats)
{
	char		dir[1024];
	char		path[1100];
	char		desc[512];
	philly_job *pj = NULL;
	hourly		series = {0, 0, NULL, NULL};
	int			np;
	int64_t		start = 0,
				end;
	int			day;
	double		capacity = 0;
	double		scale = 0;
	FILE	   *f;
	rng			r = {spec->seed};
	gen_job    *jobs = NULL;
	int			n = 0;
	bool		ok = true;

	snprintf(path, sizeof(path), "%s/philly_jobs/%s_jobs.csv", data, spec->vc);
	np = read_philly(path, &pj);
	if (np < 0)
		return false;
	/* each of these says what is wrong with which file */
	day = real_week(path, pj, np, spec->week_rank);
	series_path(data, spec->series, path, sizeof(path));
	if (day < 0 || !read_hourly(path, spec->series, &series) ||
		!real_window(path, spec, &series, &start))
	{
		free_hourly(&series);
		free(pj);
		return false;
	}
	end = start + REAL_DAYS * 1440;
	snprintf(dir, sizeof(dir), "%s/%s", out, spec->dir);
	ok = make_dir(dir);
	real_description(spec, day, start, desc, sizeof(desc));
	ok = ok && write_scenario_csv(dir, spec->dir, desc, start, end);
	ok = ok && write_gpus_csv(dir, "v100", spec->nodes, 8, 0);
	ok = ok && write_series_demand(dir, spec, &series, start, end, &capacity, &scale);
	f = ok ? open_out(dir, "services.csv") : NULL;
	if (f != NULL)
	{
		fprintf(f, "service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n");
		fprintf(f, "%s,v100,%d,%g,%d,%d,%d\n",
				spec->series == SERIES_GENAI ? "genai" : "venus", spec->priority,
				capacity, spec->churn_limit, spec->min_gpus, spec->max_gpus);
		ok = close_out(f);
	}
	else
		ok = false;
	jobs = ok ? calloc(MAX_JOBS, sizeof(gen_job)) : NULL;
	if (jobs != NULL)
	{
		n = real_jobs(pj, np, day, start, &r, jobs);
		ok = write_jobs_csv(dir, "v100", jobs, n, false) && real_history(dir, pj, np, day, &r);
	}
	else
		ok = false;
	if (ok && stats)
	{
		fprintf(stderr, "%s: VC %s, trace days %d-%d, scale %.4f, capacity %g\n",
				spec->dir, spec->vc, day, day + REAL_DAYS, scale, capacity);
		print_stats(dir, spec->dir, spec->nodes * 8, start, end, jobs, n);
	}
	free(jobs);
	free_hourly(&series);
	free(pj);
	return ok;
}

/*
 * The real scenarios.  8: the GenAI series' last week at a 16-GPU peak; it
 * rises by up to 11 GPUs within an hour, so the service may hand over 8
 * GPUs a step (a tighter limit would make its demand impossible to follow
 * for every policy alike).  9 and 10 do the opposite on purpose: bursts
 * several times what the churn limit lets a service add in a step.
 */
static const real_spec reals[] = {
	{"08_real_week", 808, "11cb48", 0, 8, SERIES_GENAI, "2024-12-01 00:00", 16, 8, 0, 20, 4},
	{"09_genai_bursts", 909, "11cb48", 1, 8, SERIES_GENAI, "2024-12-01 00:00", 32, 4, 0, 40, 4},
	{"10_venus_bursts", 1010, "6c71a0", 0, 16, SERIES_VENUS, NULL, 16, 4, 0, 64, 4},
};

#define N_REAL (int) (sizeof(reals) / sizeof(reals[0]))

/*
 * The scenarios with tenant quotas (with `all`, every synthetic one), each
 * drawn with its seed plus `shift` (same names, same tenants.csv, windows
 * and reservations): a tuning set apart from the benchmark.
 */
static bool
generate_tuning(const char *out, long shift, bool all, bool stats)
{
	bool		ok = true;

	for (int i = 0; i < N_SCENARIOS; i++)
	{
		scenario_spec s = scenarios[i];
		bool		quotas = false;

		for (int k = 0; k < N_TENANT_SPECS && !quotas; k++)
			quotas = strcmp(tenant_specs[k].dir, s.dir) == 0;
		if (!quotas && !all)
			continue;
		s.seed += (uint64_t) shift;
		if (!generate_synthetic(out, &s, stats))
		{
			fprintf(stderr, "failed to write %s\n", s.dir);
			ok = false;
		}
	}
	if (all)
	{
		scenario_spec s = s11_spec;

		s.seed += (uint64_t) shift;
		if (!generate_pipelines(out, &s, stats))
		{
			fprintf(stderr, "failed to write %s\n", s.dir);
			ok = false;
		}
	}
	return ok;
}

static void
usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--out DIR] [--data DIR] [--stats] [--seed-shift K (K > 0) [--all]]\n",
			prog);
}

/*
 * K of --seed-shift: a whole number from 1 to LONG_MAX and nothing else,
 * so that "5x" is not read as 5 nor a number past LONG_MAX as LONG_MAX,
 * either drawing a set other than the one asked for.
 */
static bool
parse_shift(const char *s, long *shift)
{
	char	   *end;

	errno = 0;
	*shift = strtol(s, &end, 10);
	return end != s && *end == '\0' && errno == 0 && *shift > 0;
}

/*
 * Whether a directory given on the command line leaves room, in the path
 * buffers, for a scenario's folder and a file's name under it; says which
 * flag and the rule if not (a longer path would be cut, and write
 * somewhere else).
 */
static bool
short_enough(const char *prog, const char *flag, const char *dir)
{
	if (strlen(dir) <= MAX_DIR_ARG)
		return true;
	fprintf(stderr, "%s: %s takes a directory path of at most %d bytes, not %zu\n",
			prog, flag, MAX_DIR_ARG, strlen(dir));
	return false;
}

int
main(int argc, char **argv)
{
	const char *out = "scenarios";
	const char *data = "data/real";
	bool		stats = false;
	bool		all = false;
	bool		ok = true;
	long		shift = 0;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
			out = argv[++i];
		else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc)
			data = argv[++i];
		else if (strcmp(argv[i], "--stats") == 0)
			stats = true;
		else if (strcmp(argv[i], "--all") == 0)
			all = true;
		else if (strcmp(argv[i], "--seed-shift") == 0 && i + 1 < argc)
		{
			if (!parse_shift(argv[++i], &shift))
			{
				fprintf(stderr, "%s: --seed-shift needs a whole number from 1 to %ld, not \"%s\"\n",
						argv[0], LONG_MAX, argv[i]);
				usage(argv[0]);
				return 2;
			}
		}
		else
		{
			usage(argv[0]);
			return 2;
		}
	}
	if (all && shift == 0)
	{
		fprintf(stderr, "%s: --all needs --seed-shift\n", argv[0]);
		return 2;
	}
	if (!short_enough(argv[0], "--out", out) || !short_enough(argv[0], "--data", data))
		return 2;
	if (shift > 0)
		return generate_tuning(out, shift, all, stats) ? 0 : 1;
	for (int i = 0; i < N_SCENARIOS; i++)
		if (!generate_synthetic(out, &scenarios[i], stats))
		{
			fprintf(stderr, "failed to write %s\n", scenarios[i].dir);
			ok = false;
		}
	if (!generate_pipelines(out, &s11_spec, stats))
	{
		fprintf(stderr, "failed to write %s\n", s11_spec.dir);
		ok = false;
	}
	for (int i = 0; i < N_REAL; i++)
		if (!generate_real(out, data, &reals[i], stats))
		{
			fprintf(stderr, "failed to write %s\n", reals[i].dir);
			ok = false;
		}
	return ok ? 0 : 1;
}
