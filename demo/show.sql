-- What the extension holds, as a user would look at it.
\pset footer off
\echo
\echo '== Pools and GPUs'
SELECT p.name AS pool, p.gpu_model, p.memory_gb, p.node_size,
	   count(g.*) AS gpus, count(*) FILTER (WHERE g.state = 'up') AS up
FROM gpualloc.pools p LEFT JOIN gpualloc.gpus g USING (pool_id)
GROUP BY p.pool_id ORDER BY p.name;
\echo '== Real-time services and their demand history'
SELECT s.name AS service, s.priority, s.capacity_per_gpu, s.churn_limit, s.min_gpus, s.max_gpus,
	   count(d.*) AS hours, min(d.hour) AS first_hour, max(d.hour) AS last_hour,
	   round(max(d.traffic)::numeric) AS peak_traffic,
	   ceil(max(d.traffic) / s.capacity_per_gpu) AS peak_gpus
FROM gpualloc.services s LEFT JOIN gpualloc.demand_history d USING (service_id)
GROUP BY s.service_id ORDER BY s.name;
\echo '== Queue'
SELECT job_id, name, kind, tenant, priority, gpus_min, gpus_max, status,
	   est_work_gpu_hours, deadline IS NOT NULL AS has_deadline
FROM gpualloc.queue;
\echo '== Plan: the full solve (MILP warm-started with the heuristic), step 0 committed'
\echo '   (bound and gap_pct are against every legal plan, those that take GPUs the protect rule keeps'
\echo '   for the chat service included; make bench-solver also bounds the plans that keep the rule)'
SELECT plan_id, status, solved_by, round(objective::numeric, 2) AS objective,
	   round(bound::numeric, 2) AS bound, round((100 * gap)::numeric, 2) AS gap_pct,
	   round(solve_ms::numeric, 1) AS solve_ms, gpus_changed
FROM gpualloc.replan('full', time_limit => '2 seconds');
\echo '== The queue against the plan: planned start, or why a job waits'
SELECT name, status, gpus, planned_start, est_finish, coalesce(pending_reason, 'running') AS why
FROM gpualloc.queue_plan;
\echo '== Current allocation'
SELECT pool, node, slot, state, coalesce(workload_kind, 'idle') AS workload,
	   coalesce(job_name, service) AS name
FROM gpualloc.current_allocation ORDER BY pool, gpu_index;
