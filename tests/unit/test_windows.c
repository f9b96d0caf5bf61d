/*
 * test_windows.c — maintenance windows: the problem checks them, the
 * validator's rule R6 rejects a hand-made violation of each kind, and the
 * planners (fast, full, fifo, backfill) never place work inside one, past
 * the horizon included, on generated problems; on half of them the windows
 * are advance reservations of tenants instead (rule R8).
 */
#include "unit.h"
#include "window_fixture.h"
#include "model/advance_reservation.h"
#include "model/problem_split.h"
#include "model/serial.h"
#include "model/validate.h"
#include "sim/generate.h"
#include "solve/baseline.h"
#include "solve/reservation.h"
#include "solve/solve.h"

#include <stdlib.h>

#define N_STEPS 6

/*
 * Pool "a" = GPUs 0-7, 6 steps.  Job 0 "train" (2 GPUs, 2 steps), job 1
 * "running" pinned to GPUs 4-5 over steps -1..2, service 0 "chat" (max 1).
 */
ga_problem *
window_problem(void)
{
	ga_params	params = {.n_steps = N_STEPS, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, 8, 2, 1, &params);
	ga_error	err;

	snprintf(p->pools[0].name, GA_NAME_LEN, "a");
	p->pools[0].n_gpus = 8;
	snprintf(p->jobs[0].name, GA_NAME_LEN, "train");
	p->jobs[0].priority = 1;
	p->jobs[0].gpus_min = p->jobs[0].gpus_max = 2;
	p->jobs[0].work_gpu_steps = 4;
	snprintf(p->jobs[1].name, GA_NAME_LEN, "running");
	p->jobs[1].priority = 1;
	p->jobs[1].gpus_min = p->jobs[1].gpus_max = 2;
	p->jobs[1].work_gpu_steps = 8;
	p->jobs[1].pinned = true;
	p->jobs[1].pinned_start = -1;
	p->jobs[1].pinned_end = 3;
	p->jobs[1].pinned_first_gpu = 4;
	p->jobs[1].pinned_size = 2;
	snprintf(p->services[0].name, GA_NAME_LEN, "chat");
	p->services[0].priority = 1;
	p->services[0].churn_limit = 1;
	p->services[0].max_gpus = 1;
	for (int t = 0; t < N_STEPS; t++)
		p->services[0].demand[t] = 1;
	if (ga_problem_finish(p, &err) != GA_OK)
	{
		fprintf(stderr, "window_problem: %s\n", err.message);
		abort();
	}
	return p;
}

static void
set_window(ga_problem *p, int first, int n, int start, int end)
{
	ga_window	w = {.pool = 0, .first_gpu = first, .n_gpus = n, .start_step = start, .end_step = end};
	ga_error	err;

	CHECK_INT_EQ(ga_problem_set_windows(p, &w, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
}

/* train on GPUs 0-1 from step `start`, running at its pin, chat on GPU 7. */
ga_plan    *
base_plan(const ga_problem *p, int start)
{
	ga_plan    *plan = ga_plan_create(p);

	ga_plan_place_job(plan, p, 1, -1, 4, 2);
	ga_plan_place_job(plan, p, 0, start, 0, 2);
	for (int t = 0; t < N_STEPS; t++)
		ga_plan_set(plan, 7, t, ga_service_workload(p, 0));
	return plan;
}

static void
expect_r6(const ga_problem *p, const ga_plan *plan, const char *word1, const char *word2)
{
	ga_error	err;

	ga_error_clear(&err);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_EILLEGAL);
	CHECK_STR_CONTAINS(err.message, "maintenance window");
	CHECK_STR_CONTAINS(err.message, word1);
	CHECK_STR_CONTAINS(err.message, word2);
}

TEST(windows_problem_rejects_bad_window)
{
	ga_problem *p = window_problem();
	ga_window	w = {.pool = 0, .first_gpu = 6, .n_gpus = 4, .start_step = 0, .end_step = 2};
	ga_error	err;

	CHECK_INT_EQ(ga_problem_set_windows(p, &w, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "not inside pool");
	w.n_gpus = 1;
	w.end_step = 0;
	CHECK_INT_EQ(ga_problem_set_windows(p, &w, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "end_step 0 must be after start_step 0");
	w.end_step = 1;
	w.pool = 3;
	CHECK_INT_EQ(ga_problem_set_windows(p, &w, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "pool index 3");
	ga_problem_destroy(p);
}

TEST(windows_validate_accepts_plan_clear_of_window)
{
	ga_problem *p = window_problem();
	ga_plan    *plan;
	ga_error	err;

	set_window(p, 0, 4, 3, 5);	/* train ends at step 2, before it */
	plan = base_plan(p, 1);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	CHECK(ga_gpu_closed(p, 3, 3) && !ga_gpu_closed(p, 3, 5) && !ga_gpu_closed(p, 4, 3));
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(windows_validate_rejects_job_inside_window)
{
	ga_problem *p = window_problem();
	ga_plan    *plan;

	set_window(p, 1, 1, 2, 3);
	plan = base_plan(p, 1);		/* train holds GPU 1 at steps 1-2 */
	expect_r6(p, plan, "job \"train\" holds GPU 1 at step 2", "steps 2..2");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(windows_validate_rejects_service_inside_window)
{
	ga_problem *p = window_problem();
	ga_plan    *plan;

	set_window(p, 6, 2, 4, 6);
	plan = base_plan(p, 0);
	expect_r6(p, plan, "service \"chat\" holds GPU 7 at step 4", "GPUs 6..7");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(windows_validate_rejects_run_into_window_past_horizon)
{
	ga_problem *p = window_problem();
	ga_plan    *plan;

	set_window(p, 0, 2, 7, 9);
	plan = base_plan(p, 5);		/* runs steps 5-6: step 6 is past the horizon */
	CHECK_INT_EQ(ga_validate(p, plan, NULL) == GA_OK, 1);
	ga_plan_destroy(plan);
	set_window(p, 0, 2, 6, 9);
	plan = base_plan(p, 5);
	expect_r6(p, plan, "job \"train\" runs on GPUs 0..1 until step 6", "past the horizon");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(windows_validate_exempts_pinned_job)
{
	ga_problem *p = window_problem();
	ga_plan    *plan;
	ga_error	err;

	set_window(p, 4, 2, 1, 4);	/* closes the running job's GPUs under it */
	plan = base_plan(p, 1);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(windows_survive_serialisation)
{
	ga_problem *p = window_problem();
	ga_problem *back = NULL;
	size_t		n;
	void	   *buf;
	ga_error	err;

	set_window(p, 2, 2, -3, 40);
	n = ga_problem_serial_size(p);
	buf = malloc(n);
	CHECK_INT_EQ(ga_problem_write(p, buf, n, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_read(buf, n, &back, &err), GA_OK);
	if (back != NULL)
	{
		CHECK_INT_EQ(back->n_windows, 1);
		CHECK(memcmp(back->windows, p->windows, sizeof(ga_window)) == 0);
	}
	/* a window that is not inside its pool is refused on reading too */
	p->windows[0].n_gpus = 9;
	CHECK_INT_EQ(ga_problem_write(p, buf, n, &err), GA_OK);
	ga_problem_destroy(back);
	back = NULL;
	CHECK_INT_EQ(ga_problem_read(buf, n, &back, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "not inside pool");
	free(buf);
	ga_problem_destroy(p);
}

/* Two pools of 4 GPUs, a window on GPUs 5-6 of the second: its part gets it renumbered. */
TEST(windows_follow_their_pool_into_its_part)
{
	ga_params	params = {.n_steps = 4, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(2, 8, 0, 0, &params);
	ga_window	w = {.pool = 1, .first_gpu = 5, .n_gpus = 2, .start_step = 1, .end_step = 3};
	ga_split   *split = NULL;
	ga_error	err;

	for (int q = 0; q < 2; q++)
	{
		snprintf(p->pools[q].name, GA_NAME_LEN, "p%d", q);
		p->pools[q].first_gpu = 4 * q;
		p->pools[q].n_gpus = 4;
	}
	CHECK_INT_EQ(ga_problem_set_windows(p, &w, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_split(p, &split, &err), GA_OK);
	if (split != NULL)
	{
		CHECK_INT_EQ(split->n_parts, 2);
		CHECK_INT_EQ(split->parts[0].problem->n_windows, 0);
		CHECK_INT_EQ(split->parts[1].problem->n_windows, 1);
		if (split->parts[1].problem->n_windows == 1)
		{
			const ga_window *pw = &split->parts[1].problem->windows[0];

			CHECK(pw->pool == 0 && pw->first_gpu == 1 && pw->n_gpus == 2 &&
				  pw->start_step == 1 && pw->end_step == 3);
		}
	}
	ga_split_destroy(split);
	ga_problem_destroy(p);
}

TEST(windows_fast_drains_ahead_of_window)
{
	ga_problem *p = window_problem();
	ga_solve_options opts = {.time_limit_ms = 10000};
	ga_plan    *plan = NULL;
	ga_error	err;

	/* all of the pool but the running job's GPUs closed from step 1: train cannot run 2 steps */
	set_window(p, 0, 4, 1, 30);
	CHECK_INT_EQ(ga_solve_fast(p, &opts, &plan, &err), GA_OK);
	if (plan != NULL)
	{
		CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
		/* train goes on GPUs 4-7, never on 0-1 at step 0, whose run would reach step 1 */
		CHECK_INT_EQ(plan->job_size[0], 2);
		CHECK(plan->job_first_gpu[0] >= 4);
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * One pool "a" of n_gpus over n_steps, n_jobs unset jobs, and a service
 * "chat" holding `held` with the given churn limit and a flat demand, up
 * to the pool's size; a window over [first, first + n) from `from` to
 * `to` (nothing when n is 0).  Finished.
 */
static ga_problem *
held_service_problem(int n_gpus, int n_steps, int n_jobs, int churn_limit, int demand,
					 const int *held, int n_held, int first, int n, int from, int to)
{
	ga_params	params = {.n_steps = n_steps, .step_minutes = 30, .penalty = 8, .half_life_hours = 12};
	ga_problem *p = ga_problem_create(1, n_gpus, n_jobs, 1, &params);
	ga_window	w = {.pool = 0, .first_gpu = first, .n_gpus = n, .start_step = from, .end_step = to};
	ga_error	err;

	snprintf(p->pools[0].name, GA_NAME_LEN, "a");
	p->pools[0].n_gpus = n_gpus;
	for (int j = 0; j < n_jobs; j++)
		snprintf(p->jobs[j].name, GA_NAME_LEN, "job%d", j);
	snprintf(p->services[0].name, GA_NAME_LEN, "chat");
	p->services[0].priority = 1;
	p->services[0].churn_limit = churn_limit;
	p->services[0].max_gpus = n_gpus;
	for (int t = 0; t < n_steps; t++)
		p->services[0].demand[t] = demand;
	CHECK_INT_EQ(ga_problem_set_held(p, 0, held, n_held, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_set_windows(p, &w, n > 0, &err), GA_OK);
	return p;
}

/* Finish, solve fast and validate; the plan, or NULL (checked) on failure. */
static ga_plan *
fast_valid_plan(ga_problem *p)
{
	ga_solve_options opts = {.time_limit_ms = 10000};
	ga_plan    *plan = NULL;
	ga_error	err;

	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	CHECK_MSG(ga_solve_fast(p, &opts, &plan, &err) == GA_OK, "%s", err.message);
	if (plan != NULL)
		CHECK_MSG(ga_validate(p, plan, &err) == GA_OK, "%s", err.message);
	return plan;
}

/*
 * A service holding GPUs 6-7 with a churn limit of 2 (two handovers a
 * step), demand 2 throughout, and a window closing GPUs 4-7 from step 3.
 * Moving a GPU costs two handovers (one GPU given up, one taken), so the
 * service must bring its replacements up by step 2 and let the closed GPUs
 * go at step 3: it serves 2 GPUs at every step, holds 4 for one step, and
 * never more than 2 handovers a step.  Waiting for step 3 leaves it at 0
 * there (both GPUs taken, no churn left to add others).
 */
TEST(windows_fast_moves_a_service_ahead_of_a_window)
{
	ga_problem *p = held_service_problem(8, N_STEPS, 0, 2, 2, (int[]) {6, 7}, 2, 4, 4, 3, 30);
	ga_plan    *plan = fast_valid_plan(p);

	if (plan != NULL)
	{
		for (int t = 0; t < N_STEPS; t++)
			CHECK_MSG(ga_plan_service_gpus(p, plan, 0, t) >= 2, "step %d: %d GPUs", t,
					  ga_plan_service_gpus(p, plan, 0, t));
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 2), 4);
		for (int g = 4; g < 8; g++)
			CHECK_INT_EQ(ga_plan_get(plan, g, 3), GA_IDLE);
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * A held GPU a window will close is the service's until then: given to a
 * job sooner, it would be a handover the plan chose.  GPUs 0-1 are down,
 * the service (churn limit 1) holds 2-3, which a window closes over steps
 * 4-5, and a dense 2-GPU job of two steps fits only on 2-3.  Taking them
 * at step 0 would hand over two GPUs at once; the job waits for the
 * window's end instead, and the service keeps both until the window.
 */
TEST(windows_fast_keeps_closing_held_gpus_for_the_service)
{
	ga_problem *p = held_service_problem(4, 8, 1, 1, 2, (int[]) {2, 3}, 2, 2, 2, 4, 6);
	ga_plan    *plan;

	p->gpu_usable[0] = p->gpu_usable[1] = false;
	p->jobs[0].priority = 40;
	p->jobs[0].gpus_min = p->jobs[0].gpus_max = 2;
	p->jobs[0].work_gpu_steps = 4;
	plan = fast_valid_plan(p);
	if (plan != NULL)
	{
		CHECK_INT_EQ(plan->job_start[0], 6);
		for (int t = 0; t < 4; t++)
			CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, t), 2);
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * A window that takes more held GPUs at once than the churn limit moves:
 * the service (limit 1) holds 4-7, which close from step 3.  Their loss
 * then costs no churn, so it serves its demand of 4 on them until the
 * window instead of giving them up early, one a step, to spread a loss that
 * is not counted, and spends its one handover a step on replacements: one
 * at step 2, ahead of the loss, and one a step on 0-3 after it.
 */
TEST(windows_fast_keeps_held_gpus_until_a_window_takes_them)
{
	ga_problem *p = held_service_problem(8, 8, 0, 1, 4, (int[]) {4, 5, 6, 7}, 4, 4, 4, 3, 20);
	ga_plan    *plan = fast_valid_plan(p);

	if (plan != NULL)
	{
		for (int t = 0; t < 3; t++)
			CHECK_MSG(ga_plan_service_gpus(p, plan, 0, t) >= 4, "step %d: %d GPUs", t,
					  ga_plan_service_gpus(p, plan, 0, t));
		/* all four kept to the window, which takes them */
		CHECK_INT_EQ(ga_service_forced_handovers(p, plan, 0, 3), 4);
		/* and the step before, its one handover brings up a replacement */
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 2), 5);
		CHECK_INT_EQ(ga_plan_service_gpus(p, plan, 0, 3), 2);
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

/*
 * Random windows on a generated problem: some under way at step 0, some in
 * the horizon, some past it, closing held GPUs or not.  A service gives up
 * a GPU a window closes without counting it against its churn limit or
 * budget, so every planner still has a legal plan.
 */
static void
add_random_windows(ga_problem *p, uint64_t seed)
{
	ga_window	w[3];
	int			n = 1 + (int) (seed % 3);
	int			T = p->params.n_steps;
	ga_error	err;

	for (int i = 0; i < n; i++)
	{
		const ga_pool *pool;
		int			span;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		w[i].pool = (int) ((seed >> 33) % (uint64_t) p->n_pools);
		pool = &p->pools[w[i].pool];
		span = 1 + (int) ((seed >> 20) % (uint64_t) pool->n_gpus);
		w[i].n_gpus = span;
		w[i].first_gpu = pool->first_gpu + (int) ((seed >> 40) % (uint64_t) (pool->n_gpus - span + 1));
		w[i].start_step = (int) ((seed >> 8) % (uint64_t) (T + 8)) - 2;
		w[i].end_step = w[i].start_step + 1 + (int) ((seed >> 50) % 10);
	}
	CHECK_INT_EQ(ga_problem_set_windows(p, w, n, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
}

/*
 * The cells a baseline places work on that a window or another tenant's
 * advance reservation closes (its runs past the horizon included): the
 * validator's R6 and R8, without its other rules, which baselines need not
 * meet (docs/model.md, Static reservation).
 */
int
closed_work(const ga_problem *p, const ga_plan *plan)
{
	int			n = 0;

	for (int g = 0; g < p->n_gpus; g++)
		for (int t = 0; t < p->params.n_steps; t++)
		{
			int32_t		k = ga_plan_get(plan, g, t);

			if (k == GA_IDLE || (k < p->n_jobs && p->jobs[k].pinned))
				continue;
			if (ga_block_closed(p, k < p->n_jobs ? p->jobs[k].tenant : -1, g, 1, t, t + 1))
				n++;
		}
	for (int j = 0; j < p->n_jobs; j++)
		if (!p->jobs[j].pinned && plan->job_size[j] > 0 &&
			ga_block_closed(p, p->jobs[j].tenant, plan->job_first_gpu[j], plan->job_size[j],
							plan->job_start[j],
							plan->job_start[j] + ga_job_duration(&p->jobs[j], ga_pool_of_gpu(p, plan->job_first_gpu[j]),
																 plan->job_size[j])))
			n++;
	return n;
}

/*
 * Half the instances turn their windows into advance reservations of
 * tenants 0-2 and give each job one of those tenants or none: every
 * planner must then keep other tenants' jobs and services out of them.
 */
static void
windows_to_reservations(ga_problem *p, uint64_t seed)
{
	ga_advance_reservation r[3];
	int			n = p->n_windows;
	ga_error	err;

	for (int i = 0; i < n; i++)
	{
		r[i].cells = p->windows[i];
		r[i].tenant = (int) ((seed >> (8 * i)) % 3);
	}
	for (int j = 0; j < p->n_jobs; j++)
		p->jobs[j].tenant = (int) ((seed >> (j % 48)) % 4) - 1;
	CHECK_INT_EQ(ga_problem_set_advance_reservations(p, r, n, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_set_windows(p, NULL, 0, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
}

/* Steps at which a service of the plan loses more GPUs than its churn limit. */
static int
losses_over_churn_limit(const ga_problem *p, const ga_plan *plan)
{
	int			n = 0;

	for (int s = 0; s < p->n_services; s++)
		for (int t = 0; t < p->params.n_steps; t++)
			n += ga_service_forced_handovers(p, plan, s, t) > p->services[s].churn_limit;
	return n;
}

/* Returns the steps of fast's plan where a service lost more than its churn limit. */
static int
check_window_instance(int i)
{
	ga_generate_spec spec;
	ga_solve_options opts = {.time_limit_ms = 2000};
	ga_plan    *fast = NULL;
	ga_plan    *full = NULL;
	ga_reservation *r = NULL;
	ga_problem *p;
	ga_error	err;
	int			losses = 0;

	ga_generate_defaults(&spec, 4 + 4 * (i % 8), 3 + i % 12, 6 + i % 20, 31 * (uint64_t) i + 7);
	spec.services = i % 3;
	spec.pinned_share = 0.3;
	p = ga_generate(&spec, &err);
	CHECK_MSG(p != NULL, "instance %d: %s", i, err.message);
	if (p == NULL)
		return 0;
	add_random_windows(p, 977 * (uint64_t) i + 3);
	if (i % 2 == 1)
		windows_to_reservations(p, 6364136223846793005ULL * (uint64_t) i + 11);
	CHECK_MSG(ga_solve_fast(p, &opts, &fast, &err) == GA_OK, "instance %d fast: %s", i, err.message);
	if (fast != NULL)
	{
		CHECK_MSG(ga_validate(p, fast, &err) == GA_OK, "instance %d fast: %s", i, err.message);
		losses = losses_over_churn_limit(p, fast);
	}
	if (i % 4 == 0)
	{
		CHECK_MSG(ga_solve_full(p, &opts, &full, &err) == GA_OK, "instance %d full: %s", i, err.message);
		if (full != NULL)
			CHECK_MSG(ga_validate(p, full, &err) == GA_OK, "instance %d full: %s", i, err.message);
	}
	CHECK_INT_EQ(ga_reservation_from_demand(p, 0, &r, &err), GA_OK);
	for (int fifo = 0; fifo < 2 && r != NULL; fifo++)
	{
		ga_plan    *b = NULL;

		CHECK_INT_EQ(fifo ? ga_plan_fifo(p, r, &b, &err) : ga_plan_backfill(p, r, &b, &err), GA_OK);
		if (b != NULL)
			CHECK_MSG(closed_work(p, b) == 0, "instance %d %s: work inside a window or reservation", i,
					  fifo ? "fifo" : "backfill");
		ga_plan_destroy(b);
	}
	ga_reservation_destroy(r);
	ga_plan_destroy(fast);
	ga_plan_destroy(full);
	ga_problem_destroy(p);
	return losses;
}

TEST(property_plans_keep_out_of_windows_and_reservations)
{
	int			losses = 0;

	for (int i = 0; i < 80; i++)
		losses += check_window_instance(i);
	/* windows that take more held GPUs at once than a churn limit allows were met */
	CHECK_MSG(losses > 0, "no instance lost more GPUs at once than its churn limit");
}
