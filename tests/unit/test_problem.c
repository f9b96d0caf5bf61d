/*
 * test_problem.c — problem checking, durations and the objective.
 */
#include "unit.h"
#include "problem_fixture.h"
#include "model/plan.h"

#include <stdlib.h>

static ga_problem *
small_problem(void)
{
	ga_params	params = {.n_steps = 4, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, 8, 1, 1, &params);

	snprintf(p->pools[0].name, GA_NAME_LEN, "a100");
	p->pools[0].first_gpu = 0;
	p->pools[0].n_gpus = 8;
	snprintf(p->jobs[0].name, GA_NAME_LEN, "train");
	p->jobs[0].priority = 2;
	p->jobs[0].gpus_min = 2;
	p->jobs[0].gpus_max = 4;
	p->jobs[0].work_gpu_steps = 8;
	snprintf(p->services[0].name, GA_NAME_LEN, "chat");
	p->services[0].priority = 1;
	p->services[0].churn_limit = 2;
	p->services[0].max_gpus = 8;
	for (int t = 0; t < 4; t++)
		p->services[0].demand[t] = 2;
	return p;
}

TEST(problem_finish_accepts_valid_problem)
{
	ga_problem *p = small_problem();
	ga_error	err;

	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	CHECK_NEAR(p->decay[0], 1.0, 1e-12);
	CHECK_NEAR(p->decay[2], pow(0.5, 1.0 / 12), 1e-12);
	ga_problem_destroy(p);
}

TEST(problem_finish_names_field_of_bad_size)
{
	ga_problem *p = small_problem();
	ga_error	err;

	p->jobs[0].gpus_max = 3;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "gpus_max 3");
	CHECK_STR_CONTAINS(err.message, "powers of two");
	ga_problem_destroy(p);
}

TEST(problem_finish_rejects_nan_priority)
{
	ga_problem *p = small_problem();
	ga_error	err;

	p->jobs[0].priority = NAN;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "priority");
	ga_problem_destroy(p);
}

/* A duration spread is 0 (none) or a p90 at least the p50, never NaN. */
TEST(problem_finish_rejects_a_duration_spread_below_one)
{
	double		bad[4] = {0.5, -1, NAN, GA_DURATION_P90_RATIO_MAX + 1};
	double		good[3] = {0, 1, 1.7};
	ga_error	err;

	for (int i = 0; i < 4; i++)
	{
		ga_problem *p = small_problem();

		p->jobs[0].duration_p90_ratio = bad[i];
		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
		CHECK_STR_CONTAINS(err.message, "job \"train\": duration_p90_ratio must be 0 (no spread) or between 1 and 100");
		ga_problem_destroy(p);
	}
	for (int i = 0; i < 3; i++)
	{
		ga_problem *p = small_problem();

		p->jobs[0].duration_p90_ratio = good[i];
		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
		ga_problem_destroy(p);
	}
}

/* The spread as a job carries it, and the margin it gives. */
TEST(duration_spread_and_its_overrun_margin)
{
	CHECK_NEAR(ga_duration_p90_ratio(2, 3), 1.5, 1e-12);
	CHECK_NEAR(ga_duration_p90_ratio(2, 2), 0, 1e-12);	/* declared work: none */
	CHECK_NEAR(ga_duration_p90_ratio(0, 3), 0, 1e-12);
	CHECK_NEAR(ga_duration_p90_ratio(NAN, 3), 0, 1e-12);
	CHECK_NEAR(ga_duration_p90_ratio(1, 1e6), GA_DURATION_P90_RATIO_MAX, 1e-12);
	CHECK_NEAR(ga_overrun_margin_of(0.6, 0.75, 1.4), 0.3, 1e-12);
	CHECK_NEAR(ga_overrun_margin_of(0.6, 0.75, 0), 0.6, 1e-12);
	CHECK_NEAR(ga_overrun_margin_of(0.6, 0, 1.4), 0.6, 1e-12);	/* spread off */
	CHECK_NEAR(ga_overrun_margin_of(0, 0.75, 3), 1.5, 1e-12);
}

TEST(problem_finish_rejects_negative_demand)
{
	ga_problem *p = small_problem();
	ga_error	err;

	ga_error_clear(&err);
	p->services[0].demand[2] = -1;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "\"chat\": demand at step 2 is negative");
	p->services[0].demand[2] = 0;	/* no demand is fine */
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	ga_problem_destroy(p);
}

/* Pin train to a block of 4 starting at GPU first; finish. */
static ga_status
finish_with_pin(int first, ga_error *err)
{
	ga_problem *p = small_problem();
	ga_status	rc;

	p->jobs[0].pinned = true;
	p->jobs[0].pinned_start = -1;
	p->jobs[0].pinned_end = 2;
	p->jobs[0].pinned_first_gpu = first;
	p->jobs[0].pinned_size = 4;
	rc = ga_problem_finish(p, err);
	ga_problem_destroy(p);
	return rc;
}

TEST(problem_finish_rejects_misaligned_pin)
{
	ga_error	err;

	ga_error_clear(&err);
	CHECK_INT_EQ(finish_with_pin(0, &err), GA_OK);
	CHECK_INT_EQ(finish_with_pin(4, &err), GA_OK);
	/* GPUs 2-5 lie inside the pool but 2 is not a multiple of 4 */
	CHECK_INT_EQ(finish_with_pin(2, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "pinned block at GPU 2 of size 4 is not an aligned block");
	/* GPUs 8-11 are aligned but past the pool's end */
	CHECK_INT_EQ(finish_with_pin(8, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "pinned block at GPU 8");
	CHECK_INT_EQ(finish_with_pin(-4, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "pinned block at GPU -4");
}

TEST(problem_finish_rejects_size_range_upside_down)
{
	ga_problem *p = small_problem();
	ga_error	err;

	ga_error_clear(&err);
	p->jobs[0].gpus_min = 4;
	p->jobs[0].gpus_max = 2;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "gpus_min 4 exceeds gpus_max 2");
	p->jobs[0].gpus_max = 4;	/* a range of one size is fine */
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	ga_problem_destroy(p);
}

TEST(problem_finish_rejects_zero_churn_limit)
{
	ga_problem *p = small_problem();
	ga_error	err;

	ga_error_clear(&err);
	p->services[0].churn_limit = 0;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "\"chat\": churn_limit must be at least 1");
	p->services[0].churn_limit = 1;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	ga_problem_destroy(p);
}

TEST(problem_finish_rejects_held_gpu_outside_pool)
{
	ga_problem *p = small_problem();
	int			last = 7;
	int			past = 8;
	ga_error	err;

	ga_error_clear(&err);
	CHECK_INT_EQ(ga_problem_set_held(p, 0, &last, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	/* GPU 8 is the first past the pool of GPUs 0-7 */
	CHECK_INT_EQ(ga_problem_set_held(p, 0, &past, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "held GPU 8 is not in pool \"a100\"");
	ga_problem_destroy(p);
}

TEST(pow2_helpers_at_their_edges)
{
	ga_problem *p = small_problem();
	ga_error	err;

	CHECK(!ga_is_pow2(0));
	CHECK(!ga_is_pow2(-4));
	CHECK(ga_is_pow2(1));
	CHECK(ga_is_pow2(8));
	CHECK(!ga_is_pow2(6));
	CHECK_INT_EQ(ga_pow2_floor(0), 0);
	CHECK_INT_EQ(ga_pow2_floor(1), 1);
	CHECK_INT_EQ(ga_pow2_floor(8), 8);
	CHECK_INT_EQ(ga_pow2_floor(12), 8);
	/* a job of 0 GPUs is no job */
	ga_error_clear(&err);
	p->jobs[0].gpus_min = 0;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "gpus_min 0 and gpus_max 4 must be powers of two");
	ga_problem_destroy(p);
}

TEST(job_duration_rounds_up)
{
	ga_job		job = {.work_gpu_steps = 9};

	CHECK_INT_EQ(ga_job_duration(&job, job.pool, 1), 9);
	CHECK_INT_EQ(ga_job_duration(&job, job.pool, 2), 5);
	CHECK_INT_EQ(ga_job_duration(&job, job.pool, 16), 1);
}

TEST(objective_counts_value_and_shortfall)
{
	ga_problem *p = small_problem();
	ga_plan    *plan;
	ga_error	err;
	double		expect = 0;

	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, 0, 0, 4);		/* 4 GPUs x 2 steps */
	ga_plan_set(plan, 7, 0, ga_service_workload(p, 0));	/* 1 of 2 demanded */
	for (int t = 0; t < 2; t++)
		expect += 4 * 2 * p->decay[t];
	expect -= 8 * 1 * p->decay[0] * 1;
	for (int t = 1; t < 4; t++)
		expect -= 8 * 1 * p->decay[t] * 2;
	CHECK_NEAR(ga_plan_objective(p, plan), expect, 1e-9);
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 0), 1);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(objective_values_a_job_to_the_end_of_its_run)
{
	ga_problem *p = small_problem();
	ga_plan    *plan;
	ga_error	err;
	double		expect = 0;

	/* 2 GPUs from step 2 for 10 steps: 2 in the horizon, 8 past it */
	p->jobs[0].work_gpu_steps = 20;
	for (int t = 0; t < 4; t++)
		p->services[0].demand[t] = 0;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, 2, 0, 2);
	for (int t = 2; t < 12; t++)
		expect += 2 * 2 * pow(0.5, t * 0.5 / 12);
	CHECK_NEAR(ga_plan_objective(p, plan), expect, 1e-9);
	CHECK_NEAR(ga_job_tail_value(p, &p->jobs[0], 2, 2, 12),
			   expect - 2 * 2 * (p->decay[2] + p->decay[3]), 1e-9);
	CHECK_NEAR(ga_job_tail_value(p, &p->jobs[0], 2, 0, 4), 0, 0);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/* A service in the second pool is counted on that pool's GPUs. */
TEST(service_gpus_counts_in_the_service_pool)
{
	ga_params	params = {.n_steps = 2, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(2, 12, 0, 1, &params);
	ga_plan    *plan;
	ga_error	err;

	snprintf(p->pools[0].name, GA_NAME_LEN, "a");
	p->pools[0].n_gpus = 8;
	snprintf(p->pools[1].name, GA_NAME_LEN, "b");
	p->pools[1].first_gpu = 8;
	p->pools[1].n_gpus = 4;
	snprintf(p->services[0].name, GA_NAME_LEN, "embed");
	p->services[0].pool = 1;
	p->services[0].priority = 1;
	p->services[0].churn_limit = 2;
	p->services[0].max_gpus = 4;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	plan = ga_plan_create(p);
	for (int g = 9; g < 12; g++)
		ga_plan_set(plan, g, 0, ga_service_workload(p, 0));
	ga_plan_set(plan, 11, 1, ga_service_workload(p, 0));
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 0), 3);
	CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 1), 1);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

void
tp_set_job(ga_problem *p, int j, double priority, int gmin, int gmax,
		   double work, int release, int deadline)
{
	ga_job	   *job = &p->jobs[j];

	job->priority = priority;
	job->gpus_min = gmin;
	job->gpus_max = gmax;
	job->work_gpu_steps = work;
	job->release_step = release;
	job->deadline_step = deadline;
}

/*
 * The pool of each GPU among many pools, empty ones included (a finished
 * problem's pools cover the GPUs in order), and in pools not yet in order,
 * as a problem being filled in may hold them.
 */
TEST(pool_of_gpu_among_many_pools_and_unordered_ones)
{
	ga_params	params = {.n_steps = 4, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	int			sizes[] = {8, 0, 1, 16, 0, 0, 3, 8, 2, 0};
	int			n_pools = (int) (sizeof(sizes) / sizeof(sizes[0]));
	ga_problem *p = ga_problem_create(n_pools, 38, 0, 0, &params);
	int			next = 0;

	for (int q = 0; q < n_pools; q++)
	{
		p->pools[q].first_gpu = next;
		p->pools[q].n_gpus = sizes[q];
		next += sizes[q];
	}
	CHECK_INT_EQ(next, 38);
	for (int q = 0; q < n_pools; q++)
		for (int g = p->pools[q].first_gpu; g < p->pools[q].first_gpu + sizes[q]; g++)
			CHECK_INT_EQ(ga_pool_of_gpu(p, g), q);
	CHECK_INT_EQ(ga_pool_of_gpu(p, -1), -1);
	CHECK_INT_EQ(ga_pool_of_gpu(p, 38), -1);
	/* out of order: GPUs 0-7 in the last pool, 8-15 in the first */
	p->pools[0].first_gpu = 8;
	p->pools[0].n_gpus = 8;
	for (int q = 1; q < n_pools - 1; q++)
		p->pools[q].n_gpus = 0;
	p->pools[n_pools - 1].first_gpu = 0;
	p->pools[n_pools - 1].n_gpus = 8;
	CHECK_INT_EQ(ga_pool_of_gpu(p, 3), n_pools - 1);
	CHECK_INT_EQ(ga_pool_of_gpu(p, 12), 0);
	CHECK_INT_EQ(ga_pool_of_gpu(p, 16), -1);
	ga_problem_destroy(p);
}
