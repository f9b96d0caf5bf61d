-- The background planner's hooks: wake-up requests, estimate refresh, and the
-- fast path that starts a job within its submit_job call.

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
-- figures the submitter gave are kept.
CREATE FUNCTION gpualloc_internal.refresh_estimates() RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	n integer;
BEGIN
	UPDATE gpualloc.jobs j
	SET (est_gpus, est_hours_p10, est_hours_p50, est_hours_p90, est_work_gpu_hours, est_method) =
		(x.gpus_used, x.hours_p10, x.hours_p50, x.hours_p90, x.work_gpu_hours, x.method)
	FROM (SELECT w.job_id, e.*
		  FROM gpualloc.jobs w JOIN gpualloc.pools p ON p.pool_id = w.pool_id,
			   LATERAL gpualloc.estimate_job(w.kind, w.features, w.gpus_max, p.name) e
		  WHERE w.status IN ('queued', 'booked') AND w.est_method IS DISTINCT FROM 'submitted') x
	-- an estimate beyond the bound keeps the one the job was accepted with
	WHERE x.job_id = j.job_id AND x.work_gpu_hours <= 1e7;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;

-- Aligned blocks of a job's sizes in its pool that are free now and, in the
-- latest plan, for the job's estimated duration: every GPU of the block
-- present and up, no allocation in force, no planned workload (batch or
-- service) over those steps.  Largest block first, then lowest index.  None
-- while there is no current plan.  Candidates are only the blocks around
-- existing GPUs, so the work follows the GPUs, not the node numbers.
CREATE FUNCTION gpualloc_internal.free_block_now(j gpualloc.jobs, OUT first integer, OUT size integer)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools;
	busy integer[];
	l gpualloc.plan_runs;
	from_step integer;
	to_step integer;
BEGIN
	SELECT * INTO p FROM gpualloc.pools WHERE pool_id = j.pool_id;
	-- without a current plan nobody knows what the services will need: wait
	SELECT * INTO l FROM gpualloc.plan_runs
	WHERE status IN ('succeeded', 'fallback') ORDER BY plan_id DESC LIMIT 1;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	from_step := floor(extract(epoch FROM now() - l.plan_start) / extract(epoch FROM l.step));
	IF from_step >= l.horizon_steps THEN
		RETURN;
	END IF;
	to_step := from_step + ceil(3600 * j.est_work_gpu_hours / j.gpus_min / extract(epoch FROM l.step));
	-- topology indexes taken now or planned over the job's run
	SELECT array_agg(i) INTO busy FROM (
		SELECT g.node * p.node_size + g.slot AS i FROM gpualloc.allocations a JOIN gpualloc.gpus g USING (gpu_id)
		WHERE g.pool_id = j.pool_id AND a.end_seq IS NULL
		UNION
		SELECT generate_series(b.gpu_first, b.gpu_first + b.gpu_count - 1) FROM gpualloc.plan_blocks b
		WHERE b.plan_id = l.plan_id AND b.pool_id = j.pool_id
		  AND b.step_first < to_step AND from_step < b.step_first + b.step_count) u;
	WITH sizes AS (
		SELECT 1 << k AS s FROM generate_series(0, 30) k
		WHERE (1 << k) BETWEEN j.gpus_min AND j.gpus_max
	), whole AS (		-- blocks whose every GPU is present and up
		SELECT sz.s, (g.node * p.node_size + g.slot) / sz.s * sz.s AS f
		FROM gpualloc.gpus g CROSS JOIN sizes sz
		WHERE g.pool_id = j.pool_id AND g.state = 'up'
		GROUP BY 1, 2 HAVING count(*) = sz.s
	), taken AS (		-- blocks with a busy GPU
		SELECT DISTINCT sz.s, b / sz.s * sz.s AS f FROM unnest(busy) b CROSS JOIN sizes sz
	)
	SELECT c.f, c.s INTO first, size
	FROM (SELECT * FROM whole EXCEPT SELECT * FROM taken) c
	ORDER BY c.s DESC, c.f
	LIMIT 1;
END
$$;

-- Book a just-submitted job on a block free now, when there is one: the
-- executor sees it in allocations (and by NOTIFY) and starts it at once.
CREATE FUNCTION gpualloc_internal.start_now_if_free(p_job_id bigint) RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	j gpualloc.jobs;
	b record;
	p gpualloc.pools;
BEGIN
	SELECT * INTO j FROM gpualloc.jobs WHERE job_id = p_job_id;
	IF j.est_work_gpu_hours IS NULL OR (j.not_before IS NOT NULL AND j.not_before > now()) THEN
		RETURN NULL;
	END IF;
	-- Nothing free even before others' uncommitted bookings: no need to queue
	-- behind them.  Otherwise book as the only booker (submits and the
	-- planner's commit of step 0) and look again with what they committed.
	b := gpualloc_internal.free_block_now(j);
	IF b.size IS NULL THEN
		RETURN NULL;
	END IF;
	PERFORM gpualloc_internal.commit_lock();
	b := gpualloc_internal.free_block_now(j);
	IF b.size IS NULL THEN
		RETURN NULL;
	END IF;
	IF j.deadline IS NOT NULL AND now() + make_interval(secs => 3600 * j.est_work_gpu_hours / b.size) > j.deadline THEN
		RETURN NULL;
	END IF;
	SELECT * INTO p FROM gpualloc.pools WHERE pool_id = j.pool_id;
	PERFORM gpualloc_internal.allocations_set(pg_catalog.array_agg(g.gpu_id), pg_catalog.array_agg(j.job_id), '{}', 'submit')
	FROM gpualloc.gpus g
	WHERE g.pool_id = j.pool_id
	  AND g.node * p.node_size + g.slot >= b.first AND g.node * p.node_size + g.slot < b.first + b.size;
	RETURN b.first;
END
$$;

-- When the background planner means to run next (NULL: no worker runs).
CREATE FUNCTION gpualloc.planner_next_run() RETURNS timestamptz
SET search_path = pg_catalog, gpualloc, pg_temp
AS 'MODULE_PATHNAME', 'gpualloc_planner_next_run'
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
FROM (SELECT 1) one
LEFT JOIN (SELECT a.pid FROM pg_catalog.pg_stat_activity a
		   WHERE a.backend_type = 'gpualloc planner' LIMIT 1) w ON true;
