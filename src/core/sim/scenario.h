/*
 * scenario.h — a benchmark scenario read from a directory in the scenario
 * format described in docs/model.md, Scenario format (scenario.csv, gpus.csv, services.csv, demand.csv,
 * jobs.csv and optionally history.csv, windows.csv, reservations.csv and
 * tenants.csv).
 *
 * Times are kept as whole minutes since 1970-01-01 00:00 UTC, the count
 * of model/calendar.h, which parses and formats them.  Columns a
 * file does not need are ignored, so tools may add their own.  Every error
 * names the file, the line and, where one is at fault, the column.
 *
 * Jobs are kept in arrival order (submit time, then file order), the order
 * FIFO starts them in; a job's index in that array is its identity
 * everywhere in the simulator.
 */
#ifndef GPUALLOC_SCENARIO_H
#define GPUALLOC_SCENARIO_H

#include "forecast/forecast_common.h"
#include "model/advance_reservation.h"
#include "model/tenant_quota.h"

#define GA_KIND_LEN 32

/*
 * Bounds the reader enforces so that the simulator's step, GPU and horizon
 * counts (int) never overflow: the GPUs listed in all, the GPUs one hour of
 * a service's traffic needs (traffic / capacity_per_gpu), the window's
 * steps, and the planning horizon (a leap year).
 */
#define GA_SCN_MAX_GPUS (1 << 20)
#define GA_SCN_MAX_STEPS (1 << 20)
/* Priorities, tenant weights, the penalty and the half-life: at most 1e6. */
#define GA_SCN_MAX_WEIGHT 1e6
/* A true run's steps are capped here, far past any window (1e8). */
#define GA_SCN_MAX_RUN_STEPS 100000000
#define GA_SCN_MAX_HORIZON_HOURS 8784

typedef struct ga_scn_service
{
	char		name[GA_NAME_LEN];
	int			pool;			/* index into scenario->pools */
	double		priority;
	double		capacity_per_gpu;	/* traffic one GPU serves */
	int			churn_limit;	/* 0 in the file means no limit: pool size */
	int			min_gpus;
	int			max_gpus;		/* capped at the pool size */
	int			n_demand;		/* hourly rows, increasing hour */
	int64_t    *demand_hour;	/* hours since the epoch */
	double	   *traffic;
} ga_scn_service;

typedef struct ga_scn_job
{
	char		name[GA_NAME_LEN];
	char		kind[GA_KIND_LEN];
	int			pool;
	double		priority;
	int64_t		submit;			/* minutes since the epoch */
	int			gpus_min;		/* powers of two, as in the file */
	int			gpus_max;
	double		work_gpu_hours; /* the truth, hidden from the scheduler */
	ga_feature_list *features;
	int			line;			/* line in jobs.csv, for messages */
	/* jobs it waits for: indices of earlier jobs (after_ok / after_any) */
	int			n_after;
	int			after[GA_MAX_PREDS];
	bool		after_ok[GA_MAX_PREDS]; /* after_ok; else after_any */
	double		time_limit_hours;	/* hard limit on a run; 0 = none */
	/*
	 * Further pools it may run on (alt_pools), in preference order, each
	 * with the factor by which its work there exceeds its work on `pool`
	 * (below 1: a faster GPU model).
	 */
	int			n_alt_pools;
	int			alt_pool[GA_MAX_JOB_POOLS - 1];
	double		alt_factor[GA_MAX_JOB_POOLS - 1];
	char	   *after_text[2];	/* while reading: the two columns as written */
	int			tenant;			/* index into scenario->tenants; -1 = none */
} ga_scn_job;

/*
 * Work factor of job sj on pool q: 1 on its own pool, its alt_pools factor
 * on an alternative, 0 on a pool it does not name.
 */
static inline double
ga_scn_job_factor(const ga_scn_job *sj, int q)
{
	if (q == sj->pool)
		return 1;
	for (int i = 0; i < sj->n_alt_pools; i++)
		if (sj->alt_pool[i] == q)
			return sj->alt_factor[i];
	return 0;
}

typedef struct ga_scn_history
{
	char		kind[GA_KIND_LEN];
	int			gpus;
	double		actual_hours;
	ga_feature_list *features;
	int			line;
} ga_scn_history;

/* A maintenance window: GPUs of a pool closed over [start, end). */
typedef struct ga_scn_window
{
	int			pool;
	int			first_gpu;		/* global GPU number (the file's is the pool's) */
	int			n_gpus;
	int64_t		start;			/* minutes since the epoch */
	int64_t		end;
} ga_scn_window;

/* An advance reservation: a window's cells held for one tenant. */
typedef struct ga_scn_reservation
{
	ga_scn_window cells;
	int			tenant;			/* index into scenario->tenants */
} ga_scn_reservation;

typedef struct ga_scenario
{
	char		name[GA_NAME_LEN];
	char		description[256];
	int64_t		start;			/* evaluation window [start, end), minutes */
	int64_t		end;
	int			step_minutes;
	int			horizon_hours;
	int			replan_minutes;
	double		penalty;
	double		half_life_hours;

	int			n_pools;
	ga_pool    *pools;			/* GPU ranges in topology order */
	int			n_gpus;

	int			n_services;
	ga_scn_service *services;

	int			n_jobs;
	ga_scn_job *jobs;			/* in arrival order */

	int			n_history;
	ga_scn_history *history;

	int			n_windows;		/* windows.csv; none when it is absent */
	ga_scn_window *windows;

	/* tenants named in jobs.csv and reservations.csv, in order of appearance */
	int			n_tenants;
	char		(*tenants)[GA_NAME_LEN];

	int			n_reservations; /* reservations.csv; none when it is absent */
	ga_scn_reservation *reservations;

	/*
	 * tenants.csv; none when it is absent.  Each policy's tenant indexes
	 * `tenants`, its pool `pools`, its cohort `cohorts` (-1 = none), as a
	 * problem's (model/tenant_quota.h) takes them.
	 */
	int			n_policies;
	ga_tenant_policy *policies;
	int			n_cohorts;
	char		(*cohorts)[GA_NAME_LEN];
} ga_scenario;

/*
 * Entitled share of tenant i in pool q (model/tenant_quota.h): its
 * guarantee over the pool's guarantees when the pool has any, else its
 * weight over the weights of the pool's policies; 0 without a policy
 * there.
 */
double		ga_scenario_entitlement(const ga_scenario *scn, int tenant, int pool);

/* Read a scenario directory; NULL with err set on any problem. */
ga_scenario *ga_scenario_read(const char *dir, ga_error *err);
void		ga_scenario_destroy(ga_scenario *scn);

/* Steps of the evaluation window (whole steps only). */
int			ga_scenario_steps(const ga_scenario *scn);

/*
 * The step at whose start a job submitted at minute `at` is first seen:
 * the first step boundary at or after it, 0 before the window, and past
 * any window (GA_SCN_MAX_STEPS + 1) for a submission beyond it, so a date
 * in year 9999 with 1-minute steps cannot wrap the int.
 */
int			ga_scenario_release_step(const ga_scenario *scn, int64_t at);

/*
 * True duration in steps of job sj at g GPUs of a pool it names (its work
 * there is its work times the pool's factor): at least 1 and at most
 * GA_SCN_MAX_RUN_STEPS, so the int and a job's end step stay defined for
 * any work_gpu_hours.  The simulator and the oracle both use it, so the
 * oracle's model never lets a job end sooner than it really does.
 */
int			ga_scenario_run_steps(const ga_scenario *scn, const ga_scn_job *sj,
								  int pool, int g);

/*
 * True demand of service s in GPUs over the step starting at minute t:
 * ceil(traffic / capacity_per_gpu) of the worst hour the step touches, the
 * hour's row being the latest one at or before it (0 before the first row).
 */
int			ga_scenario_true_demand(const ga_scenario *scn, int s, int64_t t);

/* The pool holding GPU g, or -1 when none does. */
int			ga_scenario_pool_of_gpu(const ga_scenario *scn, int g);

/*
 * The windows as a problem's, step 0 starting at minute `now` (steps of
 * step_minutes): a window covering any part of a step closes the whole
 * step.  out holds n_windows entries; returns how many it filled (windows
 * over by now are left out).
 */
int			ga_scenario_windows_at(const ga_scenario *scn, int64_t now,
								   ga_window *out);

/*
 * The advance reservations as a problem's, as ga_scenario_windows_at does
 * the windows; out holds n_reservations entries.
 */
int			ga_scenario_reservations_at(const ga_scenario *scn, int64_t now,
										ga_advance_reservation *out);

/*
 * Whether GPU g is closed at some minute of [from, to) to work of `tenant`
 * (-1: none, as a service): it lies in a window, or in a reservation of
 * another tenant.
 */
bool		ga_scenario_closed(const ga_scenario *scn, int tenant, int g,
							   int64_t from, int64_t to);

#endif
