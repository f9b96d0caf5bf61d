/*
 * test_baseline.c — FIFO and EASY backfilling on small hand-made problems.
 */
#include "unit.h"
#include "solve/baseline.h"
#include "model/validate.h"

/*
 * 4 GPUs, 8 steps.  Job 0 is running on GPUs 0-1 until step 3.  Job 1
 * (arrived first) needs all 4 GPUs for 2 steps; job 2 (small, 1 step) and
 * job 3 (1 GPU, 6 steps) arrived later.
 */
static ga_problem *
queue_problem(double p1, double p2, double p3, int n_services)
{
	ga_params	params = {.n_steps = 8, .step_minutes = 60, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, n_services ? 8 : 4, 4, n_services, &params);
	ga_error	err;

	snprintf(p->pools[0].name, GA_NAME_LEN, "h100");
	p->pools[0].n_gpus = p->n_gpus;
	for (int j = 0; j < 4; j++)
	{
		snprintf(p->jobs[j].name, GA_NAME_LEN, "j%d", j);
		p->jobs[j].priority = 1;
		p->jobs[j].gpus_min = p->jobs[j].gpus_max = 1;
	}
	p->jobs[0].gpus_min = p->jobs[0].gpus_max = 2;
	p->jobs[0].work_gpu_steps = 6;
	p->jobs[0].pinned = true;
	p->jobs[0].pinned_start = -1;
	p->jobs[0].pinned_end = 3;
	p->jobs[0].pinned_first_gpu = 0;
	p->jobs[0].pinned_size = 2;
	p->jobs[1].gpus_min = p->jobs[1].gpus_max = 4;
	p->jobs[1].work_gpu_steps = 8;
	p->jobs[1].priority = p1;
	p->jobs[2].work_gpu_steps = 1;
	p->jobs[2].priority = p2;
	p->jobs[3].work_gpu_steps = 6;
	p->jobs[3].priority = p3;
	for (int s = 0; s < n_services; s++)
	{
		snprintf(p->services[s].name, GA_NAME_LEN, "svc");
		p->services[s].priority = 1;
		p->services[s].churn_limit = 1;
		p->services[s].max_gpus = 8;
		for (int t = 0; t < 8; t++)
			p->services[s].demand[t] = t == 5 ? 4 : 1;
	}
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	return p;
}

TEST(fifo_starts_in_arrival_order)
{
	ga_problem *p = queue_problem(1, 1, 1, 0);
	ga_plan    *plan;
	ga_error	err;

	CHECK_INT_EQ(ga_plan_fifo(p, &plan, &err), GA_OK);
	/* the 4-GPU job waits for the running one; nobody passes it */
	CHECK_INT_EQ(plan->job_start[1], 3);
	CHECK_INT_EQ(plan->job_first_gpu[1], 0);
	CHECK_INT_EQ(plan->job_start[2], 5);
	CHECK_INT_EQ(plan->job_start[3], 5);
	CHECK(plan->job_start[2] >= plan->job_start[1]);
	CHECK(plan->job_start[3] >= plan->job_start[2]);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(backfill_small_job_jumps_ahead_without_delaying_head)
{
	ga_problem *p = queue_problem(1, 1, 1, 0);
	ga_plan    *plan;
	ga_error	err;

	CHECK_INT_EQ(ga_plan_backfill(p, &plan, &err), GA_OK);
	/* the head keeps the start FIFO would give it */
	CHECK_INT_EQ(plan->job_start[1], 3);
	/* the 1-step job fits before the head's reservation: it starts now */
	CHECK_INT_EQ(plan->job_start[2], 0);
	/* the 6-step job would run into the reservation: it waits */
	CHECK(plan->job_start[3] >= 5);
	for (int g = 0; g < 4; g++)
		CHECK_INT_EQ(ga_plan_get(plan, g, 3), 1);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(backfill_orders_by_priority)
{
	/* job 3 outranks the 4-GPU job: it becomes the head and starts now */
	ga_problem *p = queue_problem(1, 1, 5, 0);
	ga_plan    *plan;
	ga_error	err;

	CHECK_INT_EQ(ga_plan_backfill(p, &plan, &err), GA_OK);
	CHECK_INT_EQ(plan->job_start[3], 0);
	/* the 4-GPU job now needs GPUs 2-3 free too: after job 3 ends at 6 */
	CHECK_INT_EQ(plan->job_start[1], 6);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(baseline_reserves_daily_peak_above_batch)
{
	ga_problem *p = queue_problem(1, 1, 1, 1);
	ga_plan    *plan;
	ga_error	err;

	CHECK_INT_EQ(ga_baseline_reservation(p, 0), 4);
	CHECK_INT_EQ(ga_plan_fifo(p, &plan, &err), GA_OK);
	/* the service holds its peak (GPUs 4-7) at every step, even at 1 demand */
	for (int t = 0; t < 8; t++)
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 4);
	/* batch blocks stay below the reservation */
	for (int j = 1; j < 4; j++)
		CHECK(plan->job_first_gpu[j] + plan->job_size[j] <= 4);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(baseline_reservation_is_capped_by_max_gpus)
{
	ga_problem *p = queue_problem(1, 1, 1, 1);
	ga_plan    *plan;
	ga_error	err;

	/* the peak demand is 4 but the service may hold only 3 */
	p->services[0].max_gpus = 3;
	CHECK_INT_EQ(ga_baseline_reservation(p, 0), 3);
	CHECK_INT_EQ(ga_plan_fifo(p, &plan, &err), GA_OK);
	for (int t = 0; t < 8; t++)
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 3);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(baseline_reservation_is_capped_by_the_pool)
{
	ga_problem *p = queue_problem(1, 1, 1, 1);

	/* a peak of 12 GPUs in a pool of 8, with max_gpus above both */
	p->services[0].max_gpus = 16;
	p->services[0].demand[5] = 12;
	CHECK_INT_EQ(ga_baseline_reservation(p, 0), 8);
	ga_problem_destroy(p);
}

TEST(baselines_keep_deadlines)
{
	ga_problem *p = queue_problem(1, 1, 1, 0);
	ga_plan    *plan;
	ga_error	err;

	/*
	 * j2 (1 step) must end by step 5.  fifo cannot start it before the
	 * 4-GPU job, which runs steps 3-4, so it would end at 6: it stays
	 * unscheduled, and in strict order so does j3.  Backfill runs it now.
	 */
	p->jobs[2].deadline_step = 5;
	CHECK_INT_EQ(ga_plan_fifo(p, &plan, &err), GA_OK);
	CHECK_INT_EQ(plan->job_start[1], 3);
	CHECK_INT_EQ(plan->job_size[2], -1);
	CHECK_INT_EQ(plan->job_size[3], -1);
	CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "fifo: %s", err.message);
	ga_plan_destroy(plan);
	CHECK_INT_EQ(ga_plan_backfill(p, &plan, &err), GA_OK);
	CHECK_INT_EQ(plan->job_start[2], 0);
	CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "backfill: %s", err.message);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}
