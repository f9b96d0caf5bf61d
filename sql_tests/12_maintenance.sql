-- Maintenance windows: adding, listing and removing them, every bad input
-- refused with an error that names the field and the rule and changes
-- nothing, and the planner and the submit fast path keeping work out of
-- them (a job whose run would reach a window does not start on its GPUs).
SET client_min_messages = warning;
\set SHOW_CONTEXT never

CREATE ROLE mw_team NOLOGIN;
CREATE ROLE mw_reader LOGIN IN ROLE gpualloc_reader;
SELECT gpualloc.add_tenant('mw_team');
SELECT gpualloc.add_pool('mw', 'H100-SXM', 80, 989, node_size => 4) > 0 AS pool_added;
SELECT gpualloc.add_node('mw', 0) AS node_0, gpualloc.add_node('mw', 1) AS node_1;

-- the windows table as text, to show a refusal changed nothing
CREATE FUNCTION pg_temp.mw_state() RETURNS text LANGUAGE sql AS $$
	SELECT md5(coalesce(string_agg(w::text, ',' ORDER BY w.window_id), ''))
	FROM gpualloc.maintenance_windows w $$;
CREATE TABLE mw_saved AS SELECT pg_temp.mw_state() AS state;
GRANT SELECT ON mw_saved TO PUBLIC;
\set same 'SELECT pg_temp.mw_state() = (SELECT state FROM mw_saved) AS unchanged;'

-- indexes 0-3 closed for two hours from now; the whole pool for an hour, a day ahead
SELECT gpualloc.add_maintenance_window('mw', now() - interval '1 minute', now() + interval '2 hours',
	first_gpu => 0, gpus => 4, reason => 'firmware, node 0') > 0 AS node_0_closed;
SELECT gpualloc.add_maintenance_window('mw', now() + interval '1 day', now() + interval '25 hours',
	reason => 'rack move') > 0 AS pool_closed;
SELECT pool, first_gpu, last_gpu, gpus_closed, ends_at - starts_at AS lasts, state, reason
FROM gpualloc.maintenance_schedule WHERE pool = 'mw' ORDER BY starts_at;
UPDATE mw_saved SET state = pg_temp.mw_state();

-- bad inputs
SELECT gpualloc.add_maintenance_window('nope', now(), now() + interval '1 hour');	-- pool must exist
:same
SELECT gpualloc.add_maintenance_window(NULL, now(), now() + interval '1 hour');	-- pool must not be NULL
:same
SELECT gpualloc.add_maintenance_window('mw', NULL, now() + interval '1 hour');	-- starts_at must be given
:same
SELECT gpualloc.add_maintenance_window('mw', '-infinity', now() + interval '1 hour');	-- starts_at finite
:same
SELECT gpualloc.add_maintenance_window('mw', now(), NULL);	-- ends_at must be given
:same
SELECT gpualloc.add_maintenance_window('mw', now(), 'infinity');	-- ends_at finite
:same
SELECT gpualloc.add_maintenance_window('mw', '2030-01-01 12:00+00', '2030-01-01 11:00+00');	-- ends after it starts
:same
SELECT gpualloc.add_maintenance_window('mw', '2030-01-01 12:00+00', '2030-01-01 12:00+00');	-- not empty
:same
SELECT gpualloc.add_maintenance_window('mw', '2020-01-01 10:00+00', '2020-01-01 12:00+00');	-- not over already
:same
SELECT gpualloc.add_maintenance_window('mw', now(), now() + interval '1 hour', first_gpu => -1);	-- index >= 0
:same
SELECT gpualloc.add_maintenance_window('mw', now(), now() + interval '1 hour', first_gpu => NULL);	-- index given
:same
SELECT gpualloc.add_maintenance_window('mw', now(), now() + interval '1 hour', first_gpu => 262144);	-- index in range
:same
SELECT gpualloc.add_maintenance_window('mw', now(), now() + interval '1 hour', gpus => 0);	-- gpus >= 1
:same
SELECT gpualloc.add_maintenance_window('mw', now(), now() + interval '1 hour', first_gpu => 4, gpus => 262141);	-- past the last index
:same
SELECT gpualloc.add_maintenance_window('mw', now(), now() + interval '1 hour', reason => repeat('x', 1001));	-- reason bounded
:same
SELECT gpualloc.remove_maintenance_window(999999);	-- window must exist
:same
SELECT gpualloc.remove_maintenance_window(NULL);	-- window must be given
:same
SET ROLE mw_reader;
SELECT gpualloc.add_maintenance_window('mw', now(), now() + interval '1 hour');	-- admins only
SELECT gpualloc.remove_maintenance_window(1);	-- admins only
SELECT count(*) > 0 AS reader_sees_schedule FROM gpualloc.maintenance_schedule;
RESET ROLE;
:same
-- the table's own checks, for rows written by hand (terse: the rows hold now())
\set VERBOSITY terse
INSERT INTO gpualloc.maintenance_windows (pool_id, first_gpu, starts_at, ends_at)
SELECT pool_id, -1, now(), now() + interval '1 hour' FROM gpualloc.pools WHERE name = 'mw';
INSERT INTO gpualloc.maintenance_windows (pool_id, gpus, starts_at, ends_at)
SELECT pool_id, 0, now(), now() + interval '1 hour' FROM gpualloc.pools WHERE name = 'mw';
INSERT INTO gpualloc.maintenance_windows (pool_id, starts_at, ends_at)
SELECT pool_id, now(), now() FROM gpualloc.pools WHERE name = 'mw';
INSERT INTO gpualloc.maintenance_windows (pool_id, starts_at, ends_at)
SELECT pool_id, now(), 'infinity' FROM gpualloc.pools WHERE name = 'mw';
\set VERBOSITY default
:same

-- the block a job holds now, as "first index + size"
CREATE FUNCTION pg_temp.held(job bigint) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(min(g.node * 4 + g.slot) || ' + ' || count(*), 'none')
	FROM gpualloc.allocations a JOIN gpualloc.gpus g USING (gpu_id)
	WHERE a.job_id = job AND a.end_seq IS NULL $$;

-- a current plan; the fast path books a 4-GPU job beside the window, not in it
SELECT status FROM gpualloc.replan('fast');
SELECT gpualloc.submit_job('mw-a', 'training', 'mw', 4, tenant => 'mw_team', work_gpu_hours => 4) AS a \gset
SELECT pg_temp.held(:a) AS a_beside_the_window;
-- 4-7 now close three hours ahead: a job whose run (4 h on 4 GPUs) would
-- reach that window is not booked anywhere (0-3 are closed now); the run
-- counts lengthened by gpualloc.overrun_margin (0.6), as the planner drains
-- ahead of a window
SELECT gpualloc.cancel_job(:a);
SELECT gpualloc.add_maintenance_window('mw', now() + interval '3 hours', now() + interval '4 hours',
	first_gpu => 4, gpus => 4) > 0 AS node_1_closed_later;
SELECT gpualloc.submit_job('mw-b', 'training', 'mw', 4, tenant => 'mw_team', work_gpu_hours => 16) AS b \gset
SELECT pg_temp.held(:b) AS b_not_booked;
-- a time limit caps that run: 16 GPU-hours on 4 GPUs stopped at 1.5 h
-- (x 1.6 = 2.4 h) ends before the window, and is booked on 4-7
SELECT gpualloc.submit_job('mw-e', 'training', 'mw', 4, tenant => 'mw_team', work_gpu_hours => 16,
	time_limit => '90 minutes') AS e \gset
SELECT pg_temp.held(:e) AS e_limited_ends_before_the_window;
SELECT gpualloc.cancel_job(:e);
-- a job short enough to end before it, margin included (1.5 h * 1.6), is booked on 4-7
SELECT gpualloc.submit_job('mw-c', 'training', 'mw', 4, tenant => 'mw_team', work_gpu_hours => 6) AS c \gset
SELECT pg_temp.held(:c) AS c_ends_before_the_window;

-- the plan: b starts on 0-3 once their window is over, never inside a window
SELECT status FROM gpualloc.replan('fast');
SELECT b.gpu_first, b.gpu_count,
	   r.plan_start + b.step_first * r.step >= (SELECT ends_at FROM gpualloc.maintenance_windows
												WHERE reason = 'firmware, node 0') AS b_after_the_window
FROM gpualloc.plan_blocks b JOIN gpualloc.plan_runs r USING (plan_id)
WHERE b.plan_id = (SELECT max(plan_id) FROM gpualloc.plan_runs) AND b.job_id = :b;
-- and queue_plan says why b waits: the window, until when, and its planned start
SELECT regexp_replace(pending_reason, 'until .*; planned to start at .*$', 'until T; planned to start at T')
	   AS b_pending_reason
FROM gpualloc.queue_plan WHERE job_id = :b;
SELECT count(*) AS blocks_inside_windows
FROM gpualloc.plan_blocks b
JOIN gpualloc.plan_runs r USING (plan_id)
JOIN gpualloc.maintenance_windows w ON w.pool_id = b.pool_id
WHERE b.plan_id = (SELECT max(plan_id) FROM gpualloc.plan_runs)
  AND b.gpu_first < coalesce(w.first_gpu + w.gpus, 2147483647) AND w.first_gpu < b.gpu_first + b.gpu_count
  AND r.plan_start + b.step_first * r.step < w.ends_at
  AND w.starts_at < r.plan_start + (b.step_first + b.step_count) * r.step;

-- removing a window opens its GPUs again
SELECT gpualloc.remove_maintenance_window(window_id) FROM gpualloc.maintenance_windows
WHERE reason = 'firmware, node 0';
SELECT count(*) AS windows_left FROM gpualloc.maintenance_schedule WHERE pool = 'mw';
SELECT gpualloc.cancel_job(:b);
SELECT gpualloc.cancel_job(:c);
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();

-- The run a window must not reach is lengthened by the job's own overrun
-- margin: gpualloc.overrun_margin, or with gpualloc.overrun_spread set,
-- that share of its estimate's spread (p90 / p50 - 1) where it has one.
-- Pool mw, open again, closes whole in three hours; a 4-GPU job of 10
-- GPU-hours runs 2.5 hours.
SELECT gpualloc.add_maintenance_window('mw', now() + interval '3 hours', now() + interval '4 hours',
	reason => 'spread test') > 0 AS mw_closes_in_three_hours;
-- declared work has no spread: 2.5 h x 1.6 = 4 h reaches the window, so
-- neither the fast path nor the plan starts it before
SELECT gpualloc.submit_job('mw-d', 'training', 'mw', 4, tenant => 'mw_team', work_gpu_hours => 10) AS d \gset
SELECT pg_temp.held(:d) AS d_not_booked;
CREATE FUNCTION pg_temp.planned_now(job bigint) RETURNS boolean LANGUAGE sql AS $$
	SELECT b.step_first = 0 FROM gpualloc.plan_blocks b
	WHERE b.plan_id = (SELECT max(plan_id) FROM gpualloc.plan_runs WHERE status = 'succeeded')
	  AND b.job_id = job $$;
SELECT status FROM gpualloc.replan('fast');
SELECT pg_temp.planned_now(:d) AS d_planned_now_without_spread;
-- an estimate whose p90 is 1.1 times its p50, at an overrun spread of
-- 0.75 (the default 0 lengthens every job by the margin): 2.5 h x (1 +
-- 0.75 x 0.1), under 2.7 h, ends before the window; the plan starts it now
UPDATE gpualloc.jobs SET est_hours_p50 = 2.5, est_hours_p90 = 2.75 WHERE job_id = :d;
SET gpualloc.overrun_spread = 0.75;
SELECT status FROM gpualloc.replan('fast');
SELECT pg_temp.planned_now(:d) AS d_planned_now_with_spread;
-- with the spread turned off the margin applies again
SET gpualloc.overrun_spread = 0;
SELECT status FROM gpualloc.replan('fast');
SELECT pg_temp.planned_now(:d) AS d_planned_now_spread_off;
RESET gpualloc.overrun_spread;
SHOW gpualloc.overrun_spread;	-- off by default
SET gpualloc.overrun_spread = 11;	-- a share from 0 to 10
SELECT gpualloc.cancel_job(:d);
SELECT gpualloc.remove_maintenance_window(window_id) FROM gpualloc.maintenance_windows
WHERE reason = 'spread test';
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();

-- A window past the horizon takes GPUs from the services there as a job
-- does, so a job that would run beside it is charged for the demand the
-- two leave unmet (docs/model.md, Objective: the terminal charge).  Pool
-- mwt has 8 GPUs and a service whose traffic needs all 8; a 4-GPU job of 40
-- GPU-hours (10 hours) queues, the plan having no block for it.
SET gpualloc.headroom_min = 0;
SELECT gpualloc.add_pool('mwt', 'L40S', 48, 362, node_size => 8) > 0 AS pool_added;
SELECT gpualloc.add_node('mwt', 0);
SELECT gpualloc.add_service('mwt-chat', 'mwt', capacity_per_gpu => 100, max_gpus => 8,
	churn_limit => 8) > 0 AS service_added;
INSERT INTO gpualloc.demand_staging
SELECT 'mwt-chat', h, 750 FROM generate_series(date_trunc('hour', now()) - interval '14 days',
											   date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand() AS hours;
SELECT status FROM gpualloc.replan('fast');
SELECT gpualloc.submit_job('mwt-long', 'training', 'mwt', 4, tenant => 'mw_team', work_gpu_hours => 40) AS long \gset
SELECT pg_temp.held(:long) AS long_queued;
-- the traffic corrected to 4 GPUs' worth, and a 2-hour horizon: 4 GPUs are
-- free for the job over the whole plan, and past it the service still needs
-- 4 of the 8
INSERT INTO gpualloc.demand_staging
SELECT 'mwt-chat', h, 350 FROM generate_series(date_trunc('hour', now()) - interval '14 days',
											   date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand() AS hours;
SET gpualloc.horizon = '2h';
-- GPUs 4-7 closed from 3 hours ahead, past the horizon, for 10 hours: the
-- job on 0-3 would leave the service nothing there, so it does not start
SELECT gpualloc.add_maintenance_window('mwt', now() + interval '3 hours', now() + interval '13 hours',
	first_gpu => 4, gpus => 4, reason => 'past the horizon') > 0 AS closed_past_the_horizon;
SELECT status FROM gpualloc.replan('fast');
SELECT coalesce(pg_temp.planned_now(:long), false) AS long_planned_now_with_window;
-- without the window the service keeps its 4 beside the job: it starts now
SELECT gpualloc.remove_maintenance_window(window_id) FROM gpualloc.maintenance_windows
WHERE reason = 'past the horizon';
SELECT status FROM gpualloc.replan('fast');
SELECT pg_temp.planned_now(:long) AS long_planned_now_without_window;
SELECT gpualloc.cancel_job(:long);
RESET gpualloc.horizon;
RESET gpualloc.headroom_min;
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();
