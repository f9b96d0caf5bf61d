/*
 * test_baseline.c — FIFO and EASY backfilling on small hand-made problems.
 */
#include "unit.h"
#include "sim/generate.h"
#include "solve/baseline.h"
#include "model/validate.h"

#include <stdlib.h>

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

/*
 * Plan with the reservation the problem's own curves give, step 0 at
 * midnight: with 8 hourly steps the day is known only in part, so every
 * step holds the curve's peak over the horizon.
 */
static ga_status
plan_baseline(const ga_problem *p, bool fifo, ga_plan **plan, ga_error *err)
{
	ga_reservation *r;
	ga_status	rc = ga_reservation_from_demand(p, 0, &r, err);

	if (rc != GA_OK)
		return rc;
	rc = fifo ? ga_plan_fifo(p, r, plan, err) : ga_plan_backfill(p, r, plan, err);
	ga_reservation_destroy(r);
	return rc;
}

TEST(fifo_starts_in_arrival_order)
{
	ga_problem *p = queue_problem(1, 1, 1, 0);
	ga_plan    *plan;
	ga_error	err;

	CHECK_INT_EQ(plan_baseline(p, true, &plan, &err), GA_OK);
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

	CHECK_INT_EQ(plan_baseline(p, false, &plan, &err), GA_OK);
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

	CHECK_INT_EQ(plan_baseline(p, false, &plan, &err), GA_OK);
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

	CHECK_INT_EQ(ga_reservation_peak(p, 0, 0, 8), 4);
	CHECK_INT_EQ(plan_baseline(p, true, &plan, &err), GA_OK);
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
	CHECK_INT_EQ(ga_reservation_peak(p, 0, 0, 8), 3);
	CHECK_INT_EQ(plan_baseline(p, true, &plan, &err), GA_OK);
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
	CHECK_INT_EQ(ga_reservation_peak(p, 0, 0, 8), 8);
	CHECK_INT_EQ(ga_reservation_clamp(p, 0, 12), 8);
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
	CHECK_INT_EQ(plan_baseline(p, true, &plan, &err), GA_OK);
	CHECK_INT_EQ(plan->job_start[1], 3);
	CHECK_INT_EQ(plan->job_size[2], -1);
	CHECK_INT_EQ(plan->job_size[3], -1);
	CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "fifo: %s", err.message);
	ga_plan_destroy(plan);
	CHECK_INT_EQ(plan_baseline(p, false, &plan, &err), GA_OK);
	CHECK_INT_EQ(plan->job_start[2], 0);
	CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "backfill: %s", err.message);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/* One service on a pool of 8 GPUs, n hourly steps, demand given per step. */
static ga_problem *
service_problem(int n, const int *demand, int min_gpus, int max_gpus)
{
	ga_params	params = {.n_steps = n, .step_minutes = 60, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, 8, 0, 1, &params);
	ga_error	err;

	snprintf(p->pools[0].name, GA_NAME_LEN, "h100");
	p->pools[0].n_gpus = 8;
	snprintf(p->services[0].name, GA_NAME_LEN, "svc");
	p->services[0].priority = 1;
	p->services[0].churn_limit = 8;
	p->services[0].min_gpus = min_gpus;
	p->services[0].max_gpus = max_gpus;
	for (int t = 0; t < n; t++)
		p->services[0].demand[t] = demand[t];
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	return p;
}

/*
 * A plan made at 20:00 over 30 hourly steps: day 0 is 20:00-24:00 (steps
 * 0-3), day 1 is known whole (steps 4-27), day 2 only until 02:00.  Each
 * known day holds its own peak; past them the reservation stays at the
 * highest level known, the part of day 2 included.
 */
TEST(reservation_holds_each_day_its_peak)
{
	int			demand[30];
	ga_problem *p;
	ga_reservation *r;
	ga_error	err;

	for (int t = 0; t < 30; t++)
		demand[t] = t < 4 ? 2 : t < 28 ? (t == 10 ? 5 : 3) : 4;
	p = service_problem(30, demand, 0, 8);
	CHECK_INT_EQ(ga_reservation_from_demand(p, 20 * 60, &r, &err), GA_OK);
	CHECK_INT_EQ(r->n_days, 2);
	CHECK_INT_EQ(ga_reservation_day(r, 0, 0), 2);
	CHECK_INT_EQ(ga_reservation_day(r, 0, 1), 5);
	CHECK_INT_EQ(r->partial[0], 4);
	CHECK_INT_EQ(ga_reservation_day(r, 0, 2), 5);
	CHECK_INT_EQ(ga_reservation_day(r, 0, 9), 5);
	/* the peak of step 10 holds all of day 1, not only its own step */
	CHECK_INT_EQ(ga_reservation_at(r, 0, 3), 2);
	CHECK_INT_EQ(ga_reservation_at(r, 0, 4), 5);
	CHECK_INT_EQ(ga_reservation_at(r, 0, 27), 5);
	CHECK_INT_EQ(ga_reservation_at(r, 0, 1000), 5);
	ga_reservation_destroy(r);

	/* a lower part of day 2 does not lower the tail below the known days */
	p->services[0].demand[10] = 3;
	p->services[0].demand[29] = 7;
	CHECK_INT_EQ(ga_reservation_from_demand(p, 20 * 60, &r, &err), GA_OK);
	CHECK_INT_EQ(ga_reservation_day(r, 0, 1), 3);
	CHECK_INT_EQ(ga_reservation_day(r, 0, 2), 7);
	ga_reservation_destroy(r);

	/* min_gpus lifts a day, max_gpus and the pool cap it */
	p->services[0].min_gpus = 3;
	p->services[0].max_gpus = 6;
	CHECK_INT_EQ(ga_reservation_from_demand(p, 20 * 60, &r, &err), GA_OK);
	CHECK_INT_EQ(ga_reservation_day(r, 0, 0), 3);
	CHECK_INT_EQ(ga_reservation_day(r, 0, 2), 6);
	ga_reservation_destroy(r);
	p->services[0].max_gpus = 16;
	CHECK_INT_EQ(ga_reservation_clamp(p, 0, 12), 8);

	CHECK_INT_EQ(ga_reservation_from_demand(p, 1440, &r, &err), GA_EINVAL);
	CHECK(r == NULL);
	CHECK_STR_CONTAINS(err.message, "offset");
	ga_problem_destroy(p);
}

/*
 * Steps that straddle midnight (hourly steps from 20:30) belong to both
 * days: the step 23:30-00:30 holds the higher of the two reservations, and
 * its demand counts towards both days' peaks.
 */
TEST(reservation_step_across_midnight_holds_both_days)
{
	int			demand[30];
	ga_problem *p;
	ga_reservation *r;
	ga_error	err;

	for (int t = 0; t < 30; t++)
		demand[t] = t < 3 ? 1 : t == 3 ? 4 : 2;
	p = service_problem(30, demand, 0, 8);
	CHECK_INT_EQ(ga_reservation_from_demand(p, 20 * 60 + 30, &r, &err), GA_OK);
	CHECK_INT_EQ(ga_reservation_first_day(r, 3), 0);
	CHECK_INT_EQ(ga_reservation_last_day(r, 3), 1);
	CHECK_INT_EQ(ga_reservation_day(r, 0, 0), 4);
	CHECK_INT_EQ(ga_reservation_day(r, 0, 1), 4);
	CHECK_INT_EQ(ga_reservation_at(r, 0, 3), 4);
	ga_reservation_destroy(r);
	ga_problem_destroy(p);

	/*
	 * 100-minute steps from midnight do not divide a day: the step from
	 * 23:20 crosses the first midnight, the one from 22:40 the second.
	 */
	r = ga_reservation_create(1, 3, 100, 0);
	ga_reservation_set_day(r, 0, 0, 1);
	ga_reservation_set_day(r, 0, 1, 5);
	ga_reservation_set_day(r, 0, 2, 2);
	CHECK(ga_reservation_straddles(r, 0));
	CHECK(ga_reservation_straddles(r, 1));
	CHECK_INT_EQ(ga_reservation_at(r, 0, 13), 1);	/* 21:40-23:20 */
	CHECK_INT_EQ(ga_reservation_at(r, 0, 14), 5);	/* 23:20-01:00 */
	CHECK_INT_EQ(ga_reservation_at(r, 0, 28), 5);	/* 22:40-00:20, day 1 to 2 */
	CHECK_INT_EQ(ga_reservation_at(r, 0, 29), 2);
	ga_reservation_destroy(r);
	/* 90-minute steps from midnight meet it: 16 of them make a day */
	r = ga_reservation_create(1, 1, 90, 0);
	CHECK(!ga_reservation_straddles(r, 0));
	ga_reservation_destroy(r);
}

/*
 * A plan at 20:00 with a 4-hour horizon: the service reserves 2 GPUs
 * (6-7) today and 6 (2-7) tomorrow, past the horizon.  A running job holds
 * GPUs 0-1 until step 3.  "long" (2 GPUs, 6 hours) runs into tomorrow: the
 * blocks that are free now (2-3, 4-5) lie in tomorrow's reservation, so it
 * must not start there; it waits for GPUs 0-1.  "short" (2 GPUs, 2 hours)
 * ends before tomorrow's reservation begins: it may use today's free GPUs.
 */
static ga_problem *
later_reservation_problem(int running_first_gpu, ga_reservation **r)
{
	ga_params	params = {.n_steps = 4, .step_minutes = 60, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, 8, 3, 1, &params);
	ga_error	err;

	snprintf(p->pools[0].name, GA_NAME_LEN, "h100");
	p->pools[0].n_gpus = 8;
	for (int j = 0; j < 3; j++)
	{
		snprintf(p->jobs[j].name, GA_NAME_LEN, "j%d", j);
		p->jobs[j].priority = 1;
		p->jobs[j].gpus_min = p->jobs[j].gpus_max = 2;
	}
	p->jobs[0].work_gpu_steps = 8;
	p->jobs[0].pinned = true;
	p->jobs[0].pinned_start = -1;
	p->jobs[0].pinned_end = 3;
	p->jobs[0].pinned_first_gpu = running_first_gpu;
	p->jobs[0].pinned_size = 2;
	p->jobs[1].work_gpu_steps = 12;
	p->jobs[2].work_gpu_steps = 4;
	snprintf(p->services[0].name, GA_NAME_LEN, "svc");
	p->services[0].priority = 1;
	p->services[0].churn_limit = 8;
	p->services[0].max_gpus = 8;
	for (int t = 0; t < 4; t++)
		p->services[0].demand[t] = 2;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	*r = ga_reservation_create(1, 2, 60, 20 * 60);
	ga_reservation_set_day(*r, 0, 0, 2);
	ga_reservation_set_day(*r, 0, 1, 6);
	return p;
}

TEST(baseline_keeps_jobs_off_a_later_higher_reservation)
{
	ga_reservation *r;
	ga_problem *p = later_reservation_problem(0, &r);
	ga_plan    *plan;
	ga_error	err;

	CHECK_INT_EQ(ga_reservation_at(r, 0, 3), 2);
	CHECK_INT_EQ(ga_reservation_at(r, 0, 4), 6);
	for (int fifo = 0; fifo < 2; fifo++)
	{
		CHECK_INT_EQ(fifo ? ga_plan_fifo(p, r, &plan, &err) :
					 ga_plan_backfill(p, r, &plan, &err), GA_OK);
		/* not at step 0 on 2-3 or 4-5: at step 3, on the GPUs the job frees */
		CHECK_INT_EQ(plan->job_start[1], 3);
		CHECK_INT_EQ(plan->job_first_gpu[1], 0);
		/* the service holds today's 2 GPUs at every step of the horizon */
		for (int t = 0; t < 4; t++)
			CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 2);
		if (!fifo)
		{
			/* backfill: the short job ends at step 2, before tomorrow */
			CHECK_INT_EQ(plan->job_start[2], 0);
			CHECK_INT_EQ(plan->job_first_gpu[2], 2);
		}
		ga_plan_destroy(plan);
	}
	ga_reservation_destroy(r);
	ga_problem_destroy(p);

	/*
	 * With the running job on 2-3 instead, the long job starts now on 0-1,
	 * below tomorrow's reservation.
	 */
	p = later_reservation_problem(2, &r);
	CHECK_INT_EQ(ga_plan_fifo(p, r, &plan, &err), GA_OK);
	CHECK_INT_EQ(plan->job_start[1], 0);
	CHECK_INT_EQ(plan->job_first_gpu[1], 0);
	ga_plan_destroy(plan);
	ga_reservation_destroy(r);
	ga_problem_destroy(p);
}

/*
 * 16 GPUs on two nodes, 6 hourly steps, a service reserving 4 GPUs all day
 * and a maintenance window closing node 2 (GPUs 8-15) over steps 2-3; one
 * queued job of 8 GPUs for 6 steps.  The reservation moves to GPUs 4-7 while
 * the node is closed, as an operator would move the service, so the job may
 * not sit there: no 8-GPU block lies below the reservation at every step of
 * a run that reaches steps 2-3, and it starts at step 4 on GPUs 0-7.  (Left
 * on the closed node, the reservation would let it start at step 0 and the
 * service would hold nothing at steps 2-3.)  A short 4-GPU job after it
 * starts with it in arrival order (fifo) or is backfilled at step 0 below
 * the moved reservation, ending before it moves.
 */
TEST(baseline_moves_the_reservation_off_a_closed_node)
{
	ga_params	params = {.n_steps = 6, .step_minutes = 60, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, 16, 2, 1, &params);
	ga_window	w = {.pool = 0, .first_gpu = 8, .n_gpus = 8, .start_step = 2, .end_step = 4};
	ga_reservation *r = ga_reservation_create(1, 1, 60, 0);
	ga_error	err;
	ga_plan    *plan;

	snprintf(p->pools[0].name, GA_NAME_LEN, "h100");
	p->pools[0].n_gpus = 16;
	for (int j = 0; j < 2; j++)
	{
		snprintf(p->jobs[j].name, GA_NAME_LEN, "j%d", j);
		p->jobs[j].priority = 1;
	}
	p->jobs[0].gpus_min = p->jobs[0].gpus_max = 8;
	p->jobs[0].work_gpu_steps = 48;
	p->jobs[1].gpus_min = p->jobs[1].gpus_max = 4;
	p->jobs[1].work_gpu_steps = 8;
	snprintf(p->services[0].name, GA_NAME_LEN, "svc");
	p->services[0].priority = 1;
	p->services[0].churn_limit = 8;
	p->services[0].max_gpus = 16;
	for (int t = 0; t < 6; t++)
		p->services[0].demand[t] = 4;
	CHECK_INT_EQ(ga_problem_set_windows(p, &w, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	ga_reservation_set_day(r, 0, 0, 4);
	for (int fifo = 0; fifo < 2; fifo++)
	{
		CHECK_INT_EQ(fifo ? ga_plan_fifo(p, r, &plan, &err) : ga_plan_backfill(p, r, &plan, &err), GA_OK);
		for (int t = 0; t < 6; t++)
			CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 4);
		/* on GPUs 4-7 while node 2 is closed, on 12-15 around it */
		CHECK_INT_EQ(ga_plan_get(plan, 4, 2), ga_service_workload(p, 0));
		CHECK_INT_EQ(ga_plan_get(plan, 12, 1), ga_service_workload(p, 0));
		CHECK_INT_EQ(plan->job_start[0], 4);
		CHECK_INT_EQ(plan->job_first_gpu[0], 0);
		CHECK_INT_EQ(plan->job_start[1], fifo ? 4 : 0);
		CHECK_INT_EQ(plan->job_first_gpu[1], fifo ? 8 : 0);
		ga_plan_destroy(plan);
	}
	ga_reservation_destroy(r);
	ga_problem_destroy(p);
}

/* A reservation passes over a GPU that is down: the service holds 4 that work. */
TEST(baseline_reservation_skips_a_gpu_that_is_down)
{
	ga_problem *p = queue_problem(1, 1, 1, 1);
	ga_reservation *r = ga_reservation_create(1, 1, 60, 0);
	ga_plan    *plan;
	ga_error	err;

	p->gpu_usable[7] = false;
	ga_reservation_set_day(r, 0, 0, 4);
	CHECK_INT_EQ(ga_plan_backfill(p, r, &plan, &err), GA_OK);
	for (int t = 0; t < 8; t++)
	{
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 4);
		CHECK_INT_EQ(ga_plan_get(plan, 3, t), ga_service_workload(p, 0));
		CHECK_INT_EQ(ga_plan_get(plan, 7, t), GA_IDLE);
	}
	/* the 4-GPU job finds no block below GPU 3: too large, passed over */
	CHECK_INT_EQ(plan->job_start[1], -1);
	ga_plan_destroy(plan);
	ga_reservation_destroy(r);
	ga_problem_destroy(p);
}

TEST(baseline_rejects_a_reservation_of_another_problem)
{
	ga_reservation *r;
	ga_problem *p = later_reservation_problem(0, &r);
	ga_reservation *other = ga_reservation_create(2, 1, 60, 0);
	ga_plan    *plan;
	ga_error	err;

	CHECK_INT_EQ(ga_plan_fifo(p, other, &plan, &err), GA_EINVAL);
	CHECK(plan == NULL);
	CHECK_STR_CONTAINS(err.message, "services");
	CHECK_INT_EQ(ga_plan_backfill(p, NULL, &plan, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "reservation");
	ga_reservation_destroy(other);
	ga_reservation_destroy(r);
	ga_problem_destroy(p);
}

/* ---- a property over generated problems ---- */

static uint64_t
next_draw(uint64_t *state)
{
	uint64_t	z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static int
pick(uint64_t *state, int lo, int hi)
{
	return lo + (int) (next_draw(state) % (uint64_t) (hi - lo + 1));
}

/*
 * The reservation perfect knowledge gives: the days the problem's curves
 * know, then two more days drawn at random (the first at least the part of
 * its day the curve knows), as the simulator knows future days' true peaks.
 */
static ga_reservation *
known_future(const ga_problem *p, int offset, uint64_t *st)
{
	ga_reservation *curve,
			   *r;
	ga_error	err;

	CHECK_INT_EQ(ga_reservation_from_demand(p, offset, &curve, &err), GA_OK);
	r = ga_reservation_create(p->n_services, curve->n_days + 2,
							  p->params.step_minutes, offset);
	for (int s = 0; s < p->n_services; s++)
	{
		int			pool = p->pools[p->services[s].pool].n_gpus;
		int			next = pick(st, 0, pool / 2);

		for (int d = 0; d < curve->n_days; d++)
			ga_reservation_set_day(r, s, d, ga_reservation_day(curve, s, d));
		ga_reservation_set_day(r, s, curve->n_days,
							   next > curve->partial[s] ? next : curve->partial[s]);
		ga_reservation_set_day(r, s, curve->n_days + 1, pick(st, 0, pool / 2));
	}
	ga_reservation_destroy(curve);
	return r;
}

/* GPUs of the pool the reservations hold at step t, summed over its services. */
static int
reserved_at(const ga_problem *p, const ga_reservation *r, int pool, int64_t t)
{
	int			sum = 0;

	for (int s = 0; s < p->n_services; s++)
		if (p->services[s].pool == pool)
			sum += ga_reservation_at(r, s, t);
	return sum;
}

/* Does a pinned job hold a GPU at or above `low` in the pool at step t? */
static bool
pinned_above(const ga_problem *p, int pool, int low, int t)
{
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];

		if (job->pinned && job->pool == pool && job->pinned_start <= t &&
			t < job->pinned_end && job->pinned_first_gpu + job->pinned_size > low)
			return true;
	}
	return false;
}

/*
 * Every job a baseline starts lies, at every step of its estimated run
 * inside the horizon and past it, below the reservations of its pool; and
 * wherever the reservations fit the pool and no pinned job sits in them,
 * every service holds at least its demand.
 */
static void
check_baseline_plan(const ga_problem *p, const ga_reservation *r,
					const ga_plan *plan, int i)
{
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		int			end_gpu = p->pools[job->pool].first_gpu + p->pools[job->pool].n_gpus;
		int64_t		end;

		if (job->pinned || plan->job_size[j] <= 0)
			continue;
		end = plan->job_start[j] + ga_job_duration(job, ga_pool_of_gpu(p, plan->job_first_gpu[j]), plan->job_size[j]);
		for (int64_t t = plan->job_start[j]; t < end && t < plan->job_start[j] + 20000; t++)
			CHECK_MSG(plan->job_first_gpu[j] + plan->job_size[j] <=
					  end_gpu - reserved_at(p, r, job->pool, t),
					  "instance %d: job %d on %d+%d at step %lld, reserved %d of the pool's end %d",
					  i, j, plan->job_first_gpu[j], plan->job_size[j], (long long) t,
					  reserved_at(p, r, job->pool, t), end_gpu);
	}
	for (int s = 0; s < p->n_services; s++)
	{
		const ga_service *svc = &p->services[s];
		const ga_pool *pool = &p->pools[svc->pool];

		for (int t = 0; t < p->params.n_steps; t++)
		{
			int			reserved = reserved_at(p, r, svc->pool, t);
			int			need = svc->demand[t] < svc->max_gpus ? svc->demand[t] : svc->max_gpus;

			if (reserved > pool->n_gpus ||
				pinned_above(p, svc->pool, pool->first_gpu + pool->n_gpus - reserved, t))
				continue;
			CHECK_MSG(ga_plan_service_gpus(p, plan, s, t) >= need,
					  "instance %d: service %d holds %d at step %d, demand %d", i, s,
					  ga_plan_service_gpus(p, plan, s, t), t, need);
		}
	}
}

TEST(property_baseline_plans_keep_the_reservation_and_serve_demand)
{
	int			placed = 0;

	for (int i = 0; i < 120; i++)
	{
		uint64_t	st = 500 + (uint64_t) i;
		ga_generate_spec spec;
		ga_problem *p;
		ga_reservation *r;
		ga_error	err;
		int			offset;

		ga_generate_defaults(&spec, pick(&st, 1, 64), pick(&st, 0, 25),
							 pick(&st, 1, 120), 104729 * (uint64_t) i + 3);
		spec.services = pick(&st, 0, 3);
		spec.service_share = pick(&st, 0, 60) / 100.0;
		spec.pinned_share = pick(&st, 0, 40) / 100.0;
		spec.deadline_share = pick(&st, 0, 30) / 100.0;
		spec.max_job_gpus = 1 << pick(&st, 0, 5);
		p = ga_generate(&spec, &err);
		CHECK_MSG(p != NULL, "%s", err.message);
		if (p == NULL)
			continue;
		/* a quarter of the plans start 10 minutes past a step of the day */
		offset = pick(&st, 0, 47) * 30 + (i % 4 == 3 ? 10 : 0);
		r = known_future(p, offset, &st);
		for (int fifo = 0; fifo < 2; fifo++)
		{
			ga_plan    *plan;

			CHECK_INT_EQ(fifo ? ga_plan_fifo(p, r, &plan, &err) :
						 ga_plan_backfill(p, r, &plan, &err), GA_OK);
			check_baseline_plan(p, r, plan, i);
			for (int j = 0; j < p->n_jobs; j++)
				placed += !p->jobs[j].pinned && plan->job_size[j] > 0;
			ga_plan_destroy(plan);
		}
		ga_reservation_destroy(r);
		ga_problem_destroy(p);
	}
	CHECK(placed > 200);
}
