/*
 * test_heuristic.c — specific behaviours of the fast solve mode, each on a
 * small hand-made problem whose right answer is known.
 */
#include "unit.h"
#include "problem_fixture.h"
#include "solve/heuristic.h"
#include "model/validate.h"

#include <stdlib.h>

/* One pool "p" of n_gpus; jobs and services zeroed for the test to fill. */
static ga_problem *
blank_problem(int n_gpus, int n_steps, int n_jobs, int n_services)
{
	ga_params	params = {.n_steps = n_steps, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, n_gpus, n_jobs, n_services, &params);

	snprintf(p->pools[0].name, GA_NAME_LEN, "p");
	p->pools[0].first_gpu = 0;
	p->pools[0].n_gpus = n_gpus;
	for (int j = 0; j < n_jobs; j++)
		snprintf(p->jobs[j].name, GA_NAME_LEN, "job%d", j);
	for (int s = 0; s < n_services; s++)
	{
		snprintf(p->services[s].name, GA_NAME_LEN, "svc%d", s);
		p->services[s].priority = 1;
		p->services[s].churn_limit = 1;
		p->services[s].max_gpus = n_gpus;
	}
	return p;
}

/* Finish, solve with a budget the improvement always completes in, validate. */
static ga_plan *
solve_checked(ga_problem *p)
{
	ga_solve_options opts = {.time_limit_ms = 10000};
	ga_fast_stats stats;
	ga_plan    *plan = NULL;
	ga_error	err;

	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	CHECK_INT_EQ(ga_solve_fast_stats(p, &opts, &plan, &stats, &err), GA_OK);
	if (plan == NULL)
		return NULL;
	CHECK(stats.converged);
	CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "illegal plan: %s", err.message);
	CHECK_NEAR(plan->objective, ga_plan_objective(p, plan), 1e-9);
	CHECK_STR_CONTAINS(plan->mode, "fast");
	return plan;
}

static bool
service_on(const ga_problem *p, const ga_plan *plan, int s, int gpu, int t)
{
	return ga_plan_get(plan, gpu, t) == ga_service_workload(p, s);
}

TEST(fast_gives_higher_priority_first_claim)
{
	ga_problem *p = blank_problem(4, 8, 2, 0);
	ga_plan    *plan;

	/* both need the whole pool for the whole horizon; only one can run */
	tp_set_job(p, 0, 1, 4, 4, 32, 0, -1);
	tp_set_job(p, 1, 3, 4, 4, 32, 0, -1);
	plan = solve_checked(p);
	CHECK_INT_EQ(plan->job_start[1], 0);
	CHECK_INT_EQ(plan->job_size[1], 4);
	CHECK_INT_EQ(plan->job_size[0], -1);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_packs_batch_low_and_services_high)
{
	ga_problem *p = blank_problem(16, 6, 2, 1);
	ga_plan    *plan;

	tp_set_job(p, 0, 1, 4, 4, 8, 0, -1);
	tp_set_job(p, 1, 1, 2, 2, 12, 0, -1);
	p->services[0].max_gpus = 4;
	for (int t = 0; t < 6; t++)
		p->services[0].demand[t] = 2;
	plan = solve_checked(p);
	CHECK_INT_EQ(plan->job_first_gpu[0], 0);
	CHECK_INT_EQ(plan->job_first_gpu[1], 4);
	for (int t = 0; t < 6; t++)
	{
		CHECK(service_on(p, plan, 0, 15, t));
		CHECK(service_on(p, plan, 0, 14, t));
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 2);
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_ramps_service_ahead_of_demand_rise)
{
	ga_problem *p = blank_problem(8, 8, 1, 1);
	static const int demand[8] = {1, 1, 1, 1, 4, 4, 4, 4};
	int			held = 7;
	ga_plan    *plan;
	ga_error	err;

	/* a batch job that would gladly take every free GPU */
	tp_set_job(p, 0, 1, 1, 8, 64, 0, -1);
	p->services[0].max_gpus = 4;
	for (int t = 0; t < 8; t++)
		p->services[0].demand[t] = demand[t];
	ga_problem_set_held(p, 0, &held, 1, &err);
	plan = solve_checked(p);
	for (int t = 0; t < 8; t++)
	{
		CHECK_MSG(ga_plan_service_gpus(p, plan, 0, t) >= demand[t],
				  "step %d: %d GPUs for demand %d", t,
				  ga_plan_service_gpus(p, plan, 0, t), demand[t]);
		CHECK(ga_service_churn(p, plan, 0, t) <= 1);
		CHECK(service_on(p, plan, 0, 7, t));	/* the held GPU is kept */
	}
	/* the ramp starts two steps early, one GPU a step, from the top */
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 1), 1);
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 2), 2);
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 3), 3);
	CHECK(service_on(p, plan, 0, 6, 2));
	CHECK(service_on(p, plan, 0, 5, 3));
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_keeps_pinned_job_at_its_pin)
{
	ga_problem *p = blank_problem(8, 6, 2, 0);
	ga_job	   *pin = &p->jobs[0];
	ga_plan    *plan;

	tp_set_job(p, 0, 1, 2, 2, 14, 0, -1);
	pin->pinned = true;
	pin->pinned_start = -3;
	pin->pinned_end = 4;
	pin->pinned_first_gpu = 2;
	pin->pinned_size = 2;
	tp_set_job(p, 1, 5, 8, 8, 16, 0, -1);
	plan = solve_checked(p);
	CHECK_INT_EQ(plan->job_start[0], -3);
	CHECK_INT_EQ(plan->job_first_gpu[0], 2);
	CHECK_INT_EQ(plan->job_size[0], 2);
	for (int t = 0; t < 4; t++)
		CHECK_INT_EQ(ga_plan_get(plan, 2, t), 0);
	CHECK_INT_EQ(ga_plan_get(plan, 2, 4), 1);
	/* the denser 8-GPU job waits for the running one to end */
	CHECK_INT_EQ(plan->job_start[1], 4);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_respects_release_and_deadline)
{
	ga_problem *p = blank_problem(2, 10, 3, 0);
	ga_plan    *plan;

	tp_set_job(p, 0, 5, 2, 2, 4, 0, 2);	/* 2 steps, must end by step 2 */
	tp_set_job(p, 1, 1, 2, 2, 8, 0, 3);	/* 4 steps can never end by 3 */
	tp_set_job(p, 2, 1, 2, 2, 4, 3, -1);	/* released at step 3 */
	plan = solve_checked(p);
	CHECK_INT_EQ(plan->job_start[0], 0);
	CHECK_INT_EQ(plan->job_size[1], -1);
	CHECK_INT_EQ(plan->job_start[2], 3);
	CHECK_INT_EQ(ga_plan_get(plan, 0, 2), GA_IDLE);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_leaves_job_that_cannot_fit_unscheduled)
{
	ga_problem *p = blank_problem(4, 6, 2, 0);
	ga_plan    *plan;

	tp_set_job(p, 0, 9, 8, 16, 32, 0, -1);	/* larger than the pool */
	tp_set_job(p, 1, 1, 1, 1, 2, 0, 1);	/* needs 2 steps, deadline 1 */
	plan = solve_checked(p);
	CHECK_INT_EQ(plan->job_size[0], -1);
	CHECK_INT_EQ(plan->job_start[0], -1);
	CHECK_INT_EQ(plan->job_size[1], -1);
	for (int g = 0; g < 4; g++)
		for (int t = 0; t < 6; t++)
			CHECK_INT_EQ(ga_plan_get(plan, g, t), GA_IDLE);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_service_yields_to_denser_batch_work)
{
	ga_problem *p = blank_problem(8, 6, 1, 1);
	int			held = 7;
	ga_plan    *plan;
	ga_error	err;

	/* 8 GPUs at priority 10 earn 80 a step; the shortfall costs 8 */
	tp_set_job(p, 0, 10, 8, 8, 48, 0, -1);
	for (int t = 0; t < 6; t++)
		p->services[0].demand[t] = 1;
	ga_problem_set_held(p, 0, &held, 1, &err);
	plan = solve_checked(p);
	CHECK_INT_EQ(plan->job_start[0], 0);
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 0), 0);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_service_keeps_demand_against_sparser_batch_work)
{
	ga_problem *p = blank_problem(8, 6, 1, 1);
	int			held = 7;
	ga_plan    *plan;
	ga_error	err;

	tp_set_job(p, 0, 2, 4, 8, 48, 0, -1);
	for (int t = 0; t < 6; t++)
		p->services[0].demand[t] = 1;
	ga_problem_set_held(p, 0, &held, 1, &err);
	plan = solve_checked(p);
	for (int t = 0; t < 6; t++)
		CHECK(service_on(p, plan, 0, 7, t));
	CHECK_INT_EQ(plan->job_size[0], 4);
	CHECK_INT_EQ(plan->job_first_gpu[0], 0);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * A job whose density is below the service's is never promoted ahead of it,
 * even where taking the service's GPU early would raise the plan's
 * objective: here starting at step 0 earns 10 a step for two steps and the
 * shortfall costs 8 a step, but the job keeps the GPU for its whole run.
 * (The horizon holds the whole run from step 2: a run past it would be
 * held to the service's peak there, the protect rule past the horizon.)
 */
TEST(fast_promoted_job_does_not_take_service_demand)
{
	ga_problem *p = blank_problem(2, 14, 1, 1);
	ga_plan    *plan;

	tp_set_job(p, 0, 5, 2, 2, 24, 0, -1);
	p->services[0].demand[0] = 1;
	p->services[0].demand[1] = 1;
	plan = solve_checked(p);
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 0), 1);
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 1), 1);
	CHECK_INT_EQ(plan->job_start[0], 2);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_moldable_job_takes_size_worth_most)
{
	ga_problem *p = blank_problem(8, 8, 1, 0);
	ga_plan    *plan;

	/* at 8 GPUs it finishes in 2 steps: earlier value is worth more */
	tp_set_job(p, 0, 1, 1, 8, 16, 0, -1);
	plan = solve_checked(p);
	CHECK_INT_EQ(plan->job_size[0], 8);
	CHECK_INT_EQ(plan->job_start[0], 0);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_runs_shorter_of_equal_jobs_first)
{
	ga_problem *p = blank_problem(4, 8, 2, 0);
	ga_plan    *plan;

	/*
	 * Either order keeps the pool busy all horizon; the long job first
	 * would hold it 20 steps and leave the short one waiting past the
	 * horizon, the short one first gets both started.
	 */
	tp_set_job(p, 0, 1, 4, 4, 80, 0, -1);
	tp_set_job(p, 1, 1, 4, 4, 16, 0, -1);
	plan = solve_checked(p);
	CHECK_INT_EQ(plan->job_start[1], 0);
	CHECK_INT_EQ(plan->job_start[0], 4);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_service_uses_gpu_free_until_another_takes_it)
{
	ga_problem *p = blank_problem(2, 8, 0, 2);
	ga_plan    *plan;

	/*
	 * svc0 is served first and takes the top GPU from step 4; svc1 needs
	 * both GPUs until then and one after, so it borrows the top GPU for
	 * steps 0-3 and hands it over at step 4 within its churn limit.
	 */
	for (int t = 0; t < 8; t++)
	{
		p->services[0].demand[t] = t < 4 ? 0 : 1;
		p->services[1].demand[t] = t < 4 ? 2 : 1;
	}
	plan = solve_checked(p);
	for (int t = 0; t < 8; t++)
	{
		CHECK_MSG(ga_plan_service_gpus(p, plan, 0, t) == p->services[0].demand[t],
				  "svc0 step %d: %d GPUs", t, ga_plan_service_gpus(p, plan, 0, t));
		CHECK_MSG(ga_plan_service_gpus(p, plan, 1, t) == p->services[1].demand[t],
				  "svc1 step %d: %d GPUs", t, ga_plan_service_gpus(p, plan, 1, t));
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * Borrowing stops where the handovers it would force no longer fit the
 * churn limit.  svc0 (served first, churn limit 3) takes GPUs 1-3 at step
 * 2.  svc1 (churn limit 1) wants all four GPUs at steps 0-1: GPU 0 is free
 * throughout, and each of GPUs 1-3 only until step 2.  Borrowing all three
 * would force three handovers at step 2, of which only one can move to
 * step 1 (one per step): no legal plan.  So it borrows two, gives one back
 * at step 1 and the other at step 2, one handover a step.
 */
TEST(fast_service_borrows_only_what_its_churn_limit_can_return)
{
	ga_problem *p = blank_problem(4, 6, 0, 2);
	ga_plan    *plan;

	p->services[0].priority = 2;
	p->services[0].churn_limit = 3;
	for (int t = 0; t < 6; t++)
	{
		p->services[0].demand[t] = t < 2 ? 0 : 3;
		p->services[1].demand[t] = t < 2 ? 4 : 1;
	}
	plan = solve_checked(p);
	CHECK(plan != NULL);
	if (plan == NULL)
	{
		ga_problem_destroy(p);
		return;
	}
	for (int t = 2; t < 6; t++)
	{
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 3);
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 1, t), 1);
	}
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 1, 0), 3);
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 1, 1), 2);
	for (int t = 1; t < 6; t++)
		CHECK(ga_service_churn(p, plan, 1, t) <= 1);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * A rise two steps ahead that the churn limit cannot climb in one: a
 * service holding nothing now starts climbing at step 0, one GPU a step, so
 * the demand of 3 at step 2 is met.  Four one-step jobs would fill step 0
 * and leave no idle GPU for the headroom to start the climb instead.
 */
TEST(fast_service_ramp_starts_at_step_zero)
{
	ga_problem *p = blank_problem(4, 6, 4, 1);
	ga_error	err = {0};
	ga_plan    *plan;

	for (int j = 0; j < 4; j++)
		tp_set_job(p, j, 1, 1, 1, 1, 0, -1);
	for (int t = 0; t < 6; t++)
		p->services[0].demand[t] = t < 2 ? 0 : 3;
	p->services[0].held_known = true;
	CHECK_INT_EQ(ga_problem_set_held(p, 0, NULL, 0, &err), GA_OK);
	plan = solve_checked(p);
	CHECK(plan != NULL);
	if (plan != NULL)
	{
		CHECK(ga_plan_service_gpus(p, plan, 0, 0) >= 1);
		CHECK(ga_plan_service_gpus(p, plan, 0, 1) >= 2);
		for (int t = 2; t < 6; t++)
			CHECK(ga_plan_service_gpus(p, plan, 0, t) >= 3);
		ga_plan_destroy(plan);
	}
	ga_problem_destroy(p);
}

/*
 * A GPU free for one step only is not claimed as a service's own: svc0
 * (served first) takes the top GPU from step 1 on, and svc1, which wants
 * both GPUs at step 0, keeps the bottom one throughout; the top GPU, idle at
 * step 0, serves svc1 for that step only as headroom, handed back within the
 * churn limit.
 */
TEST(fast_service_does_not_borrow_for_one_step)
{
	ga_problem *p = blank_problem(2, 6, 0, 2);
	ga_plan    *plan;

	for (int t = 0; t < 6; t++)
	{
		p->services[0].demand[t] = t < 1 ? 0 : 1;
		p->services[1].demand[t] = t < 1 ? 2 : 1;
	}
	plan = solve_checked(p);
	for (int t = 1; t < 6; t++)
		CHECK(service_on(p, plan, 0, 1, t));
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 1, 0), 2);
	for (int t = 0; t < 6; t++)
		CHECK(service_on(p, plan, 1, 0, t));
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * A GPU free for one step only is left to the headroom, which sees the
 * whole plan, because borrowing it would spend the next step's churn on
 * giving it back.  svc1 (one change a step) holds GPU 0 and wants 2 GPUs at
 * step 0 and 3 from step 1.  GPUs 2 and 3 are free at step 0 only (svc0
 * takes them at step 1), GPU 1 from step 1 and GPU 4 from step 2 (pinned
 * jobs end then).  Not borrowing GPU 3 at step 0, it climbs at once: GPU 1
 * at step 1, GPU 4 at step 2, 2 GPU-steps short.  Borrowing it would cost
 * step 1's change to the handover: 3 GPU-steps short.
 */
TEST(fast_service_keeps_its_churn_for_the_climb)
{
	ga_problem *p = blank_problem(5, 6, 2, 2);
	ga_error	err = {0};
	int			held = 0;
	ga_plan    *plan;

	for (int j = 0; j < 2; j++)
	{
		ga_job	   *pin = &p->jobs[j];

		tp_set_job(p, j, 1, 1, 1, 4, 0, -1);
		pin->pinned = true;
		pin->pinned_start = -2;
		pin->pinned_end = 1 + j;
		pin->pinned_first_gpu = j == 0 ? 1 : 4;
		pin->pinned_size = 1;
	}
	p->services[0].priority = 2;
	p->services[0].churn_limit = 2;
	p->services[0].max_gpus = 2;
	for (int t = 0; t < 6; t++)
	{
		p->services[0].demand[t] = t < 1 ? 0 : 2;
		p->services[1].demand[t] = t < 1 ? 2 : 3;
	}
	p->services[1].held_known = true;
	CHECK_INT_EQ(ga_problem_set_held(p, 1, &held, 1, &err), GA_OK);
	plan = solve_checked(p);
	CHECK(plan != NULL);
	if (plan != NULL)
	{
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 1, 0), 1);
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 1, 1), 2);
		for (int t = 2; t < 6; t++)
			CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 1, t), 3);
		ga_plan_destroy(plan);
	}
	ga_problem_destroy(p);
}

/* Of two services short of GPUs, the one of higher priority is served. */
TEST(fast_serves_higher_priority_service_first)
{
	ga_problem *p = blank_problem(2, 4, 0, 2);
	ga_plan    *plan;

	p->services[1].priority = 3;
	for (int t = 0; t < 4; t++)
		p->services[0].demand[t] = p->services[1].demand[t] = 2;
	plan = solve_checked(p);
	for (int t = 0; t < 4; t++)
	{
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 1, t), 2);
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 0);
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * The ramp ahead of a rise reaches back to step 0: holding 1 GPU, with 3
 * demanded from step 1 and one change a step, the service takes a second
 * GPU at step 0.
 */
TEST(fast_ramps_from_step_0)
{
	ga_problem *p = blank_problem(8, 6, 0, 1);
	int			held = 7;
	ga_plan    *plan;
	ga_error	err;

	for (int t = 0; t < 6; t++)
		p->services[0].demand[t] = t < 1 ? 1 : 3;
	ga_problem_set_held(p, 0, &held, 1, &err);
	plan = solve_checked(p);
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 0), 2);
	for (int t = 1; t < 6; t++)
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 3);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * A handover forced on the service spends its churn budget: it holds GPUs
 * 6 and 7, GPU 7 is down, and its budget is 1, so after giving up GPU 7 at
 * step 0 it may not take another GPU later, though it demands 2.
 */
TEST(fast_forced_handover_spends_the_churn_budget)
{
	ga_problem *p = blank_problem(8, 6, 0, 1);
	int			held[2] = {6, 7};
	ga_plan    *plan;
	ga_error	err;

	p->services[0].churn_budget = 1;
	for (int t = 0; t < 6; t++)
		p->services[0].demand[t] = 2;
	ga_problem_set_held(p, 0, held, 2, &err);
	p->gpu_usable[7] = false;
	plan = solve_checked(p);
	CHECK_INT_EQ(ga_service_total_churn(p, plan, 0), 1);
	for (int t = 0; t < 6; t++)
		CHECK(service_on(p, plan, 0, 6, t));
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * Held GPUs are set aside for the steps the service needs to hand them over
 * one by one; a held GPU it loses anyway (down) takes none of its churn
 * limit.  In a pool of 4 the service holds GPUs 1-3 and GPU 3 is down, so
 * it gives up GPU 3 at step 0 without counting it and may give up GPU 1
 * there too.  A job far denser than the service, which fits only on GPUs
 * 0-1, starts at once.
 */
TEST(fast_sets_aside_held_gpus_but_not_for_those_lost)
{
	ga_problem *p = blank_problem(4, 8, 1, 1);
	int			held[3] = {1, 2, 3};
	ga_plan    *plan;
	ga_error	err;

	tp_set_job(p, 0, 40, 2, 2, 8, 0, -1);
	for (int t = 0; t < 8; t++)
		p->services[0].demand[t] = 3;
	ga_problem_set_held(p, 0, held, 3, &err);
	p->gpu_usable[3] = false;
	plan = solve_checked(p);
	if (plan == NULL)
	{
		ga_problem_destroy(p);
		return;
	}
	CHECK_INT_EQ(plan->job_first_gpu[0], 0);
	CHECK_INT_EQ(plan->job_start[0], 0);
	CHECK(service_on(p, plan, 0, 2, 0));
	CHECK_INT_EQ(ga_service_handovers(p, plan, 0, 0), 2);
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 1);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

typedef struct cancel_counter
{
	int			calls;
	int			cancel_after;
} cancel_counter;

static bool
cancel_after(void *arg)
{
	cancel_counter *cc = arg;

	return ++cc->calls > cc->cancel_after;
}

TEST(fast_cancel_callback_stops_the_solve)
{
	for (int after = 0; after < 4; after++)
	{
		ga_problem *p = blank_problem(8, 8, 4, 0);
		cancel_counter cc = {.calls = 0, .cancel_after = after};
		ga_solve_options opts = {.time_limit_ms = 10000, .cancel = cancel_after, .cancel_arg = &cc};
		ga_plan    *plan = (ga_plan *) &cc;	/* must be reset to NULL */
		ga_error	err;

		for (int j = 0; j < 4; j++)
			tp_set_job(p, j, 1 + j, 1, 4, 8 + j, 0, -1);
		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
		CHECK_INT_EQ(ga_solve_fast(p, &opts, &plan, &err), GA_ECANCEL);
		CHECK(plan == NULL);
		CHECK_STR_CONTAINS(err.message, "cancel");
		CHECK(cc.calls > after);
		ga_problem_destroy(p);
	}
}

TEST(fast_rejects_unfinished_problem)
{
	ga_problem *p = blank_problem(4, 4, 1, 0);
	ga_plan    *plan = NULL;
	ga_error	err;

	tp_set_job(p, 0, 1, 1, 1, 1, 0, -1);
	CHECK_INT_EQ(ga_solve_fast(p, NULL, &plan, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "ga_problem_finish");
	CHECK(plan == NULL);
	ga_problem_destroy(p);
}

/*
 * Three held GPUs drained at once, with a churn limit of one: the service
 * loses them at step 0 without counting them (it could not keep them under
 * any plan), and takes their replacements one per step.
 */
TEST(fast_lets_a_service_lose_drained_gpus_beyond_its_churn_limit)
{
	ga_problem *p = blank_problem(8, 4, 0, 1);
	int			held[3] = {5, 6, 7};
	ga_plan    *plan;
	ga_error	err;

	for (int t = 0; t < 4; t++)
		p->services[0].demand[t] = 3;
	ga_problem_set_held(p, 0, held, 3, &err);
	p->gpu_usable[5] = p->gpu_usable[6] = p->gpu_usable[7] = false;
	plan = solve_checked(p);
	if (plan == NULL)
	{
		ga_problem_destroy(p);
		return;
	}
	for (int t = 0; t < 4; t++)
		CHECK_MSG(ga_plan_service_gpus(p, plan, 0, t) == (t < 2 ? t + 1 : 3),
				  "step %d: %d GPUs", t, ga_plan_service_gpus(p, plan, 0, t));
	CHECK_INT_EQ(ga_service_handovers(p, plan, 0, 0), 4);
	CHECK_INT_EQ(ga_service_forced_handovers(p, plan, 0, 0), 3);
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 1);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(fast_default_options_give_a_legal_plan)
{
	ga_problem *p = blank_problem(8, 48, 3, 1);
	ga_plan    *plan = NULL;
	ga_error	err;

	tp_set_job(p, 0, 1, 2, 8, 200, 0, -1);
	tp_set_job(p, 1, 2, 1, 4, 30, 5, -1);
	tp_set_job(p, 2, 4, 4, 4, 40, 0, 30);
	for (int t = 0; t < 48; t++)
		p->services[0].demand[t] = 1 + (t / 12) % 3;
	p->services[0].max_gpus = 4;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	CHECK_INT_EQ(ga_solve_fast(p, NULL, &plan, &err), GA_OK);
	CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "illegal plan: %s", err.message);
	CHECK(plan->solve_ms >= 0);
	CHECK(isnan(plan->bound));
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}
