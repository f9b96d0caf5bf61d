/*
 * tenant_quota.c — tenant policies of a problem and the planners' quota
 * accounting (tenant_quota.h).
 */
#include "model/tenant_quota.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

ga_status
ga_problem_set_tenant_policies(ga_problem *p, const ga_tenant_policy *policies,
							   int n_policies, ga_error *err)
{
	ga_tenant_policy *copy = NULL;

	if (n_policies < 0)
		return ga_error_set(err, GA_EINVAL, "tenant policy count must not be negative");
	if (n_policies > 0)
	{
		copy = malloc(sizeof(ga_tenant_policy) * n_policies);
		if (copy == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory copying tenant policies");
		memcpy(copy, policies, sizeof(ga_tenant_policy) * n_policies);
	}
	free(p->policies);
	p->policies = copy;
	p->n_policies = n_policies;
	return GA_OK;
}

void
ga_tenant_needs_free(ga_problem *p)
{
	for (int i = 0; p->needs != NULL && i < p->n_needs; i++)
		free(p->needs[i].gpus);
	free(p->needs);
	p->needs = NULL;
	p->n_needs = 0;
}

ga_status
ga_problem_set_tenant_needs(ga_problem *p, const ga_tenant_need *needs,
							int n_needs, ga_error *err)
{
	int			T = p->params.n_steps;
	ga_tenant_need *copy;

	if (n_needs < 0)
		return ga_error_set(err, GA_EINVAL, "tenant need count must not be negative");
	copy = calloc(n_needs > 0 ? n_needs : 1, sizeof(ga_tenant_need));
	if (copy == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory copying tenant needs");
	for (int i = 0; i < n_needs; i++)
	{
		copy[i] = needs[i];
		copy[i].gpus = malloc(sizeof(int) * (T > 0 ? T : 1));
		if (copy[i].gpus == NULL)
		{
			for (int k = 0; k <= i; k++)
				free(copy[k].gpus);
			free(copy);
			return ga_error_set(err, GA_ENOMEM, "out of memory copying tenant needs");
		}
		memcpy(copy[i].gpus, needs[i].gpus, sizeof(int) * T);
	}
	ga_tenant_needs_free(p);
	p->needs = copy;
	p->n_needs = n_needs;
	return GA_OK;
}

static const ga_tenant_need *
need_of(const ga_problem *p, int tenant, int pool)
{
	for (int i = 0; i < p->n_needs; i++)
		if (p->needs[i].tenant == tenant && p->needs[i].pool == pool)
			return &p->needs[i];
	return NULL;
}

int
ga_tenant_need_at(const ga_problem *p, int tenant, int pool, int t)
{
	const ga_tenant_need *n = need_of(p, tenant, pool);

	return n != NULL && t >= 0 && t < p->params.n_steps ? n->gpus[t] : 0;
}

ga_status
ga_tenant_needs_check(const ga_problem *p, ga_error *err)
{
	for (int i = 0; i < p->n_needs; i++)
	{
		const ga_tenant_need *n = &p->needs[i];

		if (n->tenant < 0)
			return ga_error_set(err, GA_EINVAL, "tenant need %d: tenant must not be negative, got %d",
								i, n->tenant);
		if (n->pool < 0 || n->pool >= p->n_pools)
			return ga_error_set(err, GA_EINVAL, "tenant need %d: pool index %d is out of range",
								i, n->pool);
		if (need_of(p, n->tenant, n->pool) != n)
			return ga_error_set(err, GA_EINVAL, "tenant need %d: tenant %d already has a need in pool \"%s\"",
								i, n->tenant, p->pools[n->pool].name);
		for (int t = 0; t < p->params.n_steps; t++)
			if (n->gpus[t] < 0)
				return ga_error_set(err, GA_EINVAL, "tenant need %d: GPUs at step %d must not be negative, got %d",
									i, t, n->gpus[t]);
	}
	return GA_OK;
}

const ga_tenant_policy *
ga_tenant_policy_of(const ga_problem *p, int tenant, int pool)
{
	for (int i = 0; i < p->n_policies; i++)
		if (p->policies[i].tenant == tenant && p->policies[i].pool == pool)
			return &p->policies[i];
	return NULL;
}

static ga_status
check_policy(const ga_problem *p, int i, ga_error *err)
{
	const ga_tenant_policy *tp = &p->policies[i];

	if (tp->tenant < 0)
		return ga_error_set(err, GA_EINVAL, "tenant policy %d: tenant must not be negative, got %d",
							i, tp->tenant);
	if (tp->pool < 0 || tp->pool >= p->n_pools)
		return ga_error_set(err, GA_EINVAL, "tenant policy %d: pool index %d is out of range",
							i, tp->pool);
	if (tp->guarantee < 0)
		return ga_error_set(err, GA_EINVAL, "tenant policy %d: guarantee must not be negative, got %d",
							i, tp->guarantee);
	if (tp->limit != GA_NO_LIMIT && tp->limit < tp->guarantee)
		return ga_error_set(err, GA_EINVAL,
							"tenant policy %d: limit %d must be none (%d) or at least the guarantee %d",
							i, tp->limit, GA_NO_LIMIT, tp->guarantee);
	if (tp->borrow_limit < 0)
		return ga_error_set(err, GA_EINVAL, "tenant policy %d: borrow_limit must not be negative, got %d",
							i, tp->borrow_limit);
	if (!isfinite(tp->weight) || tp->weight <= 0)
		return ga_error_set(err, GA_EINVAL, "tenant policy %d: weight must be finite and positive", i);
	if (tp->cohort < -1)
		return ga_error_set(err, GA_EINVAL, "tenant policy %d: cohort must be -1 (none) or an index, got %d",
							i, tp->cohort);
	if (ga_tenant_policy_of(p, tp->tenant, tp->pool) != tp)
		return ga_error_set(err, GA_EINVAL, "tenant policy %d: tenant %d already has a policy in pool \"%s\"",
							i, tp->tenant, p->pools[tp->pool].name);
	return GA_OK;
}

ga_status
ga_tenant_policies_check(const ga_problem *p, ga_error *err)
{
	ga_status	rc;

	for (int i = 0; i < p->n_policies; i++)
		if ((rc = check_policy(p, i, err)) != GA_OK)
			return rc;
	for (int q = 0; q < p->n_pools; q++)
	{
		long		guaranteed = 0;

		for (int i = 0; i < p->n_policies; i++)
			if (p->policies[i].pool == q)
				guaranteed += p->policies[i].guarantee;
		if (guaranteed > p->pools[q].n_gpus)
			return ga_error_set(err, GA_EINVAL,
								"pool \"%s\": tenant guarantees sum to %ld GPUs, above its %d GPUs",
								p->pools[q].name, guaranteed, p->pools[q].n_gpus);
	}
	return GA_OK;
}

/* ------------------------------------------------------------------------
 * The planners' accounting.
 *
 * Tenants are numbered densely as slots: the distinct tenants of the jobs
 * and policies, sorted (-1, no tenant, among them).  A usage table holds,
 * per kind (0 all work, 1 pinned work), pool, step and slot, the GPUs
 * held.  Per pool the slots are listed grouped by cohort, so the excess of
 * R10 is one pass over the list.
 * ------------------------------------------------------------------------ */

typedef struct slot_rule
{
	int			guarantee;
	int			limit;			/* GA_NO_LIMIT = none */
	int			borrow;			/* 0 without a cohort */
	int			cohort;			/* -1 = none */
} slot_rule;

struct ga_quota
{
	int			T;
	int			n_pools;
	int			K;				/* slots */
	int		   *tenant_of;		/* [K] sorted tenants */
	bool	   *active;			/* [n_pools] the pool has a policy */
	int		   *unguaranteed;	/* [n_pools] F_q */
	slot_rule  *rule;			/* [n_pools * K] */
	int		   *by_cohort;		/* [n_pools * K] slots grouped by cohort */
	int		   *need;			/* [n_pools * T * K] forecast needs, 0
								 * where none was given */
	bool		any;
};


/* Distinct tenants of jobs and policies, sorted, into q->tenant_of. */
static bool
collect_tenants(ga_quota *q, const ga_problem *p)
{
	int			n = p->n_jobs + p->n_policies + 1;
	int			k = 0;

	q->tenant_of = malloc(sizeof(int) * n);
	if (q->tenant_of == NULL)
		return false;
	q->tenant_of[0] = -1;
	for (int j = 0; j < p->n_jobs; j++)
		q->tenant_of[1 + j] = p->jobs[j].tenant;
	for (int i = 0; i < p->n_policies; i++)
		q->tenant_of[1 + p->n_jobs + i] = p->policies[i].tenant;
	qsort(q->tenant_of, n, sizeof(int), ga_compare_int);
	for (int i = 0; i < n; i++)
		if (k == 0 || q->tenant_of[k - 1] != q->tenant_of[i])
			q->tenant_of[k++] = q->tenant_of[i];
	q->K = k;
	return true;
}

static int
slot_of(const ga_quota *q, int tenant)
{
	int			lo = 0;
	int			hi = q->K - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;

		if (q->tenant_of[mid] == tenant)
			return mid;
		if (q->tenant_of[mid] < tenant)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return 0;					/* unknown: as the tenant of none */
}

/* Pool qi's slot rules and the slots in cohort order (insertion sort). */
static void
fill_pool(ga_quota *q, const ga_problem *p, int qi)
{
	slot_rule  *rule = q->rule + (size_t) qi * q->K;
	int		   *order = q->by_cohort + (size_t) qi * q->K;
	int			guaranteed = 0;

	for (int s = 0; s < q->K; s++)
	{
		const ga_tenant_policy *tp = ga_tenant_policy_of(p, q->tenant_of[s], qi);

		rule[s] = (slot_rule) {0, GA_NO_LIMIT, 0, -1};
		if (tp != NULL)
		{
			q->active[qi] = q->any = true;
			rule[s] = (slot_rule) {tp->guarantee, tp->limit,
			tp->cohort >= 0 ? tp->borrow_limit : 0, tp->cohort};
			guaranteed += tp->guarantee;
		}
		order[s] = s;
		for (int i = s; i > 0 && rule[order[i - 1]].cohort > rule[order[i]].cohort; i--)
		{
			int			x = order[i];

			order[i] = order[i - 1];
			order[i - 1] = x;
		}
	}
	q->unguaranteed[qi] = p->pools[qi].n_gpus - guaranteed;
}

/* Each slot's forecast need per pool and step. */
static bool
fill_needs(ga_quota *q, const ga_problem *p)
{
	q->need = calloc((size_t) (q->n_pools > 0 ? q->n_pools : 1) * q->T * q->K + 1, sizeof(int));
	if (q->need == NULL)
		return false;
	for (int i = 0; i < p->n_needs; i++)
	{
		const ga_tenant_need *n = &p->needs[i];
		int			s = slot_of(q, n->tenant);

		if (q->tenant_of[s] != n->tenant)
			continue;			/* a tenant of no job or policy: lends nothing */
		for (int t = 0; t < q->T; t++)
			q->need[((size_t) n->pool * q->T + t) * q->K + s] = n->gpus[t];
	}
	return true;
}

ga_quota *
ga_quota_create(const ga_problem *p)
{
	ga_quota   *q = calloc(1, sizeof(*q));
	int			np = p->n_pools > 0 ? p->n_pools : 1;

	if (q == NULL)
		return NULL;
	q->T = p->params.n_steps;
	q->n_pools = p->n_pools;
	if (!collect_tenants(q, p))
	{
		ga_quota_destroy(q);
		return NULL;
	}
	q->active = calloc(np, sizeof(bool));
	q->unguaranteed = calloc(np, sizeof(int));
	q->rule = calloc((size_t) np * q->K, sizeof(slot_rule));
	q->by_cohort = calloc((size_t) np * q->K, sizeof(int));
	if (!q->active || !q->unguaranteed || !q->rule || !q->by_cohort)
	{
		ga_quota_destroy(q);
		return NULL;
	}
	for (int qi = 0; qi < p->n_pools; qi++)
		fill_pool(q, p, qi);
	if (!fill_needs(q, p))
	{
		ga_quota_destroy(q);
		return NULL;
	}
	return q;
}

void
ga_quota_destroy(ga_quota *q)
{
	if (q == NULL)
		return;
	free(q->tenant_of);
	free(q->active);
	free(q->unguaranteed);
	free(q->rule);
	free(q->by_cohort);
	free(q->need);
	free(q);
}

bool
ga_quota_any(const ga_quota *q)
{
	return q->any;
}

bool
ga_quota_pool_active(const ga_quota *q, int pool)
{
	return q->any && pool >= 0 && pool < q->n_pools && q->active[pool];
}

size_t
ga_quota_use_len(const ga_quota *q)
{
	return q->any ? (size_t) 2 * q->n_pools * q->T * q->K : 1;
}

/* The usage of one kind, pool and step: K ints. */
static inline int *
use_at(const ga_quota *q, int *use, int kind, int pool, int t)
{
	return use + (((size_t) kind * q->n_pools + pool) * q->T + t) * q->K;
}

void
ga_quota_count(const ga_quota *q, int *use, int tenant, int pool, int start,
			   int end, int gpus, bool pinned, int sign)
{
	int			s;

	if (!q->any || pool < 0 || pool >= q->n_pools || !q->active[pool])
		return;
	s = slot_of(q, tenant);
	for (int t = start > 0 ? start : 0; t < end && t < q->T; t++)
	{
		use_at(q, use, 0, pool, t)[s] += sign * gpus;
		if (pinned)
			use_at(q, use, 1, pool, t)[s] += sign * gpus;
	}
}

/*
 * E(u) of R10 at one pool and step t, with `extra` GPUs more for slot
 * `who` (tenant_quota.h).
 */
static long
excess(const ga_quota *q, int pool, int t, const int *u, int who, int extra)
{
	const slot_rule *rule = q->rule + (size_t) pool * q->K;
	const int  *order = q->by_cohort + (size_t) pool * q->K;
	const int  *need = q->need + ((size_t) pool * q->T + t) * q->K;
	long		over = 0;
	long		borrowed = 0;
	int			i = 0;

	while (i < q->K)
	{
		int			cohort = rule[order[i]].cohort;
		long		want = 0;
		long		idle = 0;

		for (; i < q->K && rule[order[i]].cohort == cohort; i++)
		{
			int			s = order[i];
			long		held = u[s] + (s == who ? extra : 0);
			long		above = held > rule[s].guarantee ? held - rule[s].guarantee : 0;
			long		claimed = held > need[s] ? held : need[s];

			over += above;
			want += above < rule[s].borrow ? above : rule[s].borrow;
			idle += claimed < rule[s].guarantee ? rule[s].guarantee - claimed : 0;
		}
		if (cohort >= 0)
			borrowed += want < idle ? want : idle;
	}
	return over - borrowed - q->unguaranteed[pool];
}

/* R9 and R10 at one pool and step with `gpus` more for slot s. */
static bool
step_fits(const ga_quota *q, const int *use, int pool, int t, int s, int gpus)
{
	const int  *all = use_at(q, (int *) use, 0, pool, t);
	const int  *pinned = use_at(q, (int *) use, 1, pool, t);
	const slot_rule *r = &q->rule[(size_t) pool * q->K + s];
	long		allowed;

	if (r->limit != GA_NO_LIMIT &&
		all[s] + gpus > (r->limit > pinned[s] ? r->limit : pinned[s]))
		return false;
	allowed = excess(q, pool, t, pinned, -1, 0);
	return excess(q, pool, t, all, s, gpus) <= (allowed > 0 ? allowed : 0);
}

bool
ga_quota_fits(const ga_quota *q, const int *use, int tenant, int pool,
			  int start, int end, int gpus)
{
	int			s;

	if (!q->any || pool < 0 || pool >= q->n_pools || !q->active[pool])
		return true;
	s = slot_of(q, tenant);
	for (int t = start > 0 ? start : 0; t < end && t < q->T; t++)
		if (!step_fits(q, use, pool, t, s, gpus))
			return false;
	return true;
}

bool
ga_quota_within_guarantee(const ga_quota *q, const int *use, int tenant,
						  int pool, int start, int end, int gpus)
{
	int			s;
	int			guarantee;

	if (!q->any || pool < 0 || pool >= q->n_pools || !q->active[pool])
		return false;
	s = slot_of(q, tenant);
	guarantee = q->rule[(size_t) pool * q->K + s].guarantee;
	if (guarantee <= 0)
		return false;
	for (int t = start > 0 ? start : 0; t < end && t < q->T; t++)
		if (use_at(q, (int *) use, 0, pool, t)[s] + gpus > guarantee)
			return false;
	return true;
}

int
ga_quota_max_gpus(const ga_quota *q, int tenant, int pool)
{
	const slot_rule *rule;
	int			s;
	long		lendable = 0;
	long		most;

	if (!ga_quota_pool_active(q, pool))
		return INT_MAX;
	rule = q->rule + (size_t) pool * q->K;
	s = slot_of(q, tenant);
	for (int k = 0; k < q->K && rule[s].cohort >= 0; k++)
		if (k != s && rule[k].cohort == rule[s].cohort)
			lendable += rule[k].guarantee;
	most = (long) rule[s].guarantee + q->unguaranteed[pool] +
		(lendable < rule[s].borrow ? lendable : rule[s].borrow);
	if (rule[s].limit != GA_NO_LIMIT && rule[s].limit < most)
		most = rule[s].limit;
	return (int) most;
}
