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

-- Queued, booked and running jobs: running first, then booked, then queued,
-- most valuable first.  A booked job shows the block it is booked on.
CREATE VIEW gpualloc.queue AS
SELECT j.job_id, j.name, j.kind, j.tenant, p.name AS pool, j.priority, j.gpus_min, j.gpus_max,
	   j.status, j.submitted_at, j.not_before, j.deadline,
	   j.est_gpus, j.est_hours_p50, j.est_hours_p90, j.est_work_gpu_hours,
	   j.started_at, coalesce(j.block_first, b.block_first) AS block_first,
	   coalesce(j.block_size, b.block_size) AS block_size,
	   CASE WHEN j.status IN ('running', 'booked') AND j.est_work_gpu_hours IS NOT NULL
			THEN coalesce(j.started_at, j.booked_at)
				 + make_interval(secs => 3600 * j.est_work_gpu_hours / coalesce(j.block_size, b.block_size))
	   END AS est_finish,
	   j.booked_at,
	   -- several GPU models: pool above is the one the job is booked or runs
	   -- on (its first choice while queued), first_pool its first choice,
	   -- alt_pools the others it may run on, in preference order
	   fp.name AS first_pool,
	   (SELECT array_agg(ap.name ORDER BY jp.preference) FROM gpualloc.job_pools jp
		JOIN gpualloc.pools ap ON ap.pool_id = jp.pool_id WHERE jp.job_id = j.job_id) AS alt_pools
FROM gpualloc.jobs j
JOIN gpualloc.pools p USING (pool_id)
LEFT JOIN gpualloc.pools fp ON fp.pool_id = coalesce(j.requested_pool_id, j.pool_id)
LEFT JOIN gpualloc_internal.bookings b ON b.job_id = j.job_id
WHERE j.status IN ('queued', 'booked', 'running')
ORDER BY CASE j.status WHEN 'running' THEN 0 WHEN 'booked' THEN 1 ELSE 2 END,
		 j.priority DESC, j.submitted_at, j.job_id;

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
