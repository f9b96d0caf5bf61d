/*
 * cmd_jobs.c — the jobs: queue (like squeue), submit, cancel, history (like
 * sacct).  Values reach the server only as query parameters; the SQL text is
 * fixed, or assembled from fixed pieces when options are optional (submit).
 */
#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- queue ---- */

static cli_opt queue_opts[] = {
	{"all", 'a', false, NULL},
	{"tenant", 't', true, NULL},
	{"pool", 'P', true, NULL},
	{NULL, 0, false, NULL}
};

/*
 * queue_plan has each job's planned or real start, its estimated finish,
 * its size range and why it waits.  Without --all or --tenant only
 * the jobs of tenants the caller is a member of are listed (as squeue --me
 * would), the same rule that decides which jobs a submitter may see and
 * cancel.
 */
static const char queue_sql[] =
"SELECT p.job_id, p.name, p.tenant, p.pool, p.status AS state, p.priority,"
"   CASE WHEN p.gpus IS NOT NULL THEN p.gpus::text"
"        WHEN p.gpus_min = p.gpus_max THEN p.gpus_min::text"
"        ELSE p.gpus_min || '-' || p.gpus_max END AS gpus,"
"   " CLI_SQL_GPU_RANGE("p.block_first", "(p.block_first + p.gpus - 1)") " AS block,"
"   p.planned_start AS start, p.est_finish, p.pending_reason AS reason"
" FROM gpualloc.queue_plan p"
" WHERE ($1::text IS NULL OR p.tenant::text = $1)"
"   AND ($2::text IS NULL OR p.pool = $2)"
"   AND ($3::boolean OR $1::text IS NOT NULL OR p.tenant IN ("
"        SELECT r.rolname FROM pg_catalog.pg_roles r"
"        WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')))"
" ORDER BY CASE p.status WHEN 'running' THEN 0 WHEN 'booked' THEN 1 ELSE 2 END,"
"   p.planned_start NULLS LAST, p.priority DESC, p.job_id";

static int
run_queue(const cli_ctx *ctx)
{
	const char *params[3] = {
		cli_get(ctx->opts, "tenant"),
		cli_get(ctx->opts, "pool"),
		cli_flag(ctx->opts, "all") ? "true" : "false"
	};
	int			code = cli_check_named(ctx, params[0], params[1]);

	if (code != CLI_OK)
		return code;
	return cli_query_print(ctx, queue_sql, 3, params, LAYOUT_TABLE);
}

const cli_command cli_cmd_queue = {
	"queue", "queued, booked and running jobs, with their plan (like squeue)",
	"usage: gpualloc queue [--all] [--tenant T] [--pool P] [--json]\n"
	"\n"
	"Queued, booked and running jobs: running first, then booked, then queued\n"
	"by planned start.  Columns: job_id, name, tenant, pool, state, priority,\n"
	"gpus (the block size, or the range min-max while no block is known),\n"
	"block (first-last topology index), start (when it started, was booked,\n"
	"or is planned to start), est_finish, reason (why a job that has not\n"
	"started waits: queue_plan.pending_reason).\n"
	"\n"
	"  -a, --all          every tenant's jobs (default: the tenants you are a member of)\n"
	"  -t, --tenant T     only tenant T's jobs\n"
	"  -P, --pool P       only pool P\n"
	"A tenant or pool that does not exist (or a tenant you may not see) exits 4.\n"
	"\n"
	"Reads gpualloc.queue_plan (gpualloc_reader or gpualloc_admin).\n",
	queue_opts, 0, 0, NULL, run_queue
};

/* ---- submit ---- */

static cli_opt submit_opts[] = {
	{"kind", 'k', true, NULL},
	{"pool", 'P', true, NULL},
	{"gpus", 'g', true, NULL},
	{"priority", 0, true, NULL},
	{"work-gpu-hours", 'w', true, NULL},
	{"features", 'f', true, NULL},
	{"tenant", 't', true, NULL},
	{"command", 'c', true, NULL},
	{"not-before", 0, true, NULL},
	{"deadline", 0, true, NULL},
	{"after-ok", 0, true, NULL},
	{"after-any", 0, true, NULL},
	{"time-limit", 0, true, NULL},
	{"alt-pools", 0, true, NULL},
	{NULL, 0, false, NULL}
};

#define GPUS_MAX (1 << 20)

/*
 * --gpus N or N:M, split into the two sizes (max defaults to min).  A bad
 * value is quoted whole: a piece of it alone ("" for ":4") says nothing.
 */
static bool
split_gpus(const char *text, char *min, char *max, size_t size)
{
	const char *colon = strchr(text, ':');
	size_t		min_len = colon ? (size_t) (colon - text) : strlen(text);
	const char *max_text = colon ? colon + 1 : text;

	if (min_len < size && strlen(max_text) < size)
	{
		snprintf(min, size, "%.*s", (int) min_len, text);
		snprintf(max, size, "%s", max_text);
		if (cli_parse_int(min, 1, GPUS_MAX, NULL) && cli_parse_int(max, 1, GPUS_MAX, NULL))
			return true;
	}
	cli_usage_error("--gpus must be N or N:M, whole numbers from 1 to %d, got \"%s\"",
					GPUS_MAX, text);
	return false;
}

/* ---- --time-limit, as sbatch --time reads it ---- */

static const char *const time_units[] = {"days", "hours", "minutes", "seconds"};

/*
 * sbatch's forms as a PostgreSQL interval: "M", "M:S", "H:M:S", "D-H",
 * "D-H:M", "D-H:M:S" ("90" is "90 minutes", "2-12" "2 days 12 hours").
 * False when text is none of them.
 */
static bool
sbatch_time_to_interval(const char *text, char *buf, size_t size)
{
	long long	field[4];
	int			n = 0;
	bool		days;
	int			first_unit;
	const char *p = text;

	if (!cli_take_digits(&p, INT_MAX, &field[n++]))
		return false;
	days = *p == '-';
	if (days)
	{
		p++;
		if (!cli_take_digits(&p, INT_MAX, &field[n++]))
			return false;
	}
	while (*p == ':' && n < (days ? 4 : 3))
	{
		p++;
		if (!cli_take_digits(&p, INT_MAX, &field[n++]))
			return false;
	}
	if (*p != '\0')
		return false;
	/* without days: minutes; minutes and seconds; hours, minutes and seconds */
	first_unit = days ? 0 : (n == 3 ? 1 : 2);
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
	{
		size_t		len = strlen(buf);

		snprintf(buf + len, size - len, "%s%lld %s", i > 0 ? " " : "", field[i],
				 time_units[first_unit + i]);
	}
	return true;
}

/* "0.5", "-1", "1e3": what strtod reads whole, whatever its value. */
static bool
is_bare_number(const char *text)
{
	char	   *end;

	(void) strtod(text, &end);
	return end != text && *end == '\0';
}

/*
 * The interval the server gets for --time-limit, in *value (buf or text).
 * It is "as sbatch --time", where a bare number is minutes: passed on as
 * an interval it would be seconds, and a job given "30" by sbatch habit
 * would be stopped after 30 s.  sbatch's forms are converted, any other
 * text ('4 hours') is left to the server as an interval, and a bare number
 * that is not whole minutes is refused rather than guessed at.
 */
static bool
time_limit_interval(const char *text, char *buf, size_t size, const char **value)
{
	*value = text;
	if (sbatch_time_to_interval(text, buf, size))
		*value = buf;
	else if (is_bare_number(text))
	{
		cli_usage_error("--time-limit must be whole minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM,"
						" D-HH:MM:SS or an interval such as '4 hours', got \"%s\"", text);
		return false;
	}
	return true;
}

/* "2147483647 days 2147483647 hours 2147483647 minutes 2147483647 seconds" */
#define TIME_LIMIT_SIZE 96

static bool
check_submit(const cli_ctx *ctx)
{
	const char *gpus = cli_get(ctx->opts, "gpus");
	const char *prio = cli_get(ctx->opts, "priority");
	const char *work = cli_get(ctx->opts, "work-gpu-hours");
	const char *after_ok = cli_get(ctx->opts, "after-ok");
	const char *after_any = cli_get(ctx->opts, "after-any");
	const char *time_limit = cli_get(ctx->opts, "time-limit");
	char		lo[32],
				hi[32],
				interval[TIME_LIMIT_SIZE];
	const char *unused;

	if (!cli_get(ctx->opts, "kind") || !cli_get(ctx->opts, "pool"))
	{
		cli_usage_error("submit needs --kind and --pool");
		return false;
	}
	return (!gpus || split_gpus(gpus, lo, hi, sizeof(lo))) &&
		(!prio || cli_check_number("--priority", prio)) &&
		(!work || cli_check_number("--work-gpu-hours", work)) &&
		(!after_ok || cli_check_id_list("--after-ok", after_ok)) &&
		(!after_any || cli_check_id_list("--after-any", after_any)) &&
		(!time_limit || time_limit_interval(time_limit, interval, sizeof(interval), &unused));
}

/*
 * An option not given is left out of the call, so submit_job applies its
 * own default (the caller as tenant, priority 1, the estimated size and
 * work); passing NULL instead would not be the same.  Only the fixed
 * fragments below enter the SQL text.
 */
typedef struct submit_arg
{
	const char *option;
	const char *fragment;		/* "parameter => $%d::type" */
} submit_arg;

static const submit_arg submit_args[] = {
	{"priority", ", priority => $%d::double precision"},
	{"features", ", features => $%d::jsonb"},
	{"tenant", ", tenant => $%d::name"},
	{"not-before", ", not_before => $%d::timestamptz"},
	{"deadline", ", deadline => $%d::timestamptz"},
	{"work-gpu-hours", ", work_gpu_hours => $%d::double precision"},
	{"command", ", command => $%d::text"},
	{"after-ok", ", after_ok => pg_catalog.string_to_array($%d::text, ',')::bigint[]"},
	{"after-any", ", after_any => pg_catalog.string_to_array($%d::text, ',')::bigint[]"},
	{"alt-pools", ", alt_pools => pg_catalog.string_to_array($%d::text, ',')"},
};

/* name, kind, pool, the two sizes, the time limit and the optional arguments above */
#define SUBMIT_MAX_PARAMS (6 + (int) (sizeof(submit_args) / sizeof(submit_args[0])))

static void
add_param(char *sql, size_t size, const char *fragment, const char **params, int *n,
		  const char *value)
{
	size_t		len = strlen(sql);

	params[*n] = value;
	++*n;
	snprintf(sql + len, size - len, fragment, *n);
}

/*
 * The bare id, so that a script can write JOB=$(gpualloc submit ...).  The
 * job exists whether or not its id reaches stdout: when it does not, it is
 * said on stderr, so that a failed run is not taken for a job never made.
 */
static int
print_job_id(const cli_ctx *ctx, const char *sql, int n, const char *const *params)
{
	int			code = CLI_OK;
	PGresult   *res = cli_query(ctx->conn, sql, n, params, &code);

	if (!res)
		return code;
	if (ctx->json)
		cli_print(stdout, res, true, LAYOUT_TABLE);
	else
		printf("%s\n", PQgetvalue(res, 0, 0));
	code = cli_flush_stdout();
	if (code != CLI_OK)
		fprintf(stderr, "gpualloc: job %s was submitted, but its id could not be printed\n",
				PQgetvalue(res, 0, 0));
	PQclear(res);
	return code;
}

static int
run_submit(const cli_ctx *ctx)
{
	char		sql[1536] = "SELECT gpualloc.submit_job(name => $1::text, kind => $2::text, pool => $3::text";
	const char *params[SUBMIT_MAX_PARAMS] = {ctx->args.pos[0], cli_get(ctx->opts, "kind"),
	cli_get(ctx->opts, "pool")};
	int			n = 3;
	const char *gpus = cli_get(ctx->opts, "gpus");
	const char *time_limit = cli_get(ctx->opts, "time-limit");
	char		lo[32],
				hi[32],
				interval[TIME_LIMIT_SIZE];

	if (gpus)
	{
		split_gpus(gpus, lo, hi, sizeof(lo));
		add_param(sql, sizeof(sql), ", gpus_min => $%d::integer", params, &n, lo);
		add_param(sql, sizeof(sql), ", gpus_max => $%d::integer", params, &n, hi);
	}
	if (time_limit)
	{
		time_limit_interval(time_limit, interval, sizeof(interval), &time_limit);
		add_param(sql, sizeof(sql), ", time_limit => $%d::interval", params, &n, time_limit);
	}
	for (size_t i = 0; i < sizeof(submit_args) / sizeof(submit_args[0]); i++)
	{
		const char *v = cli_get(ctx->opts, submit_args[i].option);

		if (v)
			add_param(sql, sizeof(sql), submit_args[i].fragment, params, &n, v);
	}
	strncat(sql, ") AS job_id", sizeof(sql) - strlen(sql) - 1);
	return print_job_id(ctx, sql, n, params);
}

const cli_command cli_cmd_submit = {
	"submit", "submit a job; prints its id",
	"usage: gpualloc submit NAME --kind K --pool P [--gpus N[:M]] [--priority X]\n"
	"                       [--work-gpu-hours H] [--features JSON] [--tenant T]\n"
	"                       [--command CMD] [--not-before TS] [--deadline TS]\n"
	"                       [--after-ok IDS] [--after-any IDS] [--time-limit TIME]\n"
	"                       [--alt-pools P2,P3] [--json]\n"
	"\n"
	"Queues a job with gpualloc.submit_job() and prints its id (with --json:\n"
	"[{\"job_id\": N}]).  When the current plan leaves a block free the job is\n"
	"booked at once.\n"
	"\n"
	"  -k, --kind K             training, batch_inference or quantization\n"
	"  -P, --pool P             the pool it runs in\n"
	"  -g, --gpus N[:M]         block sizes from N to M GPUs, powers of two\n"
	"                           (default: the estimator's suggestion from --features)\n"
	"      --priority X         default 1, at most the tenant's maximum\n"
	"  -w, --work-gpu-hours H   its work (default: estimated from --features)\n"
	"  -f, --features JSON      a JSON object describing the job, e.g. '{\"params_b\": 8}'\n"
	"  -t, --tenant T           the tenant that owns it (default: you)\n"
	"  -c, --command CMD        the shell command line the executor runs\n"
	"      --not-before TS      do not start before this time\n"
	"      --deadline TS        finish by this time\n"
	"      --after-ok IDS       run only after these jobs (ids, comma-separated) succeeded\n"
	"      --after-any IDS      run only after these jobs ended, however\n"
	"      --time-limit TIME    stop it once it has run this long; as sbatch --time:\n"
	"                           minutes (\"90\"), MM:SS, HH:MM:SS, D-HH, D-HH:MM or\n"
	"                           D-HH:MM:SS, or a PostgreSQL interval with units,\n"
	"                           e.g. '4 hours'; another bare number (0.5, -1) is refused\n"
	"      --alt-pools P2,P3    further pools (other GPU models) it may run on, in\n"
	"                           preference order after --pool; its work there is\n"
	"                           estimated on each pool's GPU model\n"
	"\n"
	"Needs gpualloc_submitter (for a tenant you are a member of) or gpualloc_admin.\n",
	submit_opts, 1, 1, check_submit, run_submit
};

/* ---- cancel ---- */

static cli_opt cancel_opts[] = {
	{"reason", 'r', true, NULL},
	{NULL, 0, false, NULL}
};

static bool
check_cancel(const cli_ctx *ctx)
{
	return cli_check_int("JOB_ID", ctx->args.pos[0], 1, 9223372036854775807LL);
}

static int
run_cancel(const cli_ctx *ctx)
{
	const char *params[2] = {ctx->args.pos[0], cli_get(ctx->opts, "reason")};

	return cli_query_print(ctx,
						   "SELECT $1::bigint AS job_id, 'cancelled'::text AS state"
						   " FROM gpualloc.cancel_job($1::bigint, $2::text)",
						   2, params, LAYOUT_TABLE);
}

const cli_command cli_cmd_cancel = {
	"cancel", "cancel a queued, booked or running job",
	"usage: gpualloc cancel JOB_ID [--reason TEXT] [--json]\n"
	"\n"
	"Cancels the job with gpualloc.cancel_job() and frees its GPUs now.\n"
	"A job that does not exist, or belongs to a tenant you are not a member\n"
	"of, exits 4; a job that has already ended exits 1.\n"
	"\n"
	"  -r, --reason TEXT   recorded as the job's message (at most 1000 bytes)\n"
	"\n"
	"Needs gpualloc_submitter (your tenants' jobs) or gpualloc_admin.\n",
	cancel_opts, 1, 1, check_cancel, run_cancel
};

/* ---- history ---- */

static cli_opt history_opts[] = {
	{"since", 's', true, NULL},
	{"tenant", 't', true, NULL},
	{"state", 'S', true, NULL},
	{NULL, 0, false, NULL}
};

static bool
check_history(const cli_ctx *ctx)
{
	const char *state = cli_get(ctx->opts, "state");

	if (state && strcmp(state, "succeeded") != 0 && strcmp(state, "failed") != 0 &&
		strcmp(state, "cancelled") != 0)
	{
		cli_usage_error("--state must be succeeded, failed or cancelled, got \"%s\"", state);
		return false;
	}
	return true;
}

/*
 * Ended jobs from gpualloc.jobs, where row-level security shows a submitter
 * its tenants' jobs only.  A job cancelled before it started has no start
 * or end (cancel_job records no end for it), so it is placed in time by its
 * submission.
 */
static const char history_sql[] =
"SELECT j.job_id, j.name, j.tenant, p.name AS pool, j.kind, j.status AS state,"
"   j.submitted_at AS submitted, j.started_at AS start, j.finished_at AS \"end\","
"   j.finished_at - j.started_at AS elapsed, j.block_size AS gpus, j.requeues,"
"   j.status_message AS message"
" FROM gpualloc.jobs j JOIN gpualloc.pools p ON p.pool_id = j.pool_id"
" WHERE j.status IN ('succeeded', 'failed', 'cancelled')"
"   AND coalesce(j.finished_at, j.started_at, j.submitted_at)"
"       >= coalesce($1::timestamptz, now() - interval '1 day')"
"   AND ($2::text IS NULL OR j.tenant::text = $2)"
"   AND ($3::text IS NULL OR j.status = $3)"
" ORDER BY coalesce(j.finished_at, j.started_at, j.submitted_at), j.job_id";

static int
run_history(const cli_ctx *ctx)
{
	const char *params[3] = {
		cli_get(ctx->opts, "since"),
		cli_get(ctx->opts, "tenant"),
		cli_get(ctx->opts, "state")
	};
	int			code = cli_check_named(ctx, params[1], NULL);

	if (code != CLI_OK)
		return code;
	return cli_query_print(ctx, history_sql, 3, params, LAYOUT_TABLE);
}

const cli_command cli_cmd_history = {
	"history", "jobs that ended: start, end, elapsed, GPUs, state (like sacct)",
	"usage: gpualloc history [--since TS] [--tenant T] [--state S] [--json]\n"
	"\n"
	"Jobs that succeeded, failed or were cancelled, oldest first.  Columns:\n"
	"job_id, name, tenant, pool, kind, state, submitted, start, end, elapsed,\n"
	"gpus (the block it ran on), requeues (runs lost to a failed GPU), message.\n"
	"A job cancelled before it started has no start, end or gpus.\n"
	"\n"
	"  -s, --since TS    jobs that ended at or after TS (default: the last 24 hours;\n"
	"                    '-infinity' for all)\n"
	"  -t, --tenant T    only tenant T's jobs (exits 4 if there is no such tenant\n"
	"                    you may see)\n"
	"  -S, --state S     only succeeded, failed or cancelled jobs\n"
	"\n"
	"Reads gpualloc.jobs: gpualloc_submitter sees its tenants' jobs, gpualloc_admin all.\n",
	history_opts, 0, 0, check_history, run_history
};
