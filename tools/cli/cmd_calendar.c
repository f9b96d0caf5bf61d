/*
 * cmd_calendar.c — what the planner schedules around: maintenance windows
 * (like scontrol show reservation with maint) and advance reservations held
 * for a tenant.
 */
#include "cli.h"

static cli_opt calendar_opts[] = {
	{"pool", 'P', true, NULL},
	{"all", 'a', false, NULL},
	{NULL, 0, false, NULL}
};

/* GPUs by index as the queue shows a block; "first-" runs to the pool's end. */
#define CALENDAR_GPUS(first, last) \
	"CASE WHEN " last " IS NULL THEN " first " || '-'" \
	" ELSE " CLI_SQL_GPU_RANGE(first, last) " END"

/* Without --all, the windows not over yet. */
static const char windows_sql[] =
"SELECT w.window_id, w.pool, " CALENDAR_GPUS("w.first_gpu", "w.last_gpu") " AS gpus,"
"   w.gpus_closed, w.starts_at, w.ends_at, w.state, w.reason"
" FROM gpualloc.maintenance_schedule w"
" WHERE ($1::text IS NULL OR w.pool = $1) AND ($2::boolean OR w.state <> 'over')"
" ORDER BY w.starts_at, w.window_id";

/* reservation_schedule shows a non-admin its own tenants' reservations. */
static const char reservations_sql[] =
"SELECT r.reservation_id, r.tenant, r.pool, " CALENDAR_GPUS("r.first_gpu", "r.last_gpu") " AS gpus,"
"   r.starts_at, r.ends_at, r.state, r.reason"
" FROM gpualloc.reservation_schedule r"
" WHERE ($1::text IS NULL OR r.pool = $1) AND ($2::boolean OR r.state <> 'over')"
" ORDER BY r.starts_at, r.reservation_id";

static int
run_calendar(const cli_ctx *ctx, const char *sql)
{
	const char *params[2] = {cli_get(ctx->opts, "pool"), cli_flag(ctx->opts, "all") ? "true" : "false"};
	int			code = cli_check_named(ctx, NULL, params[0]);

	if (code != CLI_OK)
		return code;
	return cli_query_print(ctx, sql, 2, params, LAYOUT_TABLE);
}

static int
run_windows(const cli_ctx *ctx)
{
	return run_calendar(ctx, windows_sql);
}

static int
run_reservations(const cli_ctx *ctx)
{
	return run_calendar(ctx, reservations_sql);
}

const cli_command cli_cmd_windows = {
	"windows", "maintenance windows: GPUs closed, when, state, reason",
	"usage: gpualloc windows [--pool P] [--all] [--json]\n"
	"\n"
	"One row per maintenance window: its pool, its GPUs by topology index\n"
	"(first-last, the index alone for one GPU; first- for the rest of the\n"
	"pool), how many GPUs it closes, its start and end, its state\n"
	"(scheduled, in progress, over) and reason.\n"
	"\n"
	"  -P, --pool P   only pool P (exits 4 if there is no such pool)\n"
	"  -a, --all      windows that are over too\n"
	"\n"
	"Reads gpualloc.maintenance_schedule (any gpualloc role).\n",
	calendar_opts, 0, 0, NULL, run_windows
};

const cli_command cli_cmd_reservations = {
	"reservations", "advance reservations: tenant, GPUs, when, state, reason",
	"usage: gpualloc reservations [--pool P] [--all] [--json]\n"
	"\n"
	"One row per advance reservation: the tenant it holds GPUs for, its pool,\n"
	"its GPUs by topology index (first-last, the index alone for one GPU;\n"
	"first- for the rest of the pool), its start and end, its state\n"
	"(scheduled, in progress, over) and reason.\n"
	"\n"
	"  -P, --pool P   only pool P (exits 4 if there is no such pool)\n"
	"  -a, --all      reservations that are over too\n"
	"\n"
	"Reads gpualloc.reservation_schedule: admins see every reservation, other\n"
	"roles those of the tenants they are members of.\n",
	calendar_opts, 0, 0, NULL, run_reservations
};
