/*
 * validate_quota.c — rules R9 and R10 of the validator (validate_quota.h).
 */
#include "model/validate_quota.h"
#include "model/tenant_quota.h"

#include <stdlib.h>

/* The tenants one pool's rules speak of, and their GPUs per step. */
typedef struct pool_tally
{
	int			n;				/* tenants */
	int		   *tenant;			/* [n]: -1 = jobs of no tenant */
	int		   *held;			/* [T * n] all jobs */
	int		   *pinned;			/* [T * n] pinned jobs */
} pool_tally;

static int
tally_index(pool_tally *pt, int tenant)
{
	for (int i = 0; i < pt->n; i++)
		if (pt->tenant[i] == tenant)
			return i;
	pt->tenant[pt->n] = tenant;
	return pt->n++;
}

/* The GPUs per step of pool q's tenants (listed by size_tally). */
static void
tally_pool(const ga_problem *p, const ga_plan *plan, int q, pool_tally *pt)
{
	int			T = plan->n_steps;

	for (int j = 0; j < p->n_jobs; j++)
	{
		int			i;
		int			start = plan->job_start[j];
		int			end;

		if (plan->job_size[j] <= 0 || ga_pool_of_gpu(p, plan->job_first_gpu[j]) != q)
			continue;
		i = tally_index(pt, p->jobs[j].tenant);
		end = ga_plan_job_end(p, plan, j);
		for (int t = start > 0 ? start : 0; t < end && t < T; t++)
		{
			pt->held[t * pt->n + i] += plan->job_size[j];
			if (p->jobs[j].pinned)
				pt->pinned[t * pt->n + i] += plan->job_size[j];
		}
	}
}

/*
 * The tenants of pool q: those with a policy there, then those of the jobs
 * placed there.  Listed before counting, so every row of the counts has
 * the same stride.
 */
static void
size_tally(const ga_problem *p, const ga_plan *plan, int q, pool_tally *pt)
{
	for (int i = 0; i < p->n_policies; i++)
		if (p->policies[i].pool == q)
			tally_index(pt, p->policies[i].tenant);
	for (int j = 0; j < p->n_jobs; j++)
		if (plan->job_size[j] > 0 && ga_pool_of_gpu(p, plan->job_first_gpu[j]) == q)
			tally_index(pt, p->jobs[j].tenant);
}

static int
guarantee_of(const ga_problem *p, int tenant, int q)
{
	const ga_tenant_policy *tp = ga_tenant_policy_of(p, tenant, q);

	return tp ? tp->guarantee : 0;
}

/* Borrow limit, 0 without a policy or a cohort. */
static int
borrow_of(const ga_problem *p, int tenant, int q)
{
	const ga_tenant_policy *tp = ga_tenant_policy_of(p, tenant, q);

	return tp && tp->cohort >= 0 ? tp->borrow_limit : 0;
}

static int
cohort_of(const ga_problem *p, int tenant, int q)
{
	const ga_tenant_policy *tp = ga_tenant_policy_of(p, tenant, q);

	return tp ? tp->cohort : -1;
}

/*
 * E(u) of R10 for the counts u[0..n) of pool q at step t: GPUs above
 * guarantees minus the unguaranteed GPUs minus what each cohort may lend
 * its own, a guarantee being lendable where neither its tenant's work nor
 * its forecast need claims it.
 */
static long
quota_excess(const ga_problem *p, int q, int t, const pool_tally *pt, const int *u)
{
	long		over = 0;
	long		lent = 0;
	long		guaranteed = 0;

	for (int i = 0; i < p->n_policies; i++)
		if (p->policies[i].pool == q)
			guaranteed += p->policies[i].guarantee;
	for (int i = 0; i < pt->n; i++)
	{
		int			g = guarantee_of(p, pt->tenant[i], q);
		int			c = cohort_of(p, pt->tenant[i], q);
		bool		first_of_cohort = c >= 0;
		long		want = 0;
		long		idle = 0;

		over += u[i] > g ? u[i] - g : 0;
		for (int k = 0; k < i && first_of_cohort; k++)
			first_of_cohort = cohort_of(p, pt->tenant[k], q) != c;
		if (!first_of_cohort)
			continue;
		for (int k = i; k < pt->n; k++)
		{
			int			gk = guarantee_of(p, pt->tenant[k], q);
			long		above = u[k] > gk ? u[k] - gk : 0;
			int			b = borrow_of(p, pt->tenant[k], q);
			int			need = ga_tenant_need_at(p, pt->tenant[k], q, t);
			long		claimed = u[k] > need ? u[k] : need;

			if (cohort_of(p, pt->tenant[k], q) != c)
				continue;
			want += above < b ? above : b;
			idle += claimed < gk ? gk - claimed : 0;
		}
		lent += want < idle ? want : idle;
	}
	return over - lent - (p->pools[q].n_gpus - guaranteed);
}

/* R9 and R10 at step t of pool q. */
static ga_status
check_step(const ga_problem *p, int q, const pool_tally *pt, int t, ga_error *err)
{
	const int  *held = pt->held + (size_t) t * pt->n;
	const int  *pinned = pt->pinned + (size_t) t * pt->n;
	long		exempt;
	long		e;

	for (int i = 0; i < pt->n; i++)
	{
		const ga_tenant_policy *tp = ga_tenant_policy_of(p, pt->tenant[i], q);

		if (tp != NULL && tp->limit != GA_NO_LIMIT && held[i] > tp->limit && held[i] > pinned[i])
			return ga_error_set(err, GA_EILLEGAL,
								"R9: tenant %d holds %d GPUs of pool \"%s\" at step %d, above its limit %d",
								pt->tenant[i], held[i], p->pools[q].name, t, tp->limit);
	}
	exempt = quota_excess(p, q, t, pt, pinned);
	e = quota_excess(p, q, t, pt, held);
	if (e > 0 && e > exempt)
		return ga_error_set(err, GA_EILLEGAL,
							"R10: at step %d tenants hold %ld GPUs of pool \"%s\" above their guarantees that neither its unguaranteed GPUs nor borrowing within a cohort covers (a guarantee lends only what its tenant's work and forecast need leave idle)",
							t, e, p->pools[q].name);
	return GA_OK;
}

static ga_status
check_pool(const ga_problem *p, const ga_plan *plan, int q, ga_error *err)
{
	pool_tally	pt = {0};
	int			cap = p->n_policies + p->n_jobs + 1;
	ga_status	rc = GA_OK;

	pt.tenant = malloc(sizeof(int) * cap);
	if (pt.tenant == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory validating tenant quotas");
	size_tally(p, plan, q, &pt);
	pt.held = calloc((size_t) plan->n_steps * pt.n + 1, sizeof(int));
	pt.pinned = calloc((size_t) plan->n_steps * pt.n + 1, sizeof(int));
	if (pt.held == NULL || pt.pinned == NULL)
		rc = ga_error_set(err, GA_ENOMEM, "out of memory validating tenant quotas");
	if (rc == GA_OK)
		tally_pool(p, plan, q, &pt);
	for (int t = 0; rc == GA_OK && t < plan->n_steps; t++)
		rc = check_step(p, q, &pt, t, err);
	free(pt.tenant);
	free(pt.held);
	free(pt.pinned);
	return rc;
}

ga_status
ga_validate_quotas(const ga_problem *p, const ga_plan *plan, ga_error *err)
{
	ga_status	rc = GA_OK;

	for (int q = 0; rc == GA_OK && q < p->n_pools; q++)
	{
		bool		has_policy = false;

		for (int i = 0; i < p->n_policies && !has_policy; i++)
			has_policy = p->policies[i].pool == q;
		if (has_policy)
			rc = check_pool(p, plan, q, err);
	}
	return rc;
}
