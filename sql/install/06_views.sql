-- Read views: what other systems and people look at.

-- Every GPU with what it runs now (NULL workload: idle).
CREATE VIEW gpualloc.current_allocation AS
SELECT p.name AS pool, g.node, g.slot, g.node * p.node_size + g.slot AS gpu_index,
	   g.gpu_id, g.state,
	   CASE WHEN a.job_id IS NOT NULL THEN 'job' WHEN a.service_id IS NOT NULL THEN 'service' END AS workload_kind,
	   a.job_id, j.name AS job_name, j.tenant, s.name AS service,
	   lower(a.during) AS since, upper(a.during) AS until, a.plan_id
FROM gpualloc.gpus g
JOIN gpualloc.pools p USING (pool_id)
LEFT JOIN gpualloc.allocations a ON a.gpu_id = g.gpu_id AND a.during @> now()
LEFT JOIN gpualloc.jobs j ON j.job_id = a.job_id
LEFT JOIN gpualloc.services s ON s.service_id = a.service_id;

-- Queued and running jobs, most valuable first.
CREATE VIEW gpualloc.queue AS
SELECT j.job_id, j.name, j.kind, j.tenant, p.name AS pool, j.priority, j.gpus_min, j.gpus_max,
	   j.status, j.submitted_at, j.not_before, j.deadline,
	   j.est_gpus, j.est_hours_p50, j.est_hours_p90, j.est_work_gpu_hours,
	   j.started_at, j.block_first, j.block_size,
	   CASE WHEN j.status = 'running' AND j.est_work_gpu_hours IS NOT NULL
			THEN j.started_at + make_interval(secs => 3600 * j.est_work_gpu_hours / j.block_size)
	   END AS est_finish
FROM gpualloc.jobs j
JOIN gpualloc.pools p USING (pool_id)
WHERE j.status IN ('queued', 'running')
ORDER BY j.status DESC, j.priority DESC, j.submitted_at, j.job_id;
