/*
 * test_tenant_need.c — tenants' forecast needs (ga_tenant_need): the
 * problem checks them; rule R10 lends a guarantee only where neither its
 * tenant's work nor its need claims it, in the validator and in the
 * planners' accounting alike, running jobs exempt, and fast keeps them
 * when it plans ready jobs apart from waiting ones; needs survive
 * serialisation (a buffer of the format before them still reads) and
 * splitting; and the simulator forecasts them from what it has observed
 * only (sim/tenant_need.h).
 */
#include "unit.h"
#include "scenario_fixture.h"
#include "model/problem_split.h"
#include "model/serial.h"
#include "model/tenant_quota.h"
#include "model/validate.h"
#include "sim/tenant_need.h"
#include "solve/solve.h"

#include <stdlib.h>
#include <string.h>

#define N_STEPS 4

/*
 * Pool "a" of 8 GPUs guaranteed half to tenant 0, half to tenant 1, one
 * cohort, tenant 1 borrowing up to 4: job 0 of tenant 1 runs 8 GPUs for
 * `steps` steps, job 1 is tenant 0's; tenant 0's need is `need`.
 */
static ga_problem *
lender_problem(int steps, const int *need, bool pinned)
{
	ga_params	params = {.n_steps = N_STEPS, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, 8, 2, 0, &params);
	ga_tenant_policy tps[2] = {
		{.tenant = 0, .pool = 0, .guarantee = 4, .limit = GA_NO_LIMIT, .borrow_limit = 4, .weight = 1, .cohort = 0},
		{.tenant = 1, .pool = 0, .guarantee = 4, .limit = GA_NO_LIMIT, .borrow_limit = 4, .weight = 1, .cohort = 0}};
	int			gpus[N_STEPS];
	ga_tenant_need n = {0, 0, gpus};
	ga_error	err;

	memcpy(gpus, need, sizeof(gpus));
	snprintf(p->pools[0].name, GA_NAME_LEN, "a");
	p->pools[0].n_gpus = 8;
	for (int j = 0; j < 2; j++)
	{
		snprintf(p->jobs[j].name, GA_NAME_LEN, "j%d", j);
		p->jobs[j].priority = 1;
		p->jobs[j].gpus_min = 1;
		p->jobs[j].gpus_max = 8;
		p->jobs[j].work_gpu_steps = 8 * steps;
		p->jobs[j].tenant = 1 - j;
	}
	if (pinned)
	{
		p->jobs[0].pinned = true;
		p->jobs[0].pinned_start = -1;
		p->jobs[0].pinned_end = steps - 1;
		p->jobs[0].pinned_first_gpu = 0;
		p->jobs[0].pinned_size = 8;
	}
	CHECK_INT_EQ(ga_problem_set_tenant_policies(p, tps, 2, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_set_tenant_needs(p, &n, 1, &err), GA_OK);
	CHECK_MSG(ga_problem_finish(p, &err) == GA_OK, "%s", err.message);
	return p;
}

/* Validator and accounting on tenant 1's 8 GPUs from step 0. */
static ga_status
judge(const ga_problem *p, bool *fits, ga_error *err)
{
	ga_plan    *plan = ga_plan_create(p);
	ga_quota   *q = ga_quota_create(p);
	int		   *use = calloc(ga_quota_use_len(q), sizeof(int));
	ga_status	rc;

	*fits = ga_quota_fits(q, use, 1, 0, 0, ga_job_duration(&p->jobs[0], 0, 8), 8);
	ga_plan_place_job(plan, p, 0, 0, 0, 8);
	ga_error_clear(err);
	rc = ga_validate(p, plan, err);
	free(use);
	ga_quota_destroy(q);
	ga_plan_destroy(plan);
	return rc;
}

TEST(need_problem_rejects_bad_need)
{
	static const int zero[N_STEPS] = {0};
	ga_problem *p = lender_problem(2, zero, false);
	int			gpus[N_STEPS] = {0, 1, -1, 0};
	ga_tenant_need n = {0, 0, gpus};
	ga_tenant_need two[2] = {{0, 0, gpus}, {0, 0, gpus}};
	ga_error	err;
	const struct
	{
		int			tenant;
		int			pool;
		const char *words;
	}			cases[] = {
		{-1, 0, "tenant need 0: tenant must not be negative"},
		{0, 1, "tenant need 0: pool index 1 is out of range"},
		{0, 0, "tenant need 0: GPUs at step 2 must not be negative, got -1"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		n.tenant = cases[i].tenant;
		n.pool = cases[i].pool;
		CHECK_INT_EQ(ga_problem_set_tenant_needs(p, &n, 1, &err), GA_OK);
		ga_error_clear(&err);
		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
		CHECK_STR_CONTAINS(err.message, cases[i].words);
	}
	gpus[2] = 0;
	CHECK_INT_EQ(ga_problem_set_tenant_needs(p, two, 2, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "tenant need 1: tenant 0 already has a need in pool \"a\"");
	CHECK_INT_EQ(ga_problem_set_tenant_needs(p, two, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	CHECK_INT_EQ(ga_tenant_need_at(p, 0, 0, 1), 1);
	CHECK_INT_EQ(ga_tenant_need_at(p, 1, 0, 1), 0);	/* none given */
	CHECK_INT_EQ(ga_problem_set_tenant_needs(p, NULL, -1, &err), GA_EINVAL);
	ga_problem_destroy(p);
}

/*
 * Tenant 1 borrows tenant 0's whole guarantee with 8 GPUs.  Tenant 0
 * forecast to need 3 GPUs from step 2: a run over steps 0-3 takes 3 of
 * the borrowed GPUs from it, and both the validator and the accounting
 * say no; a run over steps 0-1 ends before the need begins and is lawful,
 * as a run is with no need, or with a need of 0 GPUs.  A need past the
 * guarantee claims the guarantee and no more.
 */
TEST(need_validate_r10_rejects_borrowing_into_lender_need)
{
	static const int later[N_STEPS] = {0, 0, 3, 3};
	static const int none[N_STEPS] = {0, 0, 0, 0};
	static const int beyond[N_STEPS] = {0, 0, 0, 9};
	const struct
	{
		int			steps;
		const int  *need;
		bool		legal;
		const char *words;
	}			cases[] = {
		{4, later, false, "R10: at step 2 tenants hold 3 GPUs of pool \"a\" above their guarantees"},
		{2, later, true, NULL},
		{4, none, true, NULL},
		{4, beyond, false, "R10: at step 3 tenants hold 4 GPUs"},
		{3, beyond, true, NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		ga_problem *p = lender_problem(cases[i].steps, cases[i].need, false);
		ga_error	err;
		bool		fits;
		ga_status	rc = judge(p, &fits, &err);

		CHECK_MSG(rc == (cases[i].legal ? GA_OK : GA_EILLEGAL), "case %zu: %s", i, err.message);
		CHECK_MSG(fits == cases[i].legal, "case %zu: accounting says %d", i, fits);
		if (!cases[i].legal)
			CHECK_STR_CONTAINS(err.message, cases[i].words);
		ga_problem_destroy(p);
	}
}

/*
 * A running borrower is never preempted: its GPUs over the lender's need
 * are exempt, but nothing may add to them, and the lender's own work
 * within its need still fits.
 */
TEST(need_validate_exempts_running_borrower)
{
	static const int need[N_STEPS] = {4, 4, 4, 4};
	ga_problem *p = lender_problem(4, need, true);
	ga_plan    *plan = ga_plan_create(p);
	ga_quota   *q = ga_quota_create(p);
	int		   *use = calloc(ga_quota_use_len(q), sizeof(int));
	ga_error	err;

	ga_plan_place_job(plan, p, 0, -1, 0, 8);
	ga_error_clear(&err);
	CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "%s", err.message);
	ga_quota_count(q, use, 1, 0, -1, 3, 8, true, 1);
	CHECK(!ga_quota_fits(q, use, 1, 0, 0, 3, 1));	/* the borrower may not grow */
	CHECK(ga_quota_fits(q, use, 0, 0, 3, 4, 4));	/* the lender's work fits once it ends */
	free(use);
	ga_quota_destroy(q);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * Needs survive serialisation and splitting; a buffer of version 5, the
 * layout before needs, reads as a problem without them.
 */
TEST(need_survives_serialisation_and_split)
{
	static const int need[N_STEPS] = {0, 1, 2, 3};
	ga_problem *p = lender_problem(2, need, false);
	ga_problem *back = NULL;
	ga_split   *split = NULL;
	ga_error	err;
	size_t		len = ga_problem_serial_size(p);
	uint8_t    *buf = malloc(len);
	uint32_t	old_version = GA_SERIAL_VERSION_NO_NEEDS;
	int64_t		old_len;
	ga_problem *none;

	CHECK_INT_EQ(ga_problem_write(p, buf, len, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_read(buf, len, &back, &err), GA_OK);
	CHECK(back != NULL && back->n_needs == 1 && back->needs[0].tenant == 0);
	for (int t = 0; back != NULL && t < N_STEPS; t++)
		CHECK_INT_EQ(ga_tenant_need_at(back, 0, 0, t), need[t]);
	ga_problem_destroy(back);
	back = NULL;

	CHECK_INT_EQ(ga_problem_split(p, &split, &err), GA_OK);
	CHECK(split != NULL && split->n_parts == 1 && split->parts[0].problem->n_needs == 1);
	if (split != NULL)
		CHECK_INT_EQ(ga_tenant_need_at(split->parts[0].problem, 0, 0, 3), 3);
	ga_split_destroy(split);

	/*
	 * version 5: the same problem without its needs, no count of them,
	 * without headroom_min (the int after the six parameters' 40 bytes that
	 * follow the 20-byte header), and without the spreads' tail (the
	 * overrun spread and a ratio per job, after the count of needs)
	 */
	none = lender_problem(2, need, false);
	CHECK_INT_EQ(ga_problem_set_tenant_needs(none, NULL, 0, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(none, &err), GA_OK);
	len = ga_problem_serial_size(none);
	CHECK_INT_EQ(ga_problem_write(none, buf, len, &err), GA_OK);
	memmove(buf + 60, buf + 64, len - 64);
	old_len = (int64_t) len - 8 - 8 * (1 + none->n_jobs);
	memcpy(buf + 4, &old_version, sizeof(old_version));
	memcpy(buf + 12, &old_len, sizeof(old_len));
	CHECK_MSG(ga_problem_read(buf, (size_t) old_len, &back, &err) == GA_OK, "%s", err.message);
	CHECK(back != NULL && back->n_needs == 0 && back->n_policies == 2 && back->params.headroom_min == 0);
	ga_problem_destroy(back);
	/* a version none reads */
	old_version = GA_SERIAL_VERSION_NO_NEEDS - 1;
	memcpy(buf + 4, &old_version, sizeof(old_version));
	CHECK_INT_EQ(ga_problem_read(buf, (size_t) old_len, &back, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "format version 4, this build reads 5 to 9");
	ga_problem_destroy(none);
	ga_problem_destroy(p);
	free(buf);
}

/*
 * The simulator's forecast (8 GPUs, half-hour steps): tenant vision
 * (guaranteed 4) ran a 2-GPU job over steps 0-3 and had a 4-GPU job
 * waiting from step 2 to 3; speech (guaranteed 2) submits only at step 6.
 * At step 4 vision's wants over the 2 hours before are 2, 2, 6 and 6,
 * capped at 4: 2, 2, 4, 4; their 0.5 quantile is 3, their 0.9 quantile 4.
 * speech has wanted nothing so far: its need is 0 with forecasts, however
 * soon it submits; with perfect knowledge it is its 2 GPUs (of its job's
 * gpus_max of 4) from step 6 for the job's 2 steps at 4 GPUs.  A daily
 * profile takes only the wants within an hour of each step's time of day.
 */
TEST(need_sim_forecasts_from_the_past_only)
{
	static const char *settings =
		"key,value\nname,need\nstart,2026-03-02 00:00\nend,2026-03-02 08:00\n"
		"step_minutes,30\nhorizon_hours,4\n";
	static const char *gpus = "pool,node,gpus\nh100,n0,4\nh100,n1,4\n";
	static const char *services =
		"service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
		"chat,h100,2,100,1,0,1\n";
	static const char *demand = "service,ts,traffic\nchat,2026-03-01 23:00,0\n";
	static const char *jobs =
		"job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,tenant\n"
		"a,quantization,h100,1,2026-03-02 00:00,2,2,4,,vision\n"
		"b,quantization,h100,1,2026-03-02 01:00,4,4,4,,vision\n"
		"c,quantization,h100,1,2026-03-02 03:00,4,4,4,,speech\n";
	const char *dir = tscn_write(settings, gpus, services, demand, jobs, NULL);
	ga_sim_job_trace traces[3] = {{0, 4, 0, 2}, {4, 6, 4, 4}, {-1, -1, -1, -1}};
	ga_scenario *scn;
	ga_tenant_need out[2];
	int			need[2 * 48];
	int			n;
	ga_error	err;

	tscn_add_file(dir, "tenants.csv", "tenant,pool,guarantee,limit,borrow,weight,cohort\n"
				  "vision,h100,4,,4,1,lab\nspeech,h100,2,,4,1,lab\n");
	scn = ga_scenario_read(dir, &err);
	CHECK_MSG(scn != NULL, "%s", err.message);
	if (scn != NULL)
	{
		ga_sim_need_options median = {0.5, 2, false, false};
		ga_sim_need_options high = {0.9, 2, false, false};
		ga_sim_need_options perfect = {0.5, 2, true, false};
		ga_sim_need_options daily = {0.5, 2, false, true};

		/* b has not started by step 4 as the forecast sees it */
		traces[1] = (ga_sim_job_trace) {-1, -1, -1, -1};
		CHECK_INT_EQ(ga_sim_tenant_needs(scn, traces, 4, 8, &median, out, need, &n, &err), GA_OK);
		CHECK_INT_EQ(n, 2);
		CHECK(out[0].tenant == scn->jobs[0].tenant && out[1].tenant == scn->jobs[2].tenant);
		CHECK_INT_EQ(out[0].gpus[0], 3);
		CHECK_INT_EQ(out[0].gpus[7], 3);
		CHECK_INT_EQ(out[1].gpus[2], 0);
		CHECK_INT_EQ(ga_sim_tenant_needs(scn, traces, 4, 8, &high, out, need, &n, &err), GA_OK);
		CHECK_INT_EQ(out[0].gpus[0], 4);
		/*
		 * a daily profile: step 4 ahead samples steps 2-3 (wants 4, 4), a
		 * day ahead less 4 steps steps 0-2 (2, 2, 4), half a day ahead none
		 */
		CHECK_INT_EQ(ga_sim_tenant_needs(scn, traces, 4, 48, &daily, out, need, &n, &err), GA_OK);
		CHECK_INT_EQ(out[0].gpus[0], 4);
		CHECK_INT_EQ(out[0].gpus[20], 0);
		CHECK_INT_EQ(out[0].gpus[44], 2);
		/* nothing observed yet at step 0 */
		CHECK_INT_EQ(ga_sim_tenant_needs(scn, traces, 0, 8, &high, out, need, &n, &err), GA_OK);
		CHECK_INT_EQ(out[0].gpus[0], 0);
		CHECK_INT_EQ(ga_sim_tenant_needs(scn, traces, 4, 8, &perfect, out, need, &n, &err), GA_OK);
		CHECK_INT_EQ(out[1].gpus[1], 0);
		CHECK_INT_EQ(out[1].gpus[2], 2);
		CHECK_INT_EQ(out[1].gpus[3], 2);
		CHECK_INT_EQ(out[1].gpus[4], 0);
		/* vision: b waiting at step 4 runs its 2 steps at 4 GPUs from now */
		CHECK_INT_EQ(out[0].gpus[0], 4);
		CHECK_INT_EQ(out[0].gpus[1], 4);
		CHECK_INT_EQ(out[0].gpus[2], 0);
	}
	ga_scenario_destroy(scn);
	tscn_remove(dir);
}

/*
 * A problem with a dependency is planned ready jobs first (solve/chain.c):
 * the ready jobs' problem keeps the needs, so fast's plan of tenant 1's
 * job, which would borrow all of tenant 0's guarantee for 4 steps, keeps
 * the 3 GPUs tenant 0 needs from step 2 and passes the validator.
 */
TEST(need_kept_when_planning_dependencies)
{
	static const int need[N_STEPS] = {0, 0, 3, 3};
	ga_params	params = {.n_steps = N_STEPS, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, 8, 3, 0, &params);
	ga_tenant_policy tps[2] = {
		{.tenant = 0, .pool = 0, .guarantee = 4, .limit = GA_NO_LIMIT, .borrow_limit = 4, .weight = 1, .cohort = 0},
		{.tenant = 1, .pool = 0, .guarantee = 4, .limit = GA_NO_LIMIT, .borrow_limit = 4, .weight = 1, .cohort = 0}};
	int			gpus[N_STEPS];
	ga_tenant_need n = {0, 0, gpus};
	ga_solve_options opts = {.time_limit_ms = 1000};
	ga_plan    *plan = NULL;
	ga_error	err;

	memcpy(gpus, need, sizeof(gpus));
	snprintf(p->pools[0].name, GA_NAME_LEN, "a");
	p->pools[0].n_gpus = 8;
	for (int j = 0; j < 3; j++)
	{
		snprintf(p->jobs[j].name, GA_NAME_LEN, "j%d", j);
		p->jobs[j].priority = 1;
		p->jobs[j].gpus_min = 8;
		p->jobs[j].gpus_max = 8;
		p->jobs[j].work_gpu_steps = 32;
		p->jobs[j].tenant = 1;
	}
	p->jobs[2].n_preds = 1;		/* waits for j1: the plan goes through the chain */
	p->jobs[2].preds[0] = 1;
	CHECK_INT_EQ(ga_problem_set_tenant_policies(p, tps, 2, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_set_tenant_needs(p, &n, 1, &err), GA_OK);
	CHECK_MSG(ga_problem_finish(p, &err) == GA_OK, "%s", err.message);
	CHECK_MSG(ga_solve_fast(p, &opts, &plan, &err) == GA_OK, "%s", err.message);
	if (plan != NULL)
	{
		ga_error_clear(&err);
		CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "%s", err.message);
		CHECK(plan->job_size[0] <= 0 && plan->job_size[1] <= 0);	/* no 8-GPU run fits before step 2 ends */
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}
