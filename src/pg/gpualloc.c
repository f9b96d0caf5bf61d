/*
 * gpualloc.c — module entry point: the planning GUCs and the background planner.
 *
 * Planning GUCs are defined whether or not the library is preloaded, so the
 * SQL functions work in any session; the background planner and its settings
 * exist only when it is preloaded (worker.c).  Planning parameters are superuser-settable
 * and reloadable, so an operator changes them in postgresql.conf and a test
 * in its session.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/guc.h"

#include "gpualloc_pg.h"
#include "forecast/forecast_demand.h"

PG_MODULE_MAGIC;

PGDLLEXPORT void _PG_init(void);

int			gpualloc_step_minutes = 30;
int			gpualloc_horizon_minutes = 24 * 60;
double		gpualloc_penalty = 8.0;
int			gpualloc_half_life_minutes = 12 * 60;
int			gpualloc_solver_time_limit_ms = 10000;
double		gpualloc_demand_quantile = GA_DEMAND_QUANTILE_DEFAULT;
double		gpualloc_protect_quantile = GA_PROTECT_QUANTILE_DEFAULT;
double		gpualloc_headroom = GA_HEADROOM_DEFAULT;
int			gpualloc_headroom_min = GA_HEADROOM_MIN_DEFAULT;
double		gpualloc_overrun_margin = GA_OVERRUN_MARGIN_DEFAULT;
double		gpualloc_overrun_spread = GA_OVERRUN_SPREAD_DEFAULT;
char	   *gpualloc_database = NULL;
int			gpualloc_booking_timeout_s = 600;
int			gpualloc_plan_retention_min = 14 * 24 * 60;
double		gpualloc_max_priority = 10.0;
int			gpualloc_on_gpu_failure = GA_ON_GPU_FAILURE_REQUEUE;
int			gpualloc_max_parallel_pools = -1;
double		gpualloc_queue_depth = 4.0;
bool		gpualloc_fairshare = true;
int			gpualloc_fairshare_half_life_minutes = 7 * 24 * 60;
int			gpualloc_lender_need_lookback_minutes = 72 * 60;

static const struct config_enum_entry on_gpu_failure_options[] = {
	{"requeue", GA_ON_GPU_FAILURE_REQUEUE, false},
	{"fail", GA_ON_GPU_FAILURE_FAIL, false},
	{NULL, 0, false}
};

/* The demand forecaster works in hours: a step must divide an hour. */
static bool
check_step(int *newval, void **extra, GucSource source)
{
	if (60 % *newval != 0)
	{
		GUC_check_errdetail("gpualloc.step must divide an hour: 5, 10, 15, 20, 30 or 60 minutes.");
		return false;
	}
	return true;
}

static void
define_operation_gucs(void)
{
	DefineCustomIntVariable("gpualloc.booking_timeout",
							"How long a booked job may wait for its executor to start it.",
							"A booking not started within it is released and the job planned again.",
							&gpualloc_booking_timeout_s, 600, 10, 7 * 24 * 3600,
							PGC_SUSET, GUC_UNIT_S, NULL, NULL, NULL);
	DefineCustomIntVariable("gpualloc.plan_retention",
							"How long finished plan runs and their blocks are kept.",
							"The background planner deletes older ones, never the latest successful plan; 0 keeps them all.",
							&gpualloc_plan_retention_min, 14 * 24 * 60, 0, 10 * 366 * 24 * 60,
							PGC_SUSET, GUC_UNIT_MIN, NULL, NULL, NULL);
	DefineCustomRealVariable("gpualloc.max_priority",
							 "Highest priority a tenant's job may ask for, unless the tenant has its own.",
							 "A higher one is refused, not clamped.",
							 &gpualloc_max_priority, 10.0, 1e-6, 1e6, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("gpualloc.on_gpu_failure",
							 "What happens to a running job whose GPU goes down.",
							 "requeue: back to the queue, its lost run counted; fail: the job fails.",
							 &gpualloc_on_gpu_failure, GA_ON_GPU_FAILURE_REQUEUE, on_gpu_failure_options,
							 PGC_SUSET, 0, NULL, NULL, NULL);
}

/* The protect curve, the headroom and the overrun margin (docs/model.md, Protect curve and headroom). */
static void
define_protect_gucs(void)
{
	DefineCustomRealVariable("gpualloc.protect_quantile",
							 "Quantile of forecast demand no job may take a real-time service's GPUs from.",
							 "A job starts only where its run leaves every service its protect curve, "
							 "forecast at this quantile; below gpualloc.demand_quantile it protects the planned demand alone.",
							 &gpualloc_protect_quantile, GA_PROTECT_QUANTILE_DEFAULT, 0.5, 0.999, PGC_SUSET, 0,
							 NULL, NULL, NULL);
	DefineCustomRealVariable("gpualloc.headroom",
							 "Share of a service's forecast uncertainty it holds as idle GPUs.",
							 "The protect curve minus the planned demand, times this, rounded up: GPUs the service "
							 "holds where nothing else needs them, to serve demand above the forecast at once.",
							 &gpualloc_headroom, GA_HEADROOM_DEFAULT, 0.0, 1.0, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpualloc.headroom_min",
							"GPUs above its planned demand a service holds at least, from GPUs idle in the plan.",
							"Where the forecast is narrow, gpualloc.headroom hands nothing; a GPU idle in the plan "
							"serves no one, held by a service it covers demand just above the forecast.",
							&gpualloc_headroom_min, GA_HEADROOM_MIN_DEFAULT, 0, GA_HEADROOM_MIN_MAX, PGC_SUSET, 0,
							NULL, NULL, NULL);
	DefineCustomRealVariable("gpualloc.overrun_margin",
							 "Share by which a job's estimated run is lengthened before it may hold GPUs a service's demand needs.",
							 "A job is never preempted, so one that outlives its estimate keeps its GPUs.",
							 &gpualloc_overrun_margin, GA_OVERRUN_MARGIN_DEFAULT, 0.0, 10.0, PGC_SUSET, 0,
							 NULL, NULL, NULL);
	DefineCustomRealVariable("gpualloc.overrun_spread",
							 "Share of the spread of a job's duration estimate (p90 / p50 - 1) by which its run is lengthened instead, where the estimate has one.",
							 "0 lengthens every job by gpualloc.overrun_margin.  A job whose duration is well known keeps less room from the services.",
							 &gpualloc_overrun_spread, GA_OVERRUN_SPREAD_DEFAULT, 0.0, 10.0, PGC_SUSET, 0,
							 NULL, NULL, NULL);
}

/* Fair share between tenants (docs/model.md, Fair share; fairshare.c). */
static void
define_fairshare_gucs(void)
{
	DefineCustomBoolVariable("gpualloc.fairshare",
							 "Whether a queued job's priority is multiplied by its tenant's fair-share factor.",
							 "The factor is 2^(-usage/share) per pool: a tenant that used more of the pool than its "
							 "share lately plans its queued jobs at a lower priority.",
							 &gpualloc_fairshare, true, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpualloc.fairshare_half_life",
							"Half-life of past GPU-hours in a tenant's fair-share usage.",
							"An hour used this long ago counts half as much as one used now.",
							&gpualloc_fairshare_half_life_minutes, 7 * 24 * 60, 60, 366 * 24 * 60,
							PGC_SUSET, GUC_UNIT_MIN, NULL, NULL, NULL);
	DefineCustomIntVariable("gpualloc.lender_need_lookback",
							"How far back a guaranteed tenant's own need is learnt from, to keep it from being lent.",
							"Each step's need is the median of what the tenant held or waited for at the same "
							"time of day over this span, at most its guarantee; 0 turns the forecast off.",
							&gpualloc_lender_need_lookback_minutes, 72 * 60, 0, 31 * 24 * 60,
							PGC_SUSET, GUC_UNIT_MIN, NULL, NULL, NULL);
}

static void
define_planning_gucs(void)
{
	DefineCustomIntVariable("gpualloc.step", "Length of a planning step.",
							"Allocations change at step boundaries; it must divide an hour.",
							&gpualloc_step_minutes, 30, 5, 60, PGC_SUSET, GUC_UNIT_MIN,
							check_step, NULL, NULL);
	DefineCustomIntVariable("gpualloc.horizon", "How far ahead each plan looks.",
							"A whole number of gpualloc.step, checked with it when a plan is made, "
							"so the two may be set in either order.",
							&gpualloc_horizon_minutes, 24 * 60, 60, 7 * 24 * 60,
							PGC_SUSET, GUC_UNIT_MIN, NULL, NULL, NULL);
	DefineCustomRealVariable("gpualloc.penalty",
							 "Cost of one unmet real-time GPU-step, in GPU-steps of equal-priority batch work.",
							 NULL, &gpualloc_penalty, 8.0, 0.0, 1000.0, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpualloc.half_life", "Half-life of the value of planned capacity.",
							"Capacity used now is worth more than capacity promised later.",
							&gpualloc_half_life_minutes, 12 * 60, 30, 30 * 24 * 60,
							PGC_SUSET, GUC_UNIT_MIN, NULL, NULL, NULL);
	DefineCustomIntVariable("gpualloc.solver_time_limit", "Time limit of a full (MILP) solve.",
							NULL, &gpualloc_solver_time_limit_ms, 10000, 10, 3600 * 1000,
							PGC_SUSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("gpualloc.max_parallel_pools",
							"Most processes that solve a plan run's groups of independent pools at once.",
							"The planner counts as one and starts a background worker for each other; "
							"the groups are dealt out evenly among them. "
							"-1: one process per group, up to the online CPUs and as far as max_worker_processes has free slots; "
							"0 or 1: the planner solves them all itself.",
							&gpualloc_max_parallel_pools, -1, -1, 1024, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("gpualloc.queue_depth",
							 "Queued work a plan considers per pool and job size, in multiples of the pool's GPU-hours over the horizon.",
							 "Per pool and smallest size, queued jobs are taken by priority, then submission, "
							 "until their estimated work reaches this many times what the pool runs in a horizon; "
							 "the rest wait for a later plan.  0: every queued job.",
							 &gpualloc_queue_depth, 4.0, 0.0, 1000.0, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("gpualloc.demand_quantile",
							 "Upper quantile of forecast demand the real-time services are planned for.",
							 NULL, &gpualloc_demand_quantile, GA_DEMAND_QUANTILE_DEFAULT, 0.5, 0.999, PGC_SUSET, 0,
							 NULL, NULL, NULL);
	define_protect_gucs();
	define_fairshare_gucs();
}

void
_PG_init(void)
{
	define_planning_gucs();
	define_operation_gucs();
	if (process_shared_preload_libraries_in_progress)
		ga_worker_register();
	MarkGUCPrefixReserved("gpualloc");
}
