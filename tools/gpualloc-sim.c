/*
 * gpualloc-sim — run scheduling policies over scenarios (docs/model.md, Scenario format) and
 * print their metrics as Markdown tables or JSON.
 *
 *   gpualloc-sim run SCENARIO_DIR --policy POLICY [--perfect-knowledge] [--json]
 *   gpualloc-sim compare SCENARIO_DIR... [--perfect-knowledge] [--json]
 *                [--policies a,b,c]
 *   common options: --full-ms N (full's limit per re-plan, default 1000),
 *                   --fast-ms N (a safety cap on fast's wall time per
 *                   re-plan, default 10000; fast ends by its work budget),
 *                   --oracle-coverage F (the coverage floor of the oracle's
 *                   value bounds, default 0.995; 0: over every run),
 *                   --quantile Q (the demand quantile planned for, default
 *                   0.955),
 *                   --protect-quantile Q (the quantile of the protect
 *                   curve, default 0.99), --headroom H (share of the
 *                   protect margin handed to services, default 1),
 *                   --headroom-min N (GPUs above the demand handed to
 *                   services from idle GPUs at least, default 1),
 *                   --overrun-margin M (share by which the protect rule
 *                   lengthens a job's estimated run, default 0.6),
 *                   --overrun-spread S (share of the spread of a job's
 *                   duration estimate, p90 / p50 - 1, by which it
 *                   lengthens the run instead where the estimate has one,
 *                   default 0: every job by the margin),
 *                   --first-pool-only (plan each job on its first pool
 *                   only, its alt_pools ignored),
 *                   --need-quantile Q, --need-lookback H and
 *                   --need-profile daily|flat (the tenants' forecast needs
 *                   of fast and full, sim/tenant_need.h)
 */
#include "sim/oracle.h"
#include "sim/sim.h"
#include "sim/tenant_metrics.h"
#include "solve/solve.h"

#include "json_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cli
{
	bool		compare;
	bool		json;
	bool		perfect;
	bool		first_pool_only;
	double		full_ms;
	double		fast_ms;
	double		oracle_coverage;
	double		quantile;
	double		protect_quantile;
	double		headroom;
	double		headroom_min;
	double		overrun_margin;
	double		overrun_spread;
	double		need_quantile;
	double		need_lookback;
	int			need_daily;		/* -1: the default */
	ga_sim_quotas quotas;
	int			n_policies;
	ga_policy	policies[GA_N_POLICIES];
	int			n_dirs;
	char	  **dirs;
} cli;

/* Appended to a policy's name in the output: what --quotas hid from it. */
static const char *policy_suffix = "";

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: gpualloc-sim run SCENARIO_DIR --policy POLICY [--perfect-knowledge] [--json]\n"
			"       gpualloc-sim compare SCENARIO_DIR... [--perfect-knowledge] [--json] [--policies a,b,c]\n"
			"options: --full-ms N   time limit of full per re-plan (default 1000)\n"
			"         --fast-ms N   safety cap on fast's wall time per re-plan (default 10000);\n"
			"                       fast ends by its work budget, whatever the machine's load\n"
			"         --oracle-coverage F   the oracle's value bounds cover runs with coverage >= F\n"
			"                       (0 to 1, default 0.995; 0: every run)\n"
			"         --quantile Q  the upper quantile of demand forecasts planned for\n"
			"                       (0.5 to 0.999, default 0.955; ignored with --perfect-knowledge)\n"
			"         --protect-quantile Q  the quantile of the protect curve no job may take\n"
			"                       GPUs from (0.5 to 0.999, default 0.99; ignored with --perfect-knowledge)\n"
			"         --headroom H  share of the protect margin handed to services as idle\n"
			"                       GPUs they hold (0 to 1, default 1)\n"
			"         --headroom-min N  GPUs above the demand handed to services from idle\n"
			"                       GPUs at least (0 to 100000, default 1; ignored with\n"
			"                       --perfect-knowledge)\n"
			"         --overrun-margin M  share by which the protect rule lengthens a job's\n"
			"                       estimated run (0 to 10, default 0.6; ignored with --perfect-knowledge)\n"
			"         --overrun-spread S  share of the spread of a job's duration estimate\n"
			"                       (p90 / p50 - 1) by which it lengthens the run instead, where the\n"
			"                       estimate has one (0 to 10, default 0: every job by the margin;\n"
			"                       ignored with --perfect-knowledge)\n"
			"         --first-pool-only  plan each job on its first pool only (alt_pools ignored)\n"
			"         --need-quantile Q  the quantile of a tenant's recent want of its guarantee\n"
			"                       that fast and full keep from being lent (0 to 1, default 0.5;\n"
			"                       ignored with --perfect-knowledge)\n"
			"         --need-lookback H  hours of that recent want (0.5 to 720, default 72)\n"
			"         --need-profile daily|flat  the want at the same time of day only, or all\n"
			"                       of it for every step ahead (default daily)\n"
			"         --quotas on|off|no-borrowing  what the policies see of tenants.csv: all of\n"
			"                       it (default), nothing, or no borrowing; a run without all of it\n"
			"                       is labelled POLICY-no-quotas or POLICY-no-borrowing\n"
			"policies: fifo, backfill, fast, full, quota, fairshare, oracle\n");
}

static bool
parse_policies(cli *c, const char *list)
{
	char		buf[256];
	char	   *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	c->n_policies = 0;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		if (c->n_policies >= GA_N_POLICIES ||
			!ga_policy_parse(tok, &c->policies[c->n_policies]))
		{
			fprintf(stderr, "gpualloc-sim: unknown policy \"%s\" (or too many)\n", tok);
			return false;
		}
		c->n_policies++;
	}
	return c->n_policies > 0;
}

static bool
parse_ms(const char *opt, const char *text, double *out)
{
	char	   *end;

	*out = strtod(text, &end);
	if (*text == '\0' || *end != '\0' || !(*out > 0))
	{
		fprintf(stderr, "gpualloc-sim: %s needs a positive number of milliseconds\n", opt);
		return false;
	}
	return true;
}

/*
 * A number in [lo, hi], a whole one when whole is set; NaN fails both
 * comparisons.  what says what it is.
 */
static bool
parse_number(const char *opt, const char *text, double lo, double hi, bool whole,
			 const char *what, double *out)
{
	char	   *end;

	*out = strtod(text, &end);
	if (*text == '\0' || *end != '\0' || !(*out >= lo && *out <= hi) ||
		(whole && *out != floor(*out)))
	{
		fprintf(stderr, "gpualloc-sim: %s needs %s, got \"%s\"\n", opt, what, text);
		return false;
	}
	return true;
}

static bool
parse_in_range(const char *opt, const char *text, double lo, double hi,
			   const char *what, double *out)
{
	return parse_number(opt, text, lo, hi, false, what, out);
}

static bool
parse_args(cli *c, int argc, char **argv)
{
	memset(c, 0, sizeof(*c));
	c->full_ms = 1000;
	c->fast_ms = GA_FAST_DEFAULT_MS;
	c->oracle_coverage = GA_ORACLE_COVERAGE_FLOOR;
	c->quantile = -1;
	c->protect_quantile = -1;
	c->headroom = -1;
	c->headroom_min = -1;
	c->overrun_margin = -1;
	c->overrun_spread = -1;
	c->need_quantile = -1;
	c->need_lookback = -1;
	c->need_daily = -1;
	if (argc < 3 || (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "compare") != 0))
		return false;
	c->compare = strcmp(argv[1], "compare") == 0;
	c->dirs = calloc(argc, sizeof(char *));
	if (c->dirs == NULL)
		return false;
	if (c->compare)
		for (int i = 0; i < GA_N_POLICIES; i++)
			c->policies[c->n_policies++] = (ga_policy) i;
	for (int i = 2; i < argc; i++)
	{
		const char *a = argv[i];
		bool		has_val = i + 1 < argc;

		if (strcmp(a, "--json") == 0)
			c->json = true;
		else if (strcmp(a, "--perfect-knowledge") == 0)
			c->perfect = true;
		else if (strcmp(a, "--first-pool-only") == 0)
			c->first_pool_only = true;
		else if (strcmp(a, "--policy") == 0 && has_val && !c->compare)
		{
			c->n_policies = 1;
			if (!ga_policy_parse(argv[++i], &c->policies[0]))
			{
				fprintf(stderr, "gpualloc-sim: unknown policy \"%s\"\n", argv[i]);
				return false;
			}
		}
		else if (strcmp(a, "--policies") == 0 && has_val && c->compare)
		{
			if (!parse_policies(c, argv[++i]))
				return false;
		}
		else if (strcmp(a, "--full-ms") == 0 && has_val)
		{
			if (!parse_ms(a, argv[++i], &c->full_ms))
				return false;
		}
		else if (strcmp(a, "--fast-ms") == 0 && has_val)
		{
			if (!parse_ms(a, argv[++i], &c->fast_ms))
				return false;
		}
		else if (strcmp(a, "--quantile") == 0 && has_val)
		{
			if (!parse_in_range(a, argv[++i], 0.5, 0.999,
								"a quantile from 0.5 to 0.999", &c->quantile))
				return false;
		}
		else if (strcmp(a, "--protect-quantile") == 0 && has_val)
		{
			if (!parse_in_range(a, argv[++i], 0.5, 0.999,
								"a quantile from 0.5 to 0.999", &c->protect_quantile))
				return false;
		}
		else if (strcmp(a, "--headroom") == 0 && has_val)
		{
			if (!parse_in_range(a, argv[++i], 0, 1, "a share from 0 to 1", &c->headroom))
				return false;
		}
		else if (strcmp(a, "--headroom-min") == 0 && has_val)
		{
			if (!parse_number(a, argv[++i], 0, GA_HEADROOM_MIN_MAX, true,
							  "a whole number of GPUs from 0 to 100000", &c->headroom_min))
				return false;
		}
		else if (strcmp(a, "--overrun-margin") == 0 && has_val)
		{
			if (!parse_in_range(a, argv[++i], 0, 10, "a share from 0 to 10", &c->overrun_margin))
				return false;
		}
		else if (strcmp(a, "--overrun-spread") == 0 && has_val)
		{
			if (!parse_in_range(a, argv[++i], 0, 10, "a share from 0 to 10", &c->overrun_spread))
				return false;
		}
		else if (strcmp(a, "--need-quantile") == 0 && has_val)
		{
			if (!parse_in_range(a, argv[++i], 0, 1, "a quantile from 0 to 1", &c->need_quantile))
				return false;
		}
		else if (strcmp(a, "--need-profile") == 0 && has_val &&
				 (strcmp(argv[i + 1], "daily") == 0 || strcmp(argv[i + 1], "flat") == 0))
			c->need_daily = strcmp(argv[++i], "daily") == 0;
		else if (strcmp(a, "--quotas") == 0 && has_val &&
				 (strcmp(argv[i + 1], "on") == 0 || strcmp(argv[i + 1], "off") == 0 ||
				  strcmp(argv[i + 1], "no-borrowing") == 0))
		{
			i++;
			c->quotas = strcmp(argv[i], "on") == 0 ? GA_SIM_QUOTAS_ON
				: strcmp(argv[i], "off") == 0 ? GA_SIM_QUOTAS_OFF : GA_SIM_QUOTAS_NO_BORROWING;
			policy_suffix = c->quotas == GA_SIM_QUOTAS_OFF ? "-no-quotas"
				: c->quotas == GA_SIM_QUOTAS_NO_BORROWING ? "-no-borrowing" : "";
		}
		else if (strcmp(a, "--need-lookback") == 0 && has_val)
		{
			if (!parse_in_range(a, argv[++i], 0.5, 720, "hours from 0.5 to 720", &c->need_lookback))
				return false;
		}
		else if (strcmp(a, "--oracle-coverage") == 0 && has_val)
		{
			if (!parse_in_range(a, argv[++i], 0, 1,
								"a coverage share from 0 to 1 (0.995 for 99.5%; 0 bounds every run)",
								&c->oracle_coverage))
				return false;
		}
		else if (a[0] == '-' && a[1] == '-')
		{
			fprintf(stderr, "gpualloc-sim: unknown or incomplete option \"%s\"\n", a);
			return false;
		}
		else
			c->dirs[c->n_dirs++] = argv[i];
	}
	if (c->n_dirs == 0 || (!c->compare && c->n_dirs != 1))
		return false;
	if (!c->compare && c->n_policies != 1)
	{
		fprintf(stderr, "gpualloc-sim: run needs --policy\n");
		return false;
	}
	return true;
}

/* ---- output ---- */

static void
json_num(const char *key, double v, bool last)
{
	if (isfinite(v))
		printf("\"%s\": %.10g%s", key, v, last ? "" : ", ");
	else
		printf("\"%s\": null%s", key, last ? "" : ", ");
}

/*
 * Per-tenant figures of a run whose scenario has tenant policies
 * (sim/tenant_metrics.h), malloc'd, *n of them; NULL (and *n 0) when
 * there are none to show.  *n is -1 when memory ran out.
 */
static ga_tenant_figures *
tenant_figures(const ga_scenario *scn, const ga_sim_result *res, int *n)
{
	ga_tenant_figures *f;

	*n = 0;
	if (scn->n_policies == 0 || res->metrics.is_bound)
		return NULL;
	f = malloc(sizeof(ga_tenant_figures) * (scn->n_tenants + 1));
	*n = f ? ga_tenant_figures_compute(scn, res, f) : -1;
	return f;
}

static double
received_share(const ga_tenant_figures *f)
{
	return f->entitled_gpu_hours > 0 ? f->gpu_hours / f->entitled_gpu_hours : NAN;
}

static void
json_tenants(const ga_scenario *scn, const ga_sim_result *res)
{
	int			n;
	ga_tenant_figures *f = tenant_figures(scn, res, &n);

	if (n < 0)
		printf(", \"tenants\": null");	/* out of memory */
	if (n < 0 || f == NULL)
	{
		free(f);
		return;
	}
	printf(", \"tenants\": [");
	for (int i = 0; i < n; i++)
	{
		printf("%s{\"tenant\": ", i ? ", " : "");
		json_write_string(stdout, scn->tenants[f[i].tenant]);
		printf(", ");
		json_num("jobs", f[i].jobs, false);
		json_num("demand_gpu_hours", f[i].demand_gpu_hours, false);
		json_num("gpu_hours", f[i].gpu_hours, false);
		json_num("entitled_gpu_hours", f[i].entitled_gpu_hours, false);
		json_num("received_over_entitled", received_share(&f[i]), false);
		json_num("value", f[i].value, false);
		json_num("wait_p50_h", f[i].wait_p50_h, false);
		json_num("wait_p95_h", f[i].wait_p95_h, true);
		printf("}");
	}
	printf("]");
	free(f);
}

/*
 * floor: the oracle's coverage floor, NAN for a policy's run (no key).
 * With classes (a run, not a comparison): the waits of each priority and,
 * where the scenario has tenant policies, each tenant's figures.
 */
static void
json_object(const ga_scenario *scn, const ga_sim_result *res, ga_policy policy,
			bool perfect, bool classes)
{
	const ga_metrics *m = &res->metrics;
	double		floor = res->coverage_floor;

	printf("{\"scenario\": ");
	json_write_string(stdout, scn->name);
	printf(", \"policy\": \"%s%s\", \"knowledge\": \"%s\", ", ga_policy_name(policy), policy_suffix,
		   perfect ? "perfect" : "forecast");
	json_num("utilization", m->utilization, false);
	json_num("value", m->value, false);
	json_num("completed_value", m->completed_value, false);
	json_num("completed_jobs", m->completed_jobs, false);
	/* a bound starts no job: the two counts do not apply to it */
	json_num("stopped_jobs", m->is_bound ? NAN : m->stopped_jobs, false);
	json_num("dependency_violations", m->is_bound ? NAN : m->dependency_violations, false);
	json_num("coverage", m->coverage, false);
	json_num("unmet_gpu_hours", m->unmet_gpu_hours, false);
	json_num("churn", m->churn, false);
	json_num("window_violations", m->window_violations, false);
	json_num("reservation_start_delay_steps", m->reservation_start_delay_steps, false);
	json_num("jain_index", m->jain_index, false);
	json_num("min_entitlement_share", m->min_entitlement_share, false);
	json_num("wait_mean_h", m->wait_mean_h, false);
	json_num("wait_p95_h", m->wait_p95_h, false);
	json_num("solve_p50_ms", m->solve_p50_ms, false);
	json_num("solve_p99_ms", m->solve_p99_ms, !classes && isnan(floor));
	if (!isnan(floor))
		json_num("coverage_floor", floor, !classes);
	if (classes)
	{
		printf("\"wait_by_priority\": [");
		for (int i = 0; i < m->n_classes; i++)
		{
			printf("%s{", i ? ", " : "");
			json_num("priority", m->classes[i].priority, false);
			json_num("jobs", m->classes[i].jobs, false);
			json_num("wait_mean_h", m->classes[i].mean_hours, false);
			json_num("wait_p95_h", m->classes[i].p95_hours, true);
			printf("}");
		}
		printf("]");
		json_tenants(scn, res);
	}
	printf("}");
}

static void
cell(double v, const char *fmt)
{
	if (isfinite(v))
	{
		printf(" ");
		printf(fmt, v);
		printf(" |");
	}
	else
		printf(" — |");
}

static void
table_header(const char *scenario, bool perfect)
{
	printf("\n### %s (%s)\n\n", scenario, perfect ? "perfect knowledge" : "forecasts");
	printf("| policy | utilisation %% | value | completed value | completed jobs | coverage %% "
		   "| unmet GPU-h | churn | in windows GPU-steps | wait mean h | wait p95 h | solve p50 ms | solve p99 ms |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
}

static void
table_row(ga_policy policy, const ga_metrics *m, double floor)
{
	if (isnan(floor) || floor == 0)
		printf("| %s%s%s |", ga_policy_name(policy), policy_suffix, m->is_bound ? " (bound)" : "");
	else
		printf("| %s (bound, coverage floor %.4g%%) |", ga_policy_name(policy), 100 * floor);
	cell(100 * m->utilization, "%.1f");
	cell(m->value, "%.1f");
	cell(m->completed_value, "%.1f");
	cell(m->completed_jobs, m->is_bound ? "%.1f" : "%.0f");
	cell(100 * m->coverage, "%.1f");
	cell(m->unmet_gpu_hours, "%.1f");
	cell(m->churn, "%.0f");
	cell(m->window_violations, "%.0f");
	cell(m->wait_mean_h, "%.2f");
	cell(m->wait_p95_h, "%.2f");
	cell(m->solve_p50_ms, "%.2f");
	cell(m->solve_p99_ms, "%.2f");
	printf("\n");
}

static void
table_classes(const ga_metrics *m)
{
	if (m->is_bound || m->n_classes == 0)
		return;
	printf("\n| priority | jobs | wait mean h | wait p95 h |\n|---:|---:|---:|---:|\n");
	for (int i = 0; i < m->n_classes; i++)
	{
		printf("| %g | %d |", m->classes[i].priority, m->classes[i].jobs);
		cell(m->classes[i].mean_hours, "%.2f");
		cell(m->classes[i].p95_hours, "%.2f");
		printf("\n");
	}
}

/*
 * Per-tenant figures of a run whose scenario has tenant policies
 * (sim/tenant_metrics.h): GPU-hours demanded, received and entitled,
 * value, waits.
 */
static void
table_tenants(const ga_scenario *scn, const ga_sim_result *res)
{
	int			n;
	ga_tenant_figures *f = tenant_figures(scn, res, &n);

	if (f == NULL && n == 0)
		return;
	printf("\n| tenant | jobs | demand GPU-h | GPU-h | entitled GPU-h | received / entitled | value | wait p50 h | wait p95 h |\n"
		   "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < n; i++)
	{
		printf("| %s | %d |", scn->tenants[f[i].tenant], f[i].jobs);
		cell(f[i].demand_gpu_hours, "%.1f");
		cell(f[i].gpu_hours, "%.1f");
		cell(f[i].entitled_gpu_hours, "%.1f");
		cell(received_share(&f[i]), "%.2f");
		cell(f[i].value, "%.1f");
		cell(f[i].wait_p50_h, "%.2f");
		cell(f[i].wait_p95_h, "%.2f");
		printf("\n");
	}
	printf("\nJain's index %.3f, smallest received / entitled %.3f\n",
		   res->metrics.jain_index, res->metrics.min_entitlement_share);
	free(f);
}

/* ---- running ---- */

static int
run_one(const cli *c, const ga_scenario *scn, ga_policy policy, bool *first_json)
{
	ga_sim_options opt;
	ga_sim_result *res;
	ga_error	err;
	ga_status	rc;
	ga_sim_options_default(&opt, policy);
	opt.perfect = c->perfect;
	opt.first_pool_only = c->first_pool_only;
	opt.full_ms = c->full_ms;
	opt.fast_ms = c->fast_ms;
	if (c->quantile > 0)
		opt.quantile = c->quantile;
	if (c->protect_quantile > 0)
		opt.protect_quantile = c->protect_quantile;
	if (c->headroom >= 0)
		opt.headroom = c->headroom;
	if (c->headroom_min >= 0)
		opt.headroom_min = (int) c->headroom_min;
	if (c->overrun_margin >= 0)
		opt.overrun_margin = c->overrun_margin;
	if (c->overrun_spread >= 0)
		opt.overrun_spread = c->overrun_spread;
	if (c->need_quantile >= 0)
		opt.need_quantile = c->need_quantile;
	if (c->need_lookback > 0)
		opt.need_lookback_hours = c->need_lookback;
	if (c->need_daily >= 0)
		opt.need_daily = c->need_daily;
	opt.quotas = c->quotas;
	opt.oracle_coverage = c->oracle_coverage;
	rc = ga_simulate(scn, &opt, &res, &err);
	if (rc != GA_OK)
	{
		fprintf(stderr, "gpualloc-sim: %s, policy %s: %s\n", scn->name,
				ga_policy_name(policy), err.message);
		return 1;
	}
	if (res->estimate_fallbacks > 0)
		fprintf(stderr, "gpualloc-sim: %s: %d jobs had features no estimator accepts; "
				"they were planned with the mean work of finished jobs\n",
				scn->name, res->estimate_fallbacks);
	if (c->json)
	{
		printf("%s", *first_json ? "" : ",\n ");
		*first_json = false;
		json_object(scn, res, policy, c->perfect, !c->compare);
	}
	else
	{
		table_row(policy, &res->metrics, res->coverage_floor);
		if (!c->compare)
		{
			table_classes(&res->metrics);
			table_tenants(scn, res);
		}
	}
	ga_sim_result_destroy(res);
	return 0;
}

static int
run_scenario(const cli *c, const char *dir, bool *first_json)
{
	ga_error	err;
	ga_scenario *scn = ga_scenario_read(dir, &err);
	int			rc = 0;

	if (scn == NULL)
	{
		fprintf(stderr, "gpualloc-sim: %s\n", err.message);
		return 1;
	}
	if (!c->json)
		table_header(scn->name, c->perfect);
	for (int i = 0; i < c->n_policies && rc == 0; i++)
		rc = run_one(c, scn, c->policies[i], first_json);
	ga_scenario_destroy(scn);
	return rc;
}

int
main(int argc, char **argv)
{
	cli			c;
	bool		first_json = true;
	int			rc = 0;

	if (!parse_args(&c, argc, argv))
	{
		usage(stderr);
		free(c.dirs);
		return 2;
	}
	if (c.json && c.compare)
		printf("[");
	for (int i = 0; i < c.n_dirs && rc == 0; i++)
		rc = run_scenario(&c, c.dirs[i], &first_json);
	if (c.json && c.compare)
		printf("]");
	if (c.json)
		printf("\n");
	free(c.dirs);
	return rc;
}
