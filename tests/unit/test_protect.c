/*
 * test_protect.c — plans robust to forecast error (docs/model.md, Protect
 * curve and headroom): no job starts on GPUs a service's protect curve
 * needs during its run, services ramp ahead of rises they could not follow
 * within their churn limit, headroom is handed to services, and a job's
 * run is lengthened against the demand by the overrun margin, or by the
 * spread of its duration estimate where it has one, and held to the
 * protect curve expected past the horizon over the rest of its run; in
 * both solve modes, every plan legal.
 */
#include "unit.h"
#include "problem_fixture.h"
#include "solve/heuristic.h"
#include "solve/headroom.h"
#include "solve/milp.h"
#include "model/protect_horizon.h"
#include "model/validate.h"

#include <stdlib.h>

/* One pool of n_gpus, one service with churn limit 8 (no ramp in the way). */
static ga_problem *
protect_problem(int n_gpus, int n_steps, int n_jobs, double headroom)
{
	ga_params	params = {.n_steps = n_steps, .step_minutes = 30, .penalty = 8,
	.half_life_hours = 12, .headroom = headroom};
	ga_problem *p = ga_problem_create(1, n_gpus, n_jobs, 1, &params);

	snprintf(p->pools[0].name, GA_NAME_LEN, "p");
	p->pools[0].first_gpu = 0;
	p->pools[0].n_gpus = n_gpus;
	for (int j = 0; j < n_jobs; j++)
		snprintf(p->jobs[j].name, GA_NAME_LEN, "job%d", j);
	snprintf(p->services[0].name, GA_NAME_LEN, "svc");
	p->services[0].priority = 1;
	p->services[0].churn_limit = 8;
	p->services[0].max_gpus = n_gpus;
	return p;
}

static void
set_curves(ga_problem *p, const int *demand, const int *protect)
{
	for (int t = 0; t < p->params.n_steps; t++)
	{
		p->services[0].demand[t] = demand[t];
		p->services[0].protect[t] = protect ? protect[t] : 0;
	}
}

/* Solve in one mode, check the plan is legal; NULL on failure. */
static ga_plan *
solve_mode(ga_problem *p, bool full)
{
	ga_solve_options opts = {.time_limit_ms = full ? 3000 : 10000};
	ga_plan    *plan = NULL;
	ga_error	err;

	if (full)
		CHECK_MSG(ga_solve_full(p, &opts, &plan, &err) == GA_OK, "full: %s", err.message);
	else
		CHECK_MSG(ga_solve_fast(p, &opts, &plan, &err) == GA_OK, "fast: %s", err.message);
	if (plan == NULL)
		return NULL;
	CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "illegal plan: %s", err.message);
	CHECK_NEAR(plan->objective, ga_plan_objective(p, plan), 1e-6);
	return plan;
}

static int
batch_gpus(const ga_problem *p, const ga_plan *plan, int t)
{
	int			n = 0;

	for (int g = 0; g < p->n_gpus; g++)
		n += ga_plan_get(plan, g, t) >= 0 && ga_plan_get(plan, g, t) < p->n_jobs;
	return n;
}

/*
 * The protect curve rises to 6 of 8 GPUs at step 4 while the demand stays
 * at 2.  A 4-GPU run over step 4 would take GPUs it needs, and a job is
 * never preempted, so the job runs on 2 GPUs instead (all the room the
 * protect curve leaves); without a protect curve it takes 4 at once.
 */
TEST(protect_job_kept_off_gpus_the_protect_curve_needs)
{
	int			demand[8] = {2, 2, 2, 2, 2, 2, 2, 2};
	int			protect[8] = {2, 2, 2, 2, 6, 6, 6, 6};
	ga_error	err;

	for (int full = 0; full < 2; full++)
	{
		ga_problem *p = protect_problem(8, 8, 1, 0);
		ga_problem *open = protect_problem(8, 8, 1, 0);
		ga_plan    *plan;
		ga_plan    *plan_open;

		tp_set_job(p, 0, 1, 2, 4, 24, 0, -1);
		tp_set_job(open, 0, 1, 2, 4, 24, 0, -1);
		set_curves(p, demand, protect);
		set_curves(open, demand, NULL);
		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
		CHECK_INT_EQ(ga_problem_finish(open, &err), GA_OK);
		plan = solve_mode(p, full);
		plan_open = solve_mode(open, full);
		if (plan != NULL && plan_open != NULL)
		{
			CHECK_MSG(plan_open->job_size[0] == 4, "%s: without protect the job takes 4 GPUs",
					  full ? "full" : "fast");
			CHECK_MSG(plan->job_size[0] == 2, "%s: the job runs on %d GPUs, not 2",
					  full ? "full" : "fast", plan->job_size[0]);
			for (int t = 0; t < 8; t++)
				CHECK_MSG(batch_gpus(p, plan, t) + protect[t] <= 8,
						  "%s: batch work takes protected GPUs at step %d", full ? "full" : "fast", t);
		}
		ga_plan_destroy(plan);
		ga_plan_destroy(plan_open);
		ga_problem_destroy(p);
		ga_problem_destroy(open);
	}
}

/*
 * A job running past the horizon is held to the last step's protect curve:
 * the last step stands for what follows, where the job still holds its
 * GPUs.
 */
TEST(protect_last_step_counts_for_runs_past_the_horizon)
{
	int			demand[6] = {1, 1, 1, 1, 1, 1};
	int			protect[6] = {1, 1, 1, 1, 1, 5};
	ga_error	err;

	for (int full = 0; full < 2; full++)
	{
		ga_problem *p = protect_problem(8, 6, 1, 0);
		ga_plan    *plan;

		tp_set_job(p, 0, 1, 4, 4, 400, 0, -1);	/* 100 steps on 4 GPUs */
		set_curves(p, demand, protect);
		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
		plan = solve_mode(p, full);
		if (plan != NULL)
			CHECK_MSG(plan->job_size[0] == -1, "%s: a run past the horizon took protected GPUs",
					  full ? "full" : "fast");
		ga_plan_destroy(plan);
		ga_problem_destroy(p);
	}
}

/*
 * A day's horizon (48 steps of 30 minutes) whose protect curve needs 6 of
 * 8 GPUs at steps 4 to 6 and 1 otherwise: tomorrow at that time it will
 * again.  A 4-GPU job of 56 steps released at step 7 fits the rest of
 * today, but wherever it starts its run reaches tomorrow's steps 4 to 6,
 * where it would hold GPUs the curve needs and could not give them back:
 * it is left out.  With the peak at steps 20 to 22 instead (inside its
 * run today) it is left out by the rule inside the horizon, and with a
 * flat curve it starts at its release.
 */
static ga_problem *
past_peak_problem(int peak_from)
{
	ga_problem *p = protect_problem(8, 48, 1, 0);
	ga_error	err;

	tp_set_job(p, 0, 1, 4, 4, 4 * 56, 7, -1);
	for (int t = 0; t < 48; t++)
	{
		p->services[0].demand[t] = 1;
		p->services[0].protect[t] = peak_from >= 0 && t >= peak_from && t < peak_from + 3 ? 6 : 1;
	}
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	return p;
}

TEST(protect_holds_a_run_past_the_horizon_to_tomorrows_curve)
{
	for (int full = 0; full < 2; full++)
	{
		ga_problem *tomorrow = past_peak_problem(4);
		ga_problem *flat = past_peak_problem(-1);
		ga_plan    *plan = solve_mode(tomorrow, full);
		ga_plan    *plan_flat = solve_mode(flat, full);

		if (plan != NULL && plan_flat != NULL)
		{
			CHECK_MSG(plan_flat->job_start[0] == 7, "%s: with a flat curve the job starts at %d",
					  full ? "full" : "fast", plan_flat->job_start[0]);
			CHECK_MSG(plan->job_size[0] == -1, "%s: the job started at %d, into tomorrow's peak",
					  full ? "full" : "fast", plan->job_start[0]);
			CHECK(ga_plan_protects_past_horizon(tomorrow, plan));
			CHECK(ga_plan_protects_past_horizon(flat, plan_flat));
		}
		ga_plan_destroy(plan);
		ga_plan_destroy(plan_flat);
		ga_problem_destroy(tomorrow);
		ga_problem_destroy(flat);
	}
}

/*
 * The check of a whole plan: the job placed by hand at step 7 breaks the
 * rule past the horizon (tomorrow's steps 4 to 6 are left 2 GPUs, the job
 * holds 4); it keeps it where tomorrow's peak lies past its run, and where
 * the job is dense enough to displace the service (priority above the
 * penalty times the service's); the room there is the open GPUs less the
 * curve expected then.
 */
TEST(protect_past_horizon_check_of_a_whole_plan)
{
	ga_problem *p = past_peak_problem(4);
	ga_problem *late = past_peak_problem(30);
	ga_plan    *plan = ga_plan_create(p);
	ga_plan    *plan_late = ga_plan_create(late);
	ga_terminal *tm = ga_terminal_create(p);
	int			held[64] = {0};

	ga_plan_place_job(plan, p, 0, 7, 0, 4);
	ga_plan_place_job(plan_late, late, 0, 7, 0, 4);
	CHECK(!ga_plan_protects_past_horizon(p, plan));
	CHECK(ga_plan_protects_past_horizon(late, plan_late));
	CHECK_INT_EQ(ga_protect_room_after(tm, 0, 4, 1), 2);
	CHECK_INT_EQ(ga_protect_room_after(tm, 0, 3, 1), 7);
	CHECK_INT_EQ(ga_protect_room_after(tm, 0, 4 + 48, 1), 2);
	CHECK_INT_EQ(ga_protect_room_after(tm, 0, 4, 9), 8);
	CHECK_INT_EQ(ga_protect_first_blocked_after(tm, 0, held, 0, 15, 4, 1), 4);
	CHECK_INT_EQ(ga_protect_first_blocked_after(tm, 0, held, 0, 4, 4, 1), 4);
	CHECK_INT_EQ(ga_protect_first_blocked_after(tm, 0, held, 0, 15, 2, 1), 15);
	p->jobs[0].priority = 9;	/* above penalty 8 x service priority 1 */
	CHECK(ga_plan_protects_past_horizon(p, plan));
	ga_terminal_destroy(tm);
	ga_plan_destroy(plan);
	ga_plan_destroy(plan_late);
	ga_problem_destroy(p);
	ga_problem_destroy(late);
}

/* The rooms of protect_room_past_the_horizon_per_service_held (below). */
static void
check_room_per_service_held(const ga_terminal *tm, const double *prio)
{
	int			held[256] = {0};

	for (int k = 0; k < tm->steps; k++)
	{
		int			a = ga_terminal_expected_protect(tm, 0, k);
		int			b = ga_terminal_expected_protect(tm, 1, k);

		CHECK_INT_EQ(a, 1 + k % 48 % 3);	/* the horizon's day again */
		CHECK_INT_EQ(b, 2 + k % 48 % 5);
		CHECK_INT_EQ(ga_protect_room_after(tm, 0, k, prio[0]), 16 - a - b);
		CHECK_INT_EQ(ga_protect_room_after(tm, 0, k, prio[1]), 16 - b);
		CHECK_INT_EQ(ga_protect_room_after(tm, 0, k, prio[2]), 16);
	}
	held[5] = 10;				/* 10 + 2 > 16 - 3 - 2 at k = 5, for priority 4 only */
	CHECK_INT_EQ(ga_protect_first_blocked_after(tm, 0, held, 0, 40, 2, prio[0]), 5);
	CHECK_INT_EQ(ga_protect_first_blocked_after(tm, 0, held, 0, 40, 2, prio[1]), 40);
	CHECK_INT_EQ(ga_protect_first_blocked_after(tm, 0, held, 0, 40, 2, prio[2]), 40);
}

/*
 * Two services of priorities 1 and 3 in one pool and a job that runs a day
 * past the horizon: there the room of a job of priority 4 (at most penalty
 * 8 x 1) is the pool's GPUs less both services' protect curves, of
 * priority 9 (above 8 x 1, at most 8 x 3) less the second's only, of
 * priority 30 (above 8 x 3) the pool's GPUs; at every step, through the
 * room table and through the step-by-step sum alike.
 */
TEST(protect_room_past_the_horizon_per_service_held)
{
	ga_params	params = {.n_steps = 48, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, 16, 1, 2, &params);
	ga_terminal *tm;
	ga_error	err;
	const double prio[3] = {4, 9, 30};

	snprintf(p->pools[0].name, GA_NAME_LEN, "p");
	p->pools[0].n_gpus = 16;
	snprintf(p->jobs[0].name, GA_NAME_LEN, "job0");
	tp_set_job(p, 0, 1, 1, 1, 96, 0, -1);
	for (int s = 0; s < 2; s++)
	{
		snprintf(p->services[s].name, GA_NAME_LEN, "svc%d", s);
		p->services[s].priority = s == 0 ? 1 : 3;
		p->services[s].churn_limit = 8;
		p->services[s].max_gpus = 16;
		for (int t = 0; t < 48; t++)
		{
			p->services[s].demand[t] = 1;
			p->services[s].protect[t] = s == 0 ? 1 + t % 3 : 2 + t % 5;
		}
	}
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	tm = ga_terminal_create(p);
	CHECK(tm != NULL && tm->steps >= 40 && tm->room_after != NULL);
	if (tm != NULL)
	{
		check_room_per_service_held(tm, prio);
		free(tm->room_after);	/* the step-by-step sum of a problem too large for the table */
		tm->room_after = NULL;
		check_room_per_service_held(tm, prio);
	}
	ga_terminal_destroy(tm);
	ga_problem_destroy(p);
}

/*
 * A job dense enough to displace the service (priority above penalty x the
 * service's priority) is not held to its protect curve, as the objective
 * lets it displace the demand.
 */
TEST(protect_gives_way_to_batch_work_denser_than_the_penalty)
{
	int			demand[8] = {2, 2, 2, 2, 2, 2, 2, 2};
	int			protect[8] = {2, 2, 2, 2, 6, 6, 6, 6};
	ga_problem *p = protect_problem(8, 8, 1, 0);
	ga_plan    *plan;
	ga_error	err;

	tp_set_job(p, 0, 9, 4, 4, 24, 0, -1);
	set_curves(p, demand, protect);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	plan = solve_mode(p, false);
	if (plan != NULL)
		CHECK_INT_EQ(plan->job_start[0], 0);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * Demand jumps from 0 to 6 GPUs at step 4 with a churn limit of 2: the
 * service must hold 2 GPUs by step 2 and 4 by step 3 to meet it, in both
 * modes, although the demand curve given is not shaped.
 */
TEST(protect_service_ramps_ahead_of_a_rise_beyond_its_churn_limit)
{
	int			demand[8] = {0, 0, 0, 0, 6, 6, 6, 6};
	ga_error	err;

	for (int full = 0; full < 2; full++)
	{
		ga_problem *p = protect_problem(8, 8, 1, 0);
		ga_plan    *plan;

		p->services[0].churn_limit = 2;
		CHECK_INT_EQ(ga_problem_set_held(p, 0, NULL, 0, &err), GA_OK);
		tp_set_job(p, 0, 1, 1, 8, 64, 0, -1);	/* wants every GPU */
		set_curves(p, demand, NULL);
		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
		plan = solve_mode(p, full);
		if (plan != NULL)
		{
			CHECK_MSG(ga_plan_service_gpus(p, plan, 0, 2) >= 2, "%s: no ramp at step 2",
					  full ? "full" : "fast");
			CHECK_MSG(ga_plan_service_gpus(p, plan, 0, 3) >= 4, "%s: no ramp at step 3",
					  full ? "full" : "fast");
			for (int t = 4; t < 8; t++)
				CHECK_MSG(ga_plan_service_gpus(p, plan, 0, t) == 6, "%s: short at step %d",
						  full ? "full" : "fast", t);
		}
		ga_plan_destroy(plan);
		ga_problem_destroy(p);
	}
}

/*
 * Demand 2, protect curve 5: with headroom 1 the service holds 5 GPUs,
 * with 0.5 it holds 2 + ceil(1.5) = 4, side by side at the high end next
 * to its own; batch work keeps the rest.  The objective is unchanged by the
 * headroom (GPUs above the demand earn nothing and cost nothing).
 */
TEST(protect_headroom_is_held_next_to_the_service)
{
	const double shares[2] = {1.0, 0.5};
	const int	expect[2] = {5, 4};
	int			demand[6] = {2, 2, 2, 2, 2, 2};
	int			protect[6] = {5, 5, 5, 5, 5, 5};
	ga_error	err;

	for (int full = 0; full < 2; full++)
		for (int k = 0; k < 2; k++)
		{
			ga_problem *p = protect_problem(8, 6, 1, shares[k]);
			ga_plan    *plan;

			tp_set_job(p, 0, 1, 2, 2, 12, 0, -1);
			set_curves(p, demand, protect);
			CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
			CHECK_INT_EQ(ga_headroom_target(p, 0, 0), expect[k]);
			plan = solve_mode(p, full);
			if (plan == NULL)
				continue;
			CHECK_INT_EQ(plan->job_size[0], 2);
			for (int t = 0; t < 6; t++)
			{
				CHECK_MSG(ga_plan_service_gpus(p, plan, 0, t) == expect[k],
						  "%s headroom %g: %d GPUs at step %d", full ? "full" : "fast", shares[k],
						  ga_plan_service_gpus(p, plan, 0, t), t);
				for (int g = 8 - expect[k]; g < 8; g++)
					CHECK(ga_plan_get(plan, g, t) == ga_service_workload(p, 0));
			}
			ga_plan_destroy(plan);
			ga_problem_destroy(p);
		}
}

/*
 * 8 GPUs over 6 steps, a service with a flat demand that is also its
 * protect curve, at most max_gpus, and (job_gpus > 0) one job of that many
 * GPUs for the 6 steps: with this headroom_min, the service's headroom
 * target is `target` and it holds `expect` GPUs at every step, and the job
 * keeps its block from step 0.
 */
static void
check_headroom_min(bool full, int demand, int max_gpus, int job_gpus, int minimum, int target,
				   int expect)
{
	int			curve[6];
	ga_problem *p = protect_problem(8, 6, job_gpus > 0, 1.0);
	ga_plan    *plan;
	ga_error	err;

	for (int t = 0; t < 6; t++)
		curve[t] = demand;
	p->params.headroom_min = minimum;
	p->services[0].max_gpus = max_gpus;
	if (job_gpus > 0)
		tp_set_job(p, 0, job_gpus, job_gpus, job_gpus, 6.0 * job_gpus, 0, -1);
	set_curves(p, curve, curve);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	CHECK_INT_EQ(ga_headroom_target(p, 0, 0), target);
	plan = solve_mode(p, full);
	if (plan != NULL)
	{
		if (job_gpus > 0)
		{
			CHECK_INT_EQ(plan->job_size[0], job_gpus);
			CHECK_INT_EQ(plan->job_start[0], 0);
		}
		for (int t = 0; t < 6; t++)
			CHECK_MSG(ga_plan_service_gpus(p, plan, 0, t) == expect,
					  "%s, demand %d, headroom_min %d: %d GPUs at step %d", full ? "full" : "fast",
					  demand, minimum, ga_plan_service_gpus(p, plan, 0, t), t);
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * headroom_min: where the protect curve is the demand (a narrow forecast)
 * the share above it hands nothing, and the minimum does.  Demand 3,
 * max_gpus 5 and a 2-GPU job leave idle GPUs at every step: with a minimum
 * of 1 the service holds 4, of 2 it holds 5, of 4 it is capped at
 * max_gpus; with 0 it holds its demand.  A service with no demand gets
 * nothing, and where no GPU is idle (demand 4 beside a 4-GPU job) the
 * minimum takes nothing from batch work.
 */
TEST(protect_headroom_min_is_handed_from_idle_gpus_up_to_max_gpus)
{
	const int	minimum[4] = {0, 1, 2, 4};
	const int	expect[4] = {3, 4, 5, 5};

	for (int full = 0; full < 2; full++)
	{
		for (int k = 0; k < 4; k++)
			check_headroom_min(full, 3, 5, 2, minimum[k], expect[k], expect[k]);
		check_headroom_min(full, 0, 8, 0, 2, 0, 0);
		check_headroom_min(full, 4, 8, 4, 2, 6, 4);
	}
}

/* The headroom is taken within the churn limit, one GPU a step from 2 held. */
TEST(protect_headroom_respects_the_churn_limit)
{
	int			demand[6] = {2, 2, 2, 2, 2, 2};
	int			protect[6] = {5, 5, 5, 5, 5, 5};
	int			held[2] = {6, 7};
	ga_problem *p = protect_problem(8, 6, 0, 1.0);
	ga_plan    *plan;
	ga_error	err;

	p->services[0].churn_limit = 1;
	CHECK_INT_EQ(ga_problem_set_held(p, 0, held, 2, &err), GA_OK);
	set_curves(p, demand, protect);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	plan = solve_mode(p, false);
	if (plan != NULL)
		for (int t = 0; t < 6; t++)
			CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), t + 3 < 5 ? t + 3 : 5);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/* The headroom pass alone: only idle cells change, and a legal plan stays legal. */
TEST(protect_headroom_pass_changes_idle_cells_only)
{
	int			demand[4] = {1, 1, 1, 1};
	int			protect[4] = {3, 3, 3, 3};
	ga_problem *p = protect_problem(4, 4, 1, 1.0);
	ga_plan    *plan;
	ga_plan    *before;
	ga_error	err;

	tp_set_job(p, 0, 1, 1, 1, 4, 0, -1);
	set_curves(p, demand, protect);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	plan = ga_plan_create(p);
	ga_plan_place_job(plan, p, 0, 0, 0, 1);
	for (int t = 0; t < 4; t++)
		ga_plan_set(plan, 3, t, ga_service_workload(p, 0));
	before = ga_plan_copy(plan);
	CHECK(ga_plan_add_headroom(p, plan));
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	for (int g = 0; g < 4; g++)
		for (int t = 0; t < 4; t++)
			CHECK(ga_plan_get(before, g, t) == GA_IDLE ||
				  ga_plan_get(before, g, t) == ga_plan_get(plan, g, t));
	for (int t = 0; t < 4; t++)
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 3);
	CHECK_NEAR(plan->objective, ga_plan_objective(p, before), 1e-9);
	ga_plan_destroy(before);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * 8 GPUs over 8 steps: a job running on 0-3 until step 4, estimated, and a
 * queued job of `size` GPUs and `work` GPU-steps; not yet finished.
 */
static ga_problem *
running_job_problem(double margin, int size, double work, const int *demand)
{
	ga_problem *p = protect_problem(8, 8, 2, 0);

	p->params.overrun_margin = margin;
	tp_set_job(p, 0, 1, 4, 4, 16, 0, -1);
	p->jobs[0].pinned = true;
	p->jobs[0].pinned_start = 0;
	p->jobs[0].pinned_end = 4;
	p->jobs[0].pinned_first_gpu = 0;
	p->jobs[0].pinned_size = 4;
	tp_set_job(p, 1, 1, size, size, work, 0, -1);
	set_curves(p, demand, NULL);
	return p;
}

/*
 * A running job on GPUs 0-3 is estimated to end at step 4; with an overrun
 * margin of 1 it may run to step 8.  The service's demand of 6 from step 5
 * then leaves no room for a 2-GPU job over those steps, though its protect
 * curve (and the estimate) would: the job waits.  Without the margin it
 * starts at once.
 */
TEST(protect_overrun_margin_lengthens_runs_against_the_demand)
{
	int			demand[8] = {2, 2, 2, 2, 2, 6, 6, 6};
	ga_error	err;

	for (int margin = 0; margin < 2; margin++)
	{
		ga_problem *p = running_job_problem(margin, 2, 8, demand);	/* 4 steps on 2 GPUs */
		ga_plan    *plan;

		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
		plan = solve_mode(p, false);
		if (plan != NULL && margin == 0)
			CHECK_INT_EQ(plan->job_start[1], 0);
		if (plan != NULL && margin == 1)
			CHECK_MSG(plan->job_size[1] == -1, "the job started at %d", plan->job_start[1]);
		ga_plan_destroy(plan);
		ga_problem_destroy(p);
	}
}

/*
 * The same running job and queue with a margin of 1 for runs whose estimate
 * has no spread, and an overrun spread of 0.5.  Estimates whose p90 is 1.2
 * times their p50 lengthen both runs by a tenth (4 steps to 5), which ends
 * before the demand rises: the queued job starts at once, in both modes.
 * Without a spread (ratio 0) the margin of 1 applies and it waits; with a
 * p90 three times the p50 the spread gives the same margin, and it waits.
 */
TEST(protect_overrun_spread_lengthens_runs_by_their_estimate)
{
	int			demand[8] = {2, 2, 2, 2, 2, 6, 6, 6};
	double		ratios[3] = {0, 1.2, 3};
	ga_error	err;

	for (int r = 0; r < 3; r++)
		for (int full = 0; full < 2; full++)
		{
			ga_problem *p = running_job_problem(1, 2, 8, demand);	/* 4 steps on 2 GPUs */
			ga_plan    *plan;

			p->params.overrun_spread = 0.5;
			p->jobs[0].duration_p90_ratio = p->jobs[1].duration_p90_ratio = ratios[r];
			CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
			CHECK_INT_EQ(ga_protect_steps(p, &p->jobs[1], 4), r == 1 ? 5 : 8);
			plan = solve_mode(p, full);
			if (plan != NULL && r == 1)
				CHECK_MSG(plan->job_start[1] == 0, "%s, ratio %g: the job starts at %d",
						  full ? "full" : "fast", ratios[r], plan->job_start[1]);
			if (plan != NULL && r != 1)
				CHECK_MSG(plan->job_size[1] == -1, "%s, ratio %g: the job started at %d",
						  full ? "full" : "fast", ratios[r], plan->job_start[1]);
			ga_plan_destroy(plan);
			ga_problem_destroy(p);
		}
}

/*
 * A job that follows a running job on its own block absorbs that job's
 * lengthened run: if the running job outlives its estimate the next one
 * waits on the same GPUs, so they count once.  Here the only block left
 * is the running job's, from its estimated end.
 */
TEST(protect_next_job_on_a_running_block_counts_once)
{
	int			demand[8] = {4, 4, 4, 4, 4, 4, 4, 4};
	ga_error	err;

	for (int full = 0; full < 2; full++)
	{
		ga_problem *p = running_job_problem(1, 4, 8, demand);	/* 2 steps on 4 GPUs */
		ga_plan    *plan;

		CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
		plan = solve_mode(p, full);
		if (plan != NULL)
		{
			CHECK_MSG(plan->job_start[1] == 4, "%s: the job starts at %d", full ? "full" : "fast",
					  plan->job_start[1]);
			CHECK_INT_EQ(plan->job_first_gpu[1], 0);
		}
		ga_plan_destroy(plan);
		ga_problem_destroy(p);
	}
}

/*
 * A job with a time limit is stopped at it, so the protect rule lengthens
 * its run by the overrun margin up to the limit, never past it.  A 2-GPU
 * job of 4 steps, margin 1 (8 steps checked), and a demand of 7 of 8 GPUs
 * from step 5: without a limit, or with a limit of 6 steps, its lengthened
 * run meets the rise wherever it starts, and it waits; with a limit of 4 or
 * 5 steps it cannot hold its GPUs into the rise, and it starts at once.
 */
TEST(protect_overrun_margin_stops_at_the_time_limit)
{
	int			demand[8] = {2, 2, 2, 2, 2, 7, 7, 7};
	int			limits[4] = {0, 6, 4, 5};
	ga_error	err;

	for (int l = 0; l < 4; l++)
		for (int full = 0; full < 2; full++)
		{
			ga_problem *p = protect_problem(8, 8, 1, 0);
			ga_plan    *plan;

			p->params.overrun_margin = 1;
			tp_set_job(p, 0, 1, 2, 2, 8, 0, -1);
			p->jobs[0].time_limit_steps = limits[l];
			set_curves(p, demand, NULL);
			CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
			CHECK_INT_EQ(ga_protect_steps(p, &p->jobs[0], 4), limits[l] ? limits[l] : 8);
			plan = solve_mode(p, full);
			if (plan != NULL && l >= 2)
				CHECK_MSG(plan->job_start[0] == 0, "%s, limit %d: the job starts at %d",
						  full ? "full" : "fast", limits[l], plan->job_start[0]);
			if (plan != NULL && l < 2)
				CHECK_MSG(plan->job_size[0] == -1, "%s, limit %d: the job started at %d",
						  full ? "full" : "fast", limits[l], plan->job_start[0]);
			ga_plan_destroy(plan);
			ga_problem_destroy(p);
		}
}

TEST(protect_curve_is_lifted_to_the_demand_and_headroom_checked)
{
	int			demand[4] = {3, 1, 4, 1};
	int			protect[4] = {5, 0, 4, 2};
	ga_problem *p = protect_problem(8, 4, 0, 0.5);
	ga_error	err;

	set_curves(p, demand, protect);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	CHECK_INT_EQ(p->services[0].protect[0], 5);
	CHECK_INT_EQ(p->services[0].protect[1], 1);
	CHECK_INT_EQ(p->services[0].protect[2], 4);
	CHECK_INT_EQ(p->services[0].protect[3], 2);
	p->params.headroom = 1.5;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "headroom");
	p->params.headroom = 0;
	p->params.headroom_min = -1;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "headroom_min must be between 0 and 100000");
	p->params.headroom_min = 0;
	p->params.overrun_margin = -1;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "overrun_margin");
	p->params.overrun_margin = 0;
	p->params.overrun_spread = 10.5;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "overrun_spread must be between 0 and 10");
	p->params.overrun_spread = 0;
	p->services[0].protect[1] = -1;
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "protect curve");
	ga_problem_destroy(p);
}
