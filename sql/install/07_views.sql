-- Read views: what other systems and people look at.

-- Every GPU with what it holds now (NULL workload: idle): the open rows of
-- the allocation.  seq is the change set that began the row; compare it with
-- gpualloc.allocation_seq() and read gpualloc.allocation_changes() after it.
CREATE VIEW gpualloc.current_allocation AS
SELECT p.name AS pool, g.node, g.slot, g.node * p.node_size + g.slot AS gpu_index,
	   g.gpu_id, g.state,
	   CASE WHEN a.job_id IS NOT NULL THEN 'job' WHEN a.service_id IS NOT NULL THEN 'service' END AS workload_kind,
	   a.job_id, j.name AS job_name, j.tenant, s.name AS service,
	   lower(a.during) AS since, upper(a.during) AS until, a.plan_id, a.begin_seq AS seq
FROM gpualloc.gpus g
JOIN gpualloc.pools p USING (pool_id)
LEFT JOIN gpualloc.allocations a ON a.gpu_id = g.gpu_id AND a.end_seq IS NULL
LEFT JOIN gpualloc.jobs j ON j.job_id = a.job_id
LEFT JOIN gpualloc.services s ON s.service_id = a.service_id;

-- The block a booked job holds in the allocation (a running job's is in jobs).
CREATE VIEW gpualloc_internal.bookings AS
SELECT a.job_id, min(g.node * p.node_size + g.slot) AS block_first, count(*)::integer AS block_size
FROM gpualloc.allocations a
JOIN gpualloc.jobs j ON j.job_id = a.job_id AND j.status = 'booked'
JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id
JOIN gpualloc.pools p ON p.pool_id = g.pool_id
WHERE a.end_seq IS NULL
GROUP BY a.job_id;

-- Each job's block in the latest successful plan: its pool, planned start,
-- first GPU and size (a job the plan did not place has no row).
CREATE VIEW gpualloc_internal.latest_planned_jobs AS
WITH latest AS (
	SELECT r.plan_id, r.plan_start, r.step, r.started_at
	FROM gpualloc.plan_runs r
	WHERE r.status IN ('succeeded', 'fallback')
	ORDER BY r.plan_id DESC
	LIMIT 1
)
SELECT b.job_id, l.plan_id, min(b.pool_id) AS pool_id,
	   l.plan_start + min(b.step_first) * l.step AS planned_start,
	   min(b.gpu_first) AS block_first,
	   (max(b.gpu_first + b.gpu_count) - min(b.gpu_first))::integer AS gpus
FROM latest l
JOIN gpualloc.plan_blocks b ON b.plan_id = l.plan_id AND b.job_id IS NOT NULL
GROUP BY b.job_id, l.plan_id, l.plan_start, l.step;

-- Tenant quotas now (docs/model.md, Tenant quotas), per tenant and pool of
-- the pools with a policy: the GPUs its jobs hold (u), its guarantee (g),
-- limit, how far it may borrow from its cohort (b: 0 without a cohort or
-- when it may not borrow), and the pool's and the cohort's sums the excess
-- E(u) is made of: the pool's GPUs no tenant is guaranteed (f), the GPUs
-- held above guarantees (s), the GPUs lent within cohorts (lend), the
-- cohort's borrowed (br, up to each borrow limit) and idle guarantees (idle:
-- what neither a tenant's GPUs nor its forecast need now, n, claim), and
-- the GPUs of the pool no workload holds and not down (free).  E(u) =
-- s - f - lend; the planner keeps it at most 0, or where running jobs left
-- it above, never raises it.
CREATE VIEW gpualloc_internal.tenant_quota_state AS
WITH pol AS (
	SELECT r.tenant, r.pool_id, r.g, r.gpu_limit, r.b, r.cohort FROM gpualloc_internal.quota_rules r
), held AS (
	SELECT j.tenant, g.pool_id, count(*)::integer AS u
	FROM gpualloc.allocations a
	JOIN gpualloc.jobs j ON j.job_id = a.job_id
	JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id
	WHERE a.end_seq IS NULL AND g.pool_id IN (SELECT pool_id FROM pol)
	GROUP BY j.tenant, g.pool_id
), needs AS (
	SELECT n.tenant, n.pool_id, n.gpus AS need FROM gpualloc_internal.tenant_needs n WHERE n.step = 0
), tu AS (
	SELECT coalesce(p.tenant, h.tenant) AS tenant, coalesce(p.pool_id, h.pool_id) AS pool_id,
		   coalesce(h.u, 0) AS u, coalesce(p.g, 0) AS g, p.gpu_limit, coalesce(p.b, 0) AS b, p.cohort,
		   coalesce(n.need, 0) AS n
	FROM pol p FULL JOIN held h ON h.tenant = p.tenant AND h.pool_id = p.pool_id
	LEFT JOIN needs n ON n.tenant = p.tenant AND n.pool_id = p.pool_id
), coh AS (
	SELECT t.pool_id, t.cohort, sum(least(greatest(t.u - t.g, 0), t.b))::bigint AS br,
		   sum(greatest(t.g - greatest(t.u, t.n), 0))::bigint AS idle
	FROM tu t WHERE t.cohort IS NOT NULL
	GROUP BY t.pool_id, t.cohort
), pools AS (
	SELECT t.pool_id,
		   (SELECT count(*) FROM gpualloc.gpus g WHERE g.pool_id = t.pool_id) - sum(t.g) AS f,
		   sum(greatest(t.u - t.g, 0)) AS s,
		   coalesce((SELECT sum(least(c.br, c.idle)) FROM coh c WHERE c.pool_id = t.pool_id), 0) AS lend,
		   (SELECT count(*) FROM gpualloc.gpus g
			WHERE g.pool_id = t.pool_id AND g.state = 'up'
			  AND NOT EXISTS (SELECT 1 FROM gpualloc.allocations a
							  WHERE a.gpu_id = g.gpu_id AND a.end_seq IS NULL)) AS free
	FROM tu t
	GROUP BY t.pool_id
)
SELECT t.tenant, t.pool_id, t.u, t.g, t.gpu_limit, t.b, t.cohort, p.f, p.s, p.lend, p.free,
	   c.br, c.idle, t.n
FROM tu t
JOIN pools p ON p.pool_id = t.pool_id
LEFT JOIN coh c ON c.pool_id = t.pool_id AND c.cohort = t.cohort;

-- Queued, booked and running jobs: running first, then booked, then queued,
-- most valuable first.  A booked job shows the block it is booked on.  A job
-- that has not started says why it waits: pending_code is one word a
-- program can test (as Slurm's pending reason), pending_reason the sentence
-- with the figures behind it; the first that applies of:
--   booked, no_estimate, pool_down, priority (behind the queue depth),
--   not_before, dependency, limit, quota, no_plan, new (submitted after the
--   latest plan), maintenance, reservation, planned (with its start),
--   deadline_unreachable, no_block_free.
CREATE VIEW gpualloc.queue AS
WITH latest AS (
	SELECT r.plan_id, r.started_at
	FROM gpualloc.plan_runs r
	WHERE r.status IN ('succeeded', 'fallback')
	ORDER BY r.plan_id DESC
	LIMIT 1
), qstate AS MATERIALIZED (
	SELECT * FROM gpualloc_internal.tenant_quota_state
), qpool AS (
	SELECT DISTINCT ON (x.pool_id) x.pool_id, x.f, x.s, x.lend, x.free FROM qstate x
), base AS (
	SELECT j.job_id, j.name, j.kind, j.tenant, p.name AS pool, j.priority, j.gpus_min, j.gpus_max,
		   j.status, j.submitted_at, j.not_before, j.deadline,
		   j.est_gpus, j.est_hours_p50, j.est_hours_p90, j.est_work_gpu_hours,
		   j.started_at, coalesce(j.block_first, b.block_first) AS block_first,
		   coalesce(j.block_size, b.block_size) AS block_size,
		   -- its estimated run on the pool it holds (an alternative pool's
		   -- work is in job_pools), or its time limit where that stops it sooner
		   CASE WHEN j.status IN ('running', 'booked') AND j.est_work_gpu_hours IS NOT NULL
				THEN coalesce(j.started_at, j.booked_at)
					 + least(make_interval(secs => 3600 * coalesce(
								 (SELECT jp.est_work_gpu_hours FROM gpualloc.job_pools jp
								  WHERE jp.job_id = j.job_id AND jp.pool_id = j.pool_id),
								 j.est_work_gpu_hours) / coalesce(j.block_size, b.block_size)),
							 j.time_limit)
		   END AS est_finish,
		   j.booked_at,
		   -- several GPU models: pool above is the one the job is booked or runs
		   -- on (its first choice while queued), first_pool its first choice,
		   -- alt_pools the others it may run on, in preference order
		   fp.name AS first_pool,
		   (SELECT array_agg(ap.name ORDER BY jp.preference) FROM gpualloc.job_pools jp
			JOIN gpualloc.pools ap ON ap.pool_id = jp.pool_id WHERE jp.job_id = j.job_id) AS alt_pools,
		   j.pool_id, pl.planned_start, pg.usable, pg.gpus AS pool_gpus
	FROM gpualloc.jobs j
	JOIN gpualloc.pools p USING (pool_id)
	-- each pool's GPUs and how many are not down, counted once per pool
	LEFT JOIN (SELECT g.pool_id, count(*)::integer AS gpus,
					  (count(*) FILTER (WHERE g.state <> 'down'))::integer AS usable
			   FROM gpualloc.gpus g GROUP BY g.pool_id) pg ON pg.pool_id = j.pool_id
	LEFT JOIN gpualloc.pools fp ON fp.pool_id = coalesce(j.requested_pool_id, j.pool_id)
	LEFT JOIN gpualloc_internal.bookings b ON b.job_id = j.job_id
	LEFT JOIN gpualloc_internal.latest_planned_jobs pl ON pl.job_id = j.job_id
	WHERE j.status IN ('queued', 'booked', 'running')
), why AS (
	SELECT q.*,
		   CASE WHEN q.status = 'running' THEN NULL
				WHEN q.status = 'booked' THEN 'booked'
				WHEN q.est_work_gpu_hours IS NULL THEN 'no_estimate'
				WHEN q.gpus_min > q.usable THEN 'pool_down'
				WHEN q.planned_start IS NULL AND ahead.work >= q.pool_gpus * depth.bound THEN 'priority'
				WHEN q.not_before > now() THEN 'not_before'
				WHEN w.after_job_id IS NOT NULL THEN 'dependency'
				WHEN qs.gpu_limit IS NOT NULL AND qs.u + q.gpus_min > qs.gpu_limit THEN 'limit'
				-- more than its quota could ever give it, whatever is free
				WHEN q.gpus_min > quota.most THEN 'quota'
				-- free GPUs it could take now, but its quota, with what the
				-- pool leaves unguaranteed and its cohort lends, does not let it
				WHEN qp.free >= q.gpus_min AND quota.excess_after > greatest(quota.excess_now, 0) THEN 'quota'
				WHEN NOT EXISTS (SELECT 1 FROM latest) THEN 'no_plan'
				WHEN q.submitted_at > (SELECT started_at FROM latest) AND q.planned_start IS NULL THEN 'new'
				WHEN mw.window_id IS NOT NULL THEN 'maintenance'
				WHEN v.reservation_id IS NOT NULL THEN 'reservation'
				WHEN q.planned_start IS NOT NULL THEN 'planned'
				WHEN q.deadline IS NOT NULL THEN 'deadline_unreachable'
				ELSE 'no_block_free'
		   END AS pending_code,
		   qs.u AS tenant_gpus, qs.g AS guarantee, qs.gpu_limit, qs.b AS borrow_limit, qs.cohort,
		   quota.most AS quota_most, qp.f AS unguaranteed,
		   w.after_job_id, w.kind AS after_kind,
		   mw.window_id, mw.first_gpu AS mw_first, mw.gpus AS mw_gpus, mw.ends_at AS mw_ends,
		   v.reservation_id, v.first_gpu AS v_first, v.gpus AS v_gpus, v.ends_at AS v_ends
	FROM base q
	-- the queued work of the job's pool and size a plan considers before it
	-- (src/pg/queue_depth.c), and the bound per GPU of the pool
	LEFT JOIN (SELECT j.job_id,
					  pg_catalog.sum(j.est_work_gpu_hours) OVER (PARTITION BY j.pool_id, j.gpus_min
						  ORDER BY j.priority DESC, j.job_id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS work
			   FROM gpualloc.jobs j
			   WHERE j.status = 'queued' AND j.est_work_gpu_hours IS NOT NULL) ahead ON ahead.job_id = q.job_id
	-- (the settings' defaults where this session has not loaded the library)
	CROSS JOIN (SELECT CASE WHEN d.depth > 0 THEN d.depth * extract(epoch FROM d.horizon) / 3600 END AS bound
				FROM (SELECT coalesce(pg_catalog.current_setting('gpualloc.queue_depth', true), '4')::double precision AS depth,
							 coalesce(pg_catalog.current_setting('gpualloc.horizon', true), '1d')::interval AS horizon) d) depth
	-- its tenant's quota in the pool now (a pool with a policy; a tenant
	-- without one there is guaranteed nothing and borrows nothing) and the
	-- excess E(u) now and with the job's gpus_min added to its tenant's GPUs
	LEFT JOIN qstate qs ON qs.tenant = q.tenant AND qs.pool_id = q.pool_id
	LEFT JOIN qpool qp ON qp.pool_id = q.pool_id
	LEFT JOIN LATERAL (
		SELECT qp.s - qp.f - qp.lend AS excess_now,
			   qp.s - greatest(e.u - e.g, 0) + greatest(e.u + q.gpus_min - e.g, 0) - qp.f
				   - (qp.lend - coalesce(least(e.br, e.idle), 0)
					  + coalesce(least(e.br - least(greatest(e.u - e.g, 0), e.b)
											+ least(greatest(e.u + q.gpus_min - e.g, 0), e.b),
									   e.idle - greatest(e.g - greatest(e.u, e.n), 0)
											+ greatest(e.g - greatest(e.u + q.gpus_min, e.n), 0)), 0))
				   AS excess_after,
			   -- the most it may ever hold there: its guarantee, what the pool
			   -- leaves unguaranteed, and (in a cohort) what it may borrow, at
			   -- most the other guarantees (NULL in a pool without policies)
			   e.g + qp.f + CASE WHEN qs.cohort IS NULL THEN 0
								 ELSE least(e.b::bigint, greatest(q.pool_gpus - qp.f - e.g, 0)) END AS most
		FROM (SELECT coalesce(qs.u, 0) AS u, coalesce(qs.g, 0) AS g, coalesce(qs.b, 0) AS b,
					 coalesce(qs.n, 0) AS n, qs.br, qs.idle) e
	) quota ON true
	-- the first job it still waits for, if any
	LEFT JOIN LATERAL (SELECT d.after_job_id, d.kind FROM gpualloc.job_dependencies d
					   JOIN gpualloc.jobs pj ON pj.job_id = d.after_job_id
					   WHERE d.job_id = q.job_id AND pj.status IN ('queued', 'booked', 'running')
					   ORDER BY d.after_job_id LIMIT 1) w ON q.status = 'queued'
	-- the first maintenance window on its pool in force between now and its
	-- planned start (any time, when not planned)
	LEFT JOIN LATERAL (SELECT m.window_id, m.first_gpu, m.gpus, m.ends_at
					   FROM gpualloc.maintenance_windows m
					   WHERE m.pool_id = q.pool_id AND m.ends_at > now()
						 AND m.starts_at < coalesce(q.planned_start, 'infinity')
					   ORDER BY m.starts_at, m.window_id LIMIT 1) mw ON q.status = 'queued'
	-- the first advance reservation of another tenant on its pool that holds
	-- GPUs between now and its planned start (any time, when not planned)
	LEFT JOIN LATERAL (SELECT r.reservation_id, r.first_gpu, r.gpus, r.ends_at
					   FROM gpualloc.advance_reservations r
					   WHERE r.pool_id = q.pool_id AND r.tenant <> q.tenant AND r.ends_at > now()
						 AND r.starts_at < coalesce(q.planned_start, 'infinity')
					   ORDER BY r.starts_at, r.reservation_id LIMIT 1) v ON q.status = 'queued'
)
SELECT q.job_id, q.name, q.kind, q.tenant, q.pool, q.priority, q.gpus_min, q.gpus_max,
	   q.status, q.submitted_at, q.not_before, q.deadline,
	   q.est_gpus, q.est_hours_p50, q.est_hours_p90, q.est_work_gpu_hours,
	   q.started_at, q.block_first, q.block_size, q.est_finish, q.booked_at,
	   q.first_pool, q.alt_pools, q.pending_code,
	   CASE q.pending_code
			WHEN 'booked' THEN 'booked: waiting for the executor to start it'
			WHEN 'no_estimate' THEN 'no work estimate: not planned'
			WHEN 'pool_down' THEN pg_catalog.format('needs %s GPUs; the pool has %s usable', q.gpus_min, q.usable)
			WHEN 'priority' THEN 'behind the queue depth: jobs of its size with higher priority fill gpualloc.queue_depth'
			WHEN 'not_before' THEN 'not before ' || q.not_before
			WHEN 'dependency' THEN pg_catalog.format('waits for job %s to end (%s)', q.after_job_id, q.after_kind)
			WHEN 'limit' THEN pg_catalog.format('limit: tenant %s holds %s GPUs of pool %s; its limit there is %s',
												q.tenant, q.tenant_gpus, q.pool, q.gpu_limit)
			WHEN 'quota' THEN CASE WHEN q.gpus_min > q.quota_most THEN
				pg_catalog.format('quota: tenant %s may never hold more than %s GPUs of pool %s (its guarantee of %s, the %s GPUs the pool leaves unguaranteed%s), fewer than the %s the job needs',
								  q.tenant, q.quota_most, q.pool, coalesce(q.guarantee, 0), q.unguaranteed,
								  CASE WHEN q.cohort IS NULL OR coalesce(q.borrow_limit, 0) = 0 THEN ''
									   ELSE pg_catalog.format(' and what it may borrow from cohort %s', q.cohort) END,
								  q.gpus_min)
				ELSE pg_catalog.format('quota: tenant %s holds %s GPUs of pool %s against a guarantee of %s; %s more would take it %s above its guarantee, which the GPUs the pool leaves unguaranteed do not cover, and %s',
												q.tenant, coalesce(q.tenant_gpus, 0), q.pool, coalesce(q.guarantee, 0), q.gpus_min,
												greatest(coalesce(q.tenant_gpus, 0) + q.gpus_min - coalesce(q.guarantee, 0), 0),
												CASE WHEN q.cohort IS NULL THEN 'it is in no cohort to borrow from'
													 WHEN q.borrow_limit = 0 THEN pg_catalog.format('it may not borrow from cohort %s', q.cohort)
													 WHEN q.borrow_limit = 2147483647 THEN pg_catalog.format('the idle guarantees cohort %s lends (less its members'' forecast needs) do not either', q.cohort)
													 ELSE pg_catalog.format('borrowing up to %s from cohort %s (less its members'' forecast needs) does not either', q.borrow_limit, q.cohort) END) END
			WHEN 'no_plan' THEN 'no plan yet'
			WHEN 'new' THEN 'submitted after the latest plan: waiting for the next'
			WHEN 'maintenance'
			THEN pg_catalog.format('held back by maintenance window %s on GPUs %s of the pool until %s',
								   q.window_id,
								   CASE WHEN q.mw_gpus IS NULL THEN q.mw_first || '..' ELSE q.mw_first || '..' || (q.mw_first + q.mw_gpus - 1) END,
								   q.mw_ends)
			WHEN 'reservation'
			THEN pg_catalog.format('held back by advance reservation %s of another tenant on GPUs %s of the pool until %s',
								   q.reservation_id,
								   CASE WHEN q.v_gpus IS NULL THEN q.v_first || '..' ELSE q.v_first || '..' || (q.v_first + q.v_gpus - 1) END,
								   q.v_ends)
			WHEN 'planned' THEN 'planned to start at ' || q.planned_start
			WHEN 'deadline_unreachable' THEN 'no block free in time for its deadline within the horizon'
			WHEN 'no_block_free' THEN 'no block free within the horizon'
	   END
	   -- the plan's start, where a reason before it holds the job back
	   || CASE WHEN q.pending_code IN ('dependency', 'limit', 'quota', 'maintenance', 'reservation')
				    AND q.planned_start IS NOT NULL
			   THEN '; planned to start at ' || q.planned_start ELSE '' END AS pending_reason
FROM why q
ORDER BY CASE q.status WHEN 'running' THEN 0 WHEN 'booked' THEN 1 ELSE 2 END,
		 q.priority DESC, q.submitted_at, q.job_id;

-- What an executor acts on: every booked or running job with its command and
-- the GPUs of its block (node and slot, in topology order).
CREATE VIEW gpualloc.executor_work AS
SELECT j.job_id, j.name, j.tenant, j.status, j.command, p.name AS pool,
	   coalesce(j.block_first, b.block_first) AS block_first,
	   coalesce(j.block_size, b.block_size) AS block_size,
	   (SELECT array_agg(g.node ORDER BY g.node, g.slot) FROM gpualloc.allocations a
		JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id
		WHERE a.job_id = j.job_id AND a.end_seq IS NULL) AS nodes,
	   (SELECT array_agg(g.slot ORDER BY g.node, g.slot) FROM gpualloc.allocations a
		JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id
		WHERE a.job_id = j.job_id AND a.end_seq IS NULL) AS slots,
	   j.booked_at, j.started_at
FROM gpualloc.jobs j
JOIN gpualloc.pools p USING (pool_id)
LEFT JOIN gpualloc_internal.bookings b ON b.job_id = j.job_id
WHERE j.status IN ('booked', 'running');
