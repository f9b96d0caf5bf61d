/*
 * test_quota_property.c — on generated problems whose jobs belong to
 * tenants with random quotas (guarantees, limits, borrowing, cohorts),
 * every planner's plan keeps rules R9 and R10, most problems carrying the
 * tenants' forecast needs R10 keeps from being lent: the fast and full modes'
 * plans pass the whole validator (full's mapping keeps the quotas itself:
 * the validator refuses none of its plans), the baselines' (fifo,
 * backfill, quota; they may break a service's churn limit by design)
 * the quota rules; and a recount of
 * each tenant's GPUs from the grid cells finds no limit exceeded where
 * pinned jobs do not already exceed it.  Full's plans start every job
 * that the fast plan starts within its tenant's guarantee no later.
 */
#include "unit.h"
#include "model/first_claim.h"
#include "model/tenant_quota.h"
#include "model/validate.h"
#include "model/validate_quota.h"
#include "sim/generate.h"
#include "solve/milp.h"
#include "solve/baseline.h"
#include "solve/reservation.h"
#include "solve/solve.h"

#include <stdlib.h>

#define N_TENANTS 4

static uint64_t
next_draw(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static int
draw(uint64_t *state, int lo, int hi)
{
	return lo + (int) (next_draw(state) % (uint64_t) (hi - lo + 1));
}

/*
 * Forecast needs for most policies: per step 0 or a level up to two GPUs
 * past the guarantee, changing at a random step, so borrowing must end
 * before a lender's need begins (and a need past the guarantee claims no
 * more than the guarantee).
 */
static void
add_random_needs(ga_problem *p, const ga_tenant_policy *tps, int n, uint64_t *state)
{
	int			T = p->params.n_steps;
	ga_tenant_need needs[N_TENANTS * 4];
	int		   *gpus = malloc(sizeof(int) * ((size_t) n * T + 1));
	int			k = 0;
	ga_error	err;

	for (int i = 0; i < n; i++)
	{
		int			before = draw(state, 0, 1) ? 0 : draw(state, 0, tps[i].guarantee + 2);
		int			after = draw(state, 0, tps[i].guarantee + 2);
		int			change = draw(state, 0, T);

		if (draw(state, 0, 3) == 0)
			continue;
		needs[k] = (ga_tenant_need) {tps[i].tenant, tps[i].pool, gpus + (size_t) k * T};
		for (int t = 0; t < T; t++)
			needs[k].gpus[t] = t < change ? before : after;
		k++;
	}
	CHECK_INT_EQ(ga_problem_set_tenant_needs(p, needs, k, &err), GA_OK);
	free(gpus);
}

/*
 * Tenants 0-3 (and none for a few jobs) for the jobs, and for a third of
 * the seeds a predecessor for some of them; in each pool a
 * policy for most tenants, guarantees summing to at most the pool,
 * sometimes all of it, limits and borrow limits of either kind, two
 * cohorts and none.
 */
static void
add_random_quotas(ga_problem *p, uint64_t seed)
{
	ga_tenant_policy tps[N_TENANTS * 4];
	uint64_t	state = seed;
	int			n = 0;
	ga_error	err;

	for (int j = 0; j < p->n_jobs; j++)
	{
		p->jobs[j].tenant = draw(&state, -1, 5 * N_TENANTS - 1) / 5;
		/* a third of the instances with dependencies: waiting jobs are placed apart */
		if (seed % 3 == 0 && j > 0 && !p->jobs[j].pinned && draw(&state, 0, 2) == 0)
		{
			p->jobs[j].n_preds = 1;
			p->jobs[j].preds[0] = draw(&state, 0, j - 1);
		}
	}
	for (int q = 0; q < p->n_pools && q < 4; q++)
	{
		int			left = p->pools[q].n_gpus * draw(&state, 0, 4) / 4;

		for (int i = 0; i < N_TENANTS; i++)
		{
			ga_tenant_policy *tp = &tps[n];

			if (draw(&state, 0, 4) == 0)
				continue;
			tp->tenant = i;
			tp->pool = q;
			tp->guarantee = draw(&state, 0, left);
			left -= tp->guarantee;
			tp->limit = draw(&state, 0, 2) == 0 ? GA_NO_LIMIT :
				tp->guarantee + draw(&state, 0, p->pools[q].n_gpus / 2);
			tp->borrow_limit = draw(&state, 0, 1) ? draw(&state, 0, p->pools[q].n_gpus) : 0;
			tp->weight = draw(&state, 1, 4);
			tp->cohort = draw(&state, -1, 1);
			n++;
		}
	}
	CHECK_INT_EQ(ga_problem_set_tenant_policies(p, tps, n, &err), GA_OK);
	if (seed % 4 != 1)
		add_random_needs(p, tps, n, &state);
	CHECK_MSG(ga_problem_finish(p, &err) == GA_OK, "%s", err.message);
}

/*
 * Steps at which a tenant holds more GPUs of a pool than its limit, its
 * pinned jobs alone not already doing so: counted from the grid's cells.
 */
static int
limit_breaches(const ga_problem *p, const ga_plan *plan)
{
	int			breaches = 0;

	for (int i = 0; i < p->n_policies; i++)
	{
		const ga_tenant_policy *tp = &p->policies[i];
		const ga_pool *pool = &p->pools[tp->pool];

		if (tp->limit == GA_NO_LIMIT)
			continue;
		for (int t = 0; t < plan->n_steps; t++)
		{
			int			held = 0;
			int			pinned = 0;

			for (int g = pool->first_gpu; g < pool->first_gpu + pool->n_gpus; g++)
			{
				int32_t		w = ga_plan_get(plan, g, t);

				if (w == GA_IDLE || w >= p->n_jobs || p->jobs[w].tenant != tp->tenant)
					continue;
				held++;
				pinned += p->jobs[w].pinned;
			}
			breaches += held > tp->limit && held > pinned;
		}
	}
	return breaches;
}

static void
check_plan(const ga_problem *p, const ga_plan *plan, int i, const char *who, bool whole)
{
	ga_error	err;

	ga_error_clear(&err);
	if (whole)
		CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "instance %d %s: %s", i, who, err.message);
	else
		CHECK_MSG(ga_validate_quotas(p, plan, &err) == GA_OK, "instance %d %s: %s", i, who, err.message);
	CHECK_MSG(limit_breaches(p, plan) == 0, "instance %d %s: a tenant above its limit", i, who);
}

static void
check_quota_instance(int i, int *placed)
{
	ga_generate_spec spec;
	ga_solve_options opts = {.time_limit_ms = 2000};
	ga_plan    *plan = NULL;
	ga_reservation *r = NULL;
	ga_problem *p;
	int		   *claim;
	ga_error	err;

	ga_generate_defaults(&spec, 4 + 4 * (i % 12), 4 + i % 20, 4 + i % 30, 131 * (uint64_t) i + 5);
	spec.services = i % 3;
	spec.pinned_share = i % 4 == 0 ? 0.3 : 0.1;
	spec.two_pools = i % 5 == 2;
	spec.alt_pool_share = spec.two_pools ? 0.5 : 0;
	p = ga_generate(&spec, &err);
	CHECK_MSG(p != NULL, "instance %d: %s", i, err.message);
	if (p == NULL)
		return;
	add_random_quotas(p, 2654435761ULL * (uint64_t) i + 17);
	claim = malloc(sizeof(int) * (p->n_jobs + 1));
	CHECK_MSG(ga_solve_fast(p, &opts, &plan, &err) == GA_OK, "instance %d fast: %s", i, err.message);
	if (plan != NULL)
	{
		check_plan(p, plan, i, "fast", true);
		for (int j = 0; j < p->n_jobs; j++)
			*placed += plan->job_size[j] > 0 && !p->jobs[j].pinned;
		CHECK_INT_EQ(ga_first_claims(p, plan, claim, &err), GA_OK);
	}
	ga_plan_destroy(plan);
	plan = NULL;
	if (i % 4 == 0)
	{
		ga_milp_stats stats = {0};

		CHECK_MSG(ga_solve_full_ex(p, &opts, NULL, &plan, &stats, &err) == GA_OK,
				  "instance %d full: %s", i, err.message);
		/* the mapping keeps the quotas itself: the validator refused none of its plans */
		CHECK_MSG(stats.rejected == 0, "instance %d full: %d mapped plans refused", i, stats.rejected);
		if (plan != NULL)
		{
			check_plan(p, plan, i, "full", true);
			CHECK_MSG(ga_keeps_first_claims(p, plan, claim),
					  "instance %d full: a job starts after its first claim", i);
		}
		ga_plan_destroy(plan);
		plan = NULL;
	}
	free(claim);
	CHECK_INT_EQ(ga_reservation_from_demand(p, 0, &r, &err), GA_OK);
	for (int k = 0; k < 3 && r != NULL; k++)
	{
		static const char *const names[3] = {"backfill", "fifo", "quota"};

		CHECK_INT_EQ(k == 0 ? ga_plan_backfill(p, r, &plan, &err) :
					 k == 1 ? ga_plan_fifo(p, r, &plan, &err) : ga_plan_quota(p, r, &plan, &err),
					 GA_OK);
		if (plan != NULL)
			check_plan(p, plan, i, names[k], false);
		ga_plan_destroy(plan);
		plan = NULL;
	}
	ga_reservation_destroy(r);
	ga_problem_destroy(p);
}

TEST(property_plans_keep_tenant_quotas)
{
	int			placed = 0;

	for (int i = 0; i < 120; i++)
		check_quota_instance(i, &placed);
	/* the quotas leave work to plan: the property is not met by an empty grid */
	CHECK(placed > 200);
}
