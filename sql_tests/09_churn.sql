-- Churn limits that bind: where demand jumps faster than a service may
-- change GPUs, the committed plan changes at most churn_limit GPUs a step,
-- against the GPUs the service holds now and from step to step.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
-- the GPUs counted here are the demand's: no idle GPU handed over as
-- headroom (06_planning tests gpualloc.headroom_min)
SET gpualloc.headroom_min = 0;

-- Per step of a plan: the GPUs a service holds, and how many GPUs changed
-- hands since the step before (GPUs taken on plus GPUs given up).
CREATE FUNCTION pg_temp.service_steps(plan bigint, svc text)
RETURNS TABLE (step integer, gpus bigint, churn bigint) LANGUAGE sql AS $$
	SELECT step, count(*) FILTER (WHERE mine), count(*) FILTER (WHERE mine <> before)
	FROM (SELECT g.step, coalesce(g.service = svc, false) AS mine,
				 lag(coalesce(g.service = svc, false)) OVER (PARTITION BY g.gpu_index ORDER BY g.step) AS before
		  FROM gpualloc.plan_grid(plan) g
		  WHERE g.pool = (SELECT p.name FROM gpualloc.services s JOIN gpualloc.pools p USING (pool_id)
						  WHERE s.name = svc)) c
	GROUP BY step ORDER BY step $$;

-- 8 GPUs and a service that may change one GPU a step, with two weeks of
-- traffic it serves on 1 GPU
SELECT gpualloc.add_pool('ramp', 'L40S', 48, 362, node_size => 8) > 0 AS pool_added;
SELECT gpualloc.add_node('ramp', 0);
SELECT gpualloc.add_service('ramp', 'ramp', capacity_per_gpu => 100, max_gpus => 8,
	churn_limit => 1) > 0 AS service_added;
INSERT INTO gpualloc.demand_staging
SELECT 'ramp', h, 50 FROM generate_series(date_trunc('hour', now()) - interval '14 days',
										  date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand() AS hours;
SELECT status, message FROM gpualloc.replan('fast');
SELECT count(*) AS ramp_gpus FROM gpualloc.current_allocation WHERE service = 'ramp';
SELECT gpu_id AS held_gpu FROM gpualloc.current_allocation WHERE service = 'ramp' \gset

-- the same two weeks corrected to 550 an hour: demand is now 6 GPUs at every
-- step, five more than the service holds
INSERT INTO gpualloc.demand_staging
SELECT 'ramp', h, 550 FROM generate_series(date_trunc('hour', now()) - interval '14 days',
										   date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand() AS hours;
SELECT gpus_planned AS demand_now FROM gpualloc.forecast_demand('ramp', now(), '30 minutes');
SELECT plan_id AS plan, status, coalesce(message, '') AS message FROM gpualloc.replan('fast') \gset
SELECT :'status' AS status, :'message' AS message;
-- the plan ramps one GPU a step, from the one held to the six demanded
SELECT string_agg(gpus::text, ' ' ORDER BY step) AS gpus_per_step, max(churn) AS max_churn
FROM pg_temp.service_steps(:plan, 'ramp') WHERE step < 8;
SELECT max(churn) AS max_churn_over_horizon, min(gpus) FILTER (WHERE step >= 4) AS gpus_after_ramp
FROM pg_temp.service_steps(:plan, 'ramp');
-- and commits its first step: the held GPU kept and one more, not six
SELECT count(*) AS ramp_gpus, bool_or(gpu_id = :held_gpu) AS keeps_held_gpu
FROM gpualloc.current_allocation WHERE service = 'ramp';

-- Borrowing within the limit: a job takes all 4 GPUs of a pool in an hour;
-- until then a service planned for the first time (free to take any number
-- of GPUs at step 0) borrows them, but only as many as it can hand back one
-- a step before the job starts.  Borrowing all four would leave it no legal
-- plan.
SELECT gpualloc.add_pool('lend', 'L40S', 48, 362, node_size => 4) > 0 AS pool_added;
SELECT gpualloc.add_node('lend', 0);
SELECT gpualloc.add_service('burst', 'lend', capacity_per_gpu => 100, max_gpus => 4,
	churn_limit => 1) > 0 AS service_added;
INSERT INTO gpualloc.demand_staging
SELECT 'burst', h, 350 FROM generate_series(date_trunc('hour', now()) - interval '14 days',
											date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand() AS hours;
SELECT gpualloc.submit_job('wide', 'training', 'lend', 4, 4, priority => 10, work_gpu_hours => 40,
	not_before => now() + interval '1 hour') AS wide \gset
SELECT plan_id AS plan, status, coalesce(message, '') AS message FROM gpualloc.replan('fast') \gset
SELECT :'status' AS status, :'message' AS message;
-- the job starts on all four GPUs at the first step from its release
SELECT count(DISTINCT g.gpu_index) AS job_gpus,
	   min(g.step_start) >= j.not_before AND min(g.step_start) < j.not_before + interval '30 minutes'
	   AS starts_at_release
FROM gpualloc.plan_grid(:plan) g JOIN gpualloc.jobs j USING (job_id)
WHERE g.job_id = :wide GROUP BY j.not_before;
SELECT min(step) AS job_step, max(step) AS job_last FROM gpualloc.plan_grid(:plan) WHERE job_id = :wide \gset
-- the service borrows at least two GPUs at step 0, no more than it can hand
-- back one a step by then, and holds none while the job runs
SELECT bool_and(gpus = 0) FILTER (WHERE step BETWEEN :job_step AND :job_last) AS none_while_job_runs,
	   min(gpus) FILTER (WHERE step = 0) >= 2 AS borrows_at_step_0,
	   min(gpus) FILTER (WHERE step = 0) <= :job_step AS no_more_than_it_can_return,
	   max(churn) AS max_churn
FROM pg_temp.service_steps(:plan, 'burst');

-- A churn budget in full mode: a service that may hand over two GPUs in
-- the whole horizon is planned by the MILP (or, past its time limit, by
-- fast), and the plan changes its GPUs at most twice after step 0.
SELECT gpualloc.add_pool('budget', 'L40S', 48, 362, node_size => 4) > 0 AS pool_added;
SELECT gpualloc.add_node('budget', 0);
SELECT gpualloc.add_service('steady', 'budget', capacity_per_gpu => 100, max_gpus => 4,
	churn_limit => 2, churn_budget => 2) > 0 AS service_added;
INSERT INTO gpualloc.demand_staging
SELECT 'steady', h, 250 FROM generate_series(date_trunc('hour', now()) - interval '14 days',
											 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand() AS hours;
SELECT plan_id AS plan, status FROM gpualloc.replan('full', time_limit => '10 seconds') \gset
SELECT :'status' IN ('succeeded', 'fallback') AS planned;
SELECT sum(churn) <= 2 AS within_budget, min(gpus) FILTER (WHERE step = 0) >= 1 AS serves_at_step_0
FROM pg_temp.service_steps(:plan, 'steady');

-- GPUs taken from a service are not churn: a service on 6 GPUs with a
-- churn limit of 1 loses 4 of them to a drain at once.  The next plan is
-- legal: it keeps the 2 GPUs left, takes one more (the one handover it
-- chose), and holds nothing on the drained GPUs.
SELECT gpualloc.add_pool('shed', 'L40S', 48, 362, node_size => 8) > 0 AS pool_added;
SELECT gpualloc.add_node('shed', 0);
SELECT gpualloc.add_service('shed', 'shed', capacity_per_gpu => 100, max_gpus => 8,
	churn_limit => 1) > 0 AS service_added;
INSERT INTO gpualloc.demand_staging
SELECT 'shed', h, 550 FROM generate_series(date_trunc('hour', now()) - interval '14 days',
										   date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand() AS hours;
SELECT status FROM gpualloc.replan('fast');
SELECT count(*) AS shed_gpus FROM gpualloc.current_allocation WHERE service = 'shed';
WITH held AS MATERIALIZED (SELECT node, slot FROM gpualloc.current_allocation
						   WHERE service = 'shed' ORDER BY slot LIMIT 4)
SELECT count(*) AS drained FROM (SELECT gpualloc.drain_gpu('shed', node, slot) FROM held) d;
SELECT status, coalesce(message, '') AS message FROM gpualloc.replan('fast');
SELECT count(*) AS shed_gpus, count(*) FILTER (WHERE state <> 'up') AS on_drained_gpus
FROM gpualloc.current_allocation WHERE service = 'shed';
