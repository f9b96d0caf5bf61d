/*
 * fuzz_scenario.c — libFuzzer target for the scenario reader,
 * ga_scenario_read of src/core/sim/scenario.h.
 *
 * The input becomes a scenario directory as fuzz_scenario_dir.h describes:
 * split into the six files on NUL bytes, or one file with the other five
 * fixed and valid.
 *
 * A scenario that reads is then checked against what scenario.h and the
 * simulator rely on (pools tiling the GPUs, indices in range, powers of
 * two, demand in time order, jobs in arrival order, a window of at least
 * one step, and the bounds of scenario.h that keep the simulator's int
 * counts of steps, GPUs and minutes from overflowing), its true demand is
 * taken at a few steps, and its history and jobs go through the duration
 * estimators as the simulator feeds them.  A broken promise aborts.
 */
#include "forecast/forecast_estimator.h"
#include "sim/scenario.h"

#include "fuzz_scenario_dir.h"

#include <limits.h>
#include <math.h>

#define MAX_ESTIMATES 32

#define CHECK(cond) \
	do { if (!(cond)) { fprintf(stderr, "fuzz_scenario: %s:%d: %s\n", __FILE__, __LINE__, #cond); abort(); } } while (0)

static void
check_error(const ga_error *err)
{
	CHECK(err->code != GA_OK);
	CHECK(memchr(err->message, '\0', sizeof(err->message)) != NULL);
	CHECK(err->message[0] != '\0');
}

static void
check_scenario(const ga_scenario *scn)
{
	int64_t		steps;
	int			gpus = 0;

	CHECK(memchr(scn->name, '\0', sizeof(scn->name)) != NULL && scn->name[0] != '\0');
	CHECK(memchr(scn->description, '\0', sizeof(scn->description)) != NULL);
	CHECK(scn->step_minutes >= 1 && scn->horizon_hours >= 1 && scn->replan_minutes >= 1);
	CHECK(scn->penalty >= 0 && isfinite(scn->penalty));
	CHECK(scn->half_life_hours > 0 && isfinite(scn->half_life_hours));
	CHECK(scn->end > scn->start);
	steps = (scn->end - scn->start) / scn->step_minutes;
	CHECK(steps >= 1 && steps <= GA_SCN_MAX_STEPS && steps == ga_scenario_steps(scn));
	CHECK(scn->horizon_hours <= GA_SCN_MAX_HORIZON_HOURS);
	CHECK(scn->horizon_hours * 60 >= scn->step_minutes);
	/* The simulator counts horizon and re-plan minutes in int. */
	CHECK((int64_t) scn->horizon_hours * 60 + scn->step_minutes <= INT_MAX);
	CHECK((int64_t) scn->replan_minutes + scn->step_minutes <= INT_MAX);

	CHECK(scn->n_pools >= 1 && scn->n_gpus >= 1 && scn->n_gpus <= GA_SCN_MAX_GPUS);
	for (int p = 0; p < scn->n_pools; p++)
	{
		CHECK(scn->pools[p].first_gpu == gpus && scn->pools[p].n_gpus >= 1);
		CHECK(scn->pools[p].name[0] != '\0');
		gpus += scn->pools[p].n_gpus;
		CHECK(gpus <= scn->n_gpus);
	}
	CHECK(gpus == scn->n_gpus);

	CHECK(scn->n_services >= 0);
	for (int s = 0; s < scn->n_services; s++)
	{
		const ga_scn_service *svc = &scn->services[s];
		int			size;

		CHECK(svc->pool >= 0 && svc->pool < scn->n_pools);
		size = scn->pools[svc->pool].n_gpus;
		CHECK(svc->priority > 0 && isfinite(svc->priority));
		CHECK(svc->capacity_per_gpu > 0 && isfinite(svc->capacity_per_gpu));
		CHECK(svc->churn_limit >= 1 && svc->churn_limit <= size);
		CHECK(svc->max_gpus >= 1 && svc->max_gpus <= size);
		CHECK(svc->min_gpus >= 0 && svc->min_gpus <= svc->max_gpus);
		CHECK(svc->n_demand >= 0);
		for (int i = 0; i < svc->n_demand; i++)
		{
			CHECK(svc->traffic[i] >= 0 && isfinite(svc->traffic[i]));
			CHECK(svc->traffic[i] / svc->capacity_per_gpu <= GA_SCN_MAX_GPUS);
			CHECK(i == 0 || svc->demand_hour[i] > svc->demand_hour[i - 1]);
		}
	}

	CHECK(scn->n_jobs >= 0);
	for (int j = 0; j < scn->n_jobs; j++)
	{
		const ga_scn_job *job = &scn->jobs[j];

		CHECK(job->name[0] != '\0' && job->kind[0] != '\0');
		CHECK(job->pool >= 0 && job->pool < scn->n_pools);
		CHECK(job->priority > 0 && isfinite(job->priority));
		CHECK(ga_is_pow2(job->gpus_min) && ga_is_pow2(job->gpus_max));
		CHECK(job->gpus_min <= job->gpus_max);
		CHECK(job->work_gpu_hours > 0 && isfinite(job->work_gpu_hours));
		CHECK(job->features != NULL && job->features->n >= 0);
		CHECK(j == 0 || job->submit > scn->jobs[j - 1].submit ||
			  (job->submit == scn->jobs[j - 1].submit && job->line > scn->jobs[j - 1].line));
	}
	CHECK(scn->n_history >= 0);
	for (int h = 0; h < scn->n_history; h++)
	{
		const ga_scn_history *row = &scn->history[h];

		CHECK(row->kind[0] != '\0' && row->gpus >= 1);
		CHECK(row->actual_hours > 0 && isfinite(row->actual_hours));
		CHECK(row->features != NULL && row->features->n >= 0);
	}
}

/* What the simulator does with a scenario, in small. */
static void
use_scenario(const ga_scenario *scn)
{
	int			steps = ga_scenario_steps(scn);
	ga_estimator *est = ga_estimator_create();
	ga_error	err = {0};

	for (int s = 0; s < scn->n_services; s++)
	{
		const ga_scn_service *svc = &scn->services[s];

		for (int t = 0; t < steps && t < 8; t++)
		{
			int			d = ga_scenario_true_demand(scn, s, scn->start + (int64_t) t * scn->step_minutes);

			CHECK(d >= 0 && d <= GA_SCN_MAX_GPUS);
		}
		/* every row's hour, so each traffic value is turned into GPUs */
		for (int i = 0; i < svc->n_demand && i < 64; i++)
		{
			int			d = ga_scenario_true_demand(scn, s, svc->demand_hour[i] * 60);

			CHECK(d >= 0 && d <= GA_SCN_MAX_GPUS);
		}
	}
	CHECK(est != NULL);
	for (int h = 0; h < scn->n_history && h < MAX_ESTIMATES; h++)
	{
		const ga_scn_history *row = &scn->history[h];

		if (ga_estimator_add_history(est, row->kind, row->features->items, row->features->n,
									 row->gpus, row->actual_hours, &err) != GA_OK)
			check_error(&err);
	}
	if (ga_estimator_fit(est, &err) != GA_OK)
		check_error(&err);
	for (int j = 0; j < scn->n_jobs && j < MAX_ESTIMATES; j++)
	{
		const ga_scn_job *job = &scn->jobs[j];
		ga_job_estimate e;

		if (ga_estimate_job(est, job->kind, job->features->items, job->features->n,
							job->gpus_max, &e, &err) == GA_OK)
			CHECK(e.gpus == job->gpus_max && isfinite(e.hours_p50) && e.hours_p50 >= 0);
		else
			check_error(&err);
	}
	ga_estimator_destroy(est);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir;
	ga_scenario *scn;
	ga_error	err = {0};

	if (size == 0)
		return 0;
	dir = fuzz_scenario_dir(data, size);
	scn = ga_scenario_read(dir, &err);
	if (scn == NULL)
	{
		check_error(&err);
		return 0;
	}
	check_scenario(scn);
	use_scenario(scn);
	ga_scenario_destroy(scn);
	return 0;
}
