/*
 * gpualloc_pg.h — declarations shared by the extension's PostgreSQL glue.
 */
#ifndef GPUALLOC_PG_H
#define GPUALLOC_PG_H

#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "model/problem.h"
#include "model/plan.h"
#include "forecast/forecast_estimator.h"

/* GUCs (gpualloc.c) */
extern int	gpualloc_step_minutes;
extern int	gpualloc_horizon_minutes;
extern double gpualloc_penalty;
extern int	gpualloc_half_life_minutes;
extern int	gpualloc_solver_time_limit_ms;
extern double gpualloc_demand_quantile;
extern double gpualloc_protect_quantile;
extern double gpualloc_headroom;
extern int	gpualloc_headroom_min;
extern double gpualloc_overrun_margin;
extern double gpualloc_overrun_spread;
extern char *gpualloc_database;
extern int	gpualloc_booking_timeout_s;
extern int	gpualloc_plan_retention_min;
extern double gpualloc_max_priority;
extern int	gpualloc_on_gpu_failure;
extern int	gpualloc_max_parallel_pools;
extern double gpualloc_queue_depth;
extern bool gpualloc_fairshare;
extern int	gpualloc_fairshare_half_life_minutes;
extern int	gpualloc_lender_need_lookback_minutes;

#define GA_ON_GPU_FAILURE_REQUEUE 0
#define GA_ON_GPU_FAILURE_FAIL 1

#define USECS_PER_MINUTE INT64CONST(60000000)

/* The start of the step (of step_minutes, aligned to the epoch) holding ts. */
static inline TimestampTz
ga_pg_step_floor(TimestampTz ts, int step_minutes)
{
	int64		step_usecs = (int64) step_minutes * USECS_PER_MINUTE;

	return ts - (ts % step_usecs + step_usecs) % step_usecs;
}

/* A bigint[] Datum of n Int64 Datums (a query's argument). */
static inline Datum
ga_pg_int8_array(Datum *values, int n)
{
	return PointerGetDatum(construct_array(values, n, INT8OID, sizeof(int64), FLOAT8PASSBYVAL,
										   TYPALIGN_DOUBLE));
}

/* One advisory lock key for every planner: replan() and the worker. */
#define GPUALLOC_PLANNER_LOCK_KEY INT64CONST(0x67707561) /* "gpua" */
/* Held while a planner commits step 0 or submit_job books a block now. */
/* The search_path every function of the extension and the worker pin. */
#define GPUALLOC_SEARCH_PATH "pg_catalog, gpualloc, pg_temp"

/* Also in sql/install/03_allocations.sql (gpualloc_internal.commit_lock). */
#define GPUALLOC_COMMIT_LOCK_KEY INT64CONST(0x67707562)

/* Most work a job may have, submitted or estimated, on any of its pools. */
#define GA_WORK_MAX_GPU_HOURS 1e7

/*
 * A problem built from the tables, with what it takes to map the core's
 * indexes back to rows: GPU index -> gpu_id, pool index -> pool_id.
 */
/* topology.c: a pool's GPUs and the planner's numbers for them */
typedef struct GaPoolLayout
{
	int			pool_id;
	char	   *name;
	int			chunk;			/* the largest block the pool can hold */
	int			n_chunks;		/* aligned chunks holding at least one GPU */
	int		   *chunk_start;	/* [n_chunks] their first topology index */
	int			first_slot;		/* the planner's number of the pool's first */
	int			n_gpus;			/* the pool's GPUs, in topology order: */
	int		   *index;			/* [n_gpus] topology index */
	int		   *gpu_id;			/* [n_gpus] */
	bool	   *up;				/* [n_gpus] state = 'up' */
} GaPoolLayout;

extern GaPoolLayout *ga_layout_load(int *n_pools, int *n_slots);
extern int	ga_layout_to_planner(const GaPoolLayout *layout, int index);
extern int	ga_layout_to_index(const GaPoolLayout *layout, int rel);

/* queue_depth.c: the queued jobs a plan considers (bigint[]), or 0 for all */
extern Datum ga_queue_candidates(const GaPoolLayout *layouts, int n_pools);

typedef struct GaBuild
{
	ga_problem *problem;
	TimestampTz now;			/* plan time, inside step 0 */
	TimestampTz plan_start;		/* start of step 0 */
	int			step_minutes;
	int		   *gpu_ids;		/* [n_gpus]; 0 where the topology has a hole */
	int		   *pool_ids;		/* [n_pools] */
	GaPoolLayout *layouts;		/* [n_pools] */
	int			jobs_without_estimate;	/* queued jobs left out of the plan */
	int64	   *booked_job_ids; /* [n_booked] jobs booked when the plan was made */
	int			n_booked;
} GaBuild;

/* demand.c: a service's forecast from its history before `from` */
typedef struct GaServiceForecastRequest
{
	int			service_id;
	const char *name;
	TimestampTz from;			/* aligned to a step */
	int			n_steps;
	int			step_minutes;
	double		capacity_per_gpu;
	int			churn_limit;
	int			min_gpus;
	int			max_gpus;
} GaServiceForecastRequest;

extern void ga_pg_forecast_service(const GaServiceForecastRequest *req, double *p50,
								   double *upper, int *shaped, int *protect,
								   int *day_peak);

/* fairshare.c: each tenant's fair-share factor per pool, read once per build */
typedef struct GaFairshareEntry
{
	int			pool_id;
	char		tenant[NAMEDATALEN];
	double		factor;
} GaFairshareEntry;

typedef struct GaFairshare
{
	int			n;
	GaFairshareEntry *entries;	/* [n] sorted by pool_id, then tenant (strcmp) */
} GaFairshare;

extern GaFairshare *ga_fairshare_load(TimestampTz now);
extern double ga_fairshare_factor(const GaFairshare *fs, int pool_id, const char *tenant);

/* problem_build.c: tables -> core problem (inside SPI) */
extern GaBuild *ga_build_problem(TimestampTz now);

/* plan_store.c: core plan -> plan_runs, plan_blocks, allocations, NOTIFY */
extern int64 ga_store_plan_run(const char *mode, const char *trigger);
extern void ga_store_plan_result(int64 plan_id, GaBuild *build, const ga_plan *plan,
								 const char *status, const char *message);
extern void ga_store_plan_failure(int64 plan_id, GaBuild *build, const char *message);
extern int	ga_commit_current_step(int64 plan_id, GaBuild *build, const ga_plan *plan);

/* replan.c: one planning run inside the caller's SPI connection */
typedef struct GaReplanResult
{
	int64		plan_id;
	const char *status;
	const char *mode;
	ga_plan    *plan;
	int			gpus_changed;
	char		message[GA_ERROR_MESSAGE_LEN * 2];
} GaReplanResult;

extern void ga_log_phase(const char *what, TimestampTz *since);
extern bool ga_run_replan(const char *mode, double limit_ms, const char *trigger,
						  bool wait_for_lock, GaReplanResult *r);

/* worker.c: the background planner and its wake-up requests */
extern bool gpualloc_enabled;
extern int	gpualloc_replan_interval_s;
extern int	gpualloc_replan_debounce_s;
extern int	gpualloc_replan_retry_s;
extern void ga_worker_register(void);
extern void ga_request_replan(void);

/* saved_query.c: a statement prepared on first use and kept for the backend */
#define GA_SAVED_QUERY_MAX_ARGS 20
typedef struct GaSavedQuery
{
	const char *sql;
	int			nargs;
	Oid			types[GA_SAVED_QUERY_MAX_ARGS];
	struct _SPI_plan *plan;		/* NULL until first use */
	bool		fast_start;		/* read through a cursor that stops early */
} GaSavedQuery;

extern struct _SPI_plan *ga_saved_query_plan(GaSavedQuery *q);
extern int	ga_saved_query_run(GaSavedQuery *q, Datum *args, const char *nulls, bool read_only,
							   long count);
extern void ga_saved_query_expect(GaSavedQuery *q, Datum *args, const char *nulls, int expected);

/* fast_path.c: book a just-queued job on a block free now and in the plan */
typedef struct GaFastPathJob
{
	int64		job_id;
	int			pool_id;
	int			node_size;
	int			index_end;		/* the pool's topology indexes are below it */
	int			gpus_min;
	int			gpus_max;
	double		work_gpu_hours;
	double		time_limit_hours;	/* 0: none; the run is min(work / g, limit) */
	double		overrun_margin; /* share its run is lengthened by, as the
								 * planner's protect rule lengthens it */
	bool		has_deadline;
	TimestampTz deadline;
	bool		waits;			/* a predecessor has not ended: never booked */
	const char *tenant;			/* its tenant: another's reservation is closed */
} GaFastPathJob;

extern int	ga_submit_fast_path(const GaFastPathJob *job);

/*
 * dependencies.c: submit_job's after_ok / after_any lists, checked and
 * stored (docs: README, Job dependencies)
 */
typedef struct GaDependencies
{
	int			n;
	int64		after[GA_MAX_PREDS];
	bool		ok[GA_MAX_PREDS];	/* after_ok; else after_any */
	bool		waits;			/* some predecessor has not ended yet */
} GaDependencies;

extern void ga_pg_check_dependencies(ArrayType *after_ok, ArrayType *after_any,
									 GaDependencies *deps);
extern void ga_pg_insert_dependencies(int64 job_id, const GaDependencies *deps);

/*
 * job_pools.c: submit_job's alt_pools, the pools a job may also run on
 * after its first, each checked and with the job's work estimated there
 */
typedef struct GaAltPool
{
	int			pool_id;
	double		work_gpu_hours;
	char		method[sizeof(((ga_job_estimate *) 0)->method)];
} GaAltPool;

typedef struct GaAltPools
{
	int			n;
	GaAltPool	pools[GA_MAX_JOB_POOLS - 1];
} GaAltPools;

/* The job as submitted and checked: what the alternatives are checked against. */
typedef struct GaAltPoolsJob
{
	const char *kind;
	Jsonb	   *features;
	int			pool_id;		/* the first pool */
	int			gpus_min;
	int			gpus_max;
	bool		submitted_work; /* work_gpu_hours given by the submitter */
	double		work_gpu_hours; /* the work on the first pool */
} GaAltPoolsJob;

extern void ga_pg_check_alt_pools(ArrayType *names, const GaAltPoolsJob *job, GaAltPools *out);
extern void ga_pg_insert_alt_pools(int64 job_id, const GaAltPools *alts);

/*
 * active_job_name.c: lock the tenant's job name until the transaction ends,
 * then whether a queued, booked or running job of the tenant has it
 */
extern bool ga_pg_claim_job_name(const char *tenant, text *name);

/* submit.c: an admin, a superuser or a member of the tenant's role */
extern bool ga_pg_can_act_for(Oid caller, const char *tenant);

/* estimate.c: a job's estimate and its features' check (kind already valid) */
extern void ga_pg_estimate_job(const char *kind, Jsonb *features, int gpus, const char *pool,
							   ga_job_estimate *e);
extern void ga_pg_check_features(const char *kind, Jsonb *features);

/* solve_pg.c: run a core solver with cancel support and free on error */
extern ga_plan *ga_pg_solve(GaBuild *build, const char *mode, double time_limit_ms,
							char *errbuf, size_t errlen);

/* pool_launch.c: a run's pool solvers, started before its parts exist */
typedef struct GaPoolSolvers GaPoolSolvers;
struct dsm_segment;
extern GaPoolSolvers *ga_pool_solvers_start(int n);
extern GaPoolSolvers *ga_pg_pool_solvers_ahead(void);
extern int	ga_pool_solvers_count(const GaPoolSolvers *s);
extern void ga_pool_solvers_publish(GaPoolSolvers *s, struct dsm_segment *parts);
extern bool ga_pool_solvers_running(const GaPoolSolvers *s);
extern void ga_pool_solvers_signal(GaPoolSolvers *s);
extern void ga_pool_solvers_finish(GaPoolSolvers *s);

/*
 * pool_solve.c: the same, independent pools solved apart and at once, by
 * the solvers given (NULL: started once the problem is split), which the
 * call finishes
 */
extern int	ga_pool_processes_wanted(int n_parts);
extern ga_plan *ga_pg_solve_pools(GaBuild *build, const char *mode, double time_limit_ms,
								  GaPoolSolvers *solvers, char *errbuf, size_t errlen);

#endif
