-- The background planner's hooks: wake-up requests and estimate refresh.
-- (The fast path that books a job within its submit_job call is in C:
-- src/pg/fast_path.c.)

-- Ask the background planner for a run soon (debounced by
-- gpualloc.replan_debounce).  Returns whether a planner is there to hear it.
CREATE FUNCTION gpualloc.request_replan() RETURNS boolean
SET search_path = pg_catalog, gpualloc, pg_temp
	AS 'MODULE_PATHNAME', 'gpualloc_request_replan'
	LANGUAGE C VOLATILE;

-- Freed GPUs should not idle until the next interval: a GPU going down or
-- draining, or a job ending before its estimate, asks for a run.
CREATE FUNCTION gpualloc_internal.wake_on_gpu_state() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF NEW.state IS DISTINCT FROM OLD.state THEN
		PERFORM gpualloc.request_replan();
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER gpus_wake_planner AFTER UPDATE OF state ON gpualloc.gpus
	FOR EACH ROW EXECUTE FUNCTION gpualloc_internal.wake_on_gpu_state();

CREATE FUNCTION gpualloc_internal.wake_on_job_end() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF OLD.status = 'running' AND NEW.status IN ('succeeded', 'failed', 'cancelled')
	   AND (NEW.est_work_gpu_hours IS NULL
			OR NEW.finished_at < NEW.started_at
			   + make_interval(secs => 3600 * NEW.est_work_gpu_hours / NEW.block_size)) THEN
		PERFORM gpualloc.request_replan();
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER jobs_wake_planner AFTER UPDATE OF status ON gpualloc.jobs
	FOR EACH ROW EXECUTE FUNCTION gpualloc_internal.wake_on_job_end();

-- Queued jobs' estimates follow what finished jobs taught the estimators;
-- figures the submitter gave are kept.  A job's own estimate is for its
-- first pool (requested_pool_id while it is booked on another), each
-- alternative's in job_pools for that pool.  Returns the estimates renewed.
CREATE FUNCTION gpualloc_internal.refresh_estimates() RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	n integer;
	n_alt integer;
BEGIN
	UPDATE gpualloc.jobs j
	SET (est_gpus, est_hours_p10, est_hours_p50, est_hours_p90, est_work_gpu_hours, est_method) =
		(x.gpus_used, x.hours_p10, x.hours_p50, x.hours_p90, x.work_gpu_hours, x.method)
	FROM (SELECT w.job_id, e.*
		  FROM gpualloc.jobs w JOIN gpualloc.pools p ON p.pool_id = coalesce(w.requested_pool_id, w.pool_id),
			   LATERAL gpualloc_internal.estimate_or_skip(w.kind, w.features, w.gpus_max, p.name) e
		  WHERE w.status IN ('queued', 'booked') AND w.est_method IS DISTINCT FROM 'submitted') x
	-- an estimate beyond the bound keeps the one the job was accepted with
	WHERE x.job_id = j.job_id AND x.work_gpu_hours <= 1e7;
	GET DIAGNOSTICS n = ROW_COUNT;
	UPDATE gpualloc.job_pools jp
	SET (est_work_gpu_hours, est_method) = (x.work_gpu_hours, x.method)
	FROM (SELECT a.job_id, a.pool_id, e.work_gpu_hours, e.method
		  FROM gpualloc.job_pools a JOIN gpualloc.jobs w ON w.job_id = a.job_id
		  JOIN gpualloc.pools p ON p.pool_id = a.pool_id,
			   LATERAL gpualloc_internal.estimate_or_skip(w.kind, w.features, w.gpus_max, p.name) e
		  WHERE w.status IN ('queued', 'booked') AND a.est_method <> 'submitted_scaled') x
	WHERE x.job_id = jp.job_id AND x.pool_id = jp.pool_id AND x.work_gpu_hours <= 1e7;
	GET DIAGNOSTICS n_alt = ROW_COUNT;
	RETURN n + n_alt;
END
$$;

-- A queued job's estimate for refresh_estimates, or no row when the
-- estimator refuses the job (its features or pool no longer pass): that job
-- keeps the estimate it has, and the rest of the queue is still refreshed.
CREATE FUNCTION gpualloc_internal.estimate_or_skip(kind text, features jsonb, gpus integer, pool text,
												   OUT gpus_used integer, OUT hours_p10 double precision,
												   OUT hours_p50 double precision, OUT hours_p90 double precision,
												   OUT work_gpu_hours double precision, OUT method text)
RETURNS SETOF record
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	RETURN QUERY
	SELECT e.gpus_used, e.hours_p10, e.hours_p50, e.hours_p90, e.work_gpu_hours, e.method
	FROM gpualloc.estimate_job(kind, features, gpus, pool) e;
EXCEPTION WHEN data_exception OR undefined_object OR program_limit_exceeded THEN
	RETURN;
END
$$;

-- Plan runs older than gpualloc.plan_retention go, their blocks with them:
-- plans are written every run and would otherwise grow without end.  The
-- latest successful plan (the one in force, which the fast path and the
-- views read) and anything newer always stay; a run still going counts
-- from its start.  At most 500 runs a call, so a first purge after a long
-- time does not hold a run up.  Returns how many runs were deleted.
CREATE FUNCTION gpualloc_internal.purge_plans() RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	keep interval := gpualloc_internal.setting('gpualloc.plan_retention', '14d')::interval;
	n integer;
BEGIN
	IF keep <= interval '0' OR NOT EXISTS (
		SELECT 1 FROM gpualloc.plan_runs o
		WHERE coalesce(o.finished_at, o.started_at) < pg_catalog.now() - keep) THEN
		RETURN 0;
	END IF;
	-- deleting a run clears plan_id on the allocation rows it committed:
	-- a write to allocations, so under the commit lock like every other
	PERFORM gpualloc_internal.commit_lock();
	DELETE FROM gpualloc.plan_runs r
	WHERE r.plan_id IN (
		SELECT o.plan_id FROM gpualloc.plan_runs o
		WHERE coalesce(o.finished_at, o.started_at) < pg_catalog.now() - keep
		  AND o.plan_id < (SELECT coalesce(pg_catalog.max(l.plan_id), 0) FROM gpualloc.plan_runs l
						   WHERE l.status IN ('succeeded', 'fallback'))
		ORDER BY o.plan_id
		LIMIT 500);
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;

-- When the background planner means to run next (NULL: no worker runs).
CREATE FUNCTION gpualloc.planner_next_run() RETURNS timestamptz
SET search_path = pg_catalog, gpualloc, pg_temp
AS 'MODULE_PATHNAME', 'gpualloc_planner_next_run'
LANGUAGE C VOLATILE;

-- The background planner's process id (NULL: none plans this database).
CREATE FUNCTION gpualloc.planner_pid() RETURNS integer
SET search_path = pg_catalog, gpualloc, pg_temp
AS 'MODULE_PATHNAME', 'gpualloc_planner_pid'
LANGUAGE C VOLATILE;

-- The planner's health at a glance: is it there, did its runs succeed, when
-- does it run next, how old is the plan in force.
CREATE VIEW gpualloc.planner_status AS
WITH latest AS (
	SELECT r.plan_id, r.started_at, r.finished_at, r.status, r.message
	FROM gpualloc.plan_runs r ORDER BY r.plan_id DESC LIMIT 1
), good AS (
	SELECT r.plan_id, r.finished_at FROM gpualloc.plan_runs r
	WHERE r.status IN ('succeeded', 'fallback') ORDER BY r.plan_id DESC LIMIT 1
), bad AS (
	SELECT r.finished_at, r.message FROM gpualloc.plan_runs r
	WHERE r.status = 'failed' ORDER BY r.plan_id DESC LIMIT 1
)
-- (a view calls no internal function: its readers may not)
SELECT coalesce(nullif(pg_catalog.current_setting('gpualloc.enabled', true), ''), 'on')::boolean AS enabled,
	   w.pid IS NOT NULL AS worker_alive,
	   w.pid AS worker_pid,
	   (SELECT started_at FROM latest) AS last_run_at,
	   (SELECT status FROM latest) AS last_run_status,
	   (SELECT finished_at FROM good) AS last_success_at,
	   (SELECT count(*) FROM gpualloc.plan_runs r
		WHERE r.status = 'failed' AND r.plan_id > coalesce((SELECT plan_id FROM good), 0))::integer
		   AS consecutive_failures,
	   (SELECT message FROM bad) AS last_error,
	   (SELECT finished_at FROM bad) AS last_error_at,
	   gpualloc.planner_next_run() AS next_run_due,
	   (SELECT plan_id FROM good) AS plan_id,
	   now() - (SELECT finished_at FROM good) AS plan_age
FROM (SELECT gpualloc.planner_pid() AS pid) w;
