/*
 * problem.h — one planning problem: the cluster, the batch jobs, the
 * real-time services and the parameters of the model (docs/model.md, The model).
 *
 * Indexing conventions, used by every solver and by the validator:
 *   - GPUs are numbered 0..n_gpus-1 in topology order (pool, node, slot).
 *     Each pool owns a contiguous range [first_gpu, first_gpu + n_gpus).
 *   - A batch block of size 2^k is aligned when (first - pool.first_gpu) is a
 *     multiple of 2^k and the block lies inside the pool.
 *   - Steps are numbered 0..n_steps-1; step 0 starts at plan time.
 *   - Workloads in a plan grid: 0..n_jobs-1 are jobs, n_jobs + s is service s.
 *
 * The problem owns every array it points to; ga_problem_create allocates them
 * from the sizes given and ga_problem_destroy frees them.
 */
#ifndef GPUALLOC_PROBLEM_H
#define GPUALLOC_PROBLEM_H

#include "model/common.h"

#include <math.h>

#define GA_NAME_LEN 64

/*
 * Job dependencies (docs/model.md, Dependencies): a job may wait for at most
 * GA_MAX_PREDS other jobs of the same problem.  The kind says what the
 * predecessor's end must be for the job ever to run: GA_DEP_OK a success,
 * GA_DEP_ANY any end.  Planning treats both alike (the job starts no earlier
 * than each predecessor's planned end); the kind matters only once the
 * predecessor really ends, to the caller that decides whether the job can
 * still run.
 */
#define GA_MAX_PREDS 8

typedef enum ga_dep_kind
{
	GA_DEP_OK = 0,
	GA_DEP_ANY = 1
} ga_dep_kind;

typedef struct ga_pool
{
	char		name[GA_NAME_LEN];
	int			first_gpu;
	int			n_gpus;
} ga_pool;

/*
 * A maintenance window: GPUs [first_gpu, first_gpu + n_gpus) of one pool
 * (global indices) are closed over steps [start_step, end_step).  The steps
 * may lie before step 0 or past the horizon: a job whose run would reach a
 * window past the horizon does not start on its GPUs either.  Nothing new is
 * placed on a closed cell, neither a job's run nor a service; a job already
 * running there (pinned) keeps its block (docs/model.md, Maintenance
 * windows).
 */
typedef struct ga_window
{
	int			pool;			/* index into problem->pools */
	int			first_gpu;
	int			n_gpus;			/* >= 1, inside the pool */
	int			start_step;
	int			end_step;		/* exclusive, > start_step */
} ga_window;

/*
 * Several pools (docs/model.md, Several pools): a job may name further
 * pools it can run on, in preference order after its first one, each with
 * the work it needs there (a GPU model of another speed needs more or less
 * of it).  Entry 0 is the job's own `pool` and `work_gpu_steps`, so a job
 * with no alternative is planned exactly as before.
 */
#define GA_MAX_JOB_POOLS 4

typedef struct ga_job_pool
{
	int			pool;			/* index into problem->pools */
	double		work_gpu_steps; /* the job's work on that pool */
} ga_job_pool;

/*
 * An advance reservation: the cells of a window held for one tenant.  Only
 * that tenant's jobs may be placed on them; a job of another tenant, a job
 * of no tenant and a service are kept off them as off a window's (a job
 * already running there, pinned, keeps its block).  The functions that
 * read it are in model/advance_reservation.h (docs/model.md, Advance
 * reservations).
 */
typedef struct ga_advance_reservation
{
	ga_window	cells;			/* pool, GPUs and steps held */
	int			tenant;			/* the tenant they are held for, >= 0 */
} ga_advance_reservation;

/*
 * A tenant's quota in one pool (docs/model.md, Tenant quotas), as a row of
 * gpualloc.tenant_policies: GPUs it is guaranteed, the most it may hold,
 * how many GPUs above its guarantee it may borrow from the idle guarantees
 * of its cohort, its fair-share weight and its cohort.  A tenant with no
 * policy in a pool is guaranteed nothing there, has no limit and borrows
 * nothing.  The functions that read quotas are in model/tenant_quota.h.
 */
#define GA_NO_LIMIT (-1)

typedef struct ga_tenant_policy
{
	int			tenant;			/* the index jobs carry, >= 0 */
	int			pool;			/* index into problem->pools */
	int			guarantee;		/* GPUs, >= 0 */
	int			limit;			/* GPUs, >= guarantee; GA_NO_LIMIT = none */
	int			borrow_limit;	/* GPUs above the guarantee it may borrow
								 * from its cohort, >= 0 (0 = none) */
	double		weight;			/* fair-share weight, finite and > 0 */
	int			cohort;			/* index >= 0, or -1 for none: lends and
								 * borrows nothing */
} ga_tenant_policy;

/*
 * A tenant's forecast need in one pool: the GPUs its own work is expected
 * to ask for at each step of the horizon (>= 0), work not yet submitted
 * included.  Rule R10 lends only the part of a guarantee that neither the
 * tenant's planned work nor this forecast claims (docs/model.md, Tenant
 * quotas), so borrowed GPUs are back before the lender needs them.  Set by
 * ga_problem_set_tenant_needs (model/tenant_quota.h); without one a
 * tenant's need is 0 at every step.
 */
typedef struct ga_tenant_need
{
	int			tenant;			/* the index jobs carry, >= 0 */
	int			pool;			/* index into problem->pools */
	int		   *gpus;			/* [params.n_steps], owned by the problem */
} ga_tenant_need;

typedef struct ga_job
{
	int64_t		id;				/* the caller's key (jobs.job_id) */
	char		name[GA_NAME_LEN];
	int			pool;			/* index into problem->pools */
	double		priority;		/* > 0, finite */
	int			gpus_min;		/* power of two */
	int			gpus_max;		/* power of two, >= gpus_min */
	double		work_gpu_steps; /* estimated work: duration at g GPUs is
								 * ceil(work_gpu_steps / g) steps */
	int			release_step;	/* earliest start step (>= 0) */
	int			deadline_step;	/* latest end step (exclusive); -1 = none */

	/*
	 * A job already running at plan time is pinned: it keeps its block and
	 * occupies steps [max(0, pinned_start), min(pinned_end, n_steps)).
	 * pinned_start may be negative (started before the plan); pinned_end is
	 * at least 1 (an overrunning job is given one more step by the caller).
	 */
	bool		pinned;
	int			pinned_start;
	int			pinned_end;
	int			pinned_first_gpu;
	int			pinned_size;

	/*
	 * Hard limit on the job's run in steps; 0 = none.  Its planned run is
	 * min(estimated duration, time_limit_steps) (ga_job_duration): past the
	 * limit the job is stopped, so it never holds its block longer.
	 */
	int			time_limit_steps;

	/*
	 * Predecessors: indices into problem->jobs, each different from this
	 * job, no cycle.  A job not pinned starts no earlier than the planned
	 * end of each predecessor and is placed only when every predecessor is
	 * (rule R7); a pinned job already runs, so its predecessors are ignored.
	 */
	int			n_preds;
	int			preds[GA_MAX_PREDS];
	uint8_t		pred_kind[GA_MAX_PREDS];	/* ga_dep_kind */

	/*
	 * Alternative pools after `pool`, in preference order, each different
	 * from `pool` and from the others, work finite and positive.  A
	 * placement's pool is that of its block, its duration that pool's work
	 * (ga_job_duration).  A pinned job runs on `pool`: the caller puts the
	 * pool it runs on first.
	 */
	int			n_alt_pools;	/* 0 .. GA_MAX_JOB_POOLS - 1 */
	ga_job_pool alt_pools[GA_MAX_JOB_POOLS - 1];

	/*
	 * The tenant that owns the job, an index the caller chooses (>= 0), or
	 * -1 for none (ga_problem_create's default).  It matters to advance
	 * reservations (a job runs on reserved cells only when they are held
	 * for its tenant) and to tenant quotas (rules R9 and R10).
	 */
	int			tenant;

	/*
	 * The spread of the duration estimate: its p90 over its p50 (above 1),
	 * or 0 when the estimate has none (work the submitter declared, a
	 * fallback, perfect knowledge); 1 counts as none.  It sets how far the
	 * protect rule lengthens the job's run (ga_job_overrun_margin).
	 */
	double		duration_p90_ratio;
} ga_job;

/* Pools job may run on: its own and its alternatives. */
static inline int
ga_job_n_pools(const ga_job *job)
{
	return 1 + job->n_alt_pools;
}

/* The job's i-th pool in preference order (0 = job->pool). */
static inline int
ga_job_pool_at(const ga_job *job, int i)
{
	return i == 0 ? job->pool : job->alt_pools[i - 1].pool;
}

/* The job's work on its i-th pool. */
static inline double
ga_job_work_at(const ga_job *job, int i)
{
	return i == 0 ? job->work_gpu_steps : job->alt_pools[i - 1].work_gpu_steps;
}

/* Preference rank of `pool` among the job's pools; -1 when not one of them. */
int			ga_job_pool_rank(const ga_job *job, int pool);

/*
 * The job as if its i-th pool were its only one: pool and work of that
 * entry, no alternative, and the priority its GPU-steps are worth there.
 * A job is valued for the work it does, not the GPU-steps it holds: its
 * priority is the value of a GPU-step on its first pool, and a GPU-step on
 * pool i does work_0 / work_i of that work, so it is worth priority *
 * work_0 / work_i (ga_job_rate).  The planners place a job of several
 * pools by placing each of these views and keeping the best; the objective
 * values a placed job as the view of its block's pool.
 */
ga_job		ga_job_on_pool(const ga_job *job, int i);

/* Value of one GPU-step of the job on its i-th pool (see ga_job_on_pool). */
static inline double
ga_job_rate(const ga_job *job, int i)
{
	return i == 0 ? job->priority
		: job->priority * job->work_gpu_steps / ga_job_work_at(job, i);
}

typedef struct ga_service
{
	int64_t		id;
	char		name[GA_NAME_LEN];
	int			pool;
	double		priority;		/* > 0, finite */
	int			churn_limit;	/* max GPUs handed over between consecutive
								 * steps (>= 1) */
	int			churn_budget;	/* max total handovers over the horizon; -1 =
								 * none */
	int			min_gpus;		/* a floor the caller folds into demand (soft,
								 * penalised like any shortfall) */
	int			max_gpus;		/* hard cap on GPUs per step */
	int		   *demand;			/* forecast demand in GPUs per step
								 * [n_steps] */

	/*
	 * The protect curve: GPUs the service may need per step at a high
	 * quantile of its forecast [n_steps].  Optional: ga_problem_finish lifts
	 * it to the demand, so a caller that leaves it at zero protects only the
	 * planned curve.  The planners start a job only where every step of its
	 * run leaves its pool enough GPUs outside batch work for the protect
	 * curves of the pool's services, and hand a service part of the margin
	 * above its demand as headroom (docs/model.md, Protect curve and
	 * headroom).  The objective and the validator do not read it.
	 */
	int		   *protect;

	/*
	 * With a horizon shorter than a day: the most GPUs the service is
	 * expected to need over the next 24 hours (its forecast's peak at the
	 * planned quantile), which the terminal charge expects after the
	 * horizon (model/terminal.h); 0 when not known.  Ignored with a
	 * horizon of a day or more, which holds the day itself.
	 */
	int			day_peak;

	/*
	 * GPUs the service holds now (global indices), so step 0 is charged
	 * churn against reality.  held_known = false means no history: step 0 is
	 * free of churn (first plan ever).
	 */
	bool		held_known;
	int			n_held;
	int		   *held_gpus;		/* [n_held], allocated by
								 * ga_problem_set_held */
} ga_service;

/* The most steps a plan's horizon may hold. */
#define GA_MAX_STEPS 10000

typedef struct ga_params
{
	int			n_steps;		/* horizon length in steps (48) */
	int			step_minutes;	/* 30 */
	double		penalty;		/* shortfall penalty per GPU-step (8) */
	double		half_life_hours;	/* decay half-life (12) */

	/*
	 * Share of each service's forecast uncertainty (protect curve minus
	 * demand, rounded up) that the planners hand the service as idle GPUs
	 * it holds, from 0 to 1 (GA_HEADROOM_DEFAULT in the extension and the
	 * simulator; 0 in a zeroed ga_params).
	 */
	double		headroom;

	/*
	 * GPUs above its demand that each service is handed from idle GPUs at
	 * least at a step where it has demand, whatever its protect curve, >= 0
	 * (GA_HEADROOM_MIN_DEFAULT in
	 * the extension and the simulator; 0 in a zeroed ga_params).  Where the
	 * forecast is narrow the protect curve rounds to the demand and the
	 * share above hands nothing, yet a GPU idle in the plan serves no one:
	 * held by the service it covers demand a step above the forecast.
	 */
	int			headroom_min;

	/*
	 * Share of its estimated run by which the protect rule lengthens a job's
	 * run, >= 0 (GA_OVERRUN_MARGIN_DEFAULT in the extension and the
	 * simulator; 0 in a zeroed ga_params): a job is not preempted when it
	 * outlives its estimate, so the GPUs it holds stay out of the services'
	 * reach until it really ends.
	 */
	double		overrun_margin;

	/*
	 * Share of the spread of a job's duration estimate (p90 / p50 - 1) by
	 * which the protect rule lengthens the run of a job whose estimate has
	 * one, in [0, 10]; 0 (GA_OVERRUN_SPREAD_DEFAULT in the extension and the
	 * simulator): every job by overrun_margin.  Above 0, a job whose
	 * duration is well known keeps less room from the services than one
	 * whose duration is not (docs/simulator.md, The overrun spread, has
	 * what that did to coverage).
	 */
	double		overrun_spread;
} ga_params;

/*
 * Defaults of the protect curve's quantile (gpualloc.protect_quantile,
 * gpualloc-sim --protect-quantile), of the headroom (gpualloc.headroom,
 * --headroom; gpualloc.headroom_min, --headroom-min) and of the overrun
 * margin, chosen on tuning scenarios only (docs/simulator.md, Protect curve
 * and headroom).
 */
#define GA_PROTECT_QUANTILE_DEFAULT 0.99
#define GA_HEADROOM_DEFAULT 1.0
#define GA_HEADROOM_MIN_DEFAULT 1
#define GA_HEADROOM_MIN_MAX 100000
#define GA_OVERRUN_MARGIN_DEFAULT 0.6
#define GA_OVERRUN_SPREAD_DEFAULT 0
/* The widest spread a duration estimate may declare (a p90 100 times the p50). */
#define GA_DURATION_P90_RATIO_MAX 100

typedef struct ga_problem
{
	ga_params	params;

	int			n_pools;
	ga_pool    *pools;

	int			n_gpus;
	bool	   *gpu_usable;		/* [n_gpus]: false = drained or down; no new
								 * placement (pinned jobs keep running) */

	int			n_jobs;
	ga_job	   *jobs;

	int			n_services;
	ga_service *services;

	int			n_windows;		/* maintenance windows, set by
								 * ga_problem_set_windows */
	ga_window  *windows;

	int			n_reservations; /* advance reservations, set by
								 * ga_problem_set_advance_reservations */
	ga_advance_reservation *reservations;

	int			n_policies;		/* tenant quotas, set by
								 * ga_problem_set_tenant_policies */
	ga_tenant_policy *policies;

	int			n_needs;		/* tenants' forecast needs, set by
								 * ga_problem_set_tenant_needs */
	ga_tenant_need *needs;

	double	   *decay;			/* [n_steps], filled by ga_problem_finish */
	double		tail_decay;		/* decay at step n_steps, the first past the
								 * horizon (ga_job_tail_value) */
	double		step_decay;		/* decay of one step: decay[t+1] / decay[t] */
} ga_problem;

/* Allocate a zeroed problem with every array sized; NULL on out of memory. */
ga_problem *ga_problem_create(int n_pools, int n_gpus, int n_jobs,
							  int n_services, const ga_params *params);
void		ga_problem_destroy(ga_problem *problem);

/* Give service s its currently held GPUs (copied). */
ga_status	ga_problem_set_held(ga_problem *problem, int s, const int *gpus,
								int n_held, ga_error *err);

/* Give the problem its maintenance windows (copied; replaces any before). */
ga_status	ga_problem_set_windows(ga_problem *problem, const ga_window *windows,
								   int n_windows, ga_error *err);

/*
 * True when GPU g is closed to a service at step t: it lies in a
 * maintenance window or in an advance reservation (held for a tenant, so
 * for no service).
 */
bool		ga_gpu_closed(const ga_problem *problem, int g, int t);

/*
 * The first maintenance window, or cells of an advance reservation held for
 * another tenant than `tenant` (-1: no tenant, closed by every reservation),
 * that touches the block [first, first + size) at some step of
 * [start, end), past the horizon too; NULL when none does.  The one
 * closed-cell test of windows and reservations alike.
 */
const ga_window *ga_closing(const ga_problem *problem, int tenant, int first,
							int size, int start, int end);

/* True when ga_closing finds something: the block is closed to the tenant. */
bool		ga_block_closed(const ga_problem *problem, int tenant, int first,
							int size, int start, int end);

/*
 * Check every field against the model's rules and precompute derived data
 * (decay).  Solvers require a finished problem.
 */
ga_status	ga_problem_finish(ga_problem *problem, ga_error *err);

/*
 * Planned duration in steps of job j at g GPUs on pool `pool`: ceil(work /
 * g) with the work the job needs on that pool, at least 1, at most its time
 * limit when it has one.  A pool that is not one of the job's counts with
 * the work of its first pool (the validator rejects such a block anyway).
 */
int			ga_job_duration(const ga_job *job, int pool, int gpus);

/* Pool holding GPU g; -1 when g is not a GPU of the problem. */
int			ga_pool_of_gpu(const ga_problem *problem, int g);

/* Usable GPUs among [first, first + n): drained ones count none. */
int			ga_usable_gpus(const ga_problem *problem, int first, int n);

/* True when x is a power of two (1, 2, 4, ...). */
bool		ga_is_pow2(int x);

/* Largest power of two not above x (0 when x < 1): the biggest block a pool of x GPUs holds. */
int			ga_pow2_floor(int x);

/*
 * Value a job earns past the horizon when it runs `size` GPUs over
 * [start, end): priority * size * decay(t) summed over the steps t of the
 * run at or past n_steps, decay continuing past the horizon as inside it.
 *
 * The objective adds this to the in-horizon value of every job in the plan,
 * so a job is valued for its whole run.  A job is never preempted: once
 * started it does all of its work, holding its block for every step of it.
 * Clipped at the horizon, a plan that starts a long job now is worth the
 * same as one that starts a shorter job of the same priority first and the
 * long one after it (both keep the block busy all horizon), although the
 * first commits the block far past the horizon and the second gets both
 * jobs' work done and decides again, with what is known then, when the
 * short job ends.  Counted to its end, the shorter job first wins.  The
 * decay goes on past the horizon rather than stopping at its last value,
 * so a narrow block that runs long is not credited as if its late work were
 * worth as much as a wide block's earlier work.
 */
static inline double
ga_job_tail_value(const ga_problem *problem, const ga_job *job, int size,
				  int start, int end)
{
	int			from = start > problem->params.n_steps ? start : problem->params.n_steps;
	double		ln_r = log(problem->step_decay);
	double		steps;

	if (end <= from)
		return 0;
	/* sum of r^k for k < end - from, in a form exact for r near 1 */
	steps = ln_r < 0 ? expm1((end - from) * ln_r) / expm1(ln_r) : (double) (end - from);
	return job->priority * size * problem->tail_decay * steps;
}

/*
 * Weight of one GPU-step of shortfall at step t inside the horizon:
 * decay(t), the last step included.  What a job holding GPUs past the
 * horizon costs the services there is charged separately, against the
 * demand expected after the horizon (model/terminal.h), so a plan's last
 * step stands for itself only and a zero demand there cannot hide a long
 * job's displacement of a service.
 */
static inline double
ga_shortfall_decay(const ga_problem *problem, int t)
{
	return problem->decay[t];
}

/* The protect curve of a service at step t, capped at its max_gpus. */
static inline int
ga_service_protect(const ga_service *svc, int t)
{
	return svc->protect[t] < svc->max_gpus ? svc->protect[t] : svc->max_gpus;
}

/*
 * Whether the protect rule keeps a job of this priority off the service's
 * protect curve: always, unless the job is denser than the service's
 * shortfall penalty.  Such a job is worth more than the demand it leaves
 * unmet (docs/model.md, Objective), so the rule lets it displace the
 * service as the objective does; with the default penalty that takes a
 * priority above 8 times the service's.
 */
static inline bool
ga_service_protected_from(const ga_problem *p, const ga_service *svc,
						  double job_priority)
{
	return p->params.penalty * svc->priority >= job_priority;
}

/*
 * The curve the protect rule holds batch work to for service s at step t:
 * over a job's estimated run, its protect curve; over the rest of the run
 * lengthened by the overrun margin (`lengthened`), its demand.  A shortfall
 * then needs two things to go wrong at once, a job outliving its estimate
 * by more than its run and demand above the planned curve, rather than
 * either alone.  Both are capped at max_gpus.
 */
static inline int
ga_service_guarded(const ga_service *svc, int t, bool lengthened)
{
	int			need = lengthened ? svc->demand[t] : svc->protect[t];

	return need < svc->max_gpus ? need : svc->max_gpus;
}

/*
 * The protect rule: the GPUs of each pool that batch work may hold at each
 * step when a job of this priority starts [n_pools * n_steps]: its usable
 * GPUs outside maintenance windows and advance reservations minus
 * ga_service_guarded of the services protected from such a job (may be
 * negative).  Services never run on reserved GPUs, so batch work there is
 * not counted against the room (the fast planner leaves it out).  Batch work counts every job, pinned jobs on usable
 * GPUs included, over its estimated run (lengthened = false) or over that
 * run lengthened by the overrun margin (true); a job starts only where,
 * with it, batch work stays within both rooms at every step of its runs
 * inside the horizon.
 * Priority 0 gives the room with every service protected.
 */
void		ga_protect_room(const ga_problem *problem, double job_priority,
							bool lengthened, int *room);

/*
 * The spread of a duration estimate as ga_job.duration_p90_ratio holds it:
 * p90 / p50 capped at GA_DURATION_P90_RATIO_MAX, or 0 when the estimate has
 * none (p90 not above p50, or either unknown).
 */
static inline double
ga_duration_p90_ratio(double hours_p50, double hours_p90)
{
	if (!(hours_p50 > 0 && hours_p90 > hours_p50))
		return 0;
	return hours_p90 / hours_p50 < GA_DURATION_P90_RATIO_MAX ? hours_p90 / hours_p50 : GA_DURATION_P90_RATIO_MAX;
}

/*
 * Share by which the protect rule lengthens a run: overrun_spread times the
 * spread of its duration estimate where it has one (ga_params), else
 * overrun_margin.
 */
static inline double
ga_overrun_margin_of(double overrun_margin, double overrun_spread, double duration_p90_ratio)
{
	if (duration_p90_ratio > 1 && overrun_spread > 0)
		return overrun_spread * (duration_p90_ratio - 1);
	return overrun_margin;
}

static inline double
ga_job_overrun_margin(const ga_problem *p, const ga_job *job)
{
	return ga_overrun_margin_of(p->params.overrun_margin, p->params.overrun_spread,
								job->duration_p90_ratio);
}

/*
 * Steps of a run of `duration` steps (from the job's start) that the
 * protect rule checks: the run lengthened by the job's overrun margin,
 * rounded up, but never past the job's time limit, where it is stopped
 * however long its work would take.
 */
static inline int
ga_protect_steps(const ga_problem *p, const ga_job *job, int duration)
{
	double		steps = ceil(duration * (1 + ga_job_overrun_margin(p, job)) - 1e-9);
	int			limit = job->time_limit_steps > duration ? job->time_limit_steps : duration;

	if (job->time_limit_steps > 0 && steps > limit)
		return limit;
	return steps > 1e8 ? 100000000 : (int) steps;
}

/*
 * For each usable GPU g of [g0, g1) under a pinned job, the part of the
 * job's run lengthened by the protect rule that lies past its estimated
 * end and inside a horizon of T steps: steps [from[g - g0], to[g - g0]),
 * left as the caller set it (none) where that part is empty.  A job placed
 * after it on its GPUs waits there if it overruns, so the rule counts
 * those GPUs once, for the pinned job (the fast mode's overlap, the
 * bound's second tier).
 */
static inline void
ga_pinned_tails(const ga_problem *p, int T, int g0, int g1, int *from, int *to)
{
	for (int j = 0; j < p->n_jobs; j++)
	{
		const ga_job *job = &p->jobs[j];
		int			reach = ga_protect_steps(p, job, job->pinned_end - job->pinned_start);
		int			start = job->pinned_end > 0 ? job->pinned_end : 0;
		int			end = reach < T - job->pinned_start ? job->pinned_start + reach : T;

		if (!job->pinned || start >= end)
			continue;
		for (int g = job->pinned_first_gpu; g < job->pinned_first_gpu + job->pinned_size; g++)
			if (g >= g0 && g < g1 && p->gpu_usable[g])
			{
				from[g - g0] = start;
				to[g - g0] = end;
			}
	}
}

/* Workload index of service s in a plan grid. */
static inline int
ga_service_workload(const ga_problem *problem, int s)
{
	return problem->n_jobs + s;
}

#endif
