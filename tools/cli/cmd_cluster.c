/*
 * cmd_cluster.c — the cluster and its planner: nodes (like sinfo), plan
 * (a plan run's summary and its picture), status (the planner's health and
 * the allocation's sequence).
 */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- nodes ---- */

static cli_opt nodes_opts[] = {
	{"pool", 'P', true, NULL},
	{NULL, 0, false, NULL}
};

/* An idle GPU is up and holds nothing: a drained one takes no new work. */
static const char nodes_sql[] =
"SELECT c.pool, c.node, count(*) AS gpus,"
"   count(*) FILTER (WHERE c.state = 'up') AS up,"
"   count(*) FILTER (WHERE c.state = 'drain') AS drain,"
"   count(*) FILTER (WHERE c.state = 'down') AS down,"
"   count(*) FILTER (WHERE c.workload_kind = 'job') AS jobs,"
"   count(*) FILTER (WHERE c.workload_kind = 'service') AS services,"
"   count(*) FILTER (WHERE c.workload_kind IS NULL AND c.state = 'up') AS idle"
" FROM gpualloc.current_allocation c"
" WHERE $1::text IS NULL OR c.pool = $1"
" GROUP BY c.pool, c.node"
" ORDER BY c.pool, c.node";

static int
run_nodes(const cli_ctx *ctx)
{
	const char *params[1] = {cli_get(ctx->opts, "pool")};
	int			code = cli_check_named(ctx, NULL, params[0]);

	if (code != CLI_OK)
		return code;
	return cli_query_print(ctx, nodes_sql, 1, params, LAYOUT_TABLE);
}

const cli_command cli_cmd_nodes = {
	"nodes", "GPUs per pool and node: up, drain, down; jobs, services, idle (like sinfo)",
	"usage: gpualloc nodes [--pool P] [--json]\n"
	"\n"
	"One row per pool and node: its GPUs (gpus), how many are up, draining\n"
	"or down, and what they hold now: a job (jobs), a real-time service\n"
	"(services), or nothing while up (idle).\n"
	"\n"
	"  -P, --pool P   only pool P (exits 4 if there is no such pool)\n"
	"\n"
	"Reads gpualloc.current_allocation (gpualloc_reader, gpualloc_executor or gpualloc_admin).\n",
	nodes_opts, 0, 0, NULL, run_nodes
};

/* ---- plan ---- */

static cli_opt plan_opts[] = {
	{"svg", 0, true, NULL},
	{NULL, 0, false, NULL}
};

static bool
check_plan(const cli_ctx *ctx)
{
	return ctx->args.n_pos == 0 ||
		cli_check_int("PLAN_ID", ctx->args.pos[0], 1, 9223372036854775807LL);
}

/*
 * GPUs changed by a plan come from the change log, gpualloc.allocation_commits,
 * which only an admin may read: for other roles the column is NULL rather
 * than the whole command failing.
 */
#define PLAN_SQL(gpus_changed) \
	"SELECT h.plan_id, h.mode, h.trigger, h.status, h.started_at, h.plan_start," \
	"   h.horizon_steps, h.objective, h.bound, h.gap, h.solve_ms, h.wall_ms," \
	"   h.n_gpus, h.n_jobs, h.n_services, h.planned_jobs, " gpus_changed " AS gpus_changed," \
	"   h.message" \
	" FROM gpualloc.plan_history h" \
	" WHERE h.plan_id = coalesce($1::bigint, (SELECT max(m.plan_id) FROM gpualloc.plan_history m))"

static const char plan_sql_admin[] =
PLAN_SQL("(SELECT coalesce(sum(c.gpus_changed), 0) FROM gpualloc.allocation_commits c"
		 " WHERE c.plan_id = h.plan_id AND c.reason = 'plan')");
static const char plan_sql_reader[] = PLAN_SQL("NULL::bigint");

static const char may_read_commits_sql[] =
"SELECT coalesce(pg_catalog.has_table_privilege("
"   pg_catalog.to_regclass('gpualloc.allocation_commits'), 'SELECT'), false)";

static int
write_file(const char *path, const char *text)
{
	size_t		len = strlen(text);
	FILE	   *f;
	bool		ok;

	if (strcmp(path, "-") == 0)
	{
		fwrite(text, 1, len, stdout);
		return cli_flush_stdout();
	}
	f = fopen(path, "w");
	ok = f && fwrite(text, 1, len, f) == len;
	if (f && fclose(f) != 0)
		ok = false;
	if (!ok)
	{
		fprintf(stderr, "gpualloc: cannot write \"%s\": %s\n", path, strerror(errno));
		return CLI_LOCAL;
	}
	return CLI_OK;
}

/* plan_svg refuses a plan without a grid (a failed run) with its own message. */
static int
write_svg(const cli_ctx *ctx, const char *plan_id, const char *path)
{
	const char *params[1] = {plan_id};
	int			code = CLI_OK;
	PGresult   *res = cli_query(ctx->conn, "SELECT gpualloc.plan_svg($1::bigint)", 1, params, &code);

	if (!res)
		return code;
	code = write_file(path, PQgetvalue(res, 0, 0));
	PQclear(res);
	return code;
}

static int
run_plan(const cli_ctx *ctx)
{
	const char *params[1] = {ctx->args.n_pos ? ctx->args.pos[0] : NULL};
	const char *svg = cli_get(ctx->opts, "svg");
	bool		admin = false;
	int			code = cli_ask(ctx, may_read_commits_sql, 0, NULL, &admin);
	PGresult   *res;

	if (code != CLI_OK)
		return code;
	res = cli_query(ctx->conn, admin ? plan_sql_admin : plan_sql_reader, 1, params, &code);
	if (!res)
		return code;
	if (PQntuples(res) == 0)
	{
		PQclear(res);
		return params[0] ? cli_not_found("plan %s does not exist", params[0])
			: cli_not_found("no plan has run yet");
	}
	/* the SVG alone on stdout with --svg -; the summary otherwise */
	if (!svg || strcmp(svg, "-") != 0)
	{
		cli_print(stdout, res, ctx->json, LAYOUT_RECORD);
		code = cli_flush_stdout();
	}
	/* the file is written even when the summary could not be: the first failure is the exit code */
	if (svg)
	{
		int			svg_code = write_svg(ctx, PQgetvalue(res, 0, 0), svg);

		code = code != CLI_OK ? code : svg_code;
	}
	PQclear(res);
	return code;
}

const cli_command cli_cmd_plan = {
	"plan", "a plan run's summary (the latest by default); --svg writes its picture",
	"usage: gpualloc plan [PLAN_ID] [--svg FILE] [--json]\n"
	"\n"
	"The summary of a plan run, the latest when no PLAN_ID is given: plan_id,\n"
	"mode, trigger, status, started_at, plan_start, horizon_steps, objective,\n"
	"bound, gap, solve_ms, wall_ms, n_gpus, n_jobs, n_services, planned_jobs,\n"
	"gpus_changed (GPUs its committed step changed; shown to gpualloc_admin\n"
	"only), message.  A plan that does not exist exits 4.\n"
	"\n"
	"  --svg FILE   also write the plan as an SVG Gantt chart (gpualloc.plan_svg)\n"
	"               to FILE; \"-\" writes the SVG alone to standard output.  A plan\n"
	"               without a grid (a failed run) is refused (exit 1).\n"
	"\n"
	"Reads gpualloc.plan_history (gpualloc_reader or gpualloc_admin).\n",
	plan_opts, 0, 1, check_plan, run_plan
};

/* ---- status ---- */

/*
 * The planner's health from gpualloc.planner_status, joined to a one-row
 * query so that the allocation's sequence is shown even if the view has no
 * row.  check_integrity() is the admin's: for other roles its count is NULL.
 */
#define STATUS_SQL(problems) \
	"SELECT s.enabled, s.worker_alive, s.worker_pid, s.last_run_at, s.last_run_status," \
	"   s.last_success_at, s.consecutive_failures, s.last_error, s.last_error_at, s.next_run_due," \
	"   s.plan_id, s.plan_age, a.allocation_seq, " problems " AS integrity_problems" \
	" FROM (SELECT gpualloc.allocation_seq() AS allocation_seq) a" \
	" LEFT JOIN gpualloc.planner_status s ON true"

static const char status_sql_admin[] =
STATUS_SQL("(SELECT count(*) FROM gpualloc.check_integrity())");
static const char status_sql_other[] = STATUS_SQL("NULL::bigint");

static const char may_check_sql[] =
"SELECT coalesce(pg_catalog.has_function_privilege("
"   pg_catalog.to_regprocedure('gpualloc.check_integrity()'), 'EXECUTE'), false)";

static int
run_status(const cli_ctx *ctx)
{
	bool		admin = false;
	int			code = cli_ask(ctx, may_check_sql, 0, NULL, &admin);

	if (code != CLI_OK)
		return code;
	return cli_query_print(ctx, admin ? status_sql_admin : status_sql_other, 0, NULL,
						   LAYOUT_RECORD);
}

const cli_command cli_cmd_status = {
	"status", "the planner's health, the allocation's sequence, integrity problems",
	"usage: gpualloc status [--json]\n"
	"\n"
	"The background planner's health (gpualloc.planner_status): enabled,\n"
	"worker_alive, worker_pid, last_run_at, last_run_status, last_success_at,\n"
	"consecutive_failures, last_error, last_error_at, next_run_due, plan_id,\n"
	"plan_age; the allocation's last change set (allocation_seq, from\n"
	"gpualloc.allocation_seq()); and integrity_problems, the number of rows\n"
	"gpualloc.check_integrity() reports (0 on a healthy cluster; NULL unless\n"
	"you may call it: gpualloc_admin).\n"
	"\n"
	"Needs gpualloc_reader or gpualloc_admin.\n",
	NULL, 0, 0, NULL, run_status
};
