/*
 * cmd_share.c — share (like Slurm's sshare): each tenant's policy in each
 * pool, the GPUs its jobs hold there now, how many of them are borrowed
 * above its guarantee, and its fair-share standing.
 */
#include "cli.h"

static cli_opt share_opts[] = {
	{"tenant", 't', true, NULL},
	{"pool", 'P', true, NULL},
	{NULL, 0, false, NULL}
};

/*
 * tenant_usage shows a submitter its own tenants only, a reader every one;
 * borrow reads "no", "yes" (without bound) or the most it may borrow.
 */
static const char share_sql[] =
"SELECT u.tenant, u.pool, u.guarantee, u.gpu_limit AS \"limit\","
"   CASE WHEN NOT u.may_borrow THEN 'no' WHEN u.borrow_limit IS NULL THEN 'yes'"
"        ELSE 'up to ' || u.borrow_limit END AS borrow,"
"   u.cohort, u.gpus_in_use AS in_use, u.gpus_borrowed AS borrowed, u.weight, u.share,"
"   u.normalized_usage AS usage, u.fairshare_factor AS factor, u.priority_factor"
" FROM gpualloc.tenant_usage u"
" WHERE ($1::text IS NULL OR u.tenant::text = $1)"
"   AND ($2::text IS NULL OR u.pool = $2)"
" ORDER BY u.pool, u.tenant";

static int
run_share(const cli_ctx *ctx)
{
	const char *params[2] = {cli_get(ctx->opts, "tenant"), cli_get(ctx->opts, "pool")};
	int			code = cli_check_named(ctx, params[0], params[1]);

	if (code != CLI_OK)
		return code;
	return cli_query_print(ctx, share_sql, 2, params, LAYOUT_TABLE);
}

const cli_command cli_cmd_share = {
	"share", "tenants per pool: guarantee, limit, borrowing, GPUs in use, fair share (like sshare)",
	"usage: gpualloc share [--tenant T] [--pool P] [--json]\n"
	"\n"
	"One row per tenant and pool: its policy (guarantee and limit in GPUs,\n"
	"whether it may borrow: no, yes, or up to N GPUs; its cohort), the GPUs\n"
	"its jobs hold now (in_use) and how many of them lie above its guarantee\n"
	"(borrowed), its fair-share weight and share of the pool, its decayed\n"
	"usage over the pool's (usage), its factor 2^(-usage/share), and the\n"
	"priority factor the planner multiplies into its queued jobs' priority.\n"
	"\n"
	"  -t, --tenant T   only tenant T (exits 4 if there is no such tenant you may see)\n"
	"  -P, --pool P     only pool P (exits 4 if there is no such pool)\n"
	"\n"
	"Reads gpualloc.tenant_usage: gpualloc_reader and gpualloc_admin see every\n"
	"tenant, gpualloc_submitter its own.\n",
	share_opts, 0, 0, NULL, run_share
};
