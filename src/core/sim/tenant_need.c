/*
 * tenant_need.c — forecast needs of the tenants (tenant_need.h).
 */
#include "sim/tenant_need.h"
#include "sim/metrics.h"

#include <math.h>
#include <stdlib.h>

/* The first window step at or after job j's submission. */
static int
submit_step(const ga_scenario *scn, int j)
{
	int64_t		delta = scn->jobs[j].submit - scn->start;

	return delta <= 0 ? 0 : (int) ((delta + scn->step_minutes - 1) / scn->step_minutes);
}

/* The GPUs job j held in pool q at window step s by its trace (0: none). */
static int
held_at(const ga_scenario *scn, const ga_sim_job_trace *tr, int q, int s)
{
	if (tr->start_step < 0 || s < tr->start_step || s >= tr->end_step)
		return 0;
	return ga_scenario_pool_of_gpu(scn, tr->first_gpu) == q ? tr->size : 0;
}

/* gpus_max of job j at most the largest block of pool q. */
static int
widest(const ga_scenario *scn, int j, int q)
{
	int			largest = ga_pow2_floor(scn->pools[q].n_gpus);

	return scn->jobs[j].gpus_max < largest ? scn->jobs[j].gpus_max : largest;
}

/* Tenant tp's want in its pool at a past step s (s < the re-plan's step). */
static int
observed_want(const ga_scenario *scn, const ga_sim_job_trace *traces,
			  const ga_tenant_policy *tp, int s)
{
	long		want = 0;

	for (int j = 0; j < scn->n_jobs && want < tp->guarantee; j++)
	{
		const ga_scn_job *sj = &scn->jobs[j];
		const ga_sim_job_trace *tr = &traces[j];

		if (sj->tenant != tp->tenant || submit_step(scn, j) > s)
			continue;
		if (tr->start_step >= 0 && tr->start_step <= s)
			want += held_at(scn, tr, tp->pool, s);
		else if (sj->pool == tp->pool)
			want += widest(scn, j, tp->pool);
	}
	return want < tp->guarantee ? (int) want : tp->guarantee;
}

/* The quantile of the n wants in buf, rounded up, at most the guarantee. */
static int
need_level(const ga_tenant_policy *tp, const ga_sim_need_options *opt, double *buf, int n)
{
	int			level = n > 0 ? (int) ceil(ga_metrics_quantile(buf, n, opt->quantile) - 1e-9) : 0;

	level = level < tp->guarantee ? level : tp->guarantee;
	return level > 0 ? level : 0;
}

/*
 * Whether past step s is a sample for horizon step t + k: with a daily
 * profile, when s lies within an hour of the same time of day; otherwise
 * always.
 */
static bool
same_time_of_day(const ga_scenario *scn, const ga_sim_need_options *opt, int s, int t, int k)
{
	int			day = 1440 / scn->step_minutes;
	int			near = 60 / scn->step_minutes;
	int			d;

	if (!opt->daily || day <= 0)
		return true;
	d = ((t + k - s) % day + day) % day;
	return d <= near || d >= day - near;
}

/* The need over the horizon from the wants observed before step t. */
static void
forecast_need(const ga_scenario *scn, const ga_sim_job_trace *traces,
			  const ga_tenant_policy *tp, int t, int H,
			  const ga_sim_need_options *opt, double *want, double *buf, int *need)
{
	int			back = (int) ceil(opt->lookback_hours * 60 / scn->step_minutes - 1e-9);
	int			from = t - back > 0 ? t - back : 0;

	for (int s = from; s < t; s++)
		want[s - from] = observed_want(scn, traces, tp, s);
	for (int k = 0; k < H; k++)
	{
		int			n = 0;

		if (!opt->daily && k > 0)
		{
			need[k] = need[0];
			continue;
		}
		for (int s = from; s < t; s++)
			if (same_time_of_day(scn, opt, s, t, k))
				buf[n++] = want[s - from];
		need[k] = need_level(tp, opt, buf, n);
	}
}

/* True steps job j runs at g GPUs of pool q. */
static int
true_steps(const ga_scenario *scn, int j, int q, int g)
{
	const ga_scn_job *sj = &scn->jobs[j];
	double		d = ceil(sj->work_gpu_hours * ga_scn_job_factor(sj, q) * 60 /
						 (scn->step_minutes * (double) g) - 1e-9);

	return d < 1 ? 1 : (d > 1e8 ? 100000000 : (int) d);
}

/* The true want over the horizon: running jobs, then the rest from arrival. */
static void
perfect_need(const ga_scenario *scn, const ga_sim_job_trace *traces,
			 const ga_tenant_policy *tp, int t, int H, int *need)
{
	for (int k = 0; k < H; k++)
		need[k] = 0;
	for (int j = 0; j < scn->n_jobs; j++)
	{
		const ga_scn_job *sj = &scn->jobs[j];
		const ga_sim_job_trace *tr = &traces[j];

		if (sj->tenant != tp->tenant)
			continue;
		if (tr->start_step >= 0 && tr->start_step <= t)
		{
			for (int k = 0; k < H; k++)
				need[k] += held_at(scn, tr, tp->pool, t + k);
		}
		else if (sj->pool == tp->pool)
		{
			int			g = widest(scn, j, tp->pool);
			int			from = submit_step(scn, j) > t ? submit_step(scn, j) - t : 0;
			int			to = from + true_steps(scn, j, tp->pool, g);

			for (int k = from; k < to && k < H; k++)
				need[k] += g;
		}
	}
	for (int k = 0; k < H; k++)
		need[k] = need[k] < tp->guarantee ? need[k] : tp->guarantee;
}

ga_status
ga_sim_tenant_needs(const ga_scenario *scn, const ga_sim_job_trace *traces,
					int t, int H, const ga_sim_need_options *opt,
					ga_tenant_need *out, int *gpus, int *n, ga_error *err)
{
	double	   *buf = NULL;
	int			back = (int) ceil(opt->lookback_hours * 60 / scn->step_minutes - 1e-9);

	*n = 0;
	if (!opt->perfect)
	{
		buf = malloc(sizeof(double) * 2 * (back > 0 ? back : 1));
		if (buf == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory forecasting tenant needs");
	}
	for (int i = 0; i < scn->n_policies; i++)
	{
		const ga_tenant_policy *tp = &scn->policies[i];
		int		   *need = gpus + (size_t) *n * H;

		if (tp->guarantee <= 0)
			continue;
		if (opt->perfect)
			perfect_need(scn, traces, tp, t, H, need);
		else
			forecast_need(scn, traces, tp, t, H, opt, buf, buf + (back > 0 ? back : 1), need);
		out[(*n)++] = (ga_tenant_need) {tp->tenant, tp->pool, need};
	}
	free(buf);
	return GA_OK;
}
