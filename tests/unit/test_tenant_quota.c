/*
 * test_tenant_quota.c — tenant quotas: the problem checks its policies,
 * the validator's rules R9 (limit) and R10 (guarantees and borrowing)
 * reject a hand-made violation of each kind and exempt pinned jobs, the
 * planners' accounting agrees with the validator, and policies survive
 * serialisation and splitting, and a plan's first claims on guarantees
 * are found and kept by the full mode.  The property test over every planner is
 * in test_quota_property.c.
 */
#include "unit.h"
#include "problem_fixture.h"
#include "model/first_claim.h"
#include "model/problem_split.h"
#include "model/serial.h"
#include "model/tenant_quota.h"
#include "model/validate.h"
#include "model/validate_quota.h"
#include "solve/baseline.h"
#include "solve/milp.h"
#include "solve/reservation.h"
#include "solve/solve.h"

#include <stdlib.h>
#include <string.h>

#define N_STEPS 4

/*
 * Pool "a" of n_gpus GPUs over n_steps, job j of exactly size[j] GPUs,
 * tenant[j], priority[j] (1 when NULL) and steps_per_run * size[j]
 * GPU-steps of work; no service.  Unfinished.
 */
static ga_problem *
sized_problem(int n_gpus, int n_steps, int n_jobs, const int *tenant, const int *size,
			  const double *priority, int steps_per_run)
{
	ga_params	params = {.n_steps = n_steps, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, n_gpus, n_jobs, 0, &params);

	snprintf(p->pools[0].name, GA_NAME_LEN, "a");
	p->pools[0].n_gpus = n_gpus;
	for (int j = 0; j < n_jobs; j++)
	{
		snprintf(p->jobs[j].name, GA_NAME_LEN, "j%d", j);
		p->jobs[j].priority = priority ? priority[j] : 1;
		p->jobs[j].gpus_min = p->jobs[j].gpus_max = size[j];
		p->jobs[j].work_gpu_steps = steps_per_run * size[j];
		p->jobs[j].tenant = tenant[j];
	}
	return p;
}

/*
 * Pool "a" of `n_gpus` GPUs, 4 steps, n_jobs jobs "j0".. of 1-8 GPUs and
 * 40 GPU-steps of work (so a job runs past the horizon), tenants as
 * given; no service.
 */
static ga_problem *
quota_problem(int n_gpus, int n_jobs, const int *tenants)
{
	int			size[64];
	ga_problem *p;

	for (int j = 0; j < 64; j++)
		size[j] = 8;
	p = sized_problem(n_gpus, N_STEPS, n_jobs, tenants, size, NULL, 5);
	for (int j = 0; j < n_jobs; j++)
		p->jobs[j].gpus_min = 1;
	return p;
}

static ga_tenant_policy
policy(int tenant, int guarantee, int limit, int borrow, int cohort)
{
	return (ga_tenant_policy) {.tenant = tenant, .pool = 0, .guarantee = guarantee,
	.limit = limit, .borrow_limit = borrow, .weight = 1, .cohort = cohort};
}

/* Job j runs from start (< 0: before the plan) to end on [first, first + size). */
static void
pin_job(ga_problem *p, int j, int start, int end, int first, int size)
{
	p->jobs[j].pinned = true;
	p->jobs[j].pinned_start = start;
	p->jobs[j].pinned_end = end;
	p->jobs[j].pinned_first_gpu = first;
	p->jobs[j].pinned_size = size;
}

static void
set_policies(ga_problem *p, const ga_tenant_policy *tps, int n)
{
	ga_error	err;

	CHECK_INT_EQ(ga_problem_set_tenant_policies(p, tps, n, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
}

static void
expect_illegal(const ga_problem *p, const ga_plan *plan, const char *rule)
{
	ga_error	err;

	ga_error_clear(&err);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_EILLEGAL);
	CHECK_STR_CONTAINS(err.message, rule);
	CHECK_STR_CONTAINS(err.message, "pool \"a\"");
}

static void
expect_legal(const ga_problem *p, const ga_plan *plan)
{
	ga_error	err;

	ga_error_clear(&err);
	CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "%s", err.message);
}

static void
expect_bad_policy(ga_problem *p, ga_tenant_policy tp, const char *words)
{
	ga_error	err;

	CHECK_INT_EQ(ga_problem_set_tenant_policies(p, &tp, 1, &err), GA_OK);
	ga_error_clear(&err);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, words);
}

TEST(quota_problem_rejects_bad_policy)
{
	int			tenants[1] = {0};
	ga_problem *p = quota_problem(8, 1, tenants);
	ga_tenant_policy two[2] = {policy(0, 2, 4, 0, -1), policy(0, 2, 4, 0, -1)};
	ga_tenant_policy big[2] = {policy(0, 6, 8, 0, -1), policy(1, 4, GA_NO_LIMIT, 0, -1)};
	ga_tenant_policy tp = policy(0, 2, 4, 0, -1);
	ga_error	err;

	tp.tenant = -1;
	expect_bad_policy(p, tp, "tenant policy 0: tenant must not be negative");
	tp = policy(0, 2, 4, 0, -1);
	tp.pool = 1;
	expect_bad_policy(p, tp, "pool index 1 is out of range");
	expect_bad_policy(p, policy(0, -1, 4, 0, -1), "guarantee must not be negative");
	expect_bad_policy(p, policy(0, 4, 2, 0, -1), "limit 2 must be none (-1) or at least the guarantee 4");
	expect_bad_policy(p, policy(0, 2, 4, -1, 0), "borrow_limit must not be negative");
	expect_bad_policy(p, policy(0, 2, 4, 0, -2), "cohort must be -1 (none) or an index");
	tp = policy(0, 2, 4, 0, -1);
	tp.weight = 0;
	expect_bad_policy(p, tp, "weight must be finite and positive");
	CHECK_INT_EQ(ga_problem_set_tenant_policies(p, two, 2, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "tenant policy 1: tenant 0 already has a policy in pool \"a\"");
	CHECK_INT_EQ(ga_problem_set_tenant_policies(p, big, 2, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "pool \"a\": tenant guarantees sum to 10 GPUs, above its 8 GPUs");
	set_policies(p, two, 1);
	ga_problem_destroy(p);
}

/* R9: above its limit, unless its pinned jobs alone are. */
TEST(quota_validate_r9_limit)
{
	int			tenants[3] = {0, 0, 1};
	ga_problem *p = quota_problem(16, 3, tenants);
	ga_tenant_policy tp = policy(0, 0, 4, 0, -1);
	ga_plan    *plan;

	set_policies(p, &tp, 1);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, 1, 0, 4);
	ga_plan_place_job(plan, p, 2, 0, 8, 8);	/* tenant 1: no policy */
	expect_legal(p, plan);
	ga_plan_place_job(plan, p, 1, 3, 4, 2);
	expect_illegal(p, plan, "R9: tenant 0 holds 6 GPUs of pool \"a\" at step 3, above its limit 4");
	ga_plan_destroy(plan);

	/* a pinned job of 8 is over the limit on its own: exempt, but nothing joins it */
	p->jobs[0].pinned = true;
	p->jobs[0].pinned_start = -1;
	p->jobs[0].pinned_end = 2;
	p->jobs[0].pinned_first_gpu = 0;
	p->jobs[0].pinned_size = 8;
	set_policies(p, &tp, 1);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, -1, 0, 8);
	expect_legal(p, plan);
	ga_plan_place_job(plan, p, 1, 1, 8, 1);
	expect_illegal(p, plan, "R9: tenant 0 holds 9 GPUs");
	ga_plan_destroy(plan);
	/* once the pinned job ends, the limit holds */
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, -1, 0, 8);
	ga_plan_place_job(plan, p, 1, 2, 8, 4);
	expect_legal(p, plan);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * R10 in a pool of 8 wholly guaranteed (4 to tenant 0, 4 to tenant 1):
 * tenant 1 takes tenant 0's idle guarantee only by borrowing within their
 * cohort, up to its borrow limit; a tenant with no policy has no GPU.
 */
TEST(quota_validate_r10_borrowing)
{
	int			tenants[3] = {0, 1, 2};
	ga_problem *p = quota_problem(8, 3, tenants);
	ga_tenant_policy tps[2] = {policy(0, 4, GA_NO_LIMIT, 0, 0), policy(1, 4, GA_NO_LIMIT, 0, 0)};
	ga_plan    *plan;

	set_policies(p, tps, 2);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 1, 0, 0, 8);
	expect_illegal(p, plan, "R10: at step 0 tenants hold 4 GPUs of pool \"a\" above their guarantees");
	tps[1].borrow_limit = 2;
	set_policies(p, tps, 2);
	expect_illegal(p, plan, "R10: at step 0 tenants hold 2 GPUs");
	tps[1].borrow_limit = 4;
	set_policies(p, tps, 2);
	expect_legal(p, plan);
	tps[1].cohort = 1;			/* tenant 0's guarantee lends to its own cohort only */
	set_policies(p, tps, 2);
	expect_illegal(p, plan, "R10");
	ga_plan_destroy(plan);

	/* tenant 2 has no policy: nothing unguaranteed, nothing to borrow */
	tps[1].cohort = 0;
	set_policies(p, tps, 2);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 2, 2, 0, 2);
	expect_illegal(p, plan, "R10: at step 2 tenants hold 2 GPUs");
	ga_plan_destroy(plan);

	/* with 4 GPUs unguaranteed, tenant 2 takes them freely */
	tps[0].guarantee = 2;
	tps[1].guarantee = 2;
	set_policies(p, tps, 2);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 2, 0, 0, 4);
	ga_plan_place_job(plan, p, 0, 0, 4, 2);
	expect_legal(p, plan);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * R10 spares running jobs: a pinned job of a tenant with no policy holds
 * guaranteed GPUs; work within guarantees may join it, work adding to the
 * excess may not.
 */
TEST(quota_validate_r10_exempts_pinned)
{
	int			tenants[3] = {2, 0, 2};
	ga_problem *p = quota_problem(16, 3, tenants);
	ga_tenant_policy tps[2] = {policy(0, 8, GA_NO_LIMIT, 0, -1), policy(1, 8, GA_NO_LIMIT, 0, -1)};
	ga_plan    *plan;

	pin_job(p, 0, -2, 3, 12, 4);
	set_policies(p, tps, 2);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, -2, 12, 4);
	expect_legal(p, plan);
	ga_plan_place_job(plan, p, 1, 0, 0, 8);	/* tenant 0 within its guarantee */
	expect_legal(p, plan);
	ga_plan_place_job(plan, p, 2, 1, 8, 2);	/* tenant 2 adds 2 to the excess */
	expect_illegal(p, plan, "R10: at step 1 tenants hold 6 GPUs");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/* The planners' accounting says yes exactly where the validator does. */
TEST(quota_accounting_agrees_with_validator)
{
	int			tenants[4] = {0, 1, 2, -1};
	ga_tenant_policy tps[3] = {policy(0, 4, 8, 2, 0), policy(1, 4, 6, 4, 0),
	policy(2, 4, GA_NO_LIMIT, 0, 1)};
	int			n_agree = 0;

	for (int trial = 0; trial < 64; trial++)
	{
		ga_problem *p = quota_problem(16, 4, tenants);
		ga_quota   *q;
		int		   *use;
		ga_plan    *plan;
		int			first = 0;
		bool		fits = true;
		ga_error	err;

		set_policies(p, tps, 3);
		q = ga_quota_create(p);
		CHECK(q != NULL && ga_quota_any(q));
		use = calloc(ga_quota_use_len(q), sizeof(int));
		plan = ga_plan_create(p);
		for (int j = 0; j < 4; j++)
		{
			int			size = 1 << ((trial >> j) & 3);	/* 1, 2, 4 or 8 */
			int			start = (trial + j) % N_STEPS;
			int			end = start + ga_job_duration(&p->jobs[j], 0, size);

			first = (first + size - 1) / size * size;
			if (first + size > 16)
				break;
			fits = fits && ga_quota_fits(q, use, p->jobs[j].tenant, 0, start, end, size);
			ga_quota_count(q, use, p->jobs[j].tenant, 0, start, end, size, false, 1);
			ga_plan_place_job(plan, p, j, start, first, size);
			first += size;
		}
		n_agree += fits == (ga_validate(p, plan, &err) == GA_OK);
		CHECK_MSG(fits == (ga_validate(p, plan, &err) == GA_OK), "trial %d: accounting %d, validator: %s",
				  trial, fits, err.message);
		ga_plan_destroy(plan);
		free(use);
		ga_quota_destroy(q);
		ga_problem_destroy(p);
	}
	CHECK_INT_EQ(n_agree, 64);
}

TEST(quota_policies_survive_serialisation_and_split)
{
	int			tenants[2] = {0, 1};
	ga_params	params = {.n_steps = N_STEPS, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(2, 16, 2, 0, &params);
	ga_tenant_policy tps[2] = {policy(0, 4, 8, 2, 0), policy(1, 2, GA_NO_LIMIT, 0, -1)};
	ga_problem *back = NULL;
	ga_split   *split = NULL;
	ga_error	err;
	size_t		len;
	void	   *buf;

	for (int q = 0; q < 2; q++)
	{
		snprintf(p->pools[q].name, GA_NAME_LEN, "%c", 'a' + q);
		p->pools[q].first_gpu = 8 * q;
		p->pools[q].n_gpus = 8;
	}
	for (int j = 0; j < 2; j++)
	{
		snprintf(p->jobs[j].name, GA_NAME_LEN, "j%d", j);
		p->jobs[j].pool = j;
		p->jobs[j].priority = 1;
		p->jobs[j].gpus_min = p->jobs[j].gpus_max = 2;
		p->jobs[j].work_gpu_steps = 2;
		p->jobs[j].tenant = tenants[j];
	}
	tps[1].pool = 1;
	tps[1].weight = 2.5;
	set_policies(p, tps, 2);
	len = ga_problem_serial_size(p);
	buf = malloc(len);
	CHECK_INT_EQ(ga_problem_write(p, buf, len, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_read(buf, len, &back, &err), GA_OK);
	CHECK_INT_EQ(back->n_policies, 2);
	for (int i = 0; i < 2; i++)
	{
		const ga_tenant_policy *a = &back->policies[i];

		CHECK(a->tenant == tps[i].tenant && a->pool == tps[i].pool &&
			  a->guarantee == tps[i].guarantee && a->limit == tps[i].limit &&
			  a->borrow_limit == tps[i].borrow_limit && a->weight == tps[i].weight &&
			  a->cohort == tps[i].cohort);
	}
	CHECK_INT_EQ(ga_problem_split(p, &split, &err), GA_OK);
	CHECK(split != NULL && split->n_parts == 2);
	for (int k = 0; split != NULL && k < split->n_parts; k++)
	{
		const ga_problem *part = split->parts[k].problem;

		CHECK_INT_EQ(part->n_policies, 1);
		CHECK_INT_EQ(part->policies[0].pool, 0);
		CHECK_INT_EQ(part->policies[0].tenant, k);
		CHECK_INT_EQ(part->policies[0].guarantee, tps[k].guarantee);
	}
	ga_split_destroy(split);
	ga_problem_destroy(back);
	free(buf);
	ga_problem_destroy(p);
}

/*
 * Work within a tenant's guarantee has first claim on it: in a pool of 8
 * guaranteed half to tenant 0, half to tenant 1 (which may borrow 4 from
 * their cohort), tenant 1's dense job of 8 GPUs would borrow tenant 0's
 * idle half; tenant 0's job of 4, worth less, goes first all the same,
 * and the borrower starts when it ends.
 */
TEST(quota_fast_gives_guarantee_first_claim)
{
	int			tenants[2] = {1, 0};
	ga_problem *p = quota_problem(8, 2, tenants);
	ga_tenant_policy tps[2] = {policy(0, 4, GA_NO_LIMIT, 0, 0), policy(1, 4, GA_NO_LIMIT, 4, 0)};
	ga_solve_options opts = {.time_limit_ms = 2000};
	ga_plan    *plan = NULL;
	ga_error	err;

	p->jobs[0].priority = 4;
	p->jobs[0].gpus_min = 8;
	p->jobs[0].work_gpu_steps = 16;
	p->jobs[1].gpus_min = p->jobs[1].gpus_max = 4;
	p->jobs[1].work_gpu_steps = 8;
	set_policies(p, tps, 2);
	CHECK_INT_EQ(ga_solve_fast(p, &opts, &plan, &err), GA_OK);
	expect_legal(p, plan);
	CHECK_INT_EQ(plan->job_start[1], 0);
	CHECK_INT_EQ(plan->job_start[0], 2);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * A pool of 4 guaranteed half to each of two tenants of one cohort:
 * tenant 1's job 0 of 4 GPUs, worth far more, would borrow tenant 0's idle
 * half; tenant 0's job 2 of 2 GPUs is within its guarantee and worth least
 * of all (job 1, tenant 0's job of 4, least dense).
 */
static ga_problem *
claim_over_priority_problem(void)
{
	int			tenant[3] = {1, 0, 0};
	int			size[3] = {4, 4, 2};
	double		priority[3] = {2, 0.5, 0.25};
	ga_problem *p = sized_problem(4, 48, 3, tenant, size, priority, 4);
	ga_tenant_policy tps[2] = {policy(0, 2, 4, 4, 0), policy(1, 2, GA_NO_LIMIT, 2, 0)};

	set_policies(p, tps, 2);
	return p;
}

/* Job 2's claim kept: it starts first, the borrower after it. */
static void
expect_claim_over_priority(const ga_problem *p, const ga_plan *plan)
{
	expect_legal(p, plan);
	CHECK_INT_EQ(plan->job_start[2], 0);
	CHECK(plan->job_start[0] >= 4);
}

/*
 * First claim holds whatever the priorities: tenant 0's small job within
 * its guarantee starts first, and tenant 1's big job after it.
 */
TEST(quota_fast_first_claim_beats_priority)
{
	ga_problem *p = claim_over_priority_problem();
	ga_solve_options opts = {.time_limit_ms = 2000};
	ga_plan    *plan = NULL;
	ga_error	err;

	CHECK_INT_EQ(ga_solve_fast(p, &opts, &plan, &err), GA_OK);
	expect_claim_over_priority(p, plan);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * A plan's first claims: in a pool of 8 guaranteed 4 to tenant 0 and 2
 * to tenant 1, tenant 0's job 1 (4 GPUs from step 1) keeps it within its
 * guarantee and claims; its job 2 (2 GPUs from step 2, beside job 1) takes
 * it to 6 and does not.  Running job 0 of tenant 1 claims nothing but
 * counts: tenant 1's job 3 (2 GPUs from step 0) beside it takes tenant 1
 * to 4, above its guarantee, and does not claim either.  A plan keeps the
 * claims when it starts each claiming job no later.
 */
TEST(quota_first_claims_of_a_plan)
{
	int			tenant[4] = {1, 0, 0, 1};
	int			size[4] = {2, 4, 2, 2};
	ga_problem *p = sized_problem(8, N_STEPS, 4, tenant, size, NULL, 2);
	ga_tenant_policy tps[2] = {policy(0, 4, GA_NO_LIMIT, 4, 0), policy(1, 2, GA_NO_LIMIT, 4, 0)};
	int			claim[4];
	ga_plan    *plan;
	ga_error	err;

	pin_job(p, 0, -1, 2, 6, 2);
	set_policies(p, tps, 2);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, -1, 6, 2);
	ga_plan_place_job(plan, p, 1, 1, 0, 4);
	ga_plan_place_job(plan, p, 2, 2, 4, 2);
	ga_plan_place_job(plan, p, 3, 0, 4, 2);
	expect_legal(p, plan);
	CHECK_INT_EQ(ga_first_claims(p, plan, claim, &err), GA_OK);
	CHECK_INT_EQ(claim[0], -1);
	CHECK_INT_EQ(claim[1], 1);
	CHECK_INT_EQ(claim[2], -1);
	CHECK_INT_EQ(claim[3], -1);
	CHECK(ga_keeps_first_claims(p, plan, claim));
	ga_plan_destroy(plan);

	/* job 1 a step earlier keeps its claim, a step later or left out breaks it */
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, -1, 6, 2);
	ga_plan_place_job(plan, p, 1, 0, 0, 4);
	ga_plan_place_job(plan, p, 3, 0, 4, 2);
	CHECK(ga_keeps_first_claims(p, plan, claim));
	ga_plan_destroy(plan);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, -1, 6, 2);
	ga_plan_place_job(plan, p, 1, 2, 0, 4);
	ga_plan_place_job(plan, p, 3, 0, 4, 2);
	CHECK(!ga_keeps_first_claims(p, plan, claim));
	ga_plan_destroy(plan);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, -1, 6, 2);
	ga_plan_place_job(plan, p, 3, 0, 4, 2);
	CHECK(!ga_keeps_first_claims(p, plan, claim));
	ga_plan_destroy(plan);
	ga_problem_destroy(p);

	/* without policies nothing claims */
	p = sized_problem(8, N_STEPS, 4, tenant, size, NULL, 2);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 1, 1, 0, 4);
	CHECK_INT_EQ(ga_first_claims(p, plan, claim, &err), GA_OK);
	CHECK_INT_EQ(claim[1], -1);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * The full mode keeps the fast plan's first claims: in
 * claim_over_priority_problem the plan worth most starts
 * tenant 1's valuable job of 4 GPUs at once on tenant 0's idle guarantee
 * and tenant 0's small job after it.  Full, whose search finds that plan,
 * still starts tenant 0's job within its guarantee at step 0.
 */
TEST(quota_full_keeps_first_claim)
{
	ga_problem *p = claim_over_priority_problem();
	ga_solve_options opts = {.time_limit_ms = 2000};
	ga_milp_stats stats;
	ga_plan    *plan = NULL;
	ga_error	err;

	CHECK_INT_EQ(ga_solve_full_ex(p, &opts, NULL, &plan, &stats, &err), GA_OK);
	expect_claim_over_priority(p, plan);
	CHECK(stats.claims_refused > 0);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * First claim puts work within a guarantee ahead of other jobs, not ahead
 * of a service: svc holds GPUs 6-7 (churn limit 2, demand 2 throughout)
 * and a running job GPUs 0-1 when tenant 0's job of 4 GPUs, within its
 * guarantee of 4, is planned.  The only aligned block of 4 free of batch
 * work is 4-7.  Placed before the service, the job would start there at
 * once, and the service, able to change only 2 GPUs a step, would hold
 * none at step 0 (costing 2 x 8 x 4 = 64, more than the job's 4 a step
 * earns).  The service keeps its GPUs; the job waits for the running one
 * to end at step 2 and starts on 0-3.
 */
TEST(quota_fast_first_claim_leaves_services_their_gpus)
{
	ga_params	params = {.n_steps = 8, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, 8, 2, 1, &params);
	int			held[2] = {6, 7};
	ga_tenant_policy tp = policy(0, 4, GA_NO_LIMIT, 0, -1);
	ga_solve_options opts = {.time_limit_ms = 2000};
	ga_plan    *plan = NULL;
	ga_error	err;

	snprintf(p->pools[0].name, GA_NAME_LEN, "a");
	p->pools[0].n_gpus = 8;
	for (int j = 0; j < 2; j++)
	{
		snprintf(p->jobs[j].name, GA_NAME_LEN, "j%d", j);
		p->jobs[j].tenant = j;
	}
	tp_set_job(p, 0, 1, 4, 4, 16, 0, -1);
	tp_set_job(p, 1, 1, 2, 2, 8, 0, -1);
	p->jobs[1].pinned = true;
	p->jobs[1].pinned_start = -2;
	p->jobs[1].pinned_end = 2;
	p->jobs[1].pinned_first_gpu = 0;
	p->jobs[1].pinned_size = 2;
	snprintf(p->services[0].name, GA_NAME_LEN, "svc");
	p->services[0].priority = 4;
	p->services[0].churn_limit = 2;
	p->services[0].max_gpus = 8;
	for (int t = 0; t < params.n_steps; t++)
		p->services[0].demand[t] = 2;
	CHECK_INT_EQ(ga_problem_set_held(p, 0, held, 2, &err), GA_OK);
	set_policies(p, &tp, 1);
	CHECK_INT_EQ(ga_solve_fast(p, &opts, &plan, &err), GA_OK);
	if (plan != NULL)
	{
		expect_legal(p, plan);
		for (int t = 0; t < params.n_steps; t++)
			CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 2);
		CHECK(ga_plan_get(plan, 6, 0) == ga_service_workload(p, 0));
		CHECK(ga_plan_get(plan, 7, 0) == ga_service_workload(p, 0));
		CHECK_INT_EQ(plan->job_start[0], 2);
		CHECK_INT_EQ(plan->job_first_gpu[0], 0);
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * The quota baseline keeps each tenant's queue in strict arrival order
 * but lets another tenant's head pass: tenant 0's job of 8 GPUs waits for
 * its job of 4 to end, its later job of 2 waits behind it, while tenant
 * 1's job of 2 (limited to 2 GPUs) starts at once.  Strict fifo holds
 * everything behind the job of 8.
 */
TEST(quota_baseline_queues_per_tenant)
{
	int			tenant[4] = {0, 0, 1, 0};
	int			size[4] = {4, 8, 2, 2};
	ga_problem *p = sized_problem(8, 8, 4, tenant, size, NULL, 2);
	ga_tenant_policy tp = policy(1, 0, 2, 0, -1);
	ga_reservation *r = NULL;
	ga_plan    *plan = NULL;
	ga_error	err;

	set_policies(p, &tp, 1);
	CHECK_INT_EQ(ga_reservation_from_demand(p, 0, &r, &err), GA_OK);
	CHECK_INT_EQ(ga_plan_quota(p, r, &plan, &err), GA_OK);
	CHECK_INT_EQ(plan->job_start[0], 0);
	CHECK_INT_EQ(plan->job_start[2], 0);
	CHECK_INT_EQ(plan->job_start[1], 2);
	CHECK_INT_EQ(plan->job_start[3], 4);
	CHECK_STR_CONTAINS(plan->mode, "quota");
	CHECK_INT_EQ(ga_validate_quotas(p, plan, &err), GA_OK);
	ga_plan_destroy(plan);
	CHECK_INT_EQ(ga_plan_fifo(p, r, &plan, &err), GA_OK);
	CHECK(plan->job_start[2] >= plan->job_start[1]);
	ga_plan_destroy(plan);
	ga_reservation_destroy(r);
	ga_problem_destroy(p);
}
