-- Dashboard reads: utilisation, value, real-time coverage, the planned queue,
-- plan runs, and the plan as an SVG picture.
--
-- History comes from gpualloc.allocations (each row's `during`), jobs,
-- services and demand_history.  An open-ended allocation row counts up to
-- now: the future is the plan's business, not history's.  Every hour is
-- [hour, hour + 1 h) clipped to the window asked for and to now, so the
-- current hour counts what has happened so far.
--
-- The functions take a time range and read only the rows of that range
-- through the indexes below; the *_hourly views are the same functions over
-- all history, for ad-hoc queries (a WHERE on their hour column filters after
-- the whole history is computed).

-- (Their indexes are with the tables, in 01_schema.sql.)

-- The window [lo, hi) a dashboard function reads: it starts no earlier than
-- the first recorded allocation or demand hour and stops at now, so the work
-- of a call follows the history there is, never the width of the range asked
-- for (a `from` of 4713 BC reads what a `from` of -infinity reads).  A range
-- that holds no finite time (`from` of infinity, `to` of -infinity on an
-- empty history) is the empty window at the current hour: the functions
-- walk hours from lo to hi, and a walk from an infinite time never ends.
CREATE FUNCTION gpualloc_internal.dashboard_window(from_ts timestamptz, to_ts timestamptz,
										   OUT lo timestamptz, OUT hi timestamptz)
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	WITH first_data AS (
		SELECT date_trunc('hour', least((SELECT min(lower(a.during)) FROM gpualloc.allocations a),
										(SELECT min(d.hour) FROM gpualloc.demand_history d)), 'UTC') AS t
	), bounds AS (
		SELECT greatest(from_ts, coalesce(f.t, least(to_ts, now()))) AS lo, least(to_ts, now()) AS hi
		FROM first_data f
	), clamped AS (
		SELECT b.lo, greatest(b.hi, b.lo) AS hi FROM bounds b
	)
	SELECT CASE WHEN isfinite(c.lo) AND isfinite(c.hi) THEN c.lo ELSE date_trunc('hour', now(), 'UTC') END,
		   CASE WHEN isfinite(c.lo) AND isfinite(c.hi) THEN c.hi ELSE date_trunc('hour', now(), 'UTC') END
	FROM clamped c
$$;

-- Every allocation row cut into its pieces per hour inside [lo, hi).
CREATE FUNCTION gpualloc_internal.allocation_hours(lo timestamptz, hi timestamptz)
RETURNS TABLE (gpu_id integer, job_id bigint, service_id integer, hour timestamptz,
			   part tstzrange, gpu_hours double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	SELECT a.gpu_id, a.job_id, a.service_id, h.h,
		   a.during * tstzrange(h.h, h.h + interval '1 hour') * tstzrange(lo, hi),
		   extract(epoch FROM least(upper(a.during), h.h + interval '1 hour', hi)
								- greatest(lower(a.during), h.h, lo))::double precision / 3600
	FROM gpualloc.allocations a
	CROSS JOIN LATERAL generate_series(date_trunc('hour', greatest(lower(a.during), lo), 'UTC'),
									   least(upper(a.during), hi), interval '1 hour') AS h(h)
	WHERE a.during && tstzrange(lo, hi)
	  AND h.h < least(upper(a.during), hi)
$$;

-- Per service and hour inside [lo, hi): GPU-hours held, GPU-hours served (at
-- each instant the GPUs held up to the hour's actual demand; all of them
-- when the hour has no demand record), and the demand in GPUs.
CREATE FUNCTION gpualloc_internal.service_hours(lo timestamptz, hi timestamptz)
RETURNS TABLE (service_id integer, hour timestamptz, held_gpu_hours double precision,
			   served_gpu_hours double precision, demand_gpus integer)
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	WITH pieces AS (
		SELECT p.service_id, p.hour, p.part
		FROM gpualloc_internal.allocation_hours(lo, hi) p
		WHERE p.service_id IS NOT NULL
	), points AS (
		SELECT service_id, hour, lower(part) AS t, 1 AS d FROM pieces
		UNION ALL
		SELECT service_id, hour, upper(part), -1 FROM pieces
	), levels AS (
		SELECT service_id, hour, t,
			   sum(sum(d)) OVER w AS gpus,
			   lead(t) OVER w AS t_next
		FROM points
		GROUP BY service_id, hour, t
		WINDOW w AS (PARTITION BY service_id, hour ORDER BY t)
	), demand AS (
		SELECT dh.service_id, dh.hour, ceil(dh.traffic / s.capacity_per_gpu) AS gpus
		FROM gpualloc.demand_history dh
		JOIN gpualloc.services s ON s.service_id = dh.service_id
		WHERE dh.hour >= date_trunc('hour', lo, 'UTC') AND dh.hour < hi
	)
	SELECT l.service_id, l.hour,
		   sum(l.gpus * extract(epoch FROM l.t_next - l.t) / 3600)::double precision,
		   sum(least(l.gpus, coalesce(d.gpus, l.gpus)) * extract(epoch FROM l.t_next - l.t) / 3600)::double precision,
		   min(d.gpus)::integer
	FROM levels l
	LEFT JOIN demand d ON d.service_id = l.service_id AND d.hour = l.hour
	WHERE l.t_next IS NOT NULL
	GROUP BY l.service_id, l.hour
$$;

-- Utilisation per pool and hour.  A GPU is busy when it runs a batch job, or
-- serves a real-time service up to that service's actual demand in the hour;
-- GPUs a service holds above its demand are idle.  Available GPUs are those
-- not 'down' now (gpualloc.gpus keeps only the current state).
CREATE FUNCTION gpualloc.utilization(from_ts timestamptz, to_ts timestamptz)
RETURNS TABLE (pool text, hour timestamptz, gpus_available integer,
			   available_gpu_hours double precision, batch_gpu_hours double precision,
			   realtime_gpu_hours double precision, realtime_held_gpu_hours double precision,
			   busy_gpu_hours double precision, idle_gpu_hours double precision,
			   utilization double precision)
LANGUAGE sql STABLE STRICT SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	WITH w AS (
		SELECT * FROM gpualloc_internal.dashboard_window(from_ts, to_ts)
	), hours AS (
		SELECT h AS hour,
			   extract(epoch FROM least(h + interval '1 hour', w.hi) - greatest(h, w.lo))::double precision / 3600 AS len
		FROM w, generate_series(date_trunc('hour', w.lo, 'UTC'), w.hi, interval '1 hour') AS h
		WHERE h < w.hi AND w.lo < w.hi
	), pools AS (
		SELECT p.pool_id, p.name, count(*) FILTER (WHERE g.state <> 'down')::integer AS up
		FROM gpualloc.pools p JOIN gpualloc.gpus g USING (pool_id)
		GROUP BY p.pool_id
	), batch AS (
		SELECT g.pool_id, ah.hour, sum(ah.gpu_hours) AS gpu_hours
		FROM w, gpualloc_internal.allocation_hours(w.lo, w.hi) ah
		JOIN gpualloc.gpus g ON g.gpu_id = ah.gpu_id
		WHERE ah.job_id IS NOT NULL
		GROUP BY g.pool_id, ah.hour
	), realtime AS (
		SELECT s.pool_id, sh.hour, sum(sh.served_gpu_hours) AS served, sum(sh.held_gpu_hours) AS held
		FROM w, gpualloc_internal.service_hours(w.lo, w.hi) sh
		JOIN gpualloc.services s ON s.service_id = sh.service_id
		GROUP BY s.pool_id, sh.hour
	)
	SELECT p.name, h.hour, p.up,
		   p.up * h.len,
		   coalesce(b.gpu_hours, 0),
		   coalesce(r.served, 0),
		   coalesce(r.held, 0),
		   coalesce(b.gpu_hours, 0) + coalesce(r.served, 0),
		   greatest(0, p.up * h.len - coalesce(b.gpu_hours, 0) - coalesce(r.served, 0)),
		   (coalesce(b.gpu_hours, 0) + coalesce(r.served, 0)) / nullif(p.up * h.len, 0)
	FROM pools p
	CROSS JOIN hours h
	LEFT JOIN batch b ON b.pool_id = p.pool_id AND b.hour = h.hour
	LEFT JOIN realtime r ON r.pool_id = p.pool_id AND r.hour = h.hour
	ORDER BY h.hour, p.name
$$;

-- Priority-weighted value per hour and tenant: the sum over the tenant's jobs
-- of priority x GPU-hours run in the hour.
CREATE FUNCTION gpualloc.tenant_value(from_ts timestamptz, to_ts timestamptz)
RETURNS TABLE (hour timestamptz, tenant name, jobs integer, job_gpu_hours double precision,
			   value double precision)
LANGUAGE sql STABLE STRICT SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	SELECT ah.hour, j.tenant, count(DISTINCT j.job_id)::integer, sum(ah.gpu_hours),
		   sum(j.priority * ah.gpu_hours)
	FROM gpualloc_internal.dashboard_window(from_ts, to_ts) w,
		 gpualloc_internal.allocation_hours(w.lo, w.hi) ah
	JOIN gpualloc.jobs j ON j.job_id = ah.job_id
	GROUP BY ah.hour, j.tenant
	ORDER BY ah.hour, j.tenant
$$;

-- Real-time coverage per service and hour of recorded demand: GPU-hours
-- demanded (the hour's demand in GPUs over the part of the hour inside the
-- window), held, served (held up to demand), unmet, and served / demanded.
CREATE FUNCTION gpualloc.service_coverage(from_ts timestamptz, to_ts timestamptz)
RETURNS TABLE (service text, pool text, hour timestamptz, traffic double precision,
			   demand_gpus integer, demanded_gpu_hours double precision,
			   held_gpu_hours double precision, served_gpu_hours double precision,
			   unmet_gpu_hours double precision, coverage double precision)
LANGUAGE sql STABLE STRICT SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	WITH w AS (
		SELECT lo, hi FROM gpualloc_internal.dashboard_window(from_ts, to_ts)
	), w2 AS (
		-- an infinite start with no allocation at all still covers the demand
		SELECT coalesce(w.lo, (SELECT min(dh.hour) FROM gpualloc.demand_history dh)) AS lo, w.hi
		FROM w
	), demand AS (
		SELECT dh.service_id, dh.hour, dh.traffic, s.name, s.pool_id,
			   ceil(dh.traffic / s.capacity_per_gpu)::integer AS gpus,
			   extract(epoch FROM least(dh.hour + interval '1 hour', w2.hi)
								   - greatest(dh.hour, w2.lo))::double precision / 3600 AS len
		FROM w2
		JOIN gpualloc.demand_history dh
		  ON dh.hour >= date_trunc('hour', w2.lo, 'UTC') AND dh.hour < w2.hi
		JOIN gpualloc.services s ON s.service_id = dh.service_id
	), served AS (
		SELECT sh.* FROM w2, gpualloc_internal.service_hours(w2.lo, w2.hi) sh
	), rows AS (
		SELECT d.name, p.name AS pool, d.hour, d.traffic, d.gpus, d.gpus * d.len AS demanded,
			   coalesce(sv.held_gpu_hours, 0) AS held, coalesce(sv.served_gpu_hours, 0) AS served
		FROM demand d
		JOIN gpualloc.pools p ON p.pool_id = d.pool_id
		LEFT JOIN served sv ON sv.service_id = d.service_id AND sv.hour = d.hour
		WHERE d.len > 0
	)
	SELECT name, pool, hour, traffic, gpus, demanded, held, served,
		   greatest(0, demanded - served),
		   CASE WHEN demanded > 0 THEN served / demanded ELSE 1 END
	FROM rows
	ORDER BY hour, name
$$;

CREATE VIEW gpualloc.utilization_hourly AS
SELECT * FROM gpualloc.utilization('-infinity', 'infinity');

CREATE VIEW gpualloc.tenant_value_hourly AS
SELECT * FROM gpualloc.tenant_value('-infinity', 'infinity');

CREATE VIEW gpualloc.service_coverage_hourly AS
SELECT * FROM gpualloc.service_coverage('-infinity', 'infinity');

-- Queued and running jobs with their start and estimated finish: a running
-- job's real start, a queued job's start in the latest successful plan (NULL
-- when that plan did not place it), and its finish at the planned size; why
-- a job waits comes from gpualloc.queue.
CREATE VIEW gpualloc.queue_plan AS
SELECT q.job_id, q.name, q.kind, q.tenant, q.pool, q.priority, q.status, q.submitted_at,
	   q.not_before, q.deadline, q.est_work_gpu_hours,
	   CASE WHEN q.status IN ('running', 'booked') THEN q.block_size ELSE p.gpus END AS gpus,
	   CASE WHEN q.status IN ('running', 'booked') THEN q.block_first ELSE p.block_first END AS block_first,
	   CASE WHEN q.status IN ('running', 'booked') THEN coalesce(q.started_at, q.booked_at)
			ELSE p.planned_start END AS planned_start,
	   f.est_finish,
	   CASE WHEN q.status IN ('queued', 'booked') THEN now() - q.submitted_at END AS waiting,
	   q.deadline IS NOT NULL AND p.planned_start IS NOT NULL AND f.est_finish > q.deadline
		   AS misses_deadline,
	   p.plan_id,
	   q.pending_reason,
	   -- the priority the planner gives it: a queued job's times its tenant's priority factor
	   CASE WHEN q.status = 'queued' THEN q.priority * coalesce(fs.priority_factor, 1) ELSE q.priority END
		   AS effective_priority,
	   -- the pool it is booked or runs on, else the one the latest plan gives it
	   CASE WHEN q.status IN ('running', 'booked') THEN q.pool
			ELSE (SELECT pp.name FROM gpualloc.pools pp WHERE pp.pool_id = p.pool_id) END AS planned_pool,
	   q.pending_code, q.gpus_min, q.gpus_max
FROM gpualloc.queue q
-- (views call no internal function: their callers may not; an internal view
-- is read with the view owner's rights)
LEFT JOIN gpualloc_internal.latest_planned_jobs p ON p.job_id = q.job_id
-- a queued job's finish: its planned start plus its estimated work on the
-- pool it is planned on over the planned GPUs, or its time limit where that
-- stops it sooner
CROSS JOIN LATERAL (
	SELECT CASE WHEN q.status IN ('running', 'booked') THEN q.est_finish
				WHEN p.planned_start IS NOT NULL AND q.est_work_gpu_hours IS NOT NULL
				THEN p.planned_start
					 + least(make_interval(secs => 3600 * coalesce(
								 (SELECT jp.est_work_gpu_hours FROM gpualloc.job_pools jp
								  WHERE jp.job_id = q.job_id AND jp.pool_id = p.pool_id),
								 q.est_work_gpu_hours) / p.gpus),
							 (SELECT j.time_limit FROM gpualloc.jobs j WHERE j.job_id = q.job_id))
		   END AS est_finish) f
-- its tenant's fair share in the pool (computed once for the query)
LEFT JOIN gpualloc.fairshare(now()) fs ON fs.tenant = q.tenant AND fs.pool = q.pool
ORDER BY CASE q.status WHEN 'running' THEN 0 WHEN 'booked' THEN 1 ELSE 2 END,
		 coalesce(CASE WHEN q.status IN ('running', 'booked') THEN coalesce(q.started_at, q.booked_at)
					   ELSE p.planned_start END, 'infinity'), q.priority DESC, q.job_id;

-- Plan runs: how long they took, how far from optimal, what they placed.
CREATE VIEW gpualloc.plan_history AS
SELECT r.plan_id, r.mode, r.trigger, r.status, r.started_at, r.finished_at,
	   extract(epoch FROM r.finished_at - r.started_at)::double precision * 1000 AS wall_ms,
	   r.solve_ms, r.objective, r.bound, r.gap, r.plan_start, r.horizon_steps,
	   r.n_gpus, r.n_jobs, r.n_services,
	   (SELECT count(DISTINCT b.job_id)::integer FROM gpualloc.plan_blocks b
		WHERE b.plan_id = r.plan_id AND b.job_id IS NOT NULL) AS planned_jobs,
	   r.message
FROM gpualloc.plan_runs r;

-- The plan as an SVG Gantt chart (plan_svg*.c); jobs coloured by 'kind' or 'tenant'.
CREATE FUNCTION gpualloc.plan_svg(plan_id bigint, color_by text DEFAULT 'kind') RETURNS text
SET search_path = pg_catalog, gpualloc, pg_temp
AS 'MODULE_PATHNAME', 'gpualloc_plan_svg'
LANGUAGE C STABLE CALLED ON NULL INPUT SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp;
