/*
 * test_terminal.c — the objective's charge for GPUs that jobs hold past the
 * horizon (model/terminal.h; docs/model.md, Objective), on hand-made
 * problems whose charge is worked out by hand.
 */
#include "unit.h"
#include "problem_fixture.h"
#include "model/advance_reservation.h"
#include "model/terminal.h"
#include "model/validate.h"
#include "solve/heuristic.h"
#include "solve/solve.h"

#include <math.h>
#include <stdlib.h>

/* One pool of n_gpus, 30-minute steps, penalty 8, half-life 12 h. */
static ga_problem *
pool_problem(int n_gpus, int n_steps, int n_jobs, int n_services)
{
	ga_params	params = {.n_steps = n_steps, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, n_gpus, n_jobs, n_services, &params);

	snprintf(p->pools[0].name, GA_NAME_LEN, "p");
	p->pools[0].n_gpus = n_gpus;
	for (int j = 0; j < n_jobs; j++)
		snprintf(p->jobs[j].name, GA_NAME_LEN, "job%d", j);
	for (int s = 0; s < n_services; s++)
	{
		snprintf(p->services[s].name, GA_NAME_LEN, "svc%d", s);
		p->services[s].priority = 1;
		p->services[s].churn_limit = n_gpus;
		p->services[s].max_gpus = n_gpus;
	}
	return p;
}

/* decay at step 48 + k of a 48-step horizon */
static double
decay_after(const ga_problem *p, int k)
{
	return p->tail_decay * pow(p->step_decay, k);
}

/*
 * A service needs 6 of 8 GPUs all day except at the horizon's last step,
 * where it needs none.  A 4-GPU job released at that step runs 20 steps, 19
 * of them past the horizon, where the service needs 6 again (the same time
 * of day as steps 0-18).
 */
static ga_problem *
zero_last_step_problem(void)
{
	ga_problem *p = pool_problem(8, 48, 1, 1);

	for (int t = 0; t < 47; t++)
		p->services[0].demand[t] = 6;
	tp_set_job(p, 0, 1, 4, 4, 80, 47, -1);
	return p;
}

TEST(terminal_charges_long_job_after_zero_demand_last_step)
{
	ga_problem *p = zero_last_step_problem();
	ga_plan    *with_job;
	ga_plan    *without;
	ga_error	err;
	double		expect;

	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	without = ga_plan_create(p);
	for (int g = 2; g < 8; g++)
		for (int t = 0; t < 47; t++)
			ga_plan_set(without, g, t, ga_service_workload(p, 0));
	with_job = ga_plan_copy(without);
	ga_plan_place_job(with_job, p, 0, 47, 0, 4);
	CHECK_INT_EQ(ga_validate(p, with_job, &err), GA_OK);
	/* the job earns 4 GPUs at step 47 and after it; past the horizon 2 of
	 * the 6 GPUs the service needs are missing while it runs */
	expect = 4 * p->decay[47];
	for (int k = 0; k < 19; k++)
		expect += 4 * decay_after(p, k) - 8 * 1 * 2 * decay_after(p, k);
	CHECK_NEAR(ga_plan_objective(p, with_job), expect, 1e-9);
	CHECK_NEAR(ga_plan_objective(p, without), 0, 1e-12);
	{
		double		charge = 0;

		for (int k = 0; k < 19; k++)
			charge += 8 * 1 * 2 * decay_after(p, k);
		CHECK_NEAR(ga_terminal_cost(p, with_job), charge, 1e-12);
	}
	CHECK_MSG(ga_plan_objective(p, with_job) < ga_plan_objective(p, without),
			  "the long job displacing the service must not pay");
	ga_plan_destroy(with_job);
	ga_plan_destroy(without);
	ga_problem_destroy(p);
}

TEST(fast_leaves_out_job_that_displaces_service_after_horizon)
{
	ga_problem *p = zero_last_step_problem();
	ga_solve_options opts = {0};
	ga_fast_stats stats;
	ga_plan    *plan = NULL;
	double		bound = NAN;
	ga_error	err;

	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	CHECK_INT_EQ(ga_solve_fast_stats(p, &opts, &plan, &stats, &err), GA_OK);
	if (plan != NULL)
	{
		CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
		CHECK_INT_EQ(plan->job_size[0], -1);
		CHECK_NEAR(plan->objective, 0, 1e-9);
		CHECK(stats.converged);
	}
	/* the relaxation leaves the charge out: it stays an upper bound */
	CHECK_INT_EQ(ga_solve_bound(p, &opts, &bound, &err), GA_OK);
	CHECK(plan == NULL || bound >= plan->objective - 1e-9);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * A 4-hour horizon at night: the service needs 2 of 8 GPUs in it, and the
 * afternoon all 8.  A 4-GPU job of priority 1 that runs 20 steps, 12 of
 * them past the horizon, looks free against the horizon's peak, and fast
 * starts it; with the day's forecast peak as the service's day_peak the
 * charge past the horizon outweighs it and fast leaves it out.
 */
TEST(fast_short_horizon_charges_the_day_peak)
{
	for (int known = 0; known < 2; known++)
	{
		ga_problem *p = pool_problem(8, 8, 1, 1);
		ga_solve_options opts = {0};
		ga_plan    *plan = NULL;
		ga_error	err;

		for (int t = 0; t < 8; t++)
			p->services[0].demand[t] = 2;
		p->services[0].day_peak = known ? 8 : 0;
		tp_set_job(p, 0, 1, 4, 4, 80, 0, -1);
		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
		CHECK_INT_EQ(ga_solve_fast(p, &opts, &plan, &err), GA_OK);
		if (plan != NULL)
		{
			CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
			CHECK_MSG(known ? plan->job_size[0] == -1 : plan->job_size[0] == 4,
					  "day_peak %d: job size %d", p->services[0].day_peak, plan->job_size[0]);
		}
		ga_plan_destroy(plan);
		ga_problem_destroy(p);
	}
}

TEST(terminal_job_with_spare_gpus_is_free)
{
	ga_problem *p = zero_last_step_problem();
	ga_plan    *plan;
	ga_error	err;

	/* the service needs 4 after the horizon: the job's 4 GPUs leave them */
	for (int t = 0; t < 47; t++)
		p->services[0].demand[t] = 4;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, 47, 0, 4);
	CHECK_NEAR(ga_terminal_cost(p, plan), 0, 1e-12);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(terminal_expects_demand_of_same_time_of_day)
{
	ga_problem *day = pool_problem(64, 48, 1, 1);
	ga_problem *longer = pool_problem(64, 60, 1, 1);
	ga_problem *short_one = pool_problem(64, 8, 1, 1);
	ga_problem *all[] = {day, longer, short_one};
	ga_terminal *tm[3];
	ga_error	err;

	for (int i = 0; i < 3; i++)
	{
		for (int t = 0; t < all[i]->params.n_steps; t++)
			all[i]->services[0].demand[t] = t;
		all[i]->services[0].max_gpus = 50;
		tp_set_job(all[i], 0, 1, 1, 1, 100, 0, -1);
		CHECK_INT_EQ(ga_problem_finish(all[i], &err), GA_OK);
		tm[i] = ga_terminal_create(all[i]);
		CHECK(tm[i] != NULL);
	}
	if (tm[0] && tm[1] && tm[2])
	{
		/* a 24 h horizon: step 48 + k is step k of the plan */
		CHECK_INT_EQ(ga_terminal_expected(tm[0], 0, 0), 0);
		CHECK_INT_EQ(ga_terminal_expected(tm[0], 0, 30), 30);
		CHECK_INT_EQ(ga_terminal_expected(tm[0], 0, 50), 2);
		CHECK_INT_EQ(ga_terminal_expected(tm[0], 0, 47), 47);
		/* 30 h: step 60 + k is the same time of day as step 12 + k mod 48 */
		CHECK_INT_EQ(ga_terminal_expected(tm[1], 0, 0), 12);
		CHECK_INT_EQ(ga_terminal_expected(tm[1], 0, 37), 49);
		CHECK_INT_EQ(ga_terminal_expected(tm[1], 0, 38), 50);
		/* capped at max_gpus */
		CHECK_INT_EQ(ga_terminal_expected(tm[1], 0, 39), 50);
		CHECK_INT_EQ(ga_terminal_expected(tm[1], 0, 48), 12);
		/* 4 h: the rest of the day is unseen, so the horizon's peak */
		CHECK_INT_EQ(ga_terminal_expected(tm[2], 0, 0), 7);
		CHECK_INT_EQ(ga_terminal_expected(tm[2], 0, 99), 7);
		/* or the day's forecast peak where the caller gives a higher one */
		ga_terminal_destroy(tm[2]);
		all[2]->services[0].day_peak = 30;
		tm[2] = ga_terminal_create(all[2]);
		CHECK(tm[2] != NULL && ga_terminal_expected(tm[2], 0, 0) == 30);
		CHECK(tm[2] != NULL && ga_terminal_expected(tm[2], 0, 99) == 30);
		/* capped at max_gpus, and ignored by a horizon of a day */
		ga_terminal_destroy(tm[2]);
		all[2]->services[0].day_peak = 90;
		tm[2] = ga_terminal_create(all[2]);
		CHECK(tm[2] != NULL && ga_terminal_expected(tm[2], 0, 0) == 50);
		ga_terminal_destroy(tm[0]);
		day->services[0].day_peak = 40;
		tm[0] = ga_terminal_create(day);
		CHECK(tm[0] != NULL && ga_terminal_expected(tm[0], 0, 2) == 2);
	}
	for (int i = 0; i < 3; i++)
	{
		ga_terminal_destroy(tm[i]);
		ga_problem_destroy(all[i]);
	}
}

TEST(terminal_displaces_lowest_priority_first)
{
	ga_problem *p = pool_problem(8, 48, 1, 2);
	ga_terminal *tm;
	ga_error	err;

	p->services[0].priority = 1;
	p->services[1].priority = 3;
	for (int t = 0; t < 48; t++)
	{
		p->services[0].demand[t] = 4;
		p->services[1].demand[t] = 4;
	}
	tp_set_job(p, 0, 1, 8, 8, 8 * 100, 0, -1);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	tm = ga_terminal_create(p);
	CHECK(tm != NULL);
	if (tm)
	{
		double		w = 8 * decay_after(p, 3);

		CHECK_NEAR(ga_terminal_step_cost(tm, 0, 3, 0), 0, 1e-15);
		/* 6 GPUs left: the priority-3 service keeps its 4 */
		CHECK_NEAR(ga_terminal_step_cost(tm, 0, 3, 2), w * 1 * 2, 1e-12);
		/* 3 left: all go to it, 1 short of it and 4 of the other */
		CHECK_NEAR(ga_terminal_step_cost(tm, 0, 3, 5), w * (3 * 1 + 1 * 4), 1e-12);
		/* a delta is the difference of the two step costs */
		{
			int			held[4] = {2, 2, 2, 2};

			CHECK_NEAR(ga_terminal_delta(tm, 0, held, 3, 4, 0, 3),
					   ga_terminal_step_cost(tm, 0, 3, 5) - ga_terminal_step_cost(tm, 0, 3, 2), 1e-12);
		}
	}
	ga_terminal_destroy(tm);
	ga_problem_destroy(p);
}

/* Give p the window w, finish it and build its terminal charge. */
static ga_terminal *
terminal_with_window(ga_problem *p, const ga_window *w)
{
	ga_error	err;
	ga_terminal *tm;

	CHECK_INT_EQ(ga_problem_set_windows(p, w, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	tm = ga_terminal_create(p);
	CHECK(tm != NULL);
	return tm;
}

/*
 * The long job of zero_last_step_problem on GPUs 0-3 from step 47, the
 * service needing 4 of the 8 GPUs past the horizon: free while the other 4
 * are open (terminal_job_with_spare_gpus_is_free), but a maintenance window
 * known now closes GPUs 6-7 over steps 50-54, so there the service has 2.
 */
TEST(terminal_counts_gpus_a_window_closes_past_horizon)
{
	ga_problem *p = zero_last_step_problem();
	ga_window	w = {.pool = 0, .first_gpu = 6, .n_gpus = 2, .start_step = 50, .end_step = 55};
	ga_terminal *tm;
	ga_plan    *plan;
	ga_error	err;
	double		charge = 0;

	for (int t = 0; t < 47; t++)
		p->services[0].demand[t] = 4;
	tm = terminal_with_window(p, &w);
	if (tm)
	{
		/* steps 48 + k: open in the pool, and in blocks across the window */
		CHECK_INT_EQ(ga_terminal_open_in_pool(tm, 0, 1), 8);
		CHECK_INT_EQ(ga_terminal_open_in_pool(tm, 0, 2), 6);
		CHECK_INT_EQ(ga_terminal_open_in_pool(tm, 0, 6), 6);
		CHECK_INT_EQ(ga_terminal_open_in_pool(tm, 0, 7), 8);
		CHECK_INT_EQ(ga_terminal_open_gpus(tm, 4, 4, 3), 2);
		CHECK_INT_EQ(ga_terminal_open_gpus(tm, 6, 2, 3), 0);
		CHECK_INT_EQ(ga_terminal_open_gpus(tm, 0, 4, 3), 4);
		CHECK_INT_EQ(ga_terminal_open_gpus(tm, 4, 4, 7), 4);
	}
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, 47, 0, 4);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	/* 8 x priority 1 x 2 GPUs short at steps 50-54 */
	for (int k = 2; k < 7; k++)
		charge += 8 * 1 * 2 * decay_after(p, k);
	CHECK_NEAR(ga_terminal_cost(p, plan), charge, 1e-12);
	ga_terminal_destroy(tm);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * GPUs 0-3 are reserved for the job's tenant over steps 47-69, so the
 * service, needing 5 past the horizon, has 4 there whatever runs on them:
 * the tenant's job on its reservation takes nothing from it and is not
 * charged; the same job on GPUs 4-7 takes the service's last 4.  With
 * overlapping closures (a window over GPUs 2-5 at steps 52-53) a GPU
 * closed twice is counted once.
 */
TEST(terminal_leaves_a_reservation_to_its_tenant)
{
	ga_problem *p = zero_last_step_problem();
	ga_advance_reservation r = {.cells = {.pool = 0, .first_gpu = 0, .n_gpus = 4,
	.start_step = 47, .end_step = 70},.tenant = 0};
	ga_window	w = {.pool = 0, .first_gpu = 2, .n_gpus = 4, .start_step = 52, .end_step = 54};
	ga_plan    *plan;
	ga_terminal *tm;
	ga_error	err;
	double		charge = 0;

	for (int t = 0; t < 47; t++)
		p->services[0].demand[t] = 5;
	p->jobs[0].tenant = 0;
	CHECK_INT_EQ(ga_problem_set_advance_reservations(p, &r, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, 47, 0, 4);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	CHECK_NEAR(ga_terminal_cost(p, plan), 0, 1e-12);
	ga_plan_destroy(plan);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, 47, 4, 4);
	/* steps 48-66: 5 needed, none left; 4 of them the reservation's */
	for (int k = 0; k < 19; k++)
		charge += 8 * 1 * 4 * decay_after(p, k);
	CHECK_NEAR(ga_terminal_cost(p, plan), charge, 1e-12);
	ga_plan_destroy(plan);
	/* the fast mode's increments agree */
	tm = ga_terminal_create(p);
	CHECK(tm != NULL);
	if (tm)
	{
		int			held[19] = {0};

		CHECK_NEAR(ga_terminal_delta(tm, 0, held, 0, 19, 0, 4), 0, 1e-12);
		CHECK_NEAR(ga_terminal_delta(tm, 0, held, 0, 19, 4, 4), charge, 1e-12);
	}
	ga_terminal_destroy(tm);
	tm = terminal_with_window(p, &w);
	if (tm)
	{
		CHECK_INT_EQ(ga_terminal_open_in_pool(tm, 0, 3), 4);
		CHECK_INT_EQ(ga_terminal_open_in_pool(tm, 0, 4), 2);
		CHECK_INT_EQ(ga_terminal_open_gpus(tm, 0, 8, 4), 2);
		CHECK_INT_EQ(ga_terminal_open_gpus(tm, 0, 8, 22), 8);
	}
	ga_terminal_destroy(tm);
	ga_problem_destroy(p);
}

/*
 * Fast on the window problem: the job that would be free without the
 * window (terminal_job_with_spare_gpus_is_free) costs more past the
 * horizon than it earns inside it, so fast leaves it out, and the plan it
 * returns scores what ga_plan_objective gives it.
 */
TEST(fast_leaves_out_job_that_a_window_past_horizon_makes_displace)
{
	for (int with_window = 0; with_window < 2; with_window++)
	{
		ga_problem *p = zero_last_step_problem();
		ga_window	w = {.pool = 0, .first_gpu = 4, .n_gpus = 4, .start_step = 48, .end_step = 70};
		ga_solve_options opts = {0};
		ga_plan    *plan = NULL;
		ga_error	err;

		for (int t = 0; t < 47; t++)
			p->services[0].demand[t] = 4;
		if (with_window)
			CHECK_INT_EQ(ga_problem_set_windows(p, &w, 1, &err), GA_OK);
		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
		CHECK_INT_EQ(ga_solve_fast(p, &opts, &plan, &err), GA_OK);
		if (plan != NULL)
		{
			CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
			CHECK_MSG(with_window ? plan->job_size[0] == -1 : plan->job_size[0] == 4,
					  "window %d: job size %d", with_window, plan->job_size[0]);
			CHECK_NEAR(plan->objective, ga_plan_objective(p, plan), 1e-9);
		}
		ga_plan_destroy(plan);
		ga_problem_destroy(p);
	}
}
