/*
 * tenant_metrics.c — per-tenant figures and fairness of a simulated run
 * (tenant_metrics.h).
 */
#include "sim/tenant_metrics.h"

#include <math.h>
#include <stdlib.h>

static bool
has_policy(const ga_scenario *scn, int tenant, int pool)
{
	for (int i = 0; i < scn->n_policies; i++)
		if (scn->policies[i].tenant == tenant && scn->policies[i].pool == pool)
			return true;
	return false;
}

/* The metrics count a job submitted before the window's end. */
static bool
counted(const ga_scenario *scn, int j)
{
	return scn->jobs[j].submit < scn->end;
}

/* GPU-hours job j ran inside the window, and on which pool (-1: none). */
static double
job_gpu_hours(const ga_scenario *scn, const ga_sim_result *res, int j, int *pool)
{
	const ga_sim_job_trace *tr = &res->jobs[j];
	int			T = ga_scenario_steps(scn);
	int			to = tr->end_step < T ? tr->end_step : T;

	*pool = -1;
	if (tr->start_step < 0 || to <= tr->start_step)
		return 0;
	*pool = ga_scenario_pool_of_gpu(scn, tr->first_gpu);
	return (double) tr->size * (to - tr->start_step) * scn->step_minutes / 60.0;
}

/* Wait in hours as the metrics count it: censored at the window's end. */
static double
job_wait(const ga_scenario *scn, const ga_sim_result *res, int j)
{
	int			T = ga_scenario_steps(scn);
	int			start = res->jobs[j].start_step >= 0 ? res->jobs[j].start_step : T;
	double		wait = (scn->start + (int64_t) start * scn->step_minutes - scn->jobs[j].submit) / 60.0;

	return wait > 0 ? wait : 0;
}

/* demand[i * n_pools + q]: tenant i has demand in pool q (see the header). */
static void
find_demand(const ga_scenario *scn, bool *demand)
{
	for (int j = 0; j < scn->n_jobs; j++)
	{
		const ga_scn_job *sj = &scn->jobs[j];

		if (counted(scn, j) && sj->tenant >= 0 && has_policy(scn, sj->tenant, sj->pool))
			demand[sj->tenant * scn->n_pools + sj->pool] = true;
	}
}

/* Tenant i's entitled share of pool q among the tenants with demand there. */
static double
entitled_share(const ga_scenario *scn, const bool *demand, int i, int q)
{
	double		guarantees = 0,
				weights = 0,
				mine_g = 0,
				mine_w = 0;

	for (int k = 0; k < scn->n_policies; k++)
	{
		const ga_tenant_policy *tp = &scn->policies[k];

		if (tp->pool != q || !demand[tp->tenant * scn->n_pools + q])
			continue;
		guarantees += tp->guarantee;
		weights += tp->weight;
		if (tp->tenant == i)
		{
			mine_g = tp->guarantee;
			mine_w = tp->weight;
		}
	}
	if (!demand[i * scn->n_pools + q])
		return 0;
	return guarantees > 0 ? mine_g / guarantees : mine_w / weights;
}

/* Received GPU-hours per tenant and pool, and value per tenant. */
static void
tally_runs(const ga_scenario *scn, const ga_sim_result *res, const bool *demand,
		   double *received, double *value)
{
	for (int j = 0; j < scn->n_jobs; j++)
	{
		const ga_scn_job *sj = &scn->jobs[j];
		int			q;
		double		h;
		double		factor;

		if (!counted(scn, j) || sj->tenant < 0)
			continue;
		h = job_gpu_hours(scn, res, j, &q);
		if (q < 0)
			continue;
		factor = ga_scn_job_factor(sj, q);
		value[sj->tenant] += sj->priority * h / (factor > 0 ? factor : 1);
		if (demand[sj->tenant * scn->n_pools + q])
			received[sj->tenant * scn->n_pools + q] += h;
	}
}

/* Wait quantiles and job count of tenant i. */
static void
tenant_waits(const ga_scenario *scn, const ga_sim_result *res, int i, double *buf,
			 ga_tenant_figures *f)
{
	int			n = 0;

	for (int j = 0; j < scn->n_jobs; j++)
		if (counted(scn, j) && scn->jobs[j].tenant == i)
			buf[n++] = job_wait(scn, res, j);
	f->jobs = n;
	f->wait_p50_h = ga_metrics_quantile(buf, n, 0.5);
	f->wait_p95_h = ga_metrics_quantile(buf, n, 0.95);
}

int
ga_tenant_figures_compute(const ga_scenario *scn, const ga_sim_result *res,
						  ga_tenant_figures *out)
{
	size_t		cells = (size_t) scn->n_tenants * scn->n_pools + 1;
	bool	   *demand = calloc(cells, sizeof(bool));
	double	   *received = calloc(cells, sizeof(double));
	double	   *value = calloc(scn->n_tenants + 1, sizeof(double));
	double	   *pool_hours = calloc(scn->n_pools + 1, sizeof(double));
	double	   *buf = malloc(sizeof(double) * (scn->n_jobs + 1));
	int			n = -1;

	if (demand && received && value && pool_hours && buf)
	{
		find_demand(scn, demand);
		tally_runs(scn, res, demand, received, value);
		for (int i = 0; i < scn->n_tenants; i++)
			for (int q = 0; q < scn->n_pools; q++)
				pool_hours[q] += received[i * scn->n_pools + q];
		n = 0;
		for (int i = 0; i < scn->n_tenants; i++)
		{
			ga_tenant_figures *f = &out[n];

			*f = (ga_tenant_figures) {.tenant = i, .value = value[i]};
			for (int q = 0; q < scn->n_pools; q++)
			{
				f->gpu_hours += received[i * scn->n_pools + q];
				f->entitled_gpu_hours += entitled_share(scn, demand, i, q) * pool_hours[q];
			}
			tenant_waits(scn, res, i, buf, f);
			n += f->jobs > 0;
		}
	}
	free(demand);
	free(received);
	free(value);
	free(pool_hours);
	free(buf);
	return n;
}

void
ga_tenant_fairness(const ga_tenant_figures *f, int n, double *jain_index,
				   double *min_share)
{
	double		sum = 0,
				sum_sq = 0;
	int			k = 0;

	*jain_index = NAN;
	*min_share = NAN;
	for (int i = 0; i < n; i++)
	{
		double		x;

		if (!(f[i].entitled_gpu_hours > 0))
			continue;
		x = f[i].gpu_hours / f[i].entitled_gpu_hours;
		sum += x;
		sum_sq += x * x;
		k++;
		if (isnan(*min_share) || x < *min_share)
			*min_share = x;
	}
	if (k > 0 && sum_sq > 0)
		*jain_index = sum * sum / (k * sum_sq);
}
