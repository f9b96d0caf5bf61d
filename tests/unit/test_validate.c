/*
 * test_validate.c — the validator accepts a legal plan and rejects one
 * hand-made violation of each rule, naming what is wrong.
 *
 * The problem: pool "a" = GPUs 0-7, pool "b" = GPUs 8-11, 6 steps.
 *   job 0 "train":  sizes 2-4, 8 GPU-steps (4 steps at 2 GPUs), release 1,
 *                   deadline 6;
 *   job 1 "running": pinned to GPUs 4-5 from step -2 to step 3;
 *   job 2 "small":  1 GPU, 3 steps;
 *   service 0 "chat" in pool a: churn limit 1, max 2, holds GPU 7 now,
 *                   demand 1.
 * The legal plan: train on GPUs 0-1 from step 1, small on GPU 2 from step
 * 0, running at its pin, chat on GPU 7 throughout.
 */
#include "unit.h"
#include "model/validate.h"

#include <stdlib.h>

#define N_STEPS 6

static ga_problem *
validate_problem(void)
{
	ga_params	params = {.n_steps = N_STEPS, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(2, 12, 3, 1, &params);
	int			held = 7;
	ga_error	err;

	snprintf(p->pools[0].name, GA_NAME_LEN, "a");
	p->pools[0].first_gpu = 0;
	p->pools[0].n_gpus = 8;
	snprintf(p->pools[1].name, GA_NAME_LEN, "b");
	p->pools[1].first_gpu = 8;
	p->pools[1].n_gpus = 4;

	snprintf(p->jobs[0].name, GA_NAME_LEN, "train");
	p->jobs[0].priority = 1;
	p->jobs[0].gpus_min = 2;
	p->jobs[0].gpus_max = 4;
	p->jobs[0].work_gpu_steps = 8;
	p->jobs[0].release_step = 1;
	p->jobs[0].deadline_step = 6;

	snprintf(p->jobs[1].name, GA_NAME_LEN, "running");
	p->jobs[1].priority = 1;
	p->jobs[1].gpus_min = 2;
	p->jobs[1].gpus_max = 2;
	p->jobs[1].work_gpu_steps = 10;
	p->jobs[1].pinned = true;
	p->jobs[1].pinned_start = -2;
	p->jobs[1].pinned_end = 3;
	p->jobs[1].pinned_first_gpu = 4;
	p->jobs[1].pinned_size = 2;

	snprintf(p->jobs[2].name, GA_NAME_LEN, "small");
	p->jobs[2].priority = 1;
	p->jobs[2].gpus_min = 1;
	p->jobs[2].gpus_max = 1;
	p->jobs[2].work_gpu_steps = 3;

	snprintf(p->services[0].name, GA_NAME_LEN, "chat");
	p->services[0].priority = 1;
	p->services[0].churn_limit = 1;
	p->services[0].max_gpus = 2;
	for (int t = 0; t < N_STEPS; t++)
		p->services[0].demand[t] = 1;
	ga_problem_set_held(p, 0, &held, 1, &err);
	if (ga_problem_finish(p, &err) != GA_OK)
	{
		fprintf(stderr, "validate_problem: %s\n", err.message);
		abort();
	}
	return p;
}

/* The legal plan, with train placed as asked. */
static ga_plan *
plan_with_train(const ga_problem *p, int start, int first, int size)
{
	ga_plan    *plan = ga_plan_create(p);
	int32_t		chat = ga_service_workload(p, 0);

	ga_plan_place_job(plan, p, 1, -2, 4, 2);
	ga_plan_place_job(plan, p, 2, 0, 2, 1);
	for (int t = 0; t < N_STEPS; t++)
		ga_plan_set(plan, 7, t, chat);
	ga_plan_place_job(plan, p, 0, start, first, size);
	return plan;
}

static ga_plan *
legal_plan(const ga_problem *p)
{
	return plan_with_train(p, 1, 0, 2);
}

/* Validate, expect GA_EILLEGAL and every given word in the message. */
static void
expect_illegal(const ga_problem *p, const ga_plan *plan, const char *word1,
			   const char *word2)
{
	ga_error	err;

	ga_error_clear(&err);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_EILLEGAL);
	CHECK_INT_EQ(err.code, GA_EILLEGAL);
	CHECK_STR_CONTAINS(err.message, word1);
	if (word2 != NULL)
		CHECK_STR_CONTAINS(err.message, word2);
}

TEST(validate_accepts_legal_plan)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);
	ga_error	err;

	ga_error_clear(&err);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 0);
	CHECK_INT_EQ(ga_service_total_churn(p, plan, 0), 0);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_accepts_unscheduled_job_and_larger_block)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = ga_plan_create(p);
	ga_error	err;

	/* small left out, train on 4 GPUs from step 3 (ends at 5, deadline 6) */
	ga_plan_place_job(plan, p, 1, -2, 4, 2);
	for (int t = 0; t < N_STEPS; t++)
		ga_plan_set(plan, 7, t, ga_service_workload(p, 0));
	ga_plan_place_job(plan, p, 0, 3, 0, 4);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_cells_of_unscheduled_job)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	plan->job_start[2] = plan->job_size[2] = plan->job_first_gpu[2] = -1;
	expect_illegal(p, plan, "\"small\" is not scheduled", "GPU 2 at step 0");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_unknown_workload)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	ga_plan_set(plan, 6, 0, 99);
	expect_illegal(p, plan, "unknown workload 99", "GPU 6");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_placement_arrays_that_disagree_with_grid)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	plan->job_first_gpu[0] = 2;	/* grid still has train on GPUs 0-1 */
	expect_illegal(p, plan, "job \"train\" moved", "GPUs 2..3");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_misaligned_block)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = plan_with_train(p, 3, 1, 2);
	expect_illegal(p, plan, "misaligned", "train");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_size_out_of_range)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	/* a block of 1 GPU is aligned anywhere, but below gpus_min 2 */
	for (int t = 1; t < 5; t++)
		ga_plan_set(plan, 1, t, GA_IDLE);
	plan->job_size[0] = 1;
	expect_illegal(p, plan, "outside its range [2, 4]", "size 1");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * Above gpus_max: train on 4 GPUs from step 3 is legal as the problem
 * stands (validate_accepts_unscheduled_job_and_larger_block); with its
 * range narrowed to [2, 2] the same block is too large.
 */
TEST(validate_rejects_size_above_range)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = plan_with_train(p, 3, 0, 4);
	ga_error	err;

	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	p->jobs[0].gpus_max = 2;
	expect_illegal(p, plan, "outside its range [2, 2]", "size 4");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_non_power_of_two_size)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = plan_with_train(p, 3, 0, 3);

	expect_illegal(p, plan, "power of two", "size 3");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_block_outside_pool)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = plan_with_train(p, 1, 8, 4);

	expect_illegal(p, plan, "outside pool \"a\"", "train");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_job_on_unusable_gpu)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	p->gpu_usable[1] = false;
	expect_illegal(p, plan, "unusable GPU 1", "train");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_allows_pinned_job_on_unusable_gpu)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);
	ga_error	err;

	p->gpu_usable[4] = false;	/* drained under a running job */
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_preemption_gap)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	ga_plan_set(plan, 0, 2, GA_IDLE);
	ga_plan_set(plan, 1, 2, GA_IDLE);
	expect_illegal(p, plan, "interrupted", "preemption");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_block_moved_mid_run)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	for (int t = 3; t < 5; t++)
	{
		ga_plan_set(plan, 0, t, GA_IDLE);
		ga_plan_set(plan, 1, t, GA_IDLE);
		ga_plan_set(plan, 2, t, 0);
		ga_plan_set(plan, 3, t, 0);
	}
	expect_illegal(p, plan, "moved mid-run", "step 3");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_run_shorter_than_duration)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	ga_plan_set(plan, 0, 4, GA_IDLE);
	ga_plan_set(plan, 1, 4, GA_IDLE);
	expect_illegal(p, plan, "before its end step 5", "duration 4");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_run_longer_than_duration)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	ga_plan_set(plan, 0, 5, 0);
	ga_plan_set(plan, 1, 5, 0);
	expect_illegal(p, plan, "runs past its end step 5", "duration");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_job_cell_outside_its_block)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	ga_plan_set(plan, 3, 1, 0);
	expect_illegal(p, plan, "outside its block", "GPU 3");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_moved_pinned_job)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	/* put running two GPUs higher (still aligned, still free) */
	for (int t = 0; t < 3; t++)
	{
		ga_plan_set(plan, 4, t, GA_IDLE);
		ga_plan_set(plan, 5, t, GA_IDLE);
	}
	ga_plan_place_job(plan, p, 1, -2, 2, 2);
	for (int t = 0; t < 3; t++)
		ga_plan_set(plan, 2, t, 1);
	plan->job_start[2] = plan->job_size[2] = plan->job_first_gpu[2] = -1;
	expect_illegal(p, plan, "pinned job \"running\" moved", "GPU 4");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_dropped_pinned_job)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	for (int t = 0; t < 3; t++)
	{
		ga_plan_set(plan, 4, t, GA_IDLE);
		ga_plan_set(plan, 5, t, GA_IDLE);
	}
	plan->job_start[1] = plan->job_size[1] = plan->job_first_gpu[1] = -1;
	expect_illegal(p, plan, "pinned job \"running\"", "not kept");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_start_before_release)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = plan_with_train(p, 0, 0, 2);

	expect_illegal(p, plan, "before its release step 1", "train");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_missed_deadline)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	p->jobs[0].deadline_step = 4;	/* train ends at step 5 */
	expect_illegal(p, plan, "after its deadline step 4", "ends at step 5");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_start_outside_horizon)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	for (int g = 0; g < 2; g++)
		for (int t = 1; t < 5; t++)
			ga_plan_set(plan, g, t, GA_IDLE);
	plan->job_start[0] = N_STEPS;
	expect_illegal(p, plan, "outside the horizon", "train");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_service_over_max)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	p->services[0].max_gpus = 1;
	ga_plan_set(plan, 6, 3, ga_service_workload(p, 0));
	expect_illegal(p, plan, "above its max_gpus 1", "step 3");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_churn_over_limit)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	/* hand GPU 7 over for GPU 6 at step 3: two GPUs change, limit is 1 */
	for (int t = 3; t < N_STEPS; t++)
	{
		ga_plan_set(plan, 7, t, GA_IDLE);
		ga_plan_set(plan, 6, t, ga_service_workload(p, 0));
	}
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 3), 2);
	expect_illegal(p, plan, "hands over 2 GPUs at step 3", "churn_limit 1");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/* The limit holds from the first step to the second too. */
TEST(validate_rejects_churn_over_limit_at_step_1)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	for (int t = 1; t < N_STEPS; t++)
	{
		ga_plan_set(plan, 7, t, GA_IDLE);
		ga_plan_set(plan, 6, t, ga_service_workload(p, 0));
	}
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 0);
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 1), 2);
	expect_illegal(p, plan, "hands over 2 GPUs at step 1", "churn_limit 1");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_churn_against_held_gpus)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	for (int t = 0; t < N_STEPS; t++)
	{
		ga_plan_set(plan, 7, t, GA_IDLE);
		ga_plan_set(plan, 6, t, ga_service_workload(p, 0));
	}
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 2);
	expect_illegal(p, plan, "at step 0 against the 1 GPUs it holds now", "churn_limit");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/* A GPU listed twice among those a service holds counts once. */
TEST(validate_counts_a_held_gpu_listed_twice_once)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);
	int			twice[2] = {7, 7};
	int			apart[3] = {7, 6, 7};
	ga_error	err;

	CHECK_INT_EQ(ga_problem_set_held(p, 0, twice, 2, &err), GA_OK);
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 0);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	/* holds 6 and 7, keeps 7: one GPU given up */
	CHECK_INT_EQ(ga_problem_set_held(p, 0, apart, 3, &err), GA_OK);
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 1);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_step0_is_free_without_held_gpus)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);
	ga_error	err;

	p->services[0].held_known = false;
	for (int t = 0; t < N_STEPS; t++)
	{
		ga_plan_set(plan, 7, t, GA_IDLE);
		ga_plan_set(plan, 6, t, ga_service_workload(p, 0));
	}
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 0);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * GPUs taken from the service whatever the plan are no churn: held GPUs
 * under a pinned job (4, 5) or drained (6) at step 0, beyond a lowered
 * max_gpus, or closed by a window at a later step.  Only what the plan
 * chooses counts.
 */
TEST(validate_does_not_count_gpus_taken_from_a_service)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);
	int			held[5] = {4, 5, 6, 7, 4};
	int32_t		chat = ga_service_workload(p, 0);
	ga_error	err;

	p->gpu_usable[6] = false;
	CHECK_INT_EQ(ga_problem_set_held(p, 0, held, 5, &err), GA_OK);
	/* keeps 7, loses 4, 5 and 6: three handovers, none chosen */
	CHECK_INT_EQ(ga_service_handovers(p, plan, 0, 0), 3);
	CHECK_INT_EQ(ga_service_forced_handovers(p, plan, 0, 0), 3);
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 0);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	/* moving from 7 to 3 as well is two chosen handovers, one above the limit */
	for (int t = 0; t < N_STEPS; t++)
	{
		ga_plan_set(plan, 7, t, GA_IDLE);
		ga_plan_set(plan, 3, t, chat);
	}
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 2);
	expect_illegal(p, plan, "at step 0", "churn_limit 1");
	ga_plan_destroy(plan);

	/* held 6 and 7 with max_gpus lowered to 1 and 6 usable again: 7 kept, 6 must go */
	p->gpu_usable[6] = true;
	CHECK_INT_EQ(ga_problem_set_held(p, 0, (int[]) {6, 7}, 2, &err), GA_OK);
	p->services[0].max_gpus = 1;
	plan = legal_plan(p);
	CHECK_INT_EQ(ga_service_forced_handovers(p, plan, 0, 0), 1);
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 0), 0);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/* A window closing two GPUs the service holds: both leave at its start, uncounted. */
TEST(validate_does_not_count_gpus_a_window_takes)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);
	ga_window	w = {.pool = 0, .first_gpu = 6, .n_gpus = 2, .start_step = 3, .end_step = 10};
	int32_t		chat = ga_service_workload(p, 0);
	ga_error	err;

	p->services[0].max_gpus = 3;
	CHECK_INT_EQ(ga_problem_set_windows(p, &w, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	/* on 7 from the start, 6 from step 1, both gone at step 3 and 3 taken there */
	for (int t = 0; t < N_STEPS; t++)
	{
		ga_plan_set(plan, 7, t, t < 3 ? chat : GA_IDLE);
		ga_plan_set(plan, 6, t, t >= 1 && t < 3 ? chat : GA_IDLE);
		ga_plan_set(plan, 3, t, t >= 3 ? chat : GA_IDLE);
	}
	CHECK_INT_EQ(ga_service_handovers(p, plan, 0, 3), 3);
	CHECK_INT_EQ(ga_service_forced_handovers(p, plan, 0, 3), 2);
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 3), 1);
	CHECK_INT_EQ(ga_service_closing_gpus(p, plan, 0, 3), 2);
	CHECK_INT_EQ(ga_service_closing_gpus(p, plan, 0, 2), 0);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	/* giving 6 up a step early, for 3, is two handovers the plan chose */
	ga_plan_set(plan, 3, 2, chat);
	ga_plan_set(plan, 6, 2, GA_IDLE);
	CHECK_INT_EQ(ga_service_churn(p, plan, 0, 2), 2);
	expect_illegal(p, plan, "hands over 2 GPUs at step 2", "churn_limit 1");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_churn_budget_overrun)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	/* one GPU added at step 2 and given back at step 4: churn 2 */
	p->services[0].churn_budget = 1;
	ga_plan_set(plan, 6, 2, ga_service_workload(p, 0));
	ga_plan_set(plan, 6, 3, ga_service_workload(p, 0));
	CHECK_INT_EQ(ga_service_total_churn(p, plan, 0), 2);
	expect_illegal(p, plan, "above its churn_budget 1", "2 GPUs over the horizon");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/* A budget of 0 is a budget: no handover at all, not "no budget". */
TEST(validate_rejects_any_churn_under_zero_budget)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);
	ga_error	err;

	p->services[0].churn_budget = 0;
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);	/* no handover */
	/* one GPU added at step 4 and kept: churn 1 */
	ga_plan_set(plan, 6, 4, ga_service_workload(p, 0));
	ga_plan_set(plan, 6, 5, ga_service_workload(p, 0));
	CHECK_INT_EQ(ga_service_total_churn(p, plan, 0), 1);
	expect_illegal(p, plan, "above its churn_budget 0", "1 GPUs over the horizon");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_service_gpu_outside_pool)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	ga_plan_set(plan, 9, 2, ga_service_workload(p, 0));
	expect_illegal(p, plan, "outside its pool \"a\"", "GPU 9");
	ga_plan_destroy(plan);
	/* GPU 8, just past the end of pool a (GPUs 0-7) */
	plan = legal_plan(p);
	ga_plan_set(plan, 8, 2, ga_service_workload(p, 0));
	expect_illegal(p, plan, "outside its pool \"a\"", "GPU 8");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * Alignment is counted from the pool's first GPU: in a pool that starts at
 * GPU 6, GPUs 6-9 are an aligned block of 4 and GPUs 8-11 are not, though
 * 8 is a multiple of 4 and 6 is not.
 */
TEST(validate_aligns_blocks_within_their_pool)
{
	ga_params	params = {.n_steps = 2, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(2, 14, 1, 0, &params);
	ga_plan    *plan;
	ga_error	err;

	snprintf(p->pools[0].name, GA_NAME_LEN, "a");
	p->pools[0].first_gpu = 0;
	p->pools[0].n_gpus = 6;
	snprintf(p->pools[1].name, GA_NAME_LEN, "b");
	p->pools[1].first_gpu = 6;
	p->pools[1].n_gpus = 8;
	snprintf(p->jobs[0].name, GA_NAME_LEN, "quad");
	p->jobs[0].pool = 1;
	p->jobs[0].priority = 1;
	p->jobs[0].gpus_min = p->jobs[0].gpus_max = 4;
	p->jobs[0].work_gpu_steps = 8;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);

	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, 0, 6, 4);
	ga_error_clear(&err);
	CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "GPUs 6-9: %s", err.message);
	ga_plan_destroy(plan);

	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, 0, 8, 4);
	expect_illegal(p, plan, "misaligned", "offset 2 in pool \"b\"");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_service_on_unusable_gpu)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	p->gpu_usable[7] = false;
	expect_illegal(p, plan, "service \"chat\" uses unusable GPU 7", NULL);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(validate_rejects_mismatched_dimensions)
{
	ga_problem *p = validate_problem();
	ga_plan    *plan = legal_plan(p);

	plan->n_steps = N_STEPS - 1;
	expect_illegal(p, plan, "dimensions", NULL);
	plan->n_steps = N_STEPS;
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}
