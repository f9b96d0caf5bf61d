/*
 * fairshare.c — the simulator's fair-share priority factors (fairshare.h).
 */
#include "sim/fairshare.h"

#include <math.h>
#include <stdlib.h>

/*
 * Decayed GPU-hours of one GPU held from age a1 to age a0 hours before
 * now (a0 <= a1): the integral of 2^(-age / H).
 */
static double
decayed_hours(double a0, double a1)
{
	double		h = GA_SIM_FAIRSHARE_HALF_LIFE_HOURS;

	return h / M_LN2 * (exp2(-a0 / h) - exp2(-a1 / h));
}

/* usage[i * n_pools + q] and member[i * n_pools + q] at window step t. */
static void
tally_usage(const ga_scenario *scn, const ga_sim_job_trace *traces, int t,
			double *usage, bool *member)
{
	double		step_h = scn->step_minutes / 60.0;
	int64_t		now = scn->start + (int64_t) t * scn->step_minutes;

	for (int i = 0; i < scn->n_policies; i++)
		member[scn->policies[i].tenant * scn->n_pools + scn->policies[i].pool] = true;
	for (int j = 0; j < scn->n_jobs; j++)
	{
		const ga_scn_job *sj = &scn->jobs[j];
		const ga_sim_job_trace *tr = &traces[j];
		int			q;
		int			to;

		if (sj->tenant < 0)
			continue;
		if (sj->submit < now)
			member[sj->tenant * scn->n_pools + sj->pool] = true;
		if (tr->start_step < 0 || tr->start_step >= t || (q = ga_scenario_pool_of_gpu(scn, tr->first_gpu)) < 0)
			continue;
		to = tr->end_step < t ? tr->end_step : t;
		member[sj->tenant * scn->n_pools + q] = true;
		usage[sj->tenant * scn->n_pools + q] +=
			tr->size * decayed_hours((t - to) * step_h, (t - tr->start_step) * step_h);
	}
}

static double
weight_of(const ga_scenario *scn, int tenant, int pool)
{
	for (int i = 0; i < scn->n_policies; i++)
		if (scn->policies[i].tenant == tenant && scn->policies[i].pool == pool)
			return scn->policies[i].weight;
	return 1;
}

/* The factors of pool q from its members' usage. */
static void
pool_factors(const ga_scenario *scn, int q, const double *usage, const bool *member,
			 double *factor)
{
	int			P = scn->n_pools;
	double		weights = 0;
	double		used = 0;
	double		highest = 0;

	for (int i = 0; i < scn->n_tenants; i++)
		if (member[i * P + q])
		{
			weights += weight_of(scn, i, q);
			used += usage[i * P + q];
		}
	for (int i = 0; i < scn->n_tenants; i++)
	{
		double		share,
					n;

		if (!member[i * P + q])
			continue;
		share = weight_of(scn, i, q) / weights;
		n = used > 0 ? usage[i * P + q] / used : 0;
		factor[i * P + q] = fmax(exp2(-n / share), exp2(-20));
		highest = fmax(highest, factor[i * P + q]);
	}
	for (int i = 0; i < scn->n_tenants; i++)
		factor[i * P + q] = member[i * P + q] ? factor[i * P + q] / highest : 1;
}

ga_status
ga_sim_fairshare(const ga_scenario *scn, const ga_sim_job_trace *traces, int t,
				 double *factor, ga_error *err)
{
	size_t		cells = (size_t) scn->n_tenants * scn->n_pools + 1;
	double	   *usage = calloc(cells, sizeof(double));
	bool	   *member = calloc(cells, sizeof(bool));

	if (usage == NULL || member == NULL)
	{
		free(usage);
		free(member);
		return ga_error_set(err, GA_ENOMEM, "out of memory computing fair-share factors");
	}
	tally_usage(scn, traces, t, usage, member);
	for (int q = 0; q < scn->n_pools; q++)
		pool_factors(scn, q, usage, member, factor);
	free(usage);
	free(member);
	return GA_OK;
}
