/*
 * fuzz_sim.c — libFuzzer target for the simulator (src/core/sim/sim.h) on
 * the scenarios the reader accepts: what a scenario file can make the
 * simulator do, beyond what fuzz_scenario checks of the reader itself.
 *
 * The input becomes a scenario directory as fuzz_scenario_dir.h describes.
 * A scenario that reads and is small (at most MAX_STEPS steps, MAX_GPUS
 * GPUs, MAX_JOBS jobs, MAX_SERVICES services, MAX_HORIZON horizon steps,
 * MAX_HISTORY history rows), so that one run takes milliseconds, is run
 * under the fifo and backfill policies (deterministic; the fast and full
 * planners work to a time limit) and checked: every job trace in the
 * window and on its pool's GPUs, metrics in their ranges and never NaN.
 * A broken promise aborts.  Bigger scenarios are only read.
 */
#include "sim/sim.h"

#include "fuzz_scenario_dir.h"

#include <math.h>

#define MAX_STEPS 48
#define MAX_GPUS 64
#define MAX_JOBS 24
#define MAX_SERVICES 4
#define MAX_HORIZON 48
#define MAX_HISTORY 32

#define CHECK(cond) \
	do { if (!(cond)) { fprintf(stderr, "fuzz_sim: %s:%d: %s\n", __FILE__, __LINE__, #cond); abort(); } } while (0)

static bool
small(const ga_scenario *scn)
{
	return ga_scenario_steps(scn) <= MAX_STEPS && scn->n_gpus <= MAX_GPUS &&
		scn->n_jobs <= MAX_JOBS && scn->n_services <= MAX_SERVICES &&
		scn->n_history <= MAX_HISTORY &&
		scn->horizon_hours * 60 / scn->step_minutes <= MAX_HORIZON;
}

static bool
finite_or_nan(double x)
{
	return isfinite(x) || isnan(x);
}

static void
check_result(const ga_scenario *scn, const ga_sim_result *res)
{
	const ga_metrics *m = &res->metrics;

	CHECK(res->n_jobs == scn->n_jobs && res->plans >= 1);
	for (int j = 0; j < res->n_jobs; j++)
	{
		const ga_sim_job_trace *tr = &res->jobs[j];
		const ga_scn_job *sj = &scn->jobs[j];
		const ga_pool *pool = &scn->pools[sj->pool];

		if (tr->start_step < 0)
			continue;
		CHECK(tr->start_step < ga_scenario_steps(scn) && tr->end_step > tr->start_step);
		CHECK(tr->size >= sj->gpus_min && tr->size <= sj->gpus_max && ga_is_pow2(tr->size));
		CHECK(tr->first_gpu >= pool->first_gpu &&
			  tr->first_gpu + tr->size <= pool->first_gpu + pool->n_gpus);
	}
	CHECK(isfinite(m->utilization) && m->utilization >= 0 && m->utilization <= 1 + 1e-9);
	/* priority x GPU-hours may overflow to infinity for priorities near DBL_MAX */
	CHECK(m->value >= 0 && m->completed_value >= 0 && m->completed_value <= m->value);
	CHECK(isfinite(m->completed_jobs) && m->completed_jobs >= 0 && m->completed_jobs <= scn->n_jobs);
	CHECK(isfinite(m->coverage) && m->coverage >= 0 && m->coverage <= 1 + 1e-9);
	CHECK(isfinite(m->unmet_gpu_hours) && m->unmet_gpu_hours >= 0);
	CHECK(finite_or_nan(m->churn) && finite_or_nan(m->wait_mean_h) && finite_or_nan(m->wait_p95_h));
	CHECK(m->n_classes >= 0 && m->n_classes <= GA_MAX_CLASSES);
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ga_policy policies[] = {GA_POLICY_FIFO, GA_POLICY_BACKFILL};
	ga_scenario *scn;
	ga_error	err = {0};

	if (size == 0)
		return 0;
	scn = ga_scenario_read(fuzz_scenario_dir(data, size), &err);
	if (scn == NULL || !small(scn))
	{
		ga_scenario_destroy(scn);
		return 0;
	}
	for (int i = 0; i < 2; i++)
		for (int perfect = 0; perfect < 2; perfect++)
		{
			ga_sim_options opt;
			ga_sim_result *res = NULL;

			ga_sim_options_default(&opt, policies[i]);
			opt.perfect = perfect;
			if (ga_simulate(scn, &opt, &res, &err) == GA_OK)
			{
				CHECK(res != NULL);
				check_result(scn, res);
			}
			else
			{
				CHECK(res == NULL && err.code != GA_OK && err.message[0] != '\0');
			}
			ga_sim_result_destroy(res);
		}
	ga_scenario_destroy(scn);
	return 0;
}
