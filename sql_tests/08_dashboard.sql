-- Dashboard views and functions on a fixed history, checked against values
-- worked out by hand; the plan picture as well-formed SVG.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';

-- Pool "dash": two nodes of 4 GPUs (topology indexes 0-7); index 7 is down,
-- so 7 GPUs are available.  Service dash-chat: 10 requests/s per GPU.
SELECT gpualloc.add_pool('dash', 'L40S', 48, 362, node_size => 4) > 0 AS pool_added;
SELECT gpualloc.add_node('dash', 0), gpualloc.add_node('dash', 1);
SELECT gpualloc.set_gpu_state('dash', 1, 3, 'down');
SELECT gpualloc.add_service('dash-chat', 'dash', capacity_per_gpu => 10, max_gpus => 4) > 0 AS service_added;

CREATE TEMP VIEW dash_gpu AS
SELECT g.gpu_id, g.node * p.node_size + g.slot AS idx
FROM gpualloc.gpus g JOIN gpualloc.pools p USING (pool_id) WHERE p.name = 'dash';

-- demand on 2025-01-06: 00h 25 req/s (3 GPUs), 01h 10 (1 GPU), 02h 0; 03h unrecorded
SELECT gpualloc.record_demand('dash-chat', '2025-01-06 00:00+00', 25),
	   gpualloc.record_demand('dash-chat', '2025-01-06 01:00+00', 10),
	   gpualloc.record_demand('dash-chat', '2025-01-06 02:00+00', 0);

-- finished jobs: A (team a, priority 3) on GPUs 4-5 from 00:00 to 02:30,
-- B (team b, priority 1.5) on GPU 3 from 01:15 to 03:15,
-- C (team a, priority 1) on GPU 6 from 00:00 to 01:00
INSERT INTO gpualloc.tenants (tenant) VALUES ('dash_team_a'), ('dash_team_b');
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max, submitted_at,
						   status, started_at, finished_at, block_first, block_size, est_work_gpu_hours)
SELECT v.name, v.kind, v.tenant, p.pool_id, v.priority, v.size, v.size, v.started, 'succeeded',
	   v.started, v.finished, v.first, v.size, v.work
FROM gpualloc.pools p,
	 (VALUES ('dash-a', 'training', 'dash_team_a', 3.0, 2, 4, '2025-01-06 00:00+00'::timestamptz,
			  '2025-01-06 02:30+00'::timestamptz, 5.0),
			 ('dash-b', 'quantization', 'dash_team_b', 1.5, 1, 3, '2025-01-06 01:15+00', '2025-01-06 03:15+00', 2.0),
			 ('dash-c', 'batch_inference', 'dash_team_a', 1.0, 1, 6, '2025-01-06 00:00+00', '2025-01-06 01:00+00', 1.0))
	 AS v(name, kind, tenant, priority, size, first, started, finished, work)
WHERE p.name = 'dash';
INSERT INTO gpualloc.allocations (gpu_id, job_id, during, begin_seq, end_seq)
SELECT d.gpu_id, j.job_id, tstzrange(j.started_at, j.finished_at), 0, 0
FROM gpualloc.jobs j JOIN dash_gpu d ON d.idx >= j.block_first AND d.idx < j.block_first + j.block_size
WHERE j.name IN ('dash-a', 'dash-b', 'dash-c');
-- the service: GPU 0 from 00:00 to 04:00, GPU 1 from 00:00 to 01:30, GPU 2 from 00:30 to 02:00
INSERT INTO gpualloc.allocations (gpu_id, service_id, during, begin_seq, end_seq)
SELECT d.gpu_id, s.service_id, v.during, 0, 0
FROM (VALUES (0, '[2025-01-06 00:00+00, 2025-01-06 04:00+00)'::tstzrange),
			 (1, '[2025-01-06 00:00+00, 2025-01-06 01:30+00)'),
			 (2, '[2025-01-06 00:30+00, 2025-01-06 02:00+00)')) AS v(idx, during)
JOIN dash_gpu d ON d.idx = v.idx
CROSS JOIN gpualloc.services s WHERE s.name = 'dash-chat';

-- Utilisation, 00:00-04:00.  Expected (GPU-hours of 7 available):
--   00h batch 2 (A) + 1 (C) = 3; service 2 GPUs then 3, demand 3: held = served = 2.5
--   01h batch 2 + 0.75 (B); service 3 GPUs then 2, demand 1: held 2.5, served 1
--   02h batch 1 + 1; service 1 GPU, demand 0: held 1, served 0
--   03h batch 0.25; service 1 GPU, no demand recorded: served = held = 1
SELECT hour, gpus_available AS gpus, available_gpu_hours AS avail, batch_gpu_hours AS batch,
	   realtime_gpu_hours AS rt, realtime_held_gpu_hours AS rt_held, busy_gpu_hours AS busy,
	   idle_gpu_hours AS idle, round(utilization::numeric, 4) AS utilization
FROM gpualloc.utilization('2025-01-06 00:00+00', '2025-01-06 04:00+00')
WHERE pool = 'dash' ORDER BY hour;
-- a window cut inside hours counts only its part: 00:30-01:30
SELECT hour, available_gpu_hours AS avail, batch_gpu_hours AS batch, realtime_gpu_hours AS rt,
	   realtime_held_gpu_hours AS rt_held, round(utilization::numeric, 4) AS utilization
FROM gpualloc.utilization('2025-01-06 00:30+00', '2025-01-06 01:30+00')
WHERE pool = 'dash' ORDER BY hour;
-- the view is the function over all history
SELECT count(*) AS view_rows_differing
FROM ((SELECT * FROM gpualloc.utilization_hourly
	   WHERE pool = 'dash' AND hour >= '2025-01-06 00:00+00' AND hour < '2025-01-06 04:00+00')
	  EXCEPT
	  (SELECT * FROM gpualloc.utilization('2025-01-06 00:00+00', '2025-01-06 04:00+00') WHERE pool = 'dash')) d;
-- an empty or reversed window has no rows
SELECT count(*) AS rows FROM gpualloc.utilization('2025-01-06 04:00+00', '2025-01-06 00:00+00');
SELECT count(*) AS rows FROM gpualloc.utilization('2025-01-06 04:30+00', '2025-01-06 00:00+00');
SELECT count(*) AS rows FROM gpualloc.utilization(now(), now() - interval '1 day');

-- Value per hour and tenant: priority x GPU-hours.
--   00h team a 3 x 2 + 1 x 1 = 7;   01h team a 6, team b 1.5 x 0.75 = 1.125
--   02h team a 3, team b 1.5;       03h team b 0.375
SELECT hour, tenant, jobs, job_gpu_hours, value
FROM gpualloc.tenant_value('2025-01-06 00:00+00', '2025-01-06 04:00+00')
WHERE tenant IN ('dash_team_a', 'dash_team_b') ORDER BY hour, tenant;
SELECT sum(value) AS total_value FROM gpualloc.tenant_value_hourly
WHERE tenant IN ('dash_team_a', 'dash_team_b');

-- Coverage per service and hour of recorded demand:
--   00h demanded 3, served 2.5, unmet 0.5;  01h demanded 1, served 1;  02h nothing demanded
SELECT service, pool, hour, traffic, demand_gpus, demanded_gpu_hours AS demanded,
	   held_gpu_hours AS held, served_gpu_hours AS served, unmet_gpu_hours AS unmet,
	   round(coverage::numeric, 4) AS coverage
FROM gpualloc.service_coverage('2025-01-06 00:00+00', '2025-01-06 04:00+00')
WHERE service = 'dash-chat' ORDER BY hour;
SELECT sum(unmet_gpu_hours) AS unmet, round((sum(served_gpu_hours) / sum(demanded_gpu_hours))::numeric, 4) AS coverage
FROM gpualloc.service_coverage_hourly WHERE service = 'dash-chat';

-- The queue against a plan (the latest, by its id): D (2 GPUs, 4 GPU-hours) planned at step 2, F (1
-- GPU, 2 GPU-hours, deadline 06:00) at step 1, G queued but not placed.
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max, submitted_at,
						   deadline, est_work_gpu_hours)
SELECT v.name, v.kind, 'dash_team_a', p.pool_id, v.priority, v.size, v.size, '2025-01-06 03:00+00', v.deadline, v.work
FROM gpualloc.pools p,
	 (VALUES ('dash-d', 'training', 2.0, 2, NULL::timestamptz, 4.0),
			 ('dash-<eval>&"f"', 'batch_inference', 1.0, 1, '2025-01-06 06:00+00', 2.0),
			 ('dash-g', 'quantization', 1.0, 4, NULL, 8.0)) AS v(name, kind, priority, size, deadline, work)
WHERE p.name = 'dash';
INSERT INTO gpualloc.plan_runs (plan_id, mode, trigger, started_at, finished_at, plan_start, step, horizon_steps,
								n_gpus, n_jobs, n_services, objective, bound, gap, solve_ms, status)
VALUES (900000, 'full', 'manual', '2025-01-06 04:00:01+00', '2025-01-06 04:00:01.25+00', '2025-01-06 04:00+00',
		'30 minutes', 8, 8, 3, 1, 90, 100, 0.1, 240.5, 'succeeded')
RETURNING plan_id AS plan \gset
INSERT INTO gpualloc.plan_blocks (plan_id, pool_id, job_id, service_id, gpu_first, gpu_count, step_first, step_count)
SELECT :plan, p.pool_id, j.job_id, NULL, v.first, v.count, v.step, v.steps
FROM gpualloc.pools p, (VALUES ('dash-d', 0, 2, 2, 4), ('dash-<eval>&"f"', 2, 1, 1, 4)) AS v(name, first, count, step, steps)
JOIN gpualloc.jobs j ON j.name = v.name
WHERE p.name = 'dash';
INSERT INTO gpualloc.plan_blocks (plan_id, pool_id, job_id, service_id, gpu_first, gpu_count, step_first, step_count)
SELECT :plan, p.pool_id, NULL, s.service_id, 4, 2, 0, 8
FROM gpualloc.pools p JOIN gpualloc.services s USING (pool_id) WHERE s.name = 'dash-chat';

-- H (2 GPUs, 40 GPU-hours, stopped at its time limit of 3 hours, deadline 07:00) planned at step 2:
-- it ends at 08:00 by its limit, not 20 hours after its start
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max, submitted_at,
						   deadline, est_work_gpu_hours, time_limit)
SELECT 'dash-h', 'training', 'dash_team_a', p.pool_id, 1, 2, 2, '2025-01-06 03:00+00', '2025-01-06 07:00+00',
	   40, '3 hours'
FROM gpualloc.pools p WHERE p.name = 'dash';
INSERT INTO gpualloc.plan_blocks (plan_id, pool_id, job_id, service_id, gpu_first, gpu_count, step_first, step_count)
SELECT :plan, p.pool_id, j.job_id, NULL, 6, 2, 2, 6
FROM gpualloc.pools p JOIN gpualloc.jobs j ON j.name = 'dash-h' WHERE p.name = 'dash';

SELECT name, status, gpus, block_first, planned_start, est_finish, misses_deadline, plan_id = :plan AS this_plan
FROM gpualloc.queue_plan WHERE name LIKE 'dash%' ORDER BY name;
SELECT mode, status, wall_ms, solve_ms, gap, planned_jobs, n_jobs
FROM gpualloc.plan_history WHERE plan_id = :plan;

-- The picture: well-formed XML, one job group per planned job, names escaped.
SELECT gpualloc.plan_svg(:plan) AS svg \gset
SELECT xml_is_well_formed_document(:'svg') AS well_formed,
	   (length(:'svg') - length(replace(:'svg', '<g class="job"', ''))) / length('<g class="job"') AS job_groups,
	   (SELECT count(DISTINCT job_id) FROM gpualloc.plan_blocks WHERE plan_id = :plan) AS planned_jobs,
	   (length(:'svg') - length(replace(:'svg', '<rect class="k-service"', ''))) / length('<rect class="k-service"') AS service_blocks,
	   strpos(:'svg', 'dash-&lt;eval&gt;&amp;&quot;f&quot;') > 0 AS name_escaped,
	   strpos(:'svg', '<eval>') = 0 AS no_raw_name,
	   strpos(:'svg', 'class="k-training"') > 0 AND strpos(:'svg', 'class="k-batch_inference"') > 0 AS kinds_coloured;
-- the latest plan replan() made earlier in the suite renders too, one group per job
SELECT xml_is_well_formed_document(gpualloc.plan_svg(r.plan_id)) AS well_formed,
	   (SELECT count(DISTINCT job_id) FROM gpualloc.plan_blocks b WHERE b.plan_id = r.plan_id) =
	   (SELECT count(*) FROM regexp_matches(gpualloc.plan_svg(r.plan_id), '<g class="job"', 'g')) AS one_group_per_job
FROM gpualloc.plan_runs r
WHERE r.status = 'succeeded' AND r.plan_id < :plan ORDER BY r.plan_id DESC LIMIT 1;
-- plans without a grid are refused
SELECT gpualloc.plan_svg(-1);
INSERT INTO gpualloc.plan_runs (plan_id, mode, trigger, status, message) VALUES (900001, 'fast', 'manual', 'failed', 'no GPUs')
RETURNING plan_id AS failed_plan \gset
SELECT gpualloc.plan_svg(:failed_plan);
SELECT gpualloc.plan_svg(NULL);                                   -- plan_id: NULL is an error, as for plan_grid

-- Readers see the dashboard views and functions, not the tables.
CREATE ROLE dash_reader IN ROLE gpualloc_reader;
SET ROLE dash_reader;
SELECT count(*) AS hours FROM gpualloc.utilization('2025-01-06 00:00+00', '2025-01-06 04:00+00') WHERE pool = 'dash';
SELECT count(*) > 0 AS sees_coverage FROM gpualloc.service_coverage_hourly WHERE service = 'dash-chat';
SELECT count(*) AS queued FROM gpualloc.queue_plan WHERE name LIKE 'dash%';
SELECT count(*) AS runs FROM gpualloc.plan_history WHERE plan_id = :plan;
SELECT xml_is_well_formed_document(gpualloc.plan_svg(:plan)) AS reader_svg;
SELECT count(*) FROM gpualloc.allocations;
RESET ROLE;
DROP ROLE dash_reader;

-- a window reaching back millennia reads only the history there is
SELECT (SELECT count(*) FROM gpualloc.utilization('4713-01-01 BC', 'infinity'))
	 = (SELECT count(*) FROM gpualloc.utilization('-infinity', 'infinity')) AS bounded_by_history;
-- ranges that hold no finite time read nothing, and end: from infinity,
-- to -infinity, both at one infinity
SET statement_timeout = '60s';
CREATE TEMP TABLE no_time (from_ts timestamptz, to_ts timestamptz);
INSERT INTO no_time VALUES ('infinity', 'infinity'), ('infinity', '-infinity'),
	('-infinity', '-infinity'), ('infinity', now());
SELECT (SELECT count(*) FROM no_time r, gpualloc.utilization(r.from_ts, r.to_ts)) AS utilization_rows,
	   (SELECT count(*) FROM no_time r, gpualloc.tenant_value(r.from_ts, r.to_ts)) AS tenant_value_rows,
	   (SELECT count(*) FROM no_time r, gpualloc.service_coverage(r.from_ts, r.to_ts)) AS coverage_rows;
DROP TABLE no_time;
RESET statement_timeout;
