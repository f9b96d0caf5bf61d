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

/*
 * The pool job j counts in: the one it ran on, else its first; -1 when its
 * tenant has no policy there (or it has no tenant).
 */
static int
demand_pool(const ga_scenario *scn, const ga_sim_result *res, int j)
{
	const ga_scn_job *sj = &scn->jobs[j];
	int			q = res->jobs[j].start_step >= 0
		? ga_scenario_pool_of_gpu(scn, res->jobs[j].first_gpu) : sj->pool;

	if (sj->tenant < 0 || q < 0 || !has_policy(scn, sj->tenant, q))
		return -1;
	return q;
}

/*
 * GPU-hours job j could have used on pool q inside the window (see the
 * header): its block (gpus_max, at most the pool's largest block, when it
 * never started) held for its true work in whole steps, or for every step
 * from its submission's to the window's end at gpus_max, whichever is less.
 */
static double
job_demand(const ga_scenario *scn, const ga_sim_result *res, int j, int q)
{
	const ga_scn_job *sj = &scn->jobs[j];
	const ga_sim_job_trace *tr = &res->jobs[j];
	double		step_h = scn->step_minutes / 60.0;
	int			largest = ga_pow2_floor(scn->pools[q].n_gpus);
	int			widest = sj->gpus_max < largest ? sj->gpus_max : largest;
	int			size = tr->start_step >= 0 ? tr->size : widest;
	int64_t		late = sj->submit - scn->start;
	int			first = late > 0 ? (int) ((late + scn->step_minutes - 1) / scn->step_minutes) : 0;
	int			left = ga_scenario_steps(scn) - first;
	double		steps = ceil(sj->work_gpu_hours * ga_scn_job_factor(sj, q) / (size * step_h) - 1e-9);
	double		work = (steps < 1 ? 1 : steps) * size * step_h;
	double		window = (left > 0 ? left : 0) * (double) (widest > size ? widest : size) * step_h;

	return work < window ? work : window;
}

/* demand[i * n_pools + q]: GPU-hours tenant i could have used in pool q. */
static void
find_demand(const ga_scenario *scn, const ga_sim_result *res, double *demand)
{
	for (int j = 0; j < scn->n_jobs; j++)
	{
		int			q;

		if (counted(scn, j) && (q = demand_pool(scn, res, j)) >= 0)
			demand[scn->jobs[j].tenant * scn->n_pools + q] += job_demand(scn, res, j, q);
	}
}

/*
 * Tenant i's claim on pool q among the tenants with demand there: its
 * guarantee in the first round, its weight in the second (for the tenants
 * guaranteed nothing, when the guaranteed ones left GPU-hours over).
 */
static double
claim(const ga_scenario *scn, int i, int q, int round)
{
	for (int k = 0; k < scn->n_policies; k++)
	{
		const ga_tenant_policy *tp = &scn->policies[k];

		if (tp->tenant == i && tp->pool == q)
			return round == 0 ? tp->guarantee : (tp->guarantee > 0 ? 0 : tp->weight);
	}
	return 0;
}

/*
 * Water-filling of `hours` among the tenants with a positive claim in
 * pool q, none above its demand: each gets hours in proportion to its
 * claim; a tenant whose share passes its demand is held at its demand and
 * the rest is shared again among the others, until no share passes.
 * Adds to entitled[i * n_pools + q]; returns the hours left undivided
 * (when every claimant got its demand).
 */
static double
water_fill(const ga_scenario *scn, int q, int round, const double *demand,
		   double hours, bool *capped, double *entitled)
{
	int			P = scn->n_pools;
	bool		changed = true;

	for (int i = 0; i < scn->n_tenants; i++)
		capped[i] = !(demand[i * P + q] > 0) || !(claim(scn, i, q, round) > 0);
	while (changed && hours > 0)
	{
		double		claims = 0;

		changed = false;
		for (int i = 0; i < scn->n_tenants; i++)
			claims += capped[i] ? 0 : claim(scn, i, q, round);
		if (!(claims > 0))
			break;
		for (int i = 0; i < scn->n_tenants && !changed; i++)
			if (!capped[i] && hours * claim(scn, i, q, round) / claims >= demand[i * P + q])
			{
				entitled[i * P + q] += demand[i * P + q];
				hours -= demand[i * P + q];
				capped[i] = changed = true;
			}
		if (changed)
			continue;
		for (int i = 0; i < scn->n_tenants; i++)
			if (!capped[i])
				entitled[i * P + q] += hours * claim(scn, i, q, round) / claims;
		hours = 0;
	}
	return hours > 0 ? hours : 0;
}

/* Entitled GPU-hours per tenant and pool, the pools' hours being shared. */
static bool
find_entitlements(const ga_scenario *scn, const double *demand,
				  const double *pool_hours, double *entitled)
{
	bool	   *capped = malloc(sizeof(bool) * (scn->n_tenants + 1));

	if (capped == NULL)
		return false;
	for (int q = 0; q < scn->n_pools; q++)
	{
		double		left = water_fill(scn, q, 0, demand, pool_hours[q], capped, entitled);

		water_fill(scn, q, 1, demand, left, capped, entitled);
	}
	free(capped);
	return true;
}

/* Received GPU-hours per tenant and pool, and value per tenant. */
static void
tally_runs(const ga_scenario *scn, const ga_sim_result *res,
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
		if (has_policy(scn, sj->tenant, q))
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
	double	   *demand = calloc(cells, sizeof(double));
	double	   *entitled = calloc(cells, sizeof(double));
	double	   *received = calloc(cells, sizeof(double));
	double	   *value = calloc(scn->n_tenants + 1, sizeof(double));
	double	   *pool_hours = calloc(scn->n_pools + 1, sizeof(double));
	double	   *buf = malloc(sizeof(double) * (scn->n_jobs + 1));
	int			n = -1;

	if (demand && entitled && received && value && pool_hours && buf)
	{
		find_demand(scn, res, demand);
		tally_runs(scn, res, received, value);
		for (int i = 0; i < scn->n_tenants; i++)
			for (int q = 0; q < scn->n_pools; q++)
				pool_hours[q] += received[i * scn->n_pools + q];
		if (find_entitlements(scn, demand, pool_hours, entitled))
			n = 0;
		for (int i = 0; n >= 0 && i < scn->n_tenants; i++)
		{
			ga_tenant_figures *f = &out[n];

			*f = (ga_tenant_figures) {.tenant = i, .value = value[i]};
			for (int q = 0; q < scn->n_pools; q++)
			{
				f->gpu_hours += received[i * scn->n_pools + q];
				f->demand_gpu_hours += demand[i * scn->n_pools + q];
				f->entitled_gpu_hours += entitled[i * scn->n_pools + q];
			}
			tenant_waits(scn, res, i, buf, f);
			n += f->jobs > 0;
		}
	}
	free(demand);
	free(entitled);
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
