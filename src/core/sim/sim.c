/*
 * sim.c — the simulation loop of sim.h.
 */
#include "sim/sim.h"

#include "solve/baseline.h"
#include "forecast/forecast_demand.h"
#include "model/calendar.h"
#include "forecast/forecast_estimator.h"
#include "sim/oracle.h"
#include "model/overrun.h"
#include "model/tenant_quota.h"
#include "sim/tenant_metrics.h"
#include "sim/fairshare.h"
#include "sim/tenant_need.h"
#include "solve/solve.h"
#include "model/validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The most GPU-steps (and GPU-hours) of work the simulator counts for one
 * job or history row: far past any run it can hold (1e8 steps on 2^20
 * GPUs), and finite, so work_gpu_hours of 1e308 cannot overflow to inf.
 */
#define MAX_WORK_STEPS 1e15

enum job_state
{
	JOB_WAITING,				/* not started (maybe not submitted yet) */
	JOB_RUNNING,
	JOB_DONE,
	JOB_NEVER					/* larger than its pool, or waits for a job
								 * that can never satisfy it: never starts */
};

typedef struct sim_job
{
	enum job_state state;
	int			submit_step;	/* first step boundary at or after submit */
	double		true_steps;		/* true work in GPU-steps */
	int			pool_max;		/* largest usable size in its pools */
	int			est_version;	/* estimator version of the cached estimate */
	int			est_gpus;
	double		est_steps;
	double		est_ratio;		/* its p90 over its p50; 0: no spread (always,
								 * with perfect knowledge) */
	bool		stopped;		/* ended at its time limit: failed */
	int			limit_steps;	/* time limit in steps, rounded up; 0 = none */
} sim_job;

typedef struct sim_ctx
{
	const ga_scenario *scn;
	const ga_sim_options *opt;
	ga_sim_result *res;
	int			T;				/* steps in the window */
	int			H;				/* steps in the horizon */
	int			replan_every;
	double		step_h;
	sim_job    *jobs;
	int		   *gpu_job;		/* running job per GPU, -1 free */
	int		   *gpu_svc;		/* service served per GPU this step, -1 */
	int		   *prev_svc;		/* ... at the previous step */
	ga_estimator *est;
	int			est_version;
	bool		est_dirty;
	double		known_work_sum; /* GPU-hours of finished jobs, for fallback */
	int			known_work_n;
	ga_demand_model **models;
	int		   *demand_cursor;	/* next demand row to observe per service */
	int			shape_steps;	/* steps a planned curve is forecast and
								 * shaped over: the horizon, at least a day */
	double	   *hour_upper;		/* scratch: hourly upper forecast */
	int		   *step_q;			/* scratch: per-step GPUs */
	int		   *step_shaped;	/* scratch: step_q churn-shaped */
	int64_t		first_day;		/* UTC day of the window's start */
	int			n_days;			/* days from it that a horizon reaches */
	int		   *day_gpus;		/* [n_services * n_days]: the baselines'
								 * reservation per day (-1: not fixed yet) */
	ga_problem *problem;		/* of the committed plan */
	ga_plan    *plan;
	int			plan_step;		/* window step of the plan's step 0 */
} sim_ctx;

static const char *const policy_names[GA_N_POLICIES] = {
	"fifo", "backfill", "fast", "full", "quota", "fairshare", "oracle"
};

const char *
ga_policy_name(ga_policy policy)
{
	return (int) policy >= 0 && policy < GA_N_POLICIES ? policy_names[policy] : "unknown";
}

bool
ga_policy_parse(const char *name, ga_policy *policy)
{
	for (int i = 0; i < GA_N_POLICIES; i++)
		if (strcmp(name, policy_names[i]) == 0)
		{
			*policy = (ga_policy) i;
			return true;
		}
	return false;
}

void
ga_sim_options_default(ga_sim_options *opt, ga_policy policy)
{
	memset(opt, 0, sizeof(*opt));
	opt->policy = policy;
	opt->fast_ms = GA_FAST_DEFAULT_MS;
	opt->full_ms = 1000;
	opt->quantile = GA_DEMAND_QUANTILE_DEFAULT;
	opt->protect_quantile = GA_PROTECT_QUANTILE_DEFAULT;
	opt->headroom = GA_HEADROOM_DEFAULT;
	opt->headroom_min = GA_HEADROOM_MIN_DEFAULT;
	opt->overrun_margin = GA_OVERRUN_MARGIN_DEFAULT;
	opt->overrun_spread = GA_OVERRUN_SPREAD_DEFAULT;
	opt->oracle_coverage = GA_ORACLE_COVERAGE_FLOOR;
	opt->validate = true;
	opt->need_quantile = GA_SIM_NEED_QUANTILE_DEFAULT;
	opt->need_lookback_hours = GA_SIM_NEED_LOOKBACK_HOURS_DEFAULT;
	opt->need_daily = GA_SIM_NEED_DAILY_DEFAULT;
	opt->quotas = GA_SIM_QUOTAS_ON;
}

static int64_t
step_time(const sim_ctx *c, int t)
{
	return c->scn->start + (int64_t) t * c->scn->step_minutes;
}

/* True duration in steps of job j at g GPUs of a pool it names. */
static int
true_duration(const sim_ctx *c, int j, int pool, int g)
{
	return ga_scenario_run_steps(c->scn, &c->scn->jobs[j], pool, g);
}

/* ---- the baselines' daily reservation ---- */

/* UTC day of a minute, counted from 1970-01-01 (floored before it). */
static int64_t
day_of(int64_t minute)
{
	return minute >= 0 ? minute / GA_DAY_MINUTES :
		-((-minute + GA_DAY_MINUTES - 1) / GA_DAY_MINUTES);
}

/*
 * With perfect knowledge, service s's peak of true demand over each day: of
 * every step of the window's grid touching the day, before the window and
 * past its end as far as a horizon reaches (a step across midnight counts
 * for both days).
 */
static void
true_day_peaks(sim_ctx *c, int s)
{
	int			step = c->scn->step_minutes;
	int64_t		before = c->scn->start - c->first_day * GA_DAY_MINUTES;
	int			k0 = (int) -((before + step - 1) / step);

	for (int k = k0; k < c->T + c->H; k++)
	{
		int64_t		t = step_time(c, k);
		int			q = ga_scenario_true_demand(c->scn, s, t);

		for (int64_t d = day_of(t); d <= day_of(t + step - 1); d++)
		{
			int64_t		i = d - c->first_day;

			if (i >= 0 && i < c->n_days && q > c->day_gpus[(size_t) s * c->n_days + i])
				c->day_gpus[(size_t) s * c->n_days + i] = q;
		}
	}
}

static ga_status
init_days(sim_ctx *c, ga_error *err)
{
	int			ns = c->scn->n_services;
	int64_t		reach = step_time(c, c->T + c->H) - 1;

	c->first_day = day_of(c->scn->start);
	c->n_days = (int) (day_of(reach) - c->first_day + 1);
	c->day_gpus = malloc(sizeof(int) * (size_t) (ns > 0 ? ns : 1) * c->n_days);
	if (c->day_gpus == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory for the daily reservations");
	for (int i = 0; i < (ns > 0 ? ns : 1) * c->n_days; i++)
		c->day_gpus[i] = c->opt->perfect ? 0 : -1;
	if (c->opt->perfect)
		for (int s = 0; s < ns; s++)
			true_day_peaks(c, s);
	return GA_OK;
}

/*
 * The peak of service s's forecast at the planned quantile over the hours
 * [now, now + hours), in GPUs clamped as the problem clamps its demand.
 */
static ga_status
forecast_peak(sim_ctx *c, const ga_problem *p, int s, int64_t now, int hours,
			  int *peak, ga_error *err)
{
	const ga_scn_service *svc = &c->scn->services[s];
	double		upper[GA_DAY_MINUTES / 60 + 1];
	int			most = 0;
	ga_status	rc;

	rc = ga_demand_forecast(c->models[s], now / 60, hours, 60, c->opt->quantile,
							svc->capacity_per_gpu, 0, 0, 0, NULL, upper, NULL, NULL, err);
	if (rc != GA_OK)
		return rc;
	for (int h = 0; h < hours; h++)
	{
		int			q = ga_demand_upper_gpus(upper[h], svc->capacity_per_gpu);

		most = q > most ? q : most;
	}
	*peak = ga_reservation_clamp(p, s, most);
	return GA_OK;
}

/*
 * Service s's reservation for the rest of the day from minute now, where
 * the plans' horizon ends before midnight (0 where it reaches it: the
 * planned curve covers the day).  An operator fixes a day's reservation
 * from the forecast of the day, whatever horizon the planner looks at; a
 * day known only as far as a short horizon reaches would be fixed at the
 * peak of its first hours.  The same forecast as the planned curve's, up
 * to midnight.
 */
static ga_status
rest_of_day_peak(sim_ctx *c, const ga_problem *p, int s, int64_t now, int *peak,
				 ga_error *err)
{
	int64_t		midnight = (day_of(now) + 1) * GA_DAY_MINUTES;

	*peak = 0;
	if (now + (int64_t) c->H * c->scn->step_minutes >= midnight)
		return GA_OK;
	return forecast_peak(c, p, s, now, (int) ((midnight - 1) / 60 - now / 60) + 1, peak, err);
}

/*
 * Service s's day_peak (model/problem.h): with a horizon shorter than a
 * day, the most GPUs it needs over the next 24 hours, the truth with
 * perfect knowledge and the forecast's peak otherwise, for the terminal
 * charge past the horizon; 0 with a horizon of a day or more.
 */
static ga_status
day_peak(sim_ctx *c, const ga_problem *p, int s, int64_t now, int *peak,
		 ga_error *err)
{
	*peak = 0;
	if ((int64_t) c->H * c->scn->step_minutes >= GA_DAY_MINUTES)
		return GA_OK;
	if (!c->opt->perfect)
		return forecast_peak(c, p, s, now, 24, peak, err);
	for (int64_t m = now; m < now + GA_DAY_MINUTES; m += c->scn->step_minutes)
	{
		int			d = ga_scenario_true_demand(c->scn, s, m);

		*peak = d > *peak ? d : *peak;
	}
	*peak = ga_reservation_clamp(p, s, *peak);
	return GA_OK;
}

/*
 * The reservation fifo and backfill plan behind at minute now
 * (docs/model.md, Static reservation).  With perfect knowledge every day
 * holds its true peak, known to the end of the days a horizon reaches.
 * With forecasts the plan derives it from its planned curves, and the
 * current day's reservation is fixed by the first plan made in the day,
 * from the forecast of the rest of the day where the horizon is shorter:
 * later plans keep it whatever their forecasts say.
 */
static ga_status
day_reservation(sim_ctx *c, const ga_problem *p, int64_t now,
				ga_reservation **out, ga_error *err)
{
	int			today = (int) (day_of(now) - c->first_day);
	int			offset = ga_minute_of_day(now);
	ga_status	rc;

	if (c->opt->perfect)
	{
		*out = ga_reservation_create(p->n_services, c->n_days - today,
									 p->params.step_minutes, offset);
		if (*out == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory for a reservation");
		for (int s = 0; s < p->n_services; s++)
			for (int d = today; d < c->n_days; d++)
				ga_reservation_set_day(*out, s, d - today,
									   ga_reservation_clamp(p, s, c->day_gpus[(size_t) s * c->n_days + d]));
		return GA_OK;
	}
	if ((rc = ga_reservation_from_demand(p, offset, out, err)) != GA_OK)
		return rc;
	for (int s = 0; s < p->n_services; s++)
	{
		int		   *fixed = &c->day_gpus[(size_t) s * c->n_days + today];

		if (*fixed < 0)
		{
			int			planned = ga_reservation_day(*out, s, 0);
			int			rest;

			if ((rc = rest_of_day_peak(c, p, s, now, &rest, err)) != GA_OK)
			{
				ga_reservation_destroy(*out);
				*out = NULL;
				return rc;
			}
			*fixed = rest > planned ? rest : planned;
		}
		ga_reservation_set_day(*out, s, 0, *fixed);
	}
	return GA_OK;
}

/* ---- dependencies ---- */

/*
 * Whether job i's end satisfies a link of this kind: it ended (after_ok:
 * without being stopped at its time limit) and may be waited past.
 */
static bool
link_satisfied(const sim_ctx *c, int i, bool after_ok)
{
	return c->jobs[i].state == JOB_DONE && !(after_ok && c->jobs[i].stopped);
}

/* A link that can never be satisfied: the job waited for never runs, or failed an after_ok. */
static bool
link_broken(const sim_ctx *c, int i, bool after_ok)
{
	return c->jobs[i].state == JOB_NEVER || (after_ok && c->jobs[i].stopped);
}

/* Every job job j waits for has ended as its link asks. */
static bool
links_satisfied(const sim_ctx *c, int j)
{
	const ga_scn_job *sj = &c->scn->jobs[j];

	for (int a = 0; a < sj->n_after; a++)
		if (!link_satisfied(c, sj->after[a], sj->after_ok[a]))
			return false;
	return true;
}

/*
 * Waiting jobs one of whose links can never be satisfied never run (as
 * the extension cancels them); predecessors come first in arrival order,
 * so one pass in that order follows chains to their ends.
 */
static void
give_up_unsatisfiable(sim_ctx *c)
{
	for (int j = 0; j < c->scn->n_jobs; j++)
	{
		const ga_scn_job *sj = &c->scn->jobs[j];

		if (c->jobs[j].state != JOB_WAITING)
			continue;
		for (int a = 0; a < sj->n_after; a++)
			if (link_broken(c, sj->after[a], sj->after_ok[a]))
				c->jobs[j].state = JOB_NEVER;
	}
}

/* ---- set-up and tear-down ---- */

/* Largest block any pool the job may use holds (its first only, if told). */
static int
largest_block(const sim_ctx *c, const ga_scn_job *sj)
{
	int			largest = ga_pow2_floor(c->scn->pools[sj->pool].n_gpus);

	for (int i = 0; i < sj->n_alt_pools && !c->opt->first_pool_only; i++)
	{
		int			g = ga_pow2_floor(c->scn->pools[sj->alt_pool[i]].n_gpus);

		largest = g > largest ? g : largest;
	}
	return largest;
}

/*
 * A job's time limit in steps, rounded up; 0 for none.  A limit shorter
 * than a step is one step: the rounding down by 1e-9 (so 1 h is 2 steps
 * of 30 min, not 3) must not take a positive limit to 0, which means none.
 */
static int
limit_steps(const ga_scenario *scn, const ga_scn_job *sj)
{
	if (!(sj->time_limit_hours > 0))
		return 0;
	return (int) fmax(1, ceil(sj->time_limit_hours * 60 / scn->step_minutes - 1e-9));
}

static ga_status
init_jobs(sim_ctx *c)
{
	const ga_scenario *scn = c->scn;

	for (int j = 0; j < scn->n_jobs; j++)
	{
		const ga_scn_job *sj = &scn->jobs[j];
		sim_job    *job = &c->jobs[j];

		job->state = JOB_WAITING;
		job->submit_step = ga_scenario_release_step(scn, sj->submit);
		job->true_steps = fmin(sj->work_gpu_hours / c->step_h, MAX_WORK_STEPS);
		job->pool_max = largest_block(c, sj);
		if (sj->gpus_min > job->pool_max)
			job->state = JOB_NEVER;
		job->limit_steps = limit_steps(scn, sj);
		job->est_version = -1;
		c->res->jobs[j].start_step = -1;
		c->res->jobs[j].end_step = -1;
		c->res->jobs[j].first_gpu = -1;
		c->res->jobs[j].size = -1;
	}
	give_up_unsatisfiable(c);
	return GA_OK;
}

/* Teach the estimator history.csv; rows no estimator takes are skipped. */
static ga_status
init_estimator(sim_ctx *c, ga_error *err)
{
	const ga_scenario *scn = c->scn;

	c->est = ga_estimator_create();
	if (c->est == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory creating the estimator");
	for (int h = 0; h < scn->n_history; h++)
	{
		const ga_scn_history *row = &scn->history[h];

		c->known_work_sum += fmin(row->gpus * row->actual_hours, MAX_WORK_STEPS);
		c->known_work_n++;
		(void) ga_estimator_add_history(c->est, row->kind, row->features->items,
										row->features->n, row->gpus,
										row->actual_hours, NULL);
	}
	c->est_dirty = true;
	return GA_OK;
}

static ga_status
init_models(sim_ctx *c, ga_error *err)
{
	int			ns = c->scn->n_services;
	int			day_steps = (GA_DAY_MINUTES + c->scn->step_minutes - 1) / c->scn->step_minutes;
	int			hours;

	c->shape_steps = c->H > day_steps ? c->H : day_steps;
	hours = (int) (((int64_t) c->shape_steps * c->scn->step_minutes) / 60 + 3);
	c->models = calloc(ns > 0 ? ns : 1, sizeof(ga_demand_model *));
	c->demand_cursor = calloc(ns > 0 ? ns : 1, sizeof(int));
	c->hour_upper = calloc(hours, sizeof(double));
	c->step_q = calloc(c->shape_steps, sizeof(int));
	c->step_shaped = calloc(c->shape_steps, sizeof(int));
	if (!c->models || !c->demand_cursor || !c->hour_upper || !c->step_q || !c->step_shaped)
		return ga_error_set(err, GA_ENOMEM, "out of memory creating demand models");
	for (int s = 0; s < ns; s++)
		if ((c->models[s] = ga_demand_model_create(NULL)) == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory creating demand models");
	return GA_OK;
}

static ga_status
ctx_init(sim_ctx *c, const ga_scenario *scn, const ga_sim_options *opt,
		 ga_error *err)
{
	int			n = scn->n_gpus;
	int			nj = scn->n_jobs > 0 ? scn->n_jobs : 1;
	ga_status	rc;

	memset(c, 0, sizeof(*c));
	c->scn = scn;
	c->opt = opt;
	c->T = ga_scenario_steps(scn);
	c->H = (scn->horizon_hours * 60 + scn->step_minutes - 1) / scn->step_minutes;
	c->replan_every = (scn->replan_minutes + scn->step_minutes / 2) / scn->step_minutes;
	if (c->replan_every < 1)
		c->replan_every = 1;
	c->step_h = scn->step_minutes / 60.0;
	c->res = calloc(1, sizeof(ga_sim_result));
	c->jobs = calloc(nj, sizeof(sim_job));
	c->gpu_job = malloc(sizeof(int) * n);
	c->gpu_svc = malloc(sizeof(int) * n);
	c->prev_svc = malloc(sizeof(int) * n);
	if (!c->res || !c->jobs || !c->gpu_job || !c->gpu_svc || !c->prev_svc)
		return ga_error_set(err, GA_ENOMEM, "out of memory starting the simulation");
	c->res->n_jobs = scn->n_jobs;
	c->res->coverage_floor = NAN;
	c->res->jobs = calloc(nj, sizeof(ga_sim_job_trace));
	c->res->record = ga_run_record_create(n, c->T, scn->n_services, c->step_h, 0);
	if (!c->res->jobs || !c->res->record)
		return ga_error_set(err, GA_ENOMEM, "out of memory starting the simulation");
	for (int g = 0; g < n; g++)
		c->gpu_job[g] = c->gpu_svc[g] = c->prev_svc[g] = -1;
	if ((rc = init_jobs(c)) != GA_OK || (rc = init_estimator(c, err)) != GA_OK ||
		(rc = init_days(c, err)) != GA_OK)
		return rc;
	return init_models(c, err);
}

static void
ctx_free(sim_ctx *c)
{
	if (c->models)
		for (int s = 0; s < c->scn->n_services; s++)
			ga_demand_model_destroy(c->models[s]);
	free(c->models);
	free(c->demand_cursor);
	free(c->hour_upper);
	free(c->step_q);
	free(c->step_shaped);
	free(c->day_gpus);
	ga_estimator_destroy(c->est);
	ga_plan_destroy(c->plan);
	ga_problem_destroy(c->problem);
	free(c->jobs);
	free(c->gpu_job);
	free(c->gpu_svc);
	free(c->prev_svc);
}

/* ---- estimates ---- */

static double
fallback_steps(const sim_ctx *c, int j)
{
	double		gpu_hours = c->known_work_n > 0 ?
		c->known_work_sum / c->known_work_n : 4.0 * c->scn->jobs[j].gpus_max;

	return gpu_hours / c->step_h;
}

/* Estimated work of job j in GPU-steps when run on g GPUs. */
static double
estimate_steps(sim_ctx *c, int j, int g)
{
	const ga_scn_job *sj = &c->scn->jobs[j];
	sim_job    *job = &c->jobs[j];
	ga_job_estimate e;

	if (c->opt->perfect)
		return job->true_steps;
	if (job->est_version == c->est_version && job->est_gpus == g)
		return job->est_steps;
	if (ga_estimate_job(c->est, sj->kind, sj->features->items, sj->features->n,
						g, &e, NULL) == GA_OK && isfinite(e.work_gpu_hours) &&
		e.work_gpu_hours > 0)
	{
		job->est_steps = e.work_gpu_hours / c->step_h;
		job->est_ratio = ga_duration_p90_ratio(e.hours_p50, e.hours_p90);
	}
	else
	{
		job->est_ratio = 0;
		if (job->est_version < 0)
			c->res->estimate_fallbacks++;
		job->est_steps = fallback_steps(c, j);
	}
	job->est_version = c->est_version;
	job->est_gpus = g;
	return job->est_steps;
}

static void
refit_estimator(sim_ctx *c)
{
	if (!c->est_dirty || c->opt->perfect)
		return;
	if (ga_estimator_fit(c->est, NULL) == GA_OK)
		c->est_version++;
	c->est_dirty = false;
}

/* ---- demand ---- */

static void
clamp_curve(const ga_scn_service *svc, int *q, int n)
{
	for (int k = 0; k < n; k++)
	{
		if (q[k] < svc->min_gpus)
			q[k] = svc->min_gpus;
		if (q[k] > svc->max_gpus)
			q[k] = svc->max_gpus;
	}
}

/* Feed service s every hour that is over at minute now. */
static ga_status
observe_until(sim_ctx *c, int s, int64_t now, ga_error *err)
{
	const ga_scn_service *svc = &c->scn->services[s];
	int		   *i = &c->demand_cursor[s];

	for (; *i < svc->n_demand && svc->demand_hour[*i] * 60 + 60 <= now; (*i)++)
	{
		ga_status	rc = ga_demand_model_observe(c->models[s], svc->demand_hour[*i],
												 svc->traffic[*i], err);

		if (rc != GA_OK)
			return rc;
	}
	return GA_OK;
}

/*
 * The GPUs service svc can gain or give up in an hour, for the forecast's
 * hourly burst ramp: its churn limit per step times the steps of an hour,
 * at least 1 where a step is longer than an hour (0 would mean no limit
 * and turn the ramp off).
 */
static int
hourly_churn(const sim_ctx *c, const ga_scn_service *svc)
{
	double		per_hour = floor(svc->churn_limit * 60.0 / c->scn->step_minutes + 1e-9);

	return per_hour < 1 ? 1 : (int) per_hour;
}

/*
 * The churn-shaped GPU curve of service s at one quantile of its forecast,
 * over the horizon from minute now; the model has seen every hour over.
 * Forecast and shaped over a day where the horizon is shorter, as the
 * extension does (src/pg/demand.c): a rise past the horizon that the churn
 * limit cannot follow in time is ramped toward in the horizon's last steps.
 */
static ga_status
forecast_curve(sim_ctx *c, int s, int64_t now, double quantile, int *out,
			   ga_error *err)
{
	const ga_scn_service *svc = &c->scn->services[s];
	int			n = c->shape_steps;
	int64_t		from_hour = now / 60;
	int			hours = (int) ((now + (int64_t) n * c->scn->step_minutes - 1) / 60 - from_hour) + 1;
	ga_status	rc;

	rc = ga_demand_forecast(c->models[s], from_hour, hours, 60, quantile,
							svc->capacity_per_gpu, hourly_churn(c, svc), 0, 0, NULL,
							c->hour_upper,
							NULL, NULL, err);
	if (rc != GA_OK)
		return rc;
	for (int k = 0; k < n; k++)
	{
		int64_t		t0 = now + (int64_t) k * c->scn->step_minutes;
		int64_t		t1 = t0 + c->scn->step_minutes - 1;

		c->step_q[k] = 0;
		for (int64_t h = t0 / 60; h <= t1 / 60; h++)
		{
			int			q = ga_demand_upper_gpus(c->hour_upper[h - from_hour], svc->capacity_per_gpu);

			if (q > c->step_q[k])
				c->step_q[k] = q;
		}
	}
	clamp_curve(svc, c->step_q, n);
	ga_churn_shape(c->step_q, n, svc->churn_limit, c->step_shaped);
	memcpy(out, c->step_shaped, sizeof(int) * (size_t) c->H);
	return GA_OK;
}

/*
 * The GPU curves service s is planned for and protected up to, over the
 * horizon from minute now.  With perfect knowledge the demand is the truth
 * and the protect curve is left to ga_problem_finish, which sets it to the
 * demand.
 */
static ga_status
demand_curve(sim_ctx *c, int s, int64_t now, int *demand, int *protect,
			 ga_error *err)
{
	const ga_scn_service *svc = &c->scn->services[s];
	ga_status	rc;

	if (c->opt->perfect)
	{
		for (int k = 0; k < c->H; k++)
			demand[k] = ga_scenario_true_demand(c->scn, s, now + (int64_t) k * c->scn->step_minutes);
		clamp_curve(svc, demand, c->H);
		return GA_OK;
	}
	if ((rc = observe_until(c, s, now, err)) != GA_OK)
		return rc;
	if ((rc = forecast_curve(c, s, now, c->opt->quantile, demand, err)) != GA_OK)
		return rc;
	return forecast_curve(c, s, now, c->opt->protect_quantile, protect, err);
}

/* ---- building a problem ---- */

/*
 * Running jobs, and submitted waiting ones each of whose links is either
 * satisfied or to a job in the problem too: a job waiting for one not yet
 * submitted is not planned.  Predecessors come first in arrival order, so
 * the recursion is shallow in practice and always ends.
 */
static bool
job_in_problem(const sim_ctx *c, int j, int t)
{
	const sim_job *job = &c->jobs[j];
	const ga_scn_job *sj = &c->scn->jobs[j];

	if (job->state == JOB_RUNNING)
		return true;
	if (job->state != JOB_WAITING || job->submit_step > t)
		return false;
	for (int a = 0; a < sj->n_after; a++)
		if (!link_satisfied(c, sj->after[a], sj->after_ok[a]) && !job_in_problem(c, sj->after[a], t))
			return false;
	return true;
}

/*
 * The problem's links: each waiting job's predecessors that have not
 * ended (those that have satisfy their link already).  Problem jobs are in
 * scenario order, so a binary search maps a scenario index to its place.
 */
static int
problem_index(const ga_problem *p, int j)
{
	int			lo = 0,
				hi = p->n_jobs - 1;

	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;

		if (p->jobs[mid].id == j)
			return mid;
		if (p->jobs[mid].id < j)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static void
link_jobs(const sim_ctx *c, ga_problem *p)
{
	for (int k = 0; k < p->n_jobs; k++)
	{
		ga_job	   *pj = &p->jobs[k];
		const ga_scn_job *sj = &c->scn->jobs[pj->id];

		if (pj->pinned)
			continue;
		for (int a = 0; a < sj->n_after; a++)
		{
			int			q = problem_index(p, sj->after[a]);

			if (q < 0)
				continue;		/* ended, satisfying the link */
			pj->preds[pj->n_preds] = q;
			pj->pred_kind[pj->n_preds++] = sj->after_ok[a] ? GA_DEP_OK : GA_DEP_ANY;
		}
	}
}

/*
 * The job's alternative pools, each with its estimated work times the
 * pool's factor: the factor is what the user declares, the estimate what
 * the estimator learnt of the job's work on its first pool.
 */
static void
fill_alt_pools(const sim_ctx *c, ga_job *pj, int j)
{
	const ga_scn_job *sj = &c->scn->jobs[j];

	pj->n_alt_pools = c->opt->first_pool_only ? 0 : sj->n_alt_pools;
	for (int i = 0; i < pj->n_alt_pools; i++)
	{
		pj->alt_pools[i].pool = sj->alt_pool[i];
		pj->alt_pools[i].work_gpu_steps = pj->work_gpu_steps * sj->alt_factor[i];
	}
}

static void
fill_job(sim_ctx *c, ga_job *pj, int j, int t)
{
	const ga_scn_job *sj = &c->scn->jobs[j];
	const ga_sim_job_trace *tr = &c->res->jobs[j];
	int			duration;

	pj->id = j;
	snprintf(pj->name, GA_NAME_LEN, "%s", sj->name);
	pj->pool = sj->pool;
	pj->tenant = sj->tenant;
	pj->priority = sj->priority;
	pj->release_step = 0;
	pj->deadline_step = -1;
	pj->time_limit_steps = c->jobs[j].limit_steps;
	if (c->jobs[j].state == JOB_RUNNING)
	{
		/* it runs on the pool of its block: that pool first, its work there */
		double		factor = ga_scn_job_factor(sj, ga_scenario_pool_of_gpu(c->scn, tr->first_gpu));

		pj->pool = ga_scenario_pool_of_gpu(c->scn, tr->first_gpu);
		pj->priority = sj->priority / factor;
		pj->gpus_min = pj->gpus_max = tr->size;
		pj->work_gpu_steps = estimate_steps(c, j, tr->size) * factor;
		pj->duration_p90_ratio = c->jobs[j].est_ratio;
		pj->pinned = true;
		pj->pinned_start = tr->start_step - t;
		pj->pinned_first_gpu = tr->first_gpu;
		pj->pinned_size = tr->size;
		duration = ga_job_duration(pj, pj->pool, tr->size);
		pj->pinned_end = ga_running_end_step(pj->pinned_start, duration);
		/* it is stopped at its limit: held no longer */
		if (pj->time_limit_steps > 0 && pj->pinned_end > pj->pinned_start + pj->time_limit_steps)
			pj->pinned_end = pj->pinned_start + pj->time_limit_steps > 1
				? pj->pinned_start + pj->time_limit_steps : 1;
		if (pj->pinned_start + duration < 1)
			c->res->overruns++;
		return;
	}
	pj->gpus_min = sj->gpus_min;
	pj->gpus_max = sj->gpus_max < c->jobs[j].pool_max ? sj->gpus_max : c->jobs[j].pool_max;
	pj->work_gpu_steps = estimate_steps(c, j, pj->gpus_max);
	pj->duration_p90_ratio = c->jobs[j].est_ratio;
	fill_alt_pools(c, pj, j);
}

static ga_status
fill_services(sim_ctx *c, ga_problem *p, int t, ga_error *err)
{
	int64_t		now = step_time(c, t);
	int		   *held = malloc(sizeof(int) * (c->scn->n_gpus > 0 ? c->scn->n_gpus : 1));
	ga_status	rc = GA_OK;

	if (held == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory building a problem");
	for (int s = 0; s < p->n_services && rc == GA_OK; s++)
	{
		const ga_scn_service *ss = &c->scn->services[s];
		ga_service *ps = &p->services[s];
		int			n = 0;

		ps->id = s;
		snprintf(ps->name, GA_NAME_LEN, "%s", ss->name);
		ps->pool = ss->pool;
		ps->priority = ss->priority;
		ps->churn_limit = ss->churn_limit;
		ps->churn_budget = -1;
		ps->min_gpus = ss->min_gpus;
		ps->max_gpus = ss->max_gpus;
		rc = demand_curve(c, s, now, ps->demand, ps->protect, err);
		if (rc == GA_OK)
			rc = day_peak(c, p, s, now, &ps->day_peak, err);
		if (rc != GA_OK || t == 0)
			continue;
		for (int g = 0; g < c->scn->n_gpus; g++)
			if (c->gpu_svc[g] == s)
				held[n++] = g;
		rc = ga_problem_set_held(p, s, held, n, err);
	}
	free(held);
	return rc;
}

/* The scenario's maintenance windows, step 0 at window step t. */
static ga_status
fill_windows(sim_ctx *c, ga_problem *p, int t, ga_error *err)
{
	ga_window  *w = malloc(sizeof(ga_window) * (c->scn->n_windows > 0 ? c->scn->n_windows : 1));
	ga_status	rc;

	if (w == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory building a problem");
	rc = ga_problem_set_windows(p, w, ga_scenario_windows_at(c->scn, step_time(c, t), w), err);
	free(w);
	return rc;
}

/* The scenario's advance reservations, step 0 at window step t. */
static ga_status
fill_reservations(sim_ctx *c, ga_problem *p, int t, ga_error *err)
{
	int			n = c->scn->n_reservations;
	ga_advance_reservation *r = malloc(sizeof(ga_advance_reservation) * (n > 0 ? n : 1));
	ga_status	rc;

	if (r == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory building a problem");
	rc = ga_problem_set_advance_reservations(p, r, ga_scenario_reservations_at(c->scn, step_time(c, t), r),
											 err);
	free(r);
	return rc;
}

/*
 * Every queued job's priority times its tenant's fair-share priority
 * factor in its pool (sim/fairshare.h), as Slurm's multifactor priority
 * with the fair-share factor; running jobs keep theirs, jobs of no tenant
 * too.  The fairshare baseline plans so, and fast and full do as the
 * extension's planner does with gpualloc.fairshare on (its default;
 * src/pg/problem_build.c).  Only the plan sees these priorities: the
 * metrics count the jobs' own (record_jobs).
 */
static ga_status
apply_fairshare(sim_ctx *c, ga_problem *p, int t, ga_error *err)
{
	const ga_scenario *scn = c->scn;
	double	   *factor = malloc(sizeof(double) * ((size_t) scn->n_tenants * scn->n_pools + 1));
	ga_status	rc;

	if (factor == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory computing fair-share factors");
	rc = ga_sim_fairshare(scn, c->res->jobs, t, factor, err);
	for (int k = 0; rc == GA_OK && k < p->n_jobs; k++)
		if (!p->jobs[k].pinned && p->jobs[k].tenant >= 0)
			p->jobs[k].priority *= factor[p->jobs[k].tenant * scn->n_pools + p->jobs[k].pool];
	free(factor);
	return rc;
}

/*
 * The tenants' forecast needs (sim/tenant_need.h) for fast and full, the
 * planners with forecasts; the baselines lend idle guarantees as systems
 * without forecasts do, on the planned work alone.
 */
static ga_status
fill_tenant_needs(sim_ctx *c, ga_problem *p, int t, ga_error *err)
{
	const ga_scenario *scn = c->scn;
	ga_sim_need_options no = {c->opt->need_quantile, c->opt->need_lookback_hours, c->opt->perfect,
	c->opt->need_daily};
	ga_tenant_need *needs;
	int		   *gpus;
	int			n = 0;
	ga_status	rc;

	if (scn->n_policies == 0 ||
		(c->opt->policy != GA_POLICY_FAST && c->opt->policy != GA_POLICY_FULL))
		return GA_OK;
	needs = malloc(sizeof(ga_tenant_need) * scn->n_policies);
	gpus = malloc(sizeof(int) * (size_t) scn->n_policies * c->H);
	rc = needs && gpus ? ga_sim_tenant_needs(scn, c->res->jobs, t, c->H, &no, needs, gpus, &n, err)
		: ga_error_set(err, GA_ENOMEM, "out of memory forecasting tenant needs");
	if (rc == GA_OK)
		rc = ga_problem_set_tenant_needs(p, needs, n, err);
	free(needs);
	free(gpus);
	return rc;
}

/* The policies whose plans see fair-share priorities (apply_fairshare). */
static bool
plans_with_fairshare(ga_policy policy)
{
	return policy == GA_POLICY_FAIRSHARE || policy == GA_POLICY_FAST || policy == GA_POLICY_FULL;
}

/*
 * The scenario's tenant policies as the options let the planners see them:
 * all, none, or none borrowing.
 */
static ga_status
set_tenant_policies(const sim_ctx *c, ga_problem *p, ga_error *err)
{
	const ga_scenario *scn = c->scn;
	ga_tenant_policy *tps;
	ga_status	rc;

	if (c->opt->quotas == GA_SIM_QUOTAS_OFF || scn->n_policies == 0)
		return GA_OK;
	tps = malloc(sizeof(ga_tenant_policy) * scn->n_policies);
	if (tps == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory copying tenant policies");
	memcpy(tps, scn->policies, sizeof(ga_tenant_policy) * scn->n_policies);
	for (int i = 0; c->opt->quotas == GA_SIM_QUOTAS_NO_BORROWING && i < scn->n_policies; i++)
		tps[i].borrow_limit = 0;
	rc = ga_problem_set_tenant_policies(p, tps, scn->n_policies, err);
	free(tps);
	return rc;
}

static ga_status
build_problem(sim_ctx *c, int t, ga_problem **out, ga_error *err)
{
	const ga_scenario *scn = c->scn;
	ga_params	params = {0};
	ga_problem *p;
	int			n = 0;
	ga_status	rc;

	*out = NULL;
	params.n_steps = c->H;
	params.step_minutes = scn->step_minutes;
	params.penalty = scn->penalty;
	params.half_life_hours = scn->half_life_hours;
	params.headroom = c->opt->headroom;
	params.headroom_min = c->opt->perfect ? 0 : c->opt->headroom_min;
	params.overrun_margin = c->opt->perfect ? 0 : c->opt->overrun_margin;
	params.overrun_spread = c->opt->perfect ? 0 : c->opt->overrun_spread;
	for (int j = 0; j < scn->n_jobs; j++)
		n += job_in_problem(c, j, t);
	p = ga_problem_create(scn->n_pools, scn->n_gpus, n, scn->n_services, &params);
	if (p == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory building a problem");
	memcpy(p->pools, scn->pools, sizeof(ga_pool) * scn->n_pools);
	refit_estimator(c);
	n = 0;
	for (int j = 0; j < scn->n_jobs; j++)
		if (job_in_problem(c, j, t))
			fill_job(c, &p->jobs[n++], j, t);
	link_jobs(c, p);
	rc = plans_with_fairshare(c->opt->policy) ? apply_fairshare(c, p, t, err) : GA_OK;
	if (rc == GA_OK)
		rc = fill_services(c, p, t, err);
	if (rc == GA_OK)
		rc = fill_windows(c, p, t, err);
	if (rc == GA_OK)
		rc = fill_reservations(c, p, t, err);
	if (rc == GA_OK)
		rc = set_tenant_policies(c, p, err);
	if (rc == GA_OK && c->opt->quotas != GA_SIM_QUOTAS_OFF)
		rc = fill_tenant_needs(c, p, t, err);
	if (rc == GA_OK)
		rc = ga_problem_finish(p, err);
	if (rc != GA_OK)
	{
		ga_problem_destroy(p);
		return rc;
	}
	*out = p;
	return GA_OK;
}

/* ---- planning ---- */

/* A baseline's plan of the problem built at window step t. */
static ga_status
plan_baseline(sim_ctx *c, const ga_problem *p, int t, ga_plan **plan,
			  ga_error *err)
{
	ga_reservation *res;
	ga_status	rc = day_reservation(c, p, step_time(c, t), &res, err);

	if (rc != GA_OK)
		return rc;
	if (c->opt->policy == GA_POLICY_FIFO)
		rc = ga_plan_fifo(p, res, plan, err);
	else if (c->opt->policy == GA_POLICY_QUOTA)
		rc = ga_plan_quota(p, res, plan, err);
	else						/* backfill, fairshare on priorities the
								 * fair-share factors lowered */
		rc = ga_plan_backfill(p, res, plan, err);
	ga_reservation_destroy(res);
	return rc;
}

static ga_status
solve(sim_ctx *c, const ga_problem *p, int t, ga_plan **plan, ga_error *err)
{
	ga_solve_options so = {0};

	switch (c->opt->policy)
	{
		case GA_POLICY_FIFO:
		case GA_POLICY_BACKFILL:
		case GA_POLICY_QUOTA:
		case GA_POLICY_FAIRSHARE:
			return plan_baseline(c, p, t, plan, err);
		case GA_POLICY_FAST:
			so.time_limit_ms = c->opt->fast_ms;
			return ga_solve_fast(p, &so, plan, err);
		case GA_POLICY_FULL:
			so.time_limit_ms = c->opt->full_ms;
			return ga_solve_full(p, &so, plan, err);
		case GA_POLICY_ORACLE:
			break;
	}
	return ga_error_set(err, GA_EINVAL, "policy \"%s\" does not plan step by step",
						ga_policy_name(c->opt->policy));
}

static ga_status
replan(sim_ctx *c, int t, ga_error *err)
{
	ga_problem *p;
	ga_plan    *plan = NULL;
	double		t0;
	ga_status	rc;

	if ((rc = build_problem(c, t, &p, err)) != GA_OK)
		return rc;
	t0 = ga_now_ms();
	rc = solve(c, p, t, &plan, err);
	if (rc == GA_OK)
		rc = ga_run_record_add_solve(c->res->record, ga_now_ms() - t0, err);
	if (rc == GA_OK && c->opt->validate &&
		(c->opt->policy == GA_POLICY_FAST || c->opt->policy == GA_POLICY_FULL))
	{
		ga_error	verr;

		if (ga_validate(p, plan, &verr) != GA_OK)
			rc = ga_error_set(err, GA_EILLEGAL, "%s plan at step %d is illegal: %s",
							  ga_policy_name(c->opt->policy), t, verr.message);
		else
			c->res->plans_validated++;
	}
	if (rc != GA_OK)
	{
		ga_plan_destroy(plan);
		ga_problem_destroy(p);
		return rc;
	}
	ga_plan_destroy(c->plan);
	ga_problem_destroy(c->problem);
	c->plan = plan;
	c->problem = p;
	c->plan_step = t;
	c->res->plans++;
	return GA_OK;
}

/* ---- one step of reality ---- */

static void
finish_jobs(sim_ctx *c, int t)
{
	for (int j = 0; j < c->scn->n_jobs; j++)
	{
		ga_sim_job_trace *tr = &c->res->jobs[j];
		const ga_scn_job *sj = &c->scn->jobs[j];

		if (c->jobs[j].state != JOB_RUNNING || tr->end_step != t)
			continue;
		c->jobs[j].state = JOB_DONE;
		for (int g = tr->first_gpu; g < tr->first_gpu + tr->size; g++)
			c->gpu_job[g] = -1;
		if (c->jobs[j].stopped)
			continue;			/* stopped at its limit: its work is unknown */
		c->known_work_sum += fmin(sj->work_gpu_hours, MAX_WORK_STEPS);
		c->known_work_n++;
		if (ga_estimator_add_history(c->est, sj->kind, sj->features->items,
									 sj->features->n, tr->size,
									 sj->work_gpu_hours / tr->size, NULL) == GA_OK)
			c->est_dirty = true;
	}
	give_up_unsatisfiable(c);
}

static bool
block_idle(const sim_ctx *c, int first, int size)
{
	for (int g = first; g < first + size; g++)
		if (c->gpu_job[g] >= 0)
			return false;
	return true;
}

/* Start the jobs the plan starts at its step k, where reality lets them. */
static void
start_jobs(sim_ctx *c, int t, int k)
{
	const ga_plan *plan = c->plan;

	for (int pj = 0; pj < c->problem->n_jobs; pj++)
	{
		int			j = (int) c->problem->jobs[pj].id;
		ga_sim_job_trace *tr = &c->res->jobs[j];

		if (c->problem->jobs[pj].pinned || plan->job_start[pj] != k ||
			plan->job_size[pj] <= 0 || c->jobs[j].state != JOB_WAITING)
			continue;
		if (!block_idle(c, plan->job_first_gpu[pj], plan->job_size[pj]))
			continue;			/* an overrunning job still holds the block */
		if (!links_satisfied(c, j))
			continue;			/* a predecessor has not really ended yet */
		c->jobs[j].state = JOB_RUNNING;
		tr->start_step = t;
		tr->first_gpu = plan->job_first_gpu[pj];
		tr->size = plan->job_size[pj];
		tr->end_step = t + true_duration(c, j, ga_scenario_pool_of_gpu(c->scn, tr->first_gpu), tr->size);
		/* past its limit it is stopped, the rest of its work lost */
		if (c->jobs[j].limit_steps > 0 && tr->end_step > t + c->jobs[j].limit_steps)
		{
			tr->end_step = t + c->jobs[j].limit_steps;
			c->jobs[j].stopped = true;
		}
		for (int g = tr->first_gpu; g < tr->first_gpu + tr->size; g++)
			c->gpu_job[g] = j;
	}
}

static void
serve_and_record(sim_ctx *c, int t, int k)
{
	ga_run_record *rec = c->res->record;
	int			nj = c->problem->n_jobs;
	int			busy = 0;

	for (int g = 0; g < c->scn->n_gpus; g++)
	{
		int32_t		w = ga_plan_get(c->plan, g, k);

		c->gpu_svc[g] = -1;
		if (c->gpu_job[g] >= 0)
			busy++;
		else if (w >= nj)
			c->gpu_svc[g] = w - nj;
		if ((c->gpu_job[g] >= 0 || c->gpu_svc[g] >= 0) &&
			ga_scenario_closed(c->scn, c->gpu_job[g] >= 0 ? c->scn->jobs[c->gpu_job[g]].tenant : -1,
							   g, step_time(c, t), step_time(c, t + 1)))
			rec->window_busy[t]++;
	}
	rec->batch_gpus[t] = busy;
	for (int s = 0; s < c->scn->n_services; s++)
	{
		size_t		i = (size_t) s * c->T + t;
		int			alloc = 0,
					churn = 0;

		for (int g = 0; g < c->scn->n_gpus; g++)
		{
			alloc += c->gpu_svc[g] == s;
			churn += (c->gpu_svc[g] == s) != (c->prev_svc[g] == s);
		}
		rec->svc_alloc[i] = alloc;
		rec->svc_churn[i] = t > 0 ? churn : 0;
		rec->svc_demand[i] = ga_scenario_true_demand(c->scn, s, step_time(c, t));
	}
	memcpy(c->prev_svc, c->gpu_svc, sizeof(int) * c->scn->n_gpus);
}

/*
 * Job j started before a job it waits for really ended (or one that never
 * started): what the metrics count as a dependency violation.  Judged from
 * the trace alone, not from the checks that prevent it.
 */
static bool
started_before_predecessor(const sim_ctx *c, int j)
{
	const ga_scn_job *sj = &c->scn->jobs[j];
	const ga_sim_job_trace *tr = &c->res->jobs[j];

	for (int a = 0; a < sj->n_after; a++)
	{
		const ga_sim_job_trace *pt = &c->res->jobs[sj->after[a]];

		if (pt->start_step < 0 || pt->end_step > tr->start_step ||
			(sj->after_ok[a] && c->jobs[sj->after[a]].stopped))
			return true;
	}
	return false;
}

/*
 * Whether job j waited for reservation r: of its tenant, on its pool, with
 * GPUs enough for it, and queued before r opened without having started.
 */
static bool
waited_for(const sim_ctx *c, int j, const ga_scn_reservation *r, int opens)
{
	const ga_scn_job *sj = &c->scn->jobs[j];
	int			start = c->res->jobs[j].start_step;

	return sj->tenant == r->tenant && sj->pool == r->cells.pool &&
		sj->gpus_min <= r->cells.n_gpus && sj->submit < r->cells.start &&
		(start < 0 || start >= opens);
}

/* Whether every GPU of reservation r runs a job of its tenant at step t. */
static bool
tenant_fills(const sim_ctx *c, const ga_scn_reservation *r, int t)
{
	for (int g = r->cells.first_gpu; g < r->cells.first_gpu + r->cells.n_gpus; g++)
	{
		bool		held = false;

		for (int j = 0; !held && j < c->scn->n_jobs; j++)
		{
			const ga_sim_job_trace *tr = &c->res->jobs[j];

			held = c->scn->jobs[j].tenant == r->tenant && tr->start_step >= 0 &&
				tr->start_step <= t && t < tr->end_step &&
				g >= tr->first_gpu && g < tr->first_gpu + tr->size;
		}
		if (!held)
			return false;
	}
	return true;
}

/*
 * For each advance reservation opening inside the window that jobs waited
 * for (waited_for), the steps from its start to the first step at which
 * one of them starts or every GPU of the reservation runs its tenant's
 * work (the window's end if neither happens): how long the tenant's
 * waiting work was kept from GPUs held for it.  The largest, or -1 when
 * no job waited for any.
 */
static int
reservation_delay(const sim_ctx *c)
{
	int			worst = -1;

	for (int i = 0; i < c->scn->n_reservations; i++)
	{
		const ga_scn_reservation *r = &c->scn->reservations[i];
		int			opens = (int) ((r->cells.start - c->scn->start) / c->scn->step_minutes);
		int			first = c->T;
		bool		waited = false;

		if (r->cells.start < c->scn->start || r->cells.start >= c->scn->end)
			continue;
		for (int j = 0; j < c->scn->n_jobs; j++)
			if (waited_for(c, j, r, opens))
			{
				int			start = c->res->jobs[j].start_step;

				waited = true;
				if (start >= 0 && start < first)
					first = start;
			}
		for (int t = opens; waited && t < first; t++)
			if (tenant_fills(c, r, t))
				first = t;
		if (waited && first - opens > worst)
			worst = first - opens;
	}
	return worst;
}

/* Per-job outcomes of the jobs submitted inside the window. */
static ga_status
record_jobs(sim_ctx *c, ga_error *err)
{
	ga_run_record *rec = c->res->record;
	int			n = 0;

	rec->jobs = realloc(rec->jobs, sizeof(ga_job_outcome) * (c->scn->n_jobs > 0 ? c->scn->n_jobs : 1));
	if (rec->jobs == NULL)
		return ga_error_set(err, GA_ENOMEM, "out of memory recording jobs");
	for (int j = 0; j < c->scn->n_jobs; j++)
	{
		const ga_scn_job *sj = &c->scn->jobs[j];
		const ga_sim_job_trace *tr = &c->res->jobs[j];
		ga_job_outcome *o = &rec->jobs[n];
		int64_t		started_at;

		if (sj->submit >= c->scn->end)
			continue;
		n++;
		memset(o, 0, sizeof(*o));
		o->priority = sj->priority;
		o->started = tr->start_step >= 0;
		started_at = o->started ? step_time(c, tr->start_step) : step_time(c, c->T);
		o->wait_hours = (started_at - sj->submit) / 60.0;
		if (o->wait_hours < 0)
			o->wait_hours = 0;
		if (o->started)
		{
			int			to = tr->end_step < c->T ? tr->end_step : c->T;

			o->gpu_hours = (double) tr->size * (to - tr->start_step) * c->step_h;
			o->pool_factor = ga_scn_job_factor(sj, ga_scenario_pool_of_gpu(c->scn, tr->first_gpu));
			o->completed = tr->end_step <= c->T && !c->jobs[j].stopped;
			o->stopped = c->jobs[j].stopped && tr->end_step <= c->T;
			o->started_early = started_before_predecessor(c, j);
		}
	}
	rec->n_jobs = n;
	rec->reservation_delay = reservation_delay(c);
	return GA_OK;
}

/* jain_index and min_entitlement_share, when the scenario has tenant policies. */
static ga_status
tenant_fairness(sim_ctx *c, ga_error *err)
{
	ga_tenant_figures *f;
	int			n;

	if (c->scn->n_policies == 0)
		return GA_OK;
	f = malloc(sizeof(ga_tenant_figures) * (c->scn->n_tenants + 1));
	n = f ? ga_tenant_figures_compute(c->scn, c->res, f) : -1;
	if (n >= 0)
		ga_tenant_fairness(f, n, &c->res->metrics.jain_index,
						   &c->res->metrics.min_entitlement_share);
	free(f);
	return n < 0 ? ga_error_set(err, GA_ENOMEM, "out of memory computing tenant fairness") : GA_OK;
}

static ga_status
run_loop(sim_ctx *c, ga_error *err)
{
	ga_status	rc;

	for (int t = 0; t < c->T; t++)
	{
		int			k;

		finish_jobs(c, t);
		if (c->plan == NULL || t - c->plan_step >= c->replan_every ||
			t - c->plan_step >= c->plan->n_steps)
			if ((rc = replan(c, t, err)) != GA_OK)
				return rc;
		k = t - c->plan_step;
		start_jobs(c, t, k);
		serve_and_record(c, t, k);
	}
	if ((rc = record_jobs(c, err)) != GA_OK)
		return rc;
	if ((rc = ga_metrics_compute(c->res->record, &c->res->metrics, err)) != GA_OK)
		return rc;
	return tenant_fairness(c, err);
}

ga_status
ga_sim_first_problem(const ga_scenario *scn, const ga_sim_options *opt,
					 ga_problem **out, ga_error *err)
{
	sim_ctx		c;
	ga_status	rc;

	*out = NULL;
	if (opt->policy != GA_POLICY_FAST && opt->policy != GA_POLICY_FULL)
		return ga_error_set(err, GA_EINVAL, "policy: the first problem is fast's or full's, not %s's",
							ga_policy_name(opt->policy));
	rc = ctx_init(&c, scn, opt, err);
	if (rc == GA_OK)
		rc = build_problem(&c, 0, out, err);
	ctx_free(&c);
	ga_sim_result_destroy(c.res);
	return rc;
}

ga_status
ga_simulate(const ga_scenario *scn, const ga_sim_options *opt,
			ga_sim_result **out, ga_error *err)
{
	sim_ctx		c;
	ga_status	rc;

	*out = NULL;
	if (opt->policy == GA_POLICY_ORACLE)
	{
		ga_oracle_options oopt;

		ga_oracle_options_default(&oopt);
		oopt.coverage_floor = opt->oracle_coverage;
		return ga_oracle_bound(scn, &oopt, out, NULL, err);
	}
	rc = ctx_init(&c, scn, opt, err);
	if (rc == GA_OK)
		rc = run_loop(&c, err);
	ctx_free(&c);
	if (rc != GA_OK)
	{
		ga_sim_result_destroy(c.res);
		return rc;
	}
	*out = c.res;
	return GA_OK;
}
