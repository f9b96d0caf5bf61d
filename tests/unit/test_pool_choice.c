/*
 * test_pool_choice.c — jobs that may run on several pools (docs/model.md,
 * Several pools): durations and values per pool, the checks of
 * ga_problem_finish, the validator's pool rule, the split keeping a job's
 * pools together, every planner using the pools, and a property sweep over
 * generated two-pool problems in which every planner's plan is legal.
 *
 * The hand-made problem: pool "a100" = GPUs 0-3, pool "h100" = GPUs 4-7,
 * 8 steps.  Job 0 "train" prefers a100 (16 GPU-steps there) and may run on
 * h100 (8 GPU-steps there: twice as fast).
 */
#include "unit.h"
#include "model/pool_choice.h"
#include "model/problem_split.h"
#include "model/validate.h"
#include "sim/generate.h"
#include "solve/baseline.h"
#include "solve/solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_STEPS 8

static ga_problem *
two_pool_problem(int n_jobs)
{
	ga_params	params = {.n_steps = N_STEPS, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(2, 8, n_jobs, 0, &params);

	snprintf(p->pools[0].name, GA_NAME_LEN, "a100");
	p->pools[0].first_gpu = 0;
	p->pools[0].n_gpus = 4;
	snprintf(p->pools[1].name, GA_NAME_LEN, "h100");
	p->pools[1].first_gpu = 4;
	p->pools[1].n_gpus = 4;
	for (int g = 0; g < 8; g++)
		p->gpu_usable[g] = true;
	for (int j = 0; j < n_jobs; j++)
	{
		ga_job	   *job = &p->jobs[j];

		snprintf(job->name, GA_NAME_LEN, "job%d", j);
		job->id = j + 1;
		job->pool = 0;
		job->priority = 1;
		job->gpus_min = 4;
		job->gpus_max = 4;
		job->work_gpu_steps = 16;
		job->deadline_step = -1;
	}
	snprintf(p->jobs[0].name, GA_NAME_LEN, "train");
	p->jobs[0].n_alt_pools = 1;
	p->jobs[0].alt_pools[0].pool = 1;
	p->jobs[0].alt_pools[0].work_gpu_steps = 8;
	return p;
}

static ga_problem *
finished(ga_problem *p)
{
	ga_error	err;

	if (ga_problem_finish(p, &err) != GA_OK)
	{
		fprintf(stderr, "    finish: %s\n", err.message);
		ga_problem_destroy(p);
		return NULL;
	}
	return p;
}

TEST(pool_choice_duration_and_rate_follow_the_pool)
{
	ga_problem *p = finished(two_pool_problem(1));
	const ga_job *job = &p->jobs[0];
	ga_job		on_h100 = ga_job_on_pool(job, 1);

	CHECK_INT_EQ(ga_job_n_pools(job), 2);
	CHECK_INT_EQ(ga_job_duration(job, 0, 4), 4);
	CHECK_INT_EQ(ga_job_duration(job, 1, 4), 2);
	CHECK_INT_EQ(ga_job_pool_rank(job, 1), 1);
	CHECK_INT_EQ(ga_job_pool_rank(job, 2), -1);
	CHECK_INT_EQ(on_h100.pool, 1);
	CHECK_INT_EQ(on_h100.n_alt_pools, 0);
	CHECK(on_h100.work_gpu_steps == 8);
	/* the same work done in half the GPU-steps: each is worth twice as much */
	CHECK(fabs(on_h100.priority - 2.0) < 1e-12);
	CHECK_INT_EQ(ga_pool_of_gpu(p, 5), 1);
	CHECK_INT_EQ(ga_pool_of_gpu(p, 8), -1);
	ga_problem_destroy(p);
}

TEST(pool_choice_finish_rejects_bad_alternatives)
{
	struct
	{
		int			n_alt;
		int			pool;
		double		work;
		const char *msg;
	}			cases[] = {
		{1, 2, 8, "alternative pool index 2 is out of range"},
		{1, 0, 8, "pool \"a100\" is named twice"},
		{1, 1, 0, "work_gpu_steps on pool \"h100\" must be finite and positive"},
		{1, 1, NAN, "work_gpu_steps on pool \"h100\" must be finite and positive"},
		{GA_MAX_JOB_POOLS, 1, 8, "n_alt_pools 4 is not between 0 and 3"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		ga_problem *p = two_pool_problem(1);
		ga_error	err;

		p->jobs[0].n_alt_pools = cases[i].n_alt;
		p->jobs[0].alt_pools[0].pool = cases[i].pool;
		p->jobs[0].alt_pools[0].work_gpu_steps = cases[i].work;
		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
		CHECK_STR_CONTAINS(err.message, cases[i].msg);
		ga_problem_destroy(p);
	}
}

TEST(pool_choice_validator_takes_either_pool_with_its_duration)
{
	ga_problem *p = finished(two_pool_problem(1));
	ga_plan    *plan = ga_plan_create(p);
	ga_error	err;

	/* on h100: 2 steps */
	ga_plan_place_job(plan, p, 0, 1, 4, 4);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	CHECK_INT_EQ(ga_plan_get(plan, 4, 2), 0);
	CHECK_INT_EQ(ga_plan_get(plan, 4, 3), GA_IDLE);
	/* the same work on either pool, worth more where it is done sooner */
	{
		ga_plan    *other = ga_plan_create(p);
		double		decay_sum = p->decay[1] + p->decay[2];

		ga_plan_place_job(other, p, 0, 1, 0, 4);
		CHECK_INT_EQ(ga_validate(p, other, &err), GA_OK);
		CHECK(fabs(ga_plan_objective(p, plan) - 2 * 4 * decay_sum) < 1e-9);
		CHECK(ga_plan_objective(p, plan) > ga_plan_objective(p, other));
		CHECK(ga_plan_objective(p, other) > 4 * (decay_sum + p->decay[3] + p->decay[4]) - 1e-9);
		ga_plan_destroy(other);
	}
	/* held for the first pool's duration on the faster pool: R3 */
	for (int g = 4; g < 8; g++)
		for (int t = 3; t < 5; t++)
			ga_plan_set(plan, g, t, 0);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_EILLEGAL);
	CHECK_STR_CONTAINS(err.message, "train");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(pool_choice_validator_rejects_a_pool_the_job_does_not_name)
{
	ga_problem *p = two_pool_problem(2);
	ga_plan    *plan;
	ga_error	err;

	/* job 1 names a100 only; placed on h100 */
	CHECK(finished(p) != NULL);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 1, 0, 4, 4);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_EILLEGAL);
	CHECK_STR_CONTAINS(err.message, "lies outside pool \"a100\"");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);

	/* job 0 names a100 and h100 only: a third pool is refused by name */
	{
		ga_params	params = {.n_steps = N_STEPS, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
		ga_problem *q = ga_problem_create(3, 12, 1, 0, &params);
		ga_problem *two = two_pool_problem(1);

		for (int i = 0; i < 2; i++)
			q->pools[i] = two->pools[i];
		snprintf(q->pools[2].name, GA_NAME_LEN, "l4");
		q->pools[2].first_gpu = 8;
		q->pools[2].n_gpus = 4;
		for (int g = 0; g < 12; g++)
			q->gpu_usable[g] = true;
		q->jobs[0] = two->jobs[0];
		ga_problem_destroy(two);
		CHECK(finished(q) != NULL);
		plan = ga_plan_create(q);
		ga_plan_place_job(plan, q, 0, 0, 8, 4);
		CHECK_INT_EQ(ga_validate(q, plan, &err), GA_EILLEGAL);
		CHECK_STR_CONTAINS(err.message, "lies in none of its 2 pools");
		ga_plan_destroy(plan);
		ga_problem_destroy(q);
	}
}

TEST(pool_choice_split_keeps_a_jobs_pools_together)
{
	ga_problem *p = finished(two_pool_problem(2));
	ga_split   *split;
	ga_error	err;

	CHECK_INT_EQ(ga_problem_split(p, &split, &err), GA_OK);
	CHECK_INT_EQ(split->n_parts, 1);
	ga_split_destroy(split);
	/* without the alternative the pools are independent */
	p->jobs[0].n_alt_pools = 0;
	CHECK_INT_EQ(ga_problem_split(p, &split, &err), GA_OK);
	CHECK_INT_EQ(split->n_parts, 2);
	ga_split_destroy(split);
	ga_problem_destroy(p);
}

/*
 * a100 is held by a pinned job all horizon: the flexible job goes to h100
 * in every planner, the job that names a100 alone is left out.
 */
TEST(pool_choice_planners_use_the_free_pool)
{
	ga_problem *p = two_pool_problem(3);
	ga_solve_options so = {0};
	ga_error	err;

	p->jobs[1].pinned = true;
	p->jobs[1].pinned_start = -1;
	p->jobs[1].pinned_end = 20;
	p->jobs[1].pinned_first_gpu = 0;
	p->jobs[1].pinned_size = 4;
	CHECK(finished(p) != NULL);
	for (int mode = 0; mode < 4; mode++)
	{
		ga_plan    *plan = NULL;
		ga_reservation *res = NULL;
		ga_status	rc;

		if (mode >= 2)
			CHECK_INT_EQ(ga_reservation_from_demand(p, 0, &res, &err), GA_OK);
		rc = mode == 0 ? ga_solve_fast(p, &so, &plan, &err)
			: mode == 1 ? ga_solve_full(p, &so, &plan, &err)
			: mode == 2 ? ga_plan_fifo(p, res, &plan, &err)
			: ga_plan_backfill(p, res, &plan, &err);
		ga_reservation_destroy(res);
		CHECK_MSG(rc == GA_OK, "mode %d: %s", mode, err.message);
		if (rc != GA_OK)
			continue;
		CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "mode %d: %s", mode, err.message);
		CHECK_INT_EQ(plan->job_first_gpu[0], 4);
		CHECK_INT_EQ(plan->job_start[0], 0);
		CHECK_INT_EQ(plan->job_size[2], -1);
		ga_plan_destroy(plan);
	}
	ga_problem_destroy(p);
}

/* Both pools free: the fast planner takes the faster pool (worth more sooner). */
TEST(pool_choice_fast_prefers_the_faster_free_pool)
{
	ga_problem *p = finished(two_pool_problem(1));
	ga_solve_options so = {0};
	ga_plan    *plan;
	ga_error	err;

	CHECK_INT_EQ(ga_solve_fast(p, &so, &plan, &err), GA_OK);
	CHECK_INT_EQ(plan->job_first_gpu[0], 4);
	CHECK(fabs(plan->objective - ga_plan_objective(p, plan)) < 1e-9);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(pool_choice_fix_pools_keeps_the_plan_legal_and_its_value)
{
	ga_problem *p = finished(two_pool_problem(2));
	ga_problem *fixed;
	ga_plan    *plan = ga_plan_create(p);
	ga_error	err;

	ga_plan_place_job(plan, p, 0, 0, 4, 4);
	CHECK(ga_problem_has_pool_choice(p));
	CHECK_INT_EQ(ga_problem_fix_pools(p, plan, &fixed, &err), GA_OK);
	CHECK(!ga_problem_has_pool_choice(fixed));
	CHECK_INT_EQ(fixed->jobs[0].pool, 1);
	CHECK(fixed->jobs[0].work_gpu_steps == 8);
	CHECK_INT_EQ(ga_validate(fixed, plan, &err), GA_OK);
	CHECK(fabs(ga_plan_objective(fixed, plan) - ga_plan_objective(p, plan)) < 1e-9);
	ga_problem_destroy(fixed);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/* ---- property: generated two-pool problems, every planner legal ---- */

static ga_problem *
generated(int i)
{
	ga_generate_spec spec;
	ga_error	err;
	ga_problem *p;

	ga_generate_defaults(&spec, 8 + (i * 7) % 41, 4 + (i * 5) % 18, 8 + (i * 11) % 41,
						 104729 * (uint64_t) i + 17);
	spec.two_pools = true;
	spec.alt_pool_share = 0.3 + 0.1 * (i % 7);
	spec.services = i % 3;
	spec.max_job_gpus = 1 << (i % 5);
	if (i % 2 == 1)
	{
		spec.protect_share = 0.3;
		spec.headroom = 0.5;
		spec.overrun_margin = 0.4;
	}
	spec.unusable_share = i % 4 == 3 ? 0.2 : 0;
	p = ga_generate(&spec, &err);
	if (p == NULL)
		fprintf(stderr, "    generate %d: %s\n", i, err.message);
	return p;
}

/* A few predecessor links, earlier jobs first, so dependencies are exercised. */
static void
link_some(ga_problem *p, int i)
{
	for (int j = 1; j < p->n_jobs; j++)
		if ((j + i) % 4 == 0 && !p->jobs[j].pinned)
		{
			p->jobs[j].n_preds = 1;
			p->jobs[j].preds[0] = (j * 3 + i) % j;
			p->jobs[j].pred_kind[0] = GA_DEP_OK;
		}
}

static void
check_planners(const ga_problem *p, int i)
{
	ga_solve_options so = {.time_limit_ms = 2000};
	ga_plan    *fast = NULL;
	double		fast_value = NAN;
	ga_error	err;

	for (int mode = 0; mode < 4; mode++)
	{
		ga_plan    *plan = NULL;
		ga_reservation *res = NULL;
		ga_status	rc;

		if (mode >= 2 && ga_reservation_from_demand(p, 0, &res, &err) != GA_OK)
		{
			CHECK_MSG(false, "instance %d: reservation: %s", i, err.message);
			return;
		}
		rc = mode == 0 ? ga_solve_fast(p, &so, &plan, &err)
			: mode == 1 ? ga_solve_full(p, &so, &plan, &err)
			: mode == 2 ? ga_plan_fifo(p, res, &plan, &err)
			: ga_plan_backfill(p, res, &plan, &err);
		ga_reservation_destroy(res);
		CHECK_MSG(rc == GA_OK, "instance %d mode %d: %s", i, mode, err.message);
		if (rc != GA_OK)
			continue;
		/* the baselines may break a churn limit (baseline.h): rules R1-R4 and R6-R7 hold */
		if (mode < 2 || p->n_services == 0)
			CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "instance %d mode %d: %s", i, mode, err.message);
		if (mode < 2)
			CHECK_MSG(fabs(plan->objective - ga_plan_objective(p, plan)) <= 1e-6 * fmax(1, fabs(plan->objective)),
					  "instance %d mode %d: objective %g, grid %g", i, mode, plan->objective,
					  ga_plan_objective(p, plan));
		if (mode == 0)
		{
			fast_value = plan->objective;
			fast = plan;
			continue;
		}
		if (mode == 1)
			CHECK_MSG(plan->objective >= fast_value - 1e-6 * fmax(1, fabs(fast_value)),
					  "instance %d: full %g below fast %g", i, plan->objective, fast_value);
		ga_plan_destroy(plan);
	}
	ga_plan_destroy(fast);
}

TEST(property_pool_choice_every_planner_is_legal)
{
	int			flexible = 0;

	for (int i = 0; i < 60; i++)
	{
		ga_problem *p = generated(i);
		ga_error	err;

		CHECK(p != NULL);
		if (p == NULL)
			continue;
		if (i % 3 == 2)
		{
			link_some(p, i);
			CHECK_MSG(ga_problem_finish(p, &err) == GA_OK, "instance %d: %s", i, err.message);
		}
		flexible += ga_problem_has_pool_choice(p);
		check_planners(p, i);
		ga_problem_destroy(p);
	}
	CHECK_MSG(flexible >= 50, "only %d instances have a job of two pools", flexible);
}
