/*
 * test_fast_load.c — the fast mode's plan depends on its input alone: the
 * same problem solved again while other processes keep every core busy
 * gives the same plan, byte for byte.  Its improvement phase is bounded by
 * work, not by the clock (solve/heuristic.h).
 */
#include "unit.h"
#include "sim/generate.h"
#include "solve/heuristic.h"
#include "model/validate.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N_BUSY 3
#define N_RUNS 4

/* Start a process that spins until killed; -1 when fork fails. */
static pid_t
start_busy_loop(void)
{
	pid_t		pid = fork();

	if (pid == 0)
	{
		volatile unsigned long spin = 0;

		for (;;)
			spin++;
	}
	return pid;
}

static bool
same_plan(const ga_plan *a, const ga_plan *b)
{
	size_t		cells = (size_t) a->n_gpus * a->n_steps;
	size_t		jobs = sizeof(int) * (size_t) a->n_jobs;

	return a->n_gpus == b->n_gpus && a->n_steps == b->n_steps &&
		memcmp(a->cell, b->cell, sizeof(int32_t) * cells) == 0 &&
		memcmp(a->job_start, b->job_start, jobs) == 0 &&
		memcmp(a->job_size, b->job_size, jobs) == 0 &&
		memcmp(a->job_first_gpu, b->job_first_gpu, jobs) == 0 &&
		memcmp(&a->objective, &b->objective, sizeof(double)) == 0;
}

static ga_plan *
solve_once(const ga_problem *p, ga_fast_stats *stats)
{
	ga_solve_options opts = {0};
	ga_plan    *plan = NULL;
	ga_error	err;

	CHECK_MSG(ga_solve_fast_stats(p, &opts, &plan, stats, &err) == GA_OK, "%s", err.message);
	return plan;
}

TEST(fast_plan_is_the_same_on_a_loaded_machine)
{
	ga_generate_spec spec;
	ga_problem *p;
	ga_plan    *quiet;
	ga_fast_stats quiet_stats;
	pid_t		busy[N_BUSY];
	ga_error	err;

	ga_generate_defaults(&spec, 256, 120, 48, 13);
	p = ga_generate(&spec, &err);
	CHECK_MSG(p != NULL, "generator failed: %s", err.message);
	if (p == NULL)
		return;
	quiet = solve_once(p, &quiet_stats);
	CHECK(quiet != NULL && quiet_stats.converged && !quiet_stats.clock_capped);
	CHECK(quiet == NULL || ga_validate(p, quiet, &err) == GA_OK);
	for (int i = 0; i < N_BUSY; i++)
		busy[i] = start_busy_loop();
	for (int run = 0; run < N_RUNS && quiet != NULL; run++)
	{
		ga_fast_stats stats;
		ga_plan    *loaded = solve_once(p, &stats);

		CHECK_MSG(loaded != NULL && same_plan(quiet, loaded),
				  "run %d under load gave another plan", run);
		CHECK(stats.work == quiet_stats.work && stats.moves_tried == quiet_stats.moves_tried);
		CHECK(stats.converged && !stats.clock_capped);
		ga_plan_destroy(loaded);
	}
	for (int i = 0; i < N_BUSY; i++)
		if (busy[i] > 0)
		{
			kill(busy[i], SIGKILL);
			waitpid(busy[i], NULL, 0);
		}
	CHECK_MSG(busy[0] > 0, "could not start a busy process");
	ga_plan_destroy(quiet);
	ga_problem_destroy(p);
}
