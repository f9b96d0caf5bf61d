/*
 * bench_solver.c — solve time and plan quality of the fast and full modes on
 * generated instances of six sizes and on the demo's cluster, against the
 * LP-relaxation bound.
 *
 *   bench_solver [--out PATH] [--only-fast] [--full-ms N] [--fast-runs N]
 *                [--full-runs N] [--bound-ms N] [--reference-ms N]
 *                [--protected-ms N] [--mps-dir DIR] [--instance NAME]
 *
 * The generated instances (GPUs, jobs, steps, seed fixed below) are named
 * by their size, GPUS/JOBS (--instance 64/30 runs that one alone); the
 * instance "demo" is the problem fast and full solve at the first re-plan
 * of demo/scenario (the demo's cluster in the scenario format: 8 GPUs, the
 * chat service forecast from its history, the four jobs; read from the top
 * of the tree), full mode with a 1 s limit.
 *
 * For each instance and mode, the
 * solve is repeated; the table gives p50 and p99 of the wall time, the
 * median objective, the bound and the gap (bound - objective) / |bound|.
 * The bound is the tightest one the code proves for the instance during the
 * benchmark: the smaller of ga_solve_bound (the LP relaxation) and the
 * bounds the full runs report (what branch and bound proved inside their
 * time limit); every one of them is an upper bound on every legal plan, so
 * the smaller is too.  With --only-fast it is the LP bound alone.  The two
 * largest instances (4096 GPUs / 2000 jobs, 10,000 / 5000) run fast only,
 * and their bound is the LP bound when GLPK finds it within --bound-ms
 * (default 600 s), else none.  Fast mode runs with default options: its
 * work budget, no clock; the table also gives its work counters (moves
 * tried, work units spent of its budget) and how many runs converged, that
 * is, ended by their own limits rather than the clock's safety cap.  Full
 * mode runs with --full-ms, by default 1 s up to 64 GPUs, 10 s at 256 and
 * 30 s at 1024.
 *
 * An independent check: the instances full mode solves have their
 * MILP written to --mps-dir (build/solver-mps) in free MPS, and when CBC
 * (Debian's coinor-cbc) is on the PATH it solves each file for
 * --reference-ms of its own time (60 s; 0 skips it).  What CBC proves,
 * the optimum or its best bound at the limit, bounds every legal plan just
 * as ours does (the same model), so the gap is taken against the smaller
 * of the two.  Without CBC the column is empty and nothing else changes.
 *
 * The planners never start a job where the protect rule forbids it (a
 * service's curve needs the GPUs during the run), a rule of theirs, not of
 * a legal plan: the bounds above cover every legal plan, so part of the gap
 * is what the rule costs.  The protected bound covers the plans that keep
 * the rule: the aggregate model's LP with the rule's first tier
 * (ga_milp_protected_bound) and, on pools whose block-level model has at
 * most PROTECTED_MAX_SIZE nonzeros, that model with both tiers, branch and
 * bound for --protected-ms (60 s by default; 0 skips the protected bound);
 * CBC bounds the same models written out (the block-level ones one file
 * per pool) for --reference-ms each as an independent check; the
 * protected gap is taken against the smallest of these and the legal
 * bounds (the planners' plans are legal ones).
 *
 * The results go to stdout as a Markdown table and, with --out, to a JSON
 * list of objects with the keys instance ("generated" or "demo"), gpus,
 * jobs, steps, mode, p50_ms, p99_ms,
 * objective, bound, reference_bound (CBC's, or null), gap (against the
 * best of both), protected_bound, protected_reference_bound (CBC's on
 * the protected models, or null), protected_gap, and for fast moves,
 * work, work_limit, converged (runs)
 * and runs; for full runs, found_by (how many runs' plans each phase
 * found: the fast warm start, LP rounding, branch and bound or the
 * neighbourhood search) and neighbourhoods (solved per run, mean).
 */
#include "sim/generate.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "solve/block_model.h"
#include "solve/heuristic.h"
#include "solve/milp.h"
#include "solve/solve.h"
#include "model/validate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void make_parents(const char *path);

typedef struct instance
{
	int			gpus;
	int			jobs;
	int			steps;
	uint64_t	seed;
	int			fast_runs;
	double		full_ms;		/* 0: fast only */
	const char *scenario;		/* NULL: generated; else the problem of
								 * this scenario's first re-plan */
	const char *name;			/* "generated", or the scenario's */
} instance;

static const instance instances[] = {
	{8, 10, 48, 11, 200, 1000, NULL, "generated"},
	{64, 30, 48, 12, 200, 1000, NULL, "generated"},
	{256, 120, 48, 13, 50, 10000, NULL, "generated"},
	{1024, 500, 48, 14, 20, 30000, NULL, "generated"},
	{4096, 2000, 48, 15, 10, 0, NULL, "generated"},
	{10000, 5000, 48, 16, 10, 0, NULL, "generated"},
	{0, 0, 0, 0, 200, 1000, "demo/scenario", "demo"},
};

#define N_INSTANCES (sizeof(instances) / sizeof(instances[0]))

/*
 * Largest pool model the protected bound is built for.  8 GPUs and 10
 * jobs over 48 steps need 57,000 nonzeros (the LP solves in half a
 * second); 64 GPUs and 30 jobs need 1.8 million, where GLPK's simplex had
 * not finished after 9 minutes, nor its interior point after 10, so the
 * larger instances go without it (their protected bound is the aggregate
 * model's alone).
 */
#define PROTECTED_MAX_SIZE 500000L

typedef struct bench_args
{
	const char *out;
	bool		only_fast;
	double		full_ms;		/* 0: per-instance default */
	int			fast_runs;		/* 0: per-instance default */
	int			full_runs;
	double		bound_ms;		/* LP bound's time limit */
	double		reference_ms;	/* CBC's time per instance; 0: none */
	double		protected_ms;	/* protected bound's time; 0: none */
	const char *mps_dir;
	const char *only;			/* --instance: NULL for every instance */
} bench_args;

/* The phases of full mode that can find its plan (ga_milp_stats.source). */
static const char *const sources[] = {"fast", "lp-rounding", "milp", "lns"};

#define N_SOURCES ((int) (sizeof(sources) / sizeof(sources[0])))

typedef struct result
{
	const char *instance;		/* "generated" or the scenario's name */
	int			gpus;
	int			jobs;
	int			steps;
	const char *mode;
	double		p50_ms;
	double		p99_ms;
	double		objective;
	double		bound;
	double		reference_bound;	/* CBC's, or NAN */
	double		gap;
	double		protected_bound;	/* plans keeping the protect rule, or NAN */
	double		protected_reference;	/* CBC's on the same models, or NAN */
	double		protected_gap;
	int			runs;
	int			illegal;		/* plans the validator refused */
	double		proven;			/* smallest bound a plan reported, or
								 * HUGE_VAL */
	/* fast only: work counters of the median run, runs that converged */
	long		moves;
	long		work;
	long		work_limit;
	int			converged;
	/* full only: which phase found each run's plan, neighbourhoods solved */
	int			found_by[N_SOURCES];
	long		neighbourhoods;
} result;

static int
compare_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static double
percentile(const double *sorted, int n, double q)
{
	int			rank = (int) ceil(q * n);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/* One solve of a mode; notes the mode's statistics of the run in r. */
typedef ga_status (*solve_fn) (const ga_problem *, const ga_solve_options *,
							   ga_plan **, result *, ga_error *);

/* Fast's counters are the same on every run (it is deterministic): keep the last. */
static ga_status
solve_fast(const ga_problem *p, const ga_solve_options *opts, ga_plan **out,
		   result *r, ga_error *err)
{
	ga_fast_stats st = {0};
	ga_status	rc = ga_solve_fast_stats(p, opts, out, &st, err);

	r->moves = st.moves_tried;
	r->work = st.work;
	r->work_limit = st.work_limit;
	r->converged += st.converged;
	return rc;
}

static ga_status
solve_full(const ga_problem *p, const ga_solve_options *opts, ga_plan **out,
		   result *r, ga_error *err)
{
	ga_milp_stats st = {0};
	ga_status	rc = ga_solve_full_ex(p, opts, NULL, out, &st, err);

	for (int i = 0; i < N_SOURCES; i++)
		r->found_by[i] += st.source != NULL && strcmp(st.source, sources[i]) == 0;
	r->neighbourhoods += st.lns_neighbourhoods;
	return rc;
}

/* Repeat one mode; fills times, objective, legality. */
static bool
run_mode(const ga_problem *p, solve_fn solve, const ga_solve_options *opts,
		 int runs, result *r)
{
	double	   *ms = malloc(sizeof(double) * runs);
	double	   *obj = malloc(sizeof(double) * runs);
	ga_error	err;
	bool		ok = ms != NULL && obj != NULL;

	for (int i = 0; ok && i < runs; i++)
	{
		ga_plan    *plan;
		double		t0 = ga_now_ms();

		if (solve(p, opts, &plan, r, &err) != GA_OK)
		{
			fprintf(stderr, "%s solve failed at %d GPUs: %s\n", r->mode, r->gpus, err.message);
			ok = false;
			break;
		}
		ms[i] = ga_now_ms() - t0;
		obj[i] = plan->objective;
		if (isfinite(plan->bound) && plan->bound < r->proven)
			r->proven = plan->bound;
		if (ga_validate(p, plan, &err) != GA_OK)
		{
			fprintf(stderr, "%s plan is illegal at %d GPUs: %s\n", r->mode, r->gpus, err.message);
			r->illegal++;
		}
		ga_plan_destroy(plan);
	}
	if (ok)
	{
		qsort(ms, runs, sizeof(double), compare_double);
		qsort(obj, runs, sizeof(double), compare_double);
		r->p50_ms = percentile(ms, runs, 0.5);
		r->p99_ms = percentile(ms, runs, 0.99);
		r->objective = percentile(obj, runs, 0.5);
		r->runs = runs;
	}
	free(ms);
	free(obj);
	return ok;
}

static void
set_gap(result *r)
{
	double		best = isfinite(r->reference_bound) && !(r->reference_bound >= r->bound)
		? r->reference_bound : r->bound;
	double		protect = isfinite(r->protected_reference) &&
		!(r->protected_reference >= r->protected_bound) ? r->protected_reference : r->protected_bound;

	/* the planners' plans are legal ones: the legal bounds cover them too */
	if (isfinite(protect) && isfinite(best) && best < protect)
		protect = best;

	r->gap = isfinite(best) ? (best - r->objective) / fmax(fabs(best), 1e-9) : NAN;
	r->protected_gap = isfinite(protect) ? (protect - r->objective) / fmax(fabs(protect), 1e-9) : NAN;
	if (isfinite(protect) && r->objective > protect + 1e-6 * fmax(1.0, fabs(protect)))
		fprintf(stderr, "warning: %s objective %.4f exceeds the protected bound %.4f at %d GPUs\n",
				r->mode, r->objective, protect, r->gpus);
	if (isfinite(best) && r->objective > best + 1e-6 * fmax(1.0, fabs(best)))
		fprintf(stderr, "warning: %s objective %.4f exceeds the bound %.4f at %d GPUs\n",
				r->mode, r->objective, best, r->gpus);
}

/* Is CBC on the PATH? */
static bool
have_cbc(void)
{
	return system("command -v cbc >/dev/null 2>&1") == 0;
}

/* The number after "label" in a line of CBC's report, if the line has it. */
static bool
cbc_value(const char *line, const char *label, double *value)
{
	size_t		n = strlen(label);

	return strncmp(line, label, n) == 0 && sscanf(line + n, " %lf", value) == 1;
}

/*
 * CBC's bound on the file's minimum: the optimum when it proves one, else
 * its lower bound at the time limit; NAN when it reports neither.
 */
static double
cbc_lower_bound(const char *mps, double seconds)
{
	char		cmd[1200];
	char		line[512];
	double		objective = NAN;
	double		lower = NAN;
	bool		optimal = false;
	FILE	   *out;

	snprintf(cmd, sizeof(cmd), "cbc '%s' -sec %.0f -solve -quit 2>&1", mps, seconds);
	out = popen(cmd, "r");
	if (out == NULL)
		return NAN;
	while (fgets(line, sizeof(line), out) != NULL)
	{
		optimal |= strncmp(line, "Result - Optimal solution found", 31) == 0;
		(void) (cbc_value(line, "Objective value:", &objective) || cbc_value(line, "Lower bound:", &lower));
	}
	pclose(out);
	return optimal ? objective : lower;
}

/* The instance's MILP bounded by CBC (NAN without CBC or on failure). */
static double
reference_bound(const ga_problem *p, const instance *in, const bench_args *args)
{
	char		path[1024];
	double		constant;
	double		lower;
	ga_error	err;

	snprintf(path, sizeof(path), "%s/gpus%d_jobs%d.mps", args->mps_dir, in->gpus, in->jobs);
	make_parents(path);
	if (ga_milp_write_mps(p, false, path, &constant, &err) != GA_OK)
	{
		fprintf(stderr, "cannot write the MILP of %d GPUs: %s\n", in->gpus, err.message);
		return NAN;
	}
	if (!(args->reference_ms > 0) || !have_cbc())
		return NAN;
	lower = cbc_lower_bound(path, args->reference_ms / 1000.0);
	return constant - lower;
}

/*
 * The bound on plans that keep the protect rule (NAN when not computed):
 * the aggregate model's LP with protect chains, and where the pools'
 * block-level models are small, their branch and bound; *block says
 * whether those were computed.
 */
static double
protected_bound(const ga_problem *p, const bench_args *args, bool *block)
{
	ga_solve_options opts = {.time_limit_ms = args->bound_ms};
	ga_block_bound_spec spec = {.time_limit_ms = args->protected_ms,
		.max_size = PROTECTED_MAX_SIZE, .protect_rule = true, .branch = true};
	double		aggregate = HUGE_VAL;
	double		branched = HUGE_VAL;
	ga_error	err;

	*block = false;
	if (!(args->protected_ms > 0))
		return NAN;
	if (ga_milp_protected_bound(p, &opts, &aggregate, &err) != GA_OK)
		fprintf(stderr, "no protected LP bound: %s\n", err.message);
	if (ga_block_bound_with(p, &spec, &branched, &err) == GA_OK)
		*block = true;
	else
		fprintf(stderr, "no protected block bound: %s\n", err.message);
	return isfinite(fmin(aggregate, branched)) ? fmin(aggregate, branched) : NAN;
}

/* CBC's lower bound on the minimum of each model file, summed (NAN on failure). */
static double
cbc_sum(const char *prefix, int n_files, double seconds)
{
	double		sum = 0;

	for (int q = 0; q < n_files; q++)
	{
		char		path[1200];

		snprintf(path, sizeof(path), "%s-pool%d.mps", prefix, q);
		sum += cbc_lower_bound(path, seconds / n_files);
	}
	return sum;
}

/*
 * CBC's bound on the protected models: the aggregate one, and the
 * block-level ones (one file per pool) where they were solved (NAN
 * without CBC).
 */
static double
protected_reference(const ga_problem *p, const instance *in, const bench_args *args, bool block)
{
	char		path[1024];
	double		constant;
	double		best = NAN;
	ga_error	err;

	if (!(args->protected_ms > 0) || !(args->reference_ms > 0) || !have_cbc())
		return NAN;
	snprintf(path, sizeof(path), "%s/gpus%d_jobs%d_protected.mps", args->mps_dir, in->gpus, in->jobs);
	make_parents(path);
	if (ga_milp_write_mps(p, true, path, &constant, &err) == GA_OK)
		best = constant - cbc_lower_bound(path, args->reference_ms / 1000.0);
	else
		fprintf(stderr, "cannot write the protected MILP of %d GPUs: %s\n", in->gpus, err.message);
	snprintf(path, sizeof(path), "%s/gpus%d_jobs%d_protected_blocks", args->mps_dir, in->gpus, in->jobs);
	if (block && ga_block_write_mps(p, true, path, &constant, &err) == GA_OK)
	{
		double		blocks = constant - cbc_sum(path, p->n_pools, args->reference_ms / 1000.0);

		if (!(best <= blocks))
			best = blocks;
	}
	return best;
}

/*
 * The instance's problem: generated, or the one fast and full solve at the
 * first re-plan of its scenario (with forecasts, as the simulator plans);
 * NULL after a message on stderr.
 */
static ga_problem *
instance_problem(const instance *in)
{
	ga_generate_spec spec;
	ga_sim_options opt;
	ga_scenario *scn;
	ga_problem *p = NULL;
	ga_error	err;

	if (in->scenario == NULL)
	{
		ga_generate_defaults(&spec, in->gpus, in->jobs, in->steps, in->seed);
		if ((p = ga_generate(&spec, &err)) == NULL)
			fprintf(stderr, "cannot generate %d GPUs / %d jobs: %s\n", in->gpus, in->jobs, err.message);
		return p;
	}
	if ((scn = ga_scenario_read(in->scenario, &err)) == NULL)
	{
		fprintf(stderr, "cannot read %s: %s\n", in->scenario, err.message);
		return NULL;
	}
	ga_sim_options_default(&opt, GA_POLICY_FULL);
	if (ga_sim_first_problem(scn, &opt, &p, &err) != GA_OK)
		fprintf(stderr, "cannot build the first problem of %s: %s\n", in->scenario, err.message);
	ga_scenario_destroy(scn);
	return p;
}

static int
bench_instance(const instance *given, const bench_args *args, result *out)
{
	instance	sized = *given;
	const instance *in = &sized;
	ga_solve_options fast_opts = {0};
	ga_solve_options full_opts = {0};
	ga_solve_options bound_opts = {.time_limit_ms = args->bound_ms};
	ga_problem *p;
	ga_error	err;
	double		bound = NAN;
	double		reference;
	double		protect;
	double		protect_reference;
	bool		block = false;
	int			n = 0;

	p = instance_problem(given);
	if (p == NULL)
		return 0;
	sized.gpus = p->n_gpus;
	sized.jobs = p->n_jobs;
	sized.steps = p->params.n_steps;
	if (ga_solve_bound(p, &bound_opts, &bound, &err) != GA_OK)
	{
		fprintf(stderr, "bound failed at %d GPUs: %s\n", in->gpus, err.message);
		bound = NAN;
	}
	out[n] = (result) {.instance = in->name, .gpus = in->gpus, .jobs = in->jobs, .steps = in->steps, .mode = "fast",
	.proven = HUGE_VAL};
	if (run_mode(p, solve_fast, &fast_opts, args->fast_runs > 0 ? args->fast_runs : in->fast_runs, &out[n]))
		n++;
	if (!args->only_fast && in->full_ms > 0)
	{
		full_opts.time_limit_ms = args->full_ms > 0 ? args->full_ms : in->full_ms;
		out[n] = (result) {.instance = in->name, .gpus = in->gpus, .jobs = in->jobs, .steps = in->steps, .mode = "full",
		.proven = HUGE_VAL};
		if (run_mode(p, solve_full, &full_opts, args->full_runs, &out[n]))
		{
			if (isfinite(out[n].proven) && !(out[n].proven >= bound))
				bound = out[n].proven;
			n++;
		}
	}
	reference = in->full_ms > 0 ? reference_bound(p, in, args) : NAN;
	protect = NAN;
	protect_reference = NAN;
	if (in->full_ms > 0)
		protect = protected_bound(p, args, &block);
	if (isfinite(protect))
		protect_reference = protected_reference(p, in, args, block);
	for (int i = 0; i < n; i++)
	{
		out[i].bound = bound;
		out[i].reference_bound = reference;
		out[i].protected_bound = protect;
		out[i].protected_reference = protect_reference;
		set_gap(&out[i]);
	}
	ga_problem_destroy(p);
	return n;
}

static void
print_optional(double x, const char *format)
{
	if (isfinite(x))
		printf(format, x);
}

static void
print_table(const result *r, int n)
{
	printf("| instance | GPUs | jobs | steps | mode | runs | p50 ms | p99 ms | objective | bound | CBC bound | gap | protected bound | CBC protected | protected gap | moves | work / budget | converged | found by |\n");
	printf("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	for (int i = 0; i < n; i++)
	{
		printf("| %s | %d | %d | %d | %s | %d | %.3f | %.3f | %.2f | %.2f | ",
			   r[i].instance, r[i].gpus, r[i].jobs, r[i].steps, r[i].mode, r[i].runs,
			   r[i].p50_ms, r[i].p99_ms, r[i].objective, r[i].bound);
		if (isfinite(r[i].reference_bound))
			printf("%.2f", r[i].reference_bound);
		printf(" | %.2f%% | ", 100 * r[i].gap);
		print_optional(r[i].protected_bound, "%.2f");
		printf(" | ");
		print_optional(r[i].protected_reference, "%.2f");
		printf(" | ");
		print_optional(100 * r[i].protected_gap, "%.2f%%");
		printf(" |");
		if (strcmp(r[i].mode, "fast") == 0)
			printf(" %ld | %ld / %ld | %d/%d | |", r[i].moves, r[i].work, r[i].work_limit,
				   r[i].converged, r[i].runs);
		else
		{
			printf(" | | |");
			for (int k = 0; k < N_SOURCES; k++)
				if (r[i].found_by[k] > 0)
					printf(" %s %d", sources[k], r[i].found_by[k]);
			printf(" |");
		}
		printf("%s\n", r[i].illegal ? " ILLEGAL PLANS" : "");
	}
}

static void
json_number(FILE *f, const char *key, double x, const char *sep)
{
	if (isfinite(x))
		fprintf(f, "\"%s\": %.6f%s", key, x, sep);
	else
		fprintf(f, "\"%s\": null%s", key, sep);
}

/* Create the parent directories of path (mkdir -p of its dirname). */
static void
make_parents(const char *path)
{
	char		buf[1024];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + 1; *s != '\0'; s++)
		if (*s == '/')
		{
			*s = '\0';
			if (mkdir(buf, 0777) != 0 && errno != EEXIST)
				return;
			*s = '/';
		}
}

static void
write_found_by(FILE *f, const result *r)
{
	fprintf(f, ", \"found_by\": {");
	for (int k = 0; k < N_SOURCES; k++)
		fprintf(f, "\"%s\": %d%s", sources[k], r->found_by[k], k + 1 < N_SOURCES ? ", " : "");
	fprintf(f, "}, \"runs\": %d, ", r->runs);
	json_number(f, "neighbourhoods", r->runs > 0 ? (double) r->neighbourhoods / r->runs : NAN, "");
}

static bool
write_json(const char *path, const result *r, int n)
{
	FILE	   *f;

	make_parents(path);
	f = fopen(path, "w");
	if (f == NULL)
	{
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
		return false;
	}
	fprintf(f, "[\n");
	for (int i = 0; i < n; i++)
	{
		fprintf(f, "  {\"instance\": \"%s\", \"gpus\": %d, \"jobs\": %d, \"steps\": %d, \"mode\": \"%s\", ",
				r[i].instance, r[i].gpus, r[i].jobs, r[i].steps, r[i].mode);
		json_number(f, "p50_ms", r[i].p50_ms, ", ");
		json_number(f, "p99_ms", r[i].p99_ms, ", ");
		json_number(f, "objective", r[i].objective, ", ");
		json_number(f, "bound", r[i].bound, ", ");
		json_number(f, "reference_bound", r[i].reference_bound, ", ");
		json_number(f, "gap", r[i].gap, ", ");
		json_number(f, "protected_bound", r[i].protected_bound, ", ");
		json_number(f, "protected_reference_bound", r[i].protected_reference, ", ");
		json_number(f, "protected_gap", r[i].protected_gap, "");
		if (strcmp(r[i].mode, "fast") == 0)
			fprintf(f, ", \"moves\": %ld, \"work\": %ld, \"work_limit\": %ld, \"converged\": %d, \"runs\": %d",
					r[i].moves, r[i].work, r[i].work_limit, r[i].converged, r[i].runs);
		else
			write_found_by(f, &r[i]);
		fprintf(f, "}%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, "]\n");
	return fclose(f) == 0;
}

/* Whether --instance (only: NULL for all) names the instance: its name, or GPUS/JOBS. */
static bool
selected(const instance *in, const char *only)
{
	char		size[32];

	snprintf(size, sizeof(size), "%d/%d", in->gpus, in->jobs);
	return only == NULL || strcmp(only, in->scenario != NULL ? in->name : size) == 0;
}

static bool
parse_args(int argc, char **argv, bench_args *args)
{
	*args = (bench_args) {.full_runs = 3, .bound_ms = 600000, .reference_ms = 60000,
	.protected_ms = 60000, .mps_dir = "build/solver-mps"};
	for (int i = 1; i < argc; i++)
	{
		bool		has_value = i + 1 < argc;

		if (strcmp(argv[i], "--out") == 0 && has_value)
			args->out = argv[++i];
		else if (strcmp(argv[i], "--only-fast") == 0)
			args->only_fast = true;
		else if (strcmp(argv[i], "--full-ms") == 0 && has_value)
			args->full_ms = atof(argv[++i]);
		else if (strcmp(argv[i], "--fast-runs") == 0 && has_value)
			args->fast_runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--full-runs") == 0 && has_value)
			args->full_runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--bound-ms") == 0 && has_value)
			args->bound_ms = atof(argv[++i]);
		else if (strcmp(argv[i], "--reference-ms") == 0 && has_value)
			args->reference_ms = atof(argv[++i]);
		else if (strcmp(argv[i], "--protected-ms") == 0 && has_value)
			args->protected_ms = atof(argv[++i]);
		else if (strcmp(argv[i], "--mps-dir") == 0 && has_value)
			args->mps_dir = argv[++i];
		else if (strcmp(argv[i], "--instance") == 0 && has_value)
			args->only = argv[++i];
		else
			return false;
	}
	return args->full_runs > 0 && args->fast_runs >= 0 && args->bound_ms > 0 && args->reference_ms >= 0 &&
		args->protected_ms >= 0;
}

int
main(int argc, char **argv)
{
	bench_args	args;
	result		results[2 * N_INSTANCES];
	int			n = 0;
	int			illegal = 0;

	if (!parse_args(argc, argv, &args))
	{
		fprintf(stderr, "usage: %s [--out PATH] [--only-fast] [--full-ms N] [--fast-runs N] [--full-runs N] [--bound-ms N]\n"
				"       [--reference-ms N] [--protected-ms N] [--mps-dir DIR] [--instance demo|GPUS/JOBS]\n",
				argv[0]);
		return 2;
	}
	for (size_t i = 0; i < N_INSTANCES; i++)
	{
		int			before = n;

		if (!selected(&instances[i], args.only))
			continue;
		n += bench_instance(&instances[i], &args, results + n);
		if (n > before)
			fprintf(stderr, "done %s %d GPUs / %d jobs\n", results[before].instance,
					results[before].gpus, results[before].jobs);
	}
	print_table(results, n);
	for (int i = 0; i < n; i++)
		illegal += results[i].illegal;
	if (args.out != NULL && !write_json(args.out, results, n))
		return 1;
	return illegal == 0 && n > 0 ? 0 : 1;
}
