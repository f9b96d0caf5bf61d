/*
 * tenant_need.h — the simulator's forecast of each guaranteed tenant's own
 * need per pool over a re-plan's horizon (ga_tenant_need,
 * model/tenant_quota.h), which rule R10 keeps from being lent.
 *
 * A tenant's want in pool q at a step is the GPUs its jobs held there plus
 * gpus_max of each of its jobs waiting for q then (submitted, not
 * started), at most its guarantee there.
 *
 * With forecasts the need at a step of the horizon is the `quantile` of
 * its want over the `lookback_hours` of steps before the re-plan's (what
 * has been observed, never a later submission), rounded up; 0 with nothing
 * observed yet.  With `daily`, only the wants observed within an hour of
 * the same time of day count (a daily profile); otherwise all, the same
 * need at every step.  With perfect knowledge it is its true want ahead:
 * at each horizon step the GPUs of its running jobs until their true end
 * plus, for each job waiting or submitted later, gpus_max (at most the
 * pool's largest block) from its submission (or now) for its true run at
 * that size, at most its guarantee: what it would hold were it given its
 * guarantee whenever it asks.
 */
#ifndef GPUALLOC_SIM_TENANT_NEED_H
#define GPUALLOC_SIM_TENANT_NEED_H

#include "sim/scenario.h"
#include "sim/sim_result.h"

/*
 * The defaults, chosen on tuning scenarios that are not the benchmark's
 * (docs/simulator.md, Tenant quotas).
 */
#define GA_SIM_NEED_QUANTILE_DEFAULT 0.5
#define GA_SIM_NEED_LOOKBACK_HOURS_DEFAULT 72.0
#define GA_SIM_NEED_DAILY_DEFAULT true

typedef struct ga_sim_need_options
{
	double		quantile;		/* 0 to 1 */
	double		lookback_hours; /* > 0 */
	bool		perfect;
	bool		daily;			/* a daily profile (above) */
} ga_sim_need_options;

/*
 * The needs at window step t over H steps of every policy with a positive
 * guarantee: out[0..*n) with their GPUs in gpus (n_policies * H ints, the
 * caller's).  traces are the run's so far: only steps before t are read
 * from them with forecasts.
 */
ga_status	ga_sim_tenant_needs(const ga_scenario *scn, const ga_sim_job_trace *traces,
								int t, int H, const ga_sim_need_options *opt,
								ga_tenant_need *out, int *gpus, int *n,
								ga_error *err);

#endif
