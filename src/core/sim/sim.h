/*
 * sim.h — the rolling-horizon simulator: one policy over a scenario's
 * window, with what a scheduler may know at each moment.
 *
 * The window [start, end) is walked in steps of step_minutes.  At every
 * re-plan (each replan_minutes, and whenever the plan runs out) a problem is
 * built from what is known then:
 *   - jobs submitted so far and not finished; running ones pinned to their
 *     real start and block, their end estimated from the estimate and, once
 *     they overrun it, by ga_running_end_step (overrun.h);
 *   - work estimates from ga_estimate_job on each job's features, fitted on
 *     history.csv and on every job finished so far (at gpus_max for a
 *     waiting job, at its size for a running one);
 *   - demand forecasts from the weekly model on demand rows of hours already
 *     over, mapped to GPUs per step (the worst hour a step touches, upper
 *     quantile) and shaped with the service's churn limit; the protect curve
 *     the same way at the protect quantile;
 *   - the GPUs each service holds now, so churn is charged against reality.
 * With perfect knowledge the true work and the true future demand are used
 * instead (arrivals stay unknown until they happen), and the protect curve
 * is the demand: nothing is uncertain.
 *
 * Between re-plans the committed plan is followed: a job starts when its
 * planned step comes (if its block is free in reality: an overrunning job is
 * never preempted), and services take the plan's GPUs not held by a running
 * job.  True durations decide when jobs end: work_gpu_hours / g, rounded up
 * to whole steps.  A job never starts before its submit time (it becomes
 * visible at the first step boundary at or after it).
 */
#ifndef GPUALLOC_SIM_H
#define GPUALLOC_SIM_H

#include "sim/scenario.h"
#include "sim/sim_result.h"

typedef enum ga_policy
{
	GA_POLICY_FIFO,
	GA_POLICY_BACKFILL,
	GA_POLICY_FAST,
	GA_POLICY_FULL,
	GA_POLICY_QUOTA,
	GA_POLICY_FAIRSHARE,
	GA_POLICY_ORACLE
} ga_policy;

#define GA_N_POLICIES 7

const char *ga_policy_name(ga_policy policy);
bool		ga_policy_parse(const char *name, ga_policy *policy);

/*
 * What the planners see of the scenario's tenant policies (tenants.csv):
 * all of them; none (the allocator's value without quotas, to compare
 * with); or all with every borrow limit 0 (no tenant borrows).
 */
typedef enum ga_sim_quotas
{
	GA_SIM_QUOTAS_ON,
	GA_SIM_QUOTAS_OFF,
	GA_SIM_QUOTAS_NO_BORROWING
} ga_sim_quotas;

typedef struct ga_sim_options
{
	ga_policy	policy;
	bool		perfect;		/* true work and demand instead of forecasts */
	double		fast_ms;		/* fast improvement budget per re-plan */
	double		full_ms;		/* full MILP time limit per re-plan */
	double		quantile;		/* demand upper quantile planned for */
	double		protect_quantile;	/* quantile of the protect curve, >=
									 * quantile */
	double		headroom;		/* ga_params.headroom of every problem */
	int			headroom_min;	/* ga_params.headroom_min (0 with perfect
								 * knowledge: demand is known) */
	double		overrun_margin; /* ga_params.overrun_margin (0 with perfect
								 * knowledge: durations are known) */
	double		overrun_spread; /* ga_params.overrun_spread (likewise 0) */
	double		oracle_coverage;	/* oracle: coverage floor of its value
									 * bounds (oracle.h) */
	bool		validate;		/* check every fast/full plan with ga_validate */
	bool		first_pool_only;	/* plan each job on its first pool only,
									 * its alt_pools ignored */
	double		need_quantile;	/* fast and full: the tenants' forecast
								 * needs (sim/tenant_need.h) */
	double		need_lookback_hours;
	bool		need_daily;
	ga_sim_quotas quotas;		/* the planners' view of the policies; the
								 * per-tenant figures always use them all */
} ga_sim_options;

/*
 * Defaults: fast 1 ms, full 1000 ms, quantile GA_DEMAND_QUANTILE_DEFAULT,
 * protect quantile GA_PROTECT_QUANTILE_DEFAULT, headroom
 * GA_HEADROOM_DEFAULT and GA_HEADROOM_MIN_DEFAULT, overrun margin
 * GA_OVERRUN_MARGIN_DEFAULT and spread GA_OVERRUN_SPREAD_DEFAULT, oracle
 * coverage floor GA_ORACLE_COVERAGE_FLOOR, validate on, every pool of a job
 * used, tenant needs at GA_SIM_NEED_QUANTILE_DEFAULT over
 * GA_SIM_NEED_LOOKBACK_HOURS_DEFAULT, quotas on.
 */
void		ga_sim_options_default(ga_sim_options *opt, ga_policy policy);

/*
 * Run a policy over the scenario (the oracle computes its bound instead).
 * On success *out is a result the caller frees with ga_sim_result_destroy.
 */
ga_status	ga_simulate(const ga_scenario *scn, const ga_sim_options *opt,
						ga_sim_result **out, ga_error *err);

/*
 * The problem a re-plan of fast or full solves at the scenario's first
 * step (its jobs released by then, the services' forecasts from their
 * history, as ga_simulate builds it), for benchmarks of the planners on a
 * scenario's own cluster; opt->policy must be fast or full.  On success
 * *out is a finished problem the caller frees with ga_problem_destroy.
 */
ga_status	ga_sim_first_problem(const ga_scenario *scn, const ga_sim_options *opt,
								 ga_problem **out, ga_error *err);

#endif
