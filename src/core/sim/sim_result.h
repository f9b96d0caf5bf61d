/*
 * sim_result.h — what one simulated run (or the oracle's bound) reports: the
 * metrics and what happened to every job.  Its own header so the oracle,
 * which fills one, does not depend on the simulator that calls it.
 */
#ifndef GPUALLOC_SIM_RESULT_H
#define GPUALLOC_SIM_RESULT_H

#include "sim/metrics.h"

/* What happened to one job of the scenario (-1 when it never started). */
typedef struct ga_sim_job_trace
{
	int			start_step;		/* from the window start */
	int			end_step;		/* true end; may lie past the window */
	int			first_gpu;
	int			size;
} ga_sim_job_trace;

typedef struct ga_sim_result
{
	ga_metrics	metrics;
	ga_run_record *record;		/* NULL for the oracle */
	int			n_jobs;			/* the scenario's, in its order */
	ga_sim_job_trace *jobs;
	int			plans;			/* re-plans made */
	int			plans_validated;
	int			overruns;		/* re-plans that found a job past its estimate */
	int			estimate_fallbacks; /* jobs whose features no estimator took */
	double		coverage_floor; /* oracle: the floor its value bounds hold at
								 * (lower than asked only when unreachable);
								 * NAN for the other policies */
} ga_sim_result;

/* Frees a result and everything it owns; NULL is ignored. */
void		ga_sim_result_destroy(ga_sim_result *res);

#endif
