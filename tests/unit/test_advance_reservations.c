/*
 * test_advance_reservations.c — advance reservations: the problem checks
 * them, the validator's rule R8 rejects a hand-made violation of each kind
 * and accepts the reserved tenant's jobs, they survive serialisation and
 * splitting, and the fast planner keeps other work out while the tenant's
 * jobs use them.  The property test over every planner is in
 * test_windows.c (half its instances hold reservations).
 */
#include "unit.h"
#include "window_fixture.h"
#include "model/advance_reservation.h"
#include "model/problem_split.h"
#include "model/serial.h"
#include "model/validate.h"
#include "solve/solve.h"

#include <stdlib.h>
#include <string.h>

/* One reservation on pool "a" for `tenant`. */
static void
set_reservation(ga_problem *p, int tenant, int first, int n, int start, int end)
{
	ga_advance_reservation r = {.cells = {.pool = 0, .first_gpu = first, .n_gpus = n,
	.start_step = start, .end_step = end},.tenant = tenant};
	ga_error	err;

	CHECK_INT_EQ(ga_problem_set_advance_reservations(p, &r, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
}

static void
expect_r8(const ga_problem *p, const ga_plan *plan, const char *word1, const char *word2)
{
	ga_error	err;

	ga_error_clear(&err);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_EILLEGAL);
	CHECK_STR_CONTAINS(err.message, "advance reservation of tenant");
	CHECK_STR_CONTAINS(err.message, word1);
	CHECK_STR_CONTAINS(err.message, word2);
}

TEST(reservations_problem_rejects_bad_reservation)
{
	ga_problem *p = window_problem();
	ga_advance_reservation r = {.cells = {.pool = 0, .first_gpu = 6, .n_gpus = 4, .start_step = 0,
	.end_step = 2},.tenant = 0};
	ga_error	err;

	CHECK_INT_EQ(ga_problem_set_advance_reservations(p, &r, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "reservation 0: GPUs 6..9 are not inside pool");
	r.cells.n_gpus = 2;
	r.tenant = -1;
	CHECK_INT_EQ(ga_problem_set_advance_reservations(p, &r, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "tenant must not be negative");
	r.tenant = 0;
	p->jobs[0].tenant = -2;
	CHECK_INT_EQ(ga_problem_set_advance_reservations(p, &r, 1, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_EINVAL);
	CHECK_STR_CONTAINS(err.message, "tenant must be -1 (none) or an index");
	CHECK_INT_EQ(ga_problem_set_advance_reservations(p, &r, -1, &err), GA_EINVAL);
	ga_problem_destroy(p);
}

TEST(reservations_validate_admit_the_tenant_only)
{
	ga_problem *p = window_problem();
	ga_plan    *plan;
	ga_error	err;

	CHECK_INT_EQ(p->jobs[0].tenant, -1);
	set_reservation(p, 1, 0, 2, 2, 4);	/* train holds GPUs 0-1 over steps 1-2 */
	plan = base_plan(p, 1);
	expect_r8(p, plan, "job \"train\" holds GPU 0 at step 2", "tenant 1");
	p->jobs[0].tenant = 0;
	expect_r8(p, plan, "job \"train\"", "GPUs 0..1, steps 2..3");
	p->jobs[0].tenant = 1;
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	CHECK(ga_gpu_closed(p, 0, 2) && !ga_gpu_closed(p, 0, 1) && !ga_gpu_closed(p, 2, 2));
	CHECK(!ga_block_closed(p, 1, 0, 2, 0, 6) && ga_block_closed(p, 0, 0, 2, 0, 6));
	CHECK(ga_advance_reservation_at(p, 1, 3) == &p->reservations[0]);
	CHECK(ga_advance_reservation_at(p, 1, 4) == NULL);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(reservations_validate_reject_service)
{
	ga_problem *p = window_problem();
	ga_plan    *plan;

	set_reservation(p, 0, 6, 2, 4, 6);
	plan = base_plan(p, 0);
	expect_r8(p, plan, "service \"chat\" holds GPU 7 at step 4", "GPUs 6..7");
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(reservations_validate_reject_run_into_one_past_horizon)
{
	ga_problem *p = window_problem();
	ga_plan    *plan;
	ga_error	err;

	set_reservation(p, 2, 0, 2, 6, 9);
	plan = base_plan(p, 5);		/* runs steps 5-6: step 6 is past the horizon */
	expect_r8(p, plan, "job \"train\" runs on GPUs 0..1 until step 6", "past the horizon");
	p->jobs[0].tenant = 2;
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(reservations_validate_exempt_pinned_job)
{
	ga_problem *p = window_problem();
	ga_plan    *plan;
	ga_error	err;

	set_reservation(p, 3, 4, 2, 1, 4);	/* over the running job's GPUs */
	plan = base_plan(p, 1);
	CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}

TEST(reservations_survive_serialisation_and_split)
{
	ga_problem *p = window_problem();
	ga_problem *back = NULL;
	ga_split   *split = NULL;
	size_t		n;
	void	   *buf;
	ga_error	err;

	p->jobs[0].tenant = 4;
	set_reservation(p, 4, 2, 2, -3, 40);
	n = ga_problem_serial_size(p);
	buf = malloc(n);
	CHECK_INT_EQ(ga_problem_write(p, buf, n, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_read(buf, n, &back, &err), GA_OK);
	if (back != NULL)
	{
		CHECK_INT_EQ(back->n_reservations, 1);
		CHECK(memcmp(back->reservations, p->reservations, sizeof(ga_advance_reservation)) == 0);
		CHECK_INT_EQ(back->jobs[0].tenant, 4);
		CHECK_INT_EQ(back->jobs[1].tenant, -1);
	}
	free(buf);
	CHECK_INT_EQ(ga_problem_split(p, &split, &err), GA_OK);
	if (split != NULL && split->n_parts == 1)
	{
		CHECK_INT_EQ(split->parts[0].problem->n_reservations, 1);
		CHECK_INT_EQ(split->parts[0].problem->reservations[0].tenant, 4);
	}
	ga_split_destroy(split);
	ga_problem_destroy(back);
	ga_problem_destroy(p);
}

/*
 * Every GPU but the running job's reserved for tenant 0 from step 1: a job
 * of no tenant cannot run its 2 steps anywhere before the horizon ends,
 * while tenant 0's job starts at once.
 */
TEST(reservations_fast_keeps_others_out_and_lets_tenant_in)
{
	ga_problem *p = window_problem();
	ga_advance_reservation r[2] = {
		{.cells = {.pool = 0, .first_gpu = 0, .n_gpus = 4, .start_step = 1, .end_step = 30},.tenant = 0},
		{.cells = {.pool = 0, .first_gpu = 6, .n_gpus = 2, .start_step = 1, .end_step = 30},.tenant = 0}};
	ga_solve_options opts = {.time_limit_ms = 10000};
	ga_plan    *plan = NULL;
	ga_error	err;

	CHECK_INT_EQ(ga_problem_set_advance_reservations(p, r, 2, &err), GA_OK);
	CHECK_INT_EQ(ga_problem_finish(p, &err), GA_OK);
	CHECK_INT_EQ(ga_solve_fast(p, &opts, &plan, &err), GA_OK);
	if (plan != NULL)
	{
		CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
		CHECK_MSG(plan->job_size[0] <= 0 || plan->job_first_gpu[0] == 4, "train at GPU %d step %d size %d",
				  plan->job_first_gpu[0], plan->job_start[0], plan->job_size[0]);
		for (int t = 1; t < 6; t++)
			for (int g = 0; g < 8; g++)
				CHECK(ga_plan_get(plan, g, t) != ga_service_workload(p, 0) || (g == 4 || g == 5));
	}
	ga_plan_destroy(plan);
	plan = NULL;
	p->jobs[0].tenant = 0;
	CHECK_INT_EQ(ga_solve_fast(p, &opts, &plan, &err), GA_OK);
	if (plan != NULL)
	{
		CHECK_INT_EQ(ga_validate(p, plan, &err), GA_OK);
		CHECK_INT_EQ(plan->job_size[0], 2);
		CHECK_INT_EQ(plan->job_start[0], 0);
	}
	ga_plan_destroy(plan);
	ga_problem_destroy(p);
}
