-- Planning from SQL: replan commits step 0, plan_grid shows the horizon.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- a fresh pool: 16 GPUs on two nodes, a steady service, mixed jobs
SELECT gpualloc.add_pool('h200', 'H200', 141, 989, node_size => 8) > 0 AS pool_added;
SELECT gpualloc.add_node('h200', 0), gpualloc.add_node('h200', 1);
SELECT gpualloc.add_service('assist', 'h200', capacity_per_gpu => 100, max_gpus => 8,
	priority => 2, churn_limit => 2) > 0 AS service_added;
INSERT INTO gpualloc.demand_staging
SELECT 'assist', h, 300 FROM generate_series(date_trunc('hour', now()) - interval '14 days',
											 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand() AS hours;
-- a job already running (for two hours) is pinned where it runs
SELECT gpualloc.submit_job('running', 'training', 'h200', 4, 4, work_gpu_hours => 40,
	not_before => now() + interval '1 minute') AS running \gset
UPDATE gpualloc.jobs SET submitted_at = now() - interval '3 hours', not_before = NULL WHERE job_id = :running;
SELECT gpualloc.job_started(:running, 8, 4, started_at => now() - interval '2 hours');
SELECT gpualloc.submit_job('big', 'training', 'h200', 8, 8, priority => 3, work_gpu_hours => 64) AS big \gset
SELECT gpualloc.submit_job('mid', 'training', 'h200', 2, 4, priority => 2, work_gpu_hours => 8) AS mid \gset
SELECT gpualloc.submit_job('small', 'quantization', 'h200', 1, 1, priority => 1, work_gpu_hours => 2) AS small \gset
SELECT gpualloc.submit_job('later', 'batch_inference', 'h200', 2, 2, priority => 1, work_gpu_hours => 4,
	not_before => now() + interval '3 hours') AS later \gset
SELECT gpualloc.submit_job('estimated', 'training', 'h200', 2, 2,
	features => '{"strategy": "lora", "technique": "sft", "params_b": 8, "tokens_m": 50}') AS estimated \gset

SELECT status, solved_by, objective > 0 AS positive, bound IS NULL AS no_bound_in_fast,
	   gpus_changed > 0 AS changed, message
FROM gpualloc.replan('fast');
SELECT max(plan_id) AS plan FROM gpualloc.plan_runs \gset

-- the run is recorded
SELECT mode, trigger, status, horizon_steps, step, n_jobs >= 5 AS jobs_in_plan, finished_at >= started_at AS timed
FROM gpualloc.plan_runs WHERE plan_id = :plan;
-- the grid covers every GPU and step once; each job is one block
SELECT count(*) = (SELECT count(*) FROM gpualloc.gpus) * 48 AS full_grid,
	   count(DISTINCT (pool, gpu_index, step)) = count(*) AS one_cell_each
FROM gpualloc.plan_grid(:plan);
SELECT job_name, count(DISTINCT gpu_index) AS gpus, count(DISTINCT step) > 0 AS planned,
	   min(step) = 0 AS starts_now
FROM gpualloc.plan_grid(:plan) WHERE pool = 'h200' AND workload_kind = 'job'
GROUP BY job_name ORDER BY job_name;
-- the running job keeps its block from step 0; the later job waits for not_before
SELECT min(gpu_index) AS first, max(gpu_index) AS last, min(step) AS from_step
FROM gpualloc.plan_grid(:plan) WHERE job_id = :running;
SELECT min(step_start) >= (SELECT not_before FROM gpualloc.jobs WHERE job_id = :later) - interval '30 minutes' AS waits
FROM gpualloc.plan_grid(:plan) WHERE job_id = :later;
-- the committed allocation is step 0 of the plan, GPU for GPU
SELECT count(*) AS mismatches
FROM gpualloc.plan_grid(:plan) g
JOIN gpualloc.current_allocation c ON c.pool = g.pool AND c.gpu_index = g.gpu_index
WHERE g.step = 0 AND (g.job_id IS DISTINCT FROM c.job_id OR g.service IS DISTINCT FROM c.service);
SELECT count(*) FILTER (WHERE service = 'assist') > 0 AS service_served,
	   count(*) FILTER (WHERE job_name = 'big') AS big_now
FROM gpualloc.current_allocation WHERE pool = 'h200';

-- a second plan keeps the rows of GPUs whose workload does not change
SELECT array_agg(allocation_id ORDER BY allocation_id) AS before FROM gpualloc.allocations WHERE upper_inf(during) \gset
SELECT status, gpus_changed FROM gpualloc.replan('fast');
SELECT array_agg(allocation_id ORDER BY allocation_id) = :'before' AS rows_kept FROM gpualloc.allocations WHERE upper_inf(during);

-- the fast path: with a current plan, a job submitted while a block is free
-- for its whole estimated run is booked within the call; one that does not
-- fit waits for the next run
SELECT gpualloc.add_node('h200', 2);
SELECT gpualloc.submit_job('quick', 'quantization', 'h200', 4, 8, work_gpu_hours => 4) AS quick \gset
SELECT count(*) AS quick_gpus, min(g.node) AS node, bool_and(upper_inf(a.during)) AS in_force
FROM gpualloc.allocations a JOIN gpualloc.gpus g USING (gpu_id) WHERE a.job_id = :quick;
SELECT gpualloc.submit_job('huge', 'training', 'h200', 16, 16, work_gpu_hours => 64) AS huge \gset
SELECT count(*) AS huge_gpus FROM gpualloc.allocations WHERE job_id = :huge;
SELECT status FROM gpualloc.jobs WHERE job_id = :quick;
-- a booked job has not started: the next plan places it afresh, here on a
-- smaller block so that the 16-GPU job fits sooner
SELECT status, gpus_changed FROM gpualloc.replan('fast');
SELECT count(*) AS quick_gpus_after_replan FROM gpualloc.allocations WHERE job_id = :quick AND upper_inf(during);
SELECT status, block_size FROM gpualloc.queue WHERE job_id = :quick;
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();

-- full mode: never worse than fast, with a bound and a gap
SELECT status, solved_by, bound >= objective - 1e-6 AS bound_holds, gap >= 0 AND gap < 1 AS gap_known
FROM gpualloc.replan('full', time_limit => '2 seconds');
SELECT f.objective >= s.objective - 1e-6 AS full_not_worse
FROM gpualloc.plan_runs f, gpualloc.plan_runs s
WHERE f.plan_id = (SELECT max(plan_id) FROM gpualloc.plan_runs)
  AND s.plan_id = (SELECT max(plan_id) FROM gpualloc.plan_runs) - 1;

-- bad arguments
SELECT * FROM gpualloc.replan('optimal');
SELECT * FROM gpualloc.replan(NULL);
SELECT * FROM gpualloc.replan('full', time_limit => '-1 second');
SELECT * FROM gpualloc.replan('full', time_limit => '2 hours');
SELECT * FROM gpualloc.plan_grid(999999);
SELECT * FROM gpualloc.plan_grid(NULL);
SET gpualloc.step = '7min';
SHOW gpualloc.step;

-- each planning setting is checked when set, and the two together when used
SET gpualloc.horizon = '90min';
SET gpualloc.step = '60min';
SELECT status FROM gpualloc.replan('fast');                                   -- 90 min is not whole 60-min steps
-- so the two may be set in either order: 100 min of 20-min steps, the
-- horizon set while the step was still 60 min
SET gpualloc.horizon = '100min';
SET gpualloc.step = '20min';
SELECT status FROM gpualloc.replan('fast');
RESET gpualloc.step;
RESET gpualloc.horizon;

-- node numbers far apart cost the planner their GPUs, not the span between
-- them: two GPUs at nodes 0 and 4095 of a 1024-slot pool
SELECT gpualloc.add_pool('sparse', 'H100-SXM', 80, 989, node_size => 1024);
SELECT gpualloc.add_gpu('sparse', 0, 0) > 0 AS added, gpualloc.add_gpu('sparse', 4095, 1023) > 0 AS added;
SELECT gpualloc.submit_job('far', 'quantization', 'sparse', 1, work_gpu_hours => 1) AS far \gset
SELECT status FROM gpualloc.replan('fast');
SELECT n_gpus AS planner_gpu_numbers FROM gpualloc.plan_runs ORDER BY plan_id DESC LIMIT 1;
SELECT node, slot FROM gpualloc.current_allocation WHERE job_id = :far;
SELECT count(*) AS planned_cells_of_far FROM gpualloc.plan_grid((SELECT max(plan_id) FROM gpualloc.plan_runs))
WHERE pool = 'sparse' AND job_id = :far AND step = 0;
SELECT gpualloc.cancel_job(:far);
SELECT status FROM gpualloc.replan('fast');
SELECT gpualloc.remove_gpu('sparse', 0, 0), gpualloc.remove_gpu('sparse', 4095, 1023);
SELECT gpualloc.remove_pool('sparse');
SELECT count(*) AS blocks_of_removed_pools FROM gpualloc.plan_blocks b
WHERE NOT EXISTS (SELECT 1 FROM gpualloc.pools p WHERE p.pool_id = b.pool_id);

-- bookings made before a service existed give way to it: a booked job has
-- not started, so the next plan may move it
SELECT gpualloc.add_pool('late', 'L40S', 48, 362, node_size => 4);
SELECT gpualloc.add_node('late', 0);
SELECT gpualloc.submit_job('fill-' || i, 'batch_inference', 'late', 2, 2, work_gpu_hours => 40) > 0 AS submitted
FROM generate_series(1, 2) i;
SELECT status FROM gpualloc.replan('fast');
SELECT count(*) AS booked_gpus FROM gpualloc.current_allocation WHERE pool = 'late' AND workload_kind = 'job';
SELECT gpualloc.add_service('late-chat', 'late', capacity_per_gpu => 10, max_gpus => 4, priority => 5, churn_limit => 4);
SELECT count(*) AS hours FROM (
	SELECT gpualloc.record_demand('late-chat', date_trunc('hour', now()) - make_interval(hours => h), 30)
	FROM generate_series(1, 48) h) d;
SELECT status FROM gpualloc.replan('fast');
SELECT count(*) AS service_gpus FROM gpualloc.current_allocation WHERE service = 'late-chat';
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();
SELECT gpualloc.cancel_job(job_id) FROM gpualloc.jobs WHERE name LIKE 'fill-%' AND status IN ('queued', 'booked');
SELECT gpualloc.remove_service('late-chat');

-- Committing a plan of more than 256 GPUs plans its decision for the
-- call's arrays; the setting that asks for it ends within the call and
-- leaves the caller's own setting as it was, inside its transaction too.
SELECT gpualloc.add_pool('wide', 'A100-80GB', 80, 312) > 0 AS pool_added;
SELECT count(gpualloc.add_node('wide', n)) AS nodes FROM generate_series(0, 39) n;
SELECT gpualloc.submit_job('wide-' || i, 'training', 'wide', 64, 64, work_gpu_hours => 640) > 0 AS submitted
FROM generate_series(1, 4) i;
BEGIN;
SET LOCAL plan_cache_mode = force_generic_plan;
SELECT status FROM gpualloc.replan('fast');
SHOW plan_cache_mode;
COMMIT;
SELECT count(*) AS booked_gpus FROM gpualloc.current_allocation WHERE pool = 'wide' AND workload_kind = 'job';
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();
SELECT count(*) AS cancelled FROM (SELECT gpualloc.cancel_job(job_id) FROM gpualloc.jobs
WHERE name LIKE 'wide-%' AND status IN ('queued', 'booked')) c;
SELECT gpualloc.remove_pool('wide');

-- gpualloc.headroom_min: a steady service's forecast is narrow, so its
-- protect curve is its demand (3 GPUs) and gpualloc.headroom hands it
-- nothing; it still holds GPUs above the demand that the plan leaves idle,
-- up to its max_gpus
SHOW gpualloc.headroom_min;
SET gpualloc.headroom_min = -1;
SELECT gpualloc.add_pool('spare', 'L40S', 48, 362, node_size => 8) > 0 AS pool_added;
SELECT gpualloc.add_node('spare', 0);
SELECT gpualloc.add_service('steady', 'spare', capacity_per_gpu => 100, max_gpus => 5,
	churn_limit => 8) > 0 AS service_added;
INSERT INTO gpualloc.demand_staging
SELECT 'steady', h, 250 FROM generate_series(date_trunc('hour', now()) - interval '14 days',
											 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand() AS hours;
SELECT status FROM gpualloc.replan('fast');
SELECT count(*) AS steady_gpus FROM gpualloc.current_allocation WHERE service = 'steady';
SET gpualloc.headroom_min = 0;
SELECT status FROM gpualloc.replan('fast');
SELECT count(*) AS steady_gpus_without_headroom FROM gpualloc.current_allocation WHERE service = 'steady';
SET gpualloc.headroom_min = 4;
SELECT status FROM gpualloc.replan('fast');
SELECT count(*) AS steady_gpus_at_max FROM gpualloc.current_allocation WHERE service = 'steady';
RESET gpualloc.headroom_min;
SELECT gpualloc.remove_service('steady');
SELECT gpualloc.remove_pool('spare');

-- a job started inside a step holds its block until its estimated end: into
-- the step after its duration counted from its step's start.  The job
-- planned next on its GPUs starts no earlier than that end.
SELECT gpualloc.add_pool('pin', 'A100-80GB', 80, 312, node_size => 2) > 0 AS pool_added;
SELECT gpualloc.add_node('pin', 0);
SELECT gpualloc.submit_job('pin-first', 'training', 'pin', 2, 2, work_gpu_hours => 4,
	not_before => now() + interval '1 minute') AS pin_first \gset
UPDATE gpualloc.jobs SET not_before = NULL, submitted_at = now() - interval '2 hours' WHERE job_id = :pin_first;
-- a second into the step before the current one
SELECT gpualloc.job_started(:pin_first, 0, 2,
	started_at => date_bin(current_setting('gpualloc.step')::interval, now(), '2000-01-01 00:00+00')
				  - current_setting('gpualloc.step')::interval + interval '1 second');
SELECT gpualloc.submit_job('pin-next', 'training', 'pin', 2, 2, work_gpu_hours => 2) AS pin_next \gset
SELECT status FROM gpualloc.replan('fast');
SELECT q.planned_start >= j.started_at + interval '2 hours' AS after_the_first_ends
FROM gpualloc.queue_plan q, gpualloc.jobs j WHERE q.job_id = :pin_next AND j.job_id = :pin_first;
SELECT gpualloc.cancel_job(:pin_first);
-- the same with a time limit shorter than its run: it holds its block until
-- it is stopped, an hour after its start
SELECT gpualloc.submit_job('pin-limited', 'training', 'pin', 2, 2, work_gpu_hours => 40, time_limit => '1 hour',
	not_before => now() + interval '1 minute') AS pin_limited \gset
UPDATE gpualloc.jobs SET not_before = NULL, submitted_at = now() - interval '2 hours' WHERE job_id = :pin_limited;
SELECT gpualloc.job_started(:pin_limited, 0, 2,
	started_at => date_bin(current_setting('gpualloc.step')::interval, now(), '2000-01-01 00:00+00')
				  - current_setting('gpualloc.step')::interval + interval '1 second');
SELECT status FROM gpualloc.replan('fast');
SELECT q.planned_start >= j.started_at + interval '1 hour' AS after_the_limited_one_is_stopped
FROM gpualloc.queue_plan q, gpualloc.jobs j WHERE q.job_id = :pin_next AND j.job_id = :pin_limited;
-- and it is estimated to finish when it is stopped, not 20 hours after its start
SELECT q.est_finish - q.started_at AS limited_runs_for, p.est_finish = q.est_finish AS plan_view_agrees
FROM gpualloc.queue q JOIN gpualloc.queue_plan p USING (job_id) WHERE q.job_id = :pin_limited;
SELECT gpualloc.cancel_job(:pin_next), gpualloc.cancel_job(:pin_limited);
SELECT gpualloc.remove_pool('pin');

-- a horizon shorter than a day: past it the plan expects each service's
-- peak of the next 24 hours.  A service needs 2 of 8 GPUs for the next
-- hours and all 8 from 10 to 15 hours from now; a 4-GPU job of priority 1
-- that runs 14 hours would hold half the pool through that peak, so a
-- 6-hour plan leaves it waiting.  Beside a service whose history is flat
-- at 2 GPUs the same job starts at once.
SELECT gpualloc.add_pool('dusk', 'A100-80GB', 80, 312, node_size => 8) > 0 AS pool_added,
	   gpualloc.add_pool('flat', 'A100-80GB', 80, 312, node_size => 8) > 0 AS pool_added;
SELECT gpualloc.add_node('dusk', 0), gpualloc.add_node('flat', 0);
SELECT gpualloc.add_service('evening', 'dusk', capacity_per_gpu => 100, max_gpus => 8, churn_limit => 8) > 0
	   AS service_added,
	   gpualloc.add_service('level', 'flat', capacity_per_gpu => 100, max_gpus => 8, churn_limit => 8) > 0
	   AS service_added;
INSERT INTO gpualloc.demand_staging
SELECT s, h, CASE WHEN s = 'evening' AND
					   ((extract(epoch FROM h - date_trunc('hour', now())) / 3600)::int % 24 + 24) % 24
					   BETWEEN 10 AND 15 THEN 800 ELSE 200 END
FROM unnest(ARRAY['evening', 'level']) s,
	 generate_series(date_trunc('hour', now()) - interval '14 days',
					 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand() > 0 AS loaded;
SET gpualloc.horizon = '6h';
SELECT gpualloc.submit_job('overnight', 'training', 'dusk', 4, 4, priority => 1, work_gpu_hours => 56) AS overnight \gset
SELECT gpualloc.submit_job('overnight-flat', 'training', 'flat', 4, 4, priority => 1, work_gpu_hours => 56) AS overnight_flat \gset
SELECT status FROM gpualloc.replan('fast');
SELECT count(*) AS overnight_gpus_before_the_peak FROM gpualloc.allocations WHERE job_id = :overnight AND upper_inf(during);
SELECT count(*) AS overnight_gpus_without_a_peak FROM gpualloc.allocations WHERE job_id = :overnight_flat AND upper_inf(during);
RESET gpualloc.horizon;
SELECT gpualloc.cancel_job(:overnight), gpualloc.cancel_job(:overnight_flat);
SELECT gpualloc.remove_service('evening'), gpualloc.remove_service('level');
SELECT gpualloc.remove_pool('dusk'), gpualloc.remove_pool('flat');
