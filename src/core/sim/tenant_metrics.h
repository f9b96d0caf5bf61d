/*
 * tenant_metrics.h — how a simulated run treated the tenants of a
 * scenario with tenant policies (tenants.csv; docs/model.md, Metrics):
 * each tenant's GPU-hours against its entitlement, value and waits, and
 * two fairness figures over them.
 *
 * A tenant has demand in pool q when one of its jobs counted by the
 * metrics (submitted before the window's end) names q as its first pool
 * and the tenant has a policy there.  Its entitled share of q is its
 * guarantee over the guarantees of the tenants with demand there, or,
 * when none of them is guaranteed anything, its weight over theirs; the
 * pool's GPU-hours to share are those the jobs of those tenants ran on q
 * inside the window.  A tenant's entitlement is the sum over pools of
 * share times GPU-hours; it receives the GPU-hours its jobs ran on the
 * pools where it has demand.  With x_i = received / entitled over the
 * tenants with a positive entitlement:
 *
 *   jain_index             (sum x_i)^2 / (n * sum x_i^2), from 1/n (one
 *                          tenant got everything) to 1 (every tenant got
 *                          the same multiple of its entitlement);
 *   min_entitlement_share  min x_i.
 *
 * Both are NAN (null in JSON) when the scenario has no tenant policy or
 * no tenant has a positive entitlement (jain_index also when nobody
 * received anything).
 */
#ifndef GPUALLOC_TENANT_METRICS_H
#define GPUALLOC_TENANT_METRICS_H

#include "sim/scenario.h"
#include "sim/sim_result.h"

typedef struct ga_tenant_figures
{
	int			tenant;			/* index into scenario->tenants */
	int			jobs;			/* jobs counted */
	double		gpu_hours;		/* received (see above) */
	double		entitled_gpu_hours;
	double		value;			/* priority * GPU-hours run / pool factor,
								 * over all its jobs */
	double		wait_p50_h;		/* waits as the metrics count them */
	double		wait_p95_h;
} ga_tenant_figures;

/*
 * Figures of every tenant with a counted job, in tenant order, into
 * out[0..n_tenants); returns how many were written, -1 on out of memory.
 * res must be a simulated run's (its job traces), not the oracle's.
 */
int			ga_tenant_figures_compute(const ga_scenario *scn,
									  const ga_sim_result *res,
									  ga_tenant_figures *out);

/* jain_index and min_entitlement_share of the figures (NAN: see above). */
void		ga_tenant_fairness(const ga_tenant_figures *figures, int n,
							   double *jain_index, double *min_share);

#endif
