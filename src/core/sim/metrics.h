/*
 * metrics.h — the metrics (docs/model.md, Metrics), computed the same way for every
 * policy from what really happened in a simulated window (a ga_run_record).
 *
 *   utilisation   busy GPU-hours / available GPU-hours; a GPU is busy when
 *                 it runs a batch job, or serves a service up to the
 *                 service's actual demand (GPUs held above it are idle)
 *   value         sum over jobs of priority x GPU-hours run inside the window
 *   completed     jobs (and their priority x GPU-hours) that ended inside it
 *   coverage      served / demanded real-time GPU-hours, served =
 *                 min(allocated, actual demand) per step; unmet = the rest
 *   churn         GPUs handed over by services between consecutive steps
 *   wait          start - submit, in hours; a job still waiting at the end
 *                 of the window counts its wait so far (censored), so a
 *                 policy cannot look good by never starting hard jobs
 *   solve time    per re-plan, in milliseconds
 *   window violations  GPU-steps on which a job ran or a service was served
 *                 inside a maintenance window, or inside an advance
 *                 reservation not of the job's tenant
 *   reservation start delay  the record's reservation_delay, 0 when no
 *                 job waited for a reservation
 */
#ifndef GPUALLOC_METRICS_H
#define GPUALLOC_METRICS_H

#include "model/common.h"

typedef struct ga_job_outcome
{
	double		priority;
	double		wait_hours;		/* censored at the window end if unstarted */
	bool		started;
	bool		completed;		/* ended inside the window */
	double		gpu_hours;		/* run inside the window */
	double		pool_factor;	/* work factor of the pool it ran on: its
								 * GPU-hours count for value divided by it
								 * (ga_scn_job_factor); 0 is read as 1 */
	bool		stopped;		/* stopped at its time limit inside the window */
	bool		started_early;	/* started before a job it waits for ended */
} ga_job_outcome;

/* What a simulation observed, step by step; filled by the simulator. */
typedef struct ga_run_record
{
	int			n_gpus;
	int			n_steps;
	int			n_services;
	double		step_hours;
	int		   *batch_gpus;		/* [n_steps] GPUs running batch jobs */
	int		   *svc_alloc;		/* [n_services * n_steps], s major */
	int		   *svc_demand;		/* [n_services * n_steps] actual demand */
	int		   *svc_churn;		/* [n_services * n_steps] handovers */
	int		   *window_busy;	/* [n_steps] GPUs inside a maintenance
								 * window that ran a job or served a
								 * service, or inside another tenant's
								 * advance reservation */
	int			n_jobs;
	ga_job_outcome *jobs;		/* jobs submitted inside the window */
	int			reservation_delay;	/* the largest, over the advance
									 * reservations opening inside the
									 * window, of the steps from a
									 * reservation's start until a job of
									 * its tenant that waited for it
									 * starts or its tenant's work fills
									 * it (the window's end if neither);
									 * -1 when no job waited */
	int			n_solves;
	int			cap_solves;
	double	   *solve_ms;
} ga_run_record;

ga_run_record *ga_run_record_create(int n_gpus, int n_steps, int n_services,
									double step_hours, int n_jobs);
void		ga_run_record_destroy(ga_run_record *rec);
ga_status	ga_run_record_add_solve(ga_run_record *rec, double ms, ga_error *err);

#define GA_MAX_CLASSES 16

typedef struct ga_wait_class
{
	double		priority;
	int			jobs;
	double		mean_hours;
	double		p95_hours;
} ga_wait_class;

typedef struct ga_metrics
{
	bool		is_bound;		/* the oracle: upper bounds, not a run */
	double		utilization;
	double		value;
	double		completed_value;
	double		completed_jobs; /* a count; fractional only for the oracle */
	double		stopped_jobs;	/* stopped at their time limit (0: oracle) */
	double		dependency_violations;	/* jobs started before a job they
										 * wait for ended; 0 in every run */
	double		coverage;		/* 1 when nothing was demanded */
	double		unmet_gpu_hours;
	double		churn;			/* NAN when not applicable (oracle) */
	double		window_violations;	/* GPU-steps of work inside maintenance
									 * windows or other tenants' advance
									 * reservations; NAN for the oracle */
	double		reservation_start_delay_steps;	/* the record's
												 * reservation_delay (0:
												 * none); NAN for the oracle */
	double		jain_index;		/* fairness between tenants
								 * (sim/tenant_metrics.h); NAN without
								 * tenant policies, for the oracle and
								 * until the simulator sets it */
	double		min_entitlement_share;	/* likewise */
	double		wait_mean_h;	/* over all jobs; NAN when none */
	double		wait_p95_h;
	int			n_classes;		/* priority classes, highest first */
	ga_wait_class classes[GA_MAX_CLASSES];
	double		solve_p50_ms;	/* NAN when nothing was solved */
	double		solve_p99_ms;
	int			n_solves;
} ga_metrics;

/* Compute every metric of a record. */
ga_status	ga_metrics_compute(const ga_run_record *rec, ga_metrics *out,
							   ga_error *err);

/* Quantile q of values[0..n) by linear interpolation (copies; NAN if n = 0). */
double		ga_metrics_quantile(const double *values, int n, double q);

#endif
