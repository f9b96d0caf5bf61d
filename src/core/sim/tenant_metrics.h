/*
 * tenant_metrics.h — how a simulated run treated the tenants of a
 * scenario with tenant policies (tenants.csv; docs/model.md, Metrics):
 * each tenant's GPU-hours against its entitlement, value and waits, and
 * two fairness figures over them.
 *
 * Jobs counted are those submitted before the window's end.  A job
 * counts in the pool it ran on, or its first pool when it never started,
 * if its tenant has a policy there.  Its demand is the GPU-hours it could
 * have used inside the window: its true work there in whole steps at its
 * block (gpus_max, at most the pool's largest block, when it never
 * started), but at most every step from the first one at or after its
 * submission to the window's end at gpus_max.  Dependencies are ignored,
 * so this is an upper bound: a job never receives more than its demand.
 * A tenant's demand in q is the sum over its jobs counting there; it
 * receives the GPU-hours they ran there.
 *
 * Entitlement is max-min fair and capped by demand: in each pool the
 * GPU-hours the tenants received there are divided among those with
 * demand in proportion to their guarantees, none getting more than its
 * demand, the surplus shared again among the others until no share
 * passes a demand (water-filling).  What the guaranteed tenants leave
 * (all of them at their demand) is divided the same way among the
 * tenants guaranteed nothing there, by weight.  So a tenant that asked
 * for less than its share is entitled to what it asked, and the rest
 * goes to the others.  With x_i = received / entitled over the tenants
 * with a positive entitlement:
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
	double		demand_gpu_hours;	/* could have used (see above) */
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
