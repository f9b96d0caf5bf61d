-- Advance reservations: adding, listing (each tenant sees its own) and
-- removing them, every bad input refused with an error that names the
-- field and the rule and changes nothing, and the planner, the submit fast
-- path and queue_plan's pending reason honouring them: another tenant's job
-- whose run would reach the reservation does not start on its GPUs, the
-- tenant's own job does.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

CREATE ROLE rv_a NOLOGIN;
CREATE ROLE rv_b NOLOGIN;
CREATE ROLE rv_a_user LOGIN IN ROLE rv_a, gpualloc_submitter;
CREATE ROLE rv_b_user LOGIN IN ROLE rv_b, gpualloc_submitter;
CREATE ROLE rv_reader LOGIN IN ROLE gpualloc_reader;
SELECT gpualloc.add_tenant('rv_a');
SELECT gpualloc.add_tenant('rv_b');
CREATE ROLE rv_unregistered NOLOGIN;
SELECT gpualloc.add_pool('rv', 'H100-SXM', 80, 989, node_size => 4) > 0 AS pool_added;
SELECT gpualloc.add_node('rv', 0) AS node_0, gpualloc.add_node('rv', 1) AS node_1;

-- the reservations table as text, to show a refusal changed nothing
CREATE FUNCTION pg_temp.rv_state() RETURNS text LANGUAGE sql AS $$
	SELECT md5(coalesce(string_agg(r::text, ',' ORDER BY r.reservation_id), ''))
	FROM gpualloc.advance_reservations r $$;
CREATE TABLE rv_saved AS SELECT pg_temp.rv_state() AS state;
GRANT SELECT ON rv_saved TO PUBLIC;
\set same 'SELECT pg_temp.rv_state() = (SELECT state FROM rv_saved) AS unchanged;'

-- the whole pool for rv_a from one hour ahead, for four hours
SELECT gpualloc.add_reservation('rv_a', 'rv', now() + interval '1 hour', now() + interval '5 hours',
	reason => 'rv_a training sprint') > 0 AS reserved;
SELECT tenant, pool, first_gpu, last_gpu, ends_at - starts_at AS lasts, state, reason
FROM gpualloc.reservation_schedule;
UPDATE rv_saved SET state = pg_temp.rv_state();

-- bad inputs
SELECT gpualloc.add_reservation('rv_unregistered', 'rv', now(), now() + interval '1 hour');	-- tenant registered
:same
SELECT gpualloc.add_reservation(NULL, 'rv', now(), now() + interval '1 hour');	-- tenant given
:same
SELECT gpualloc.add_reservation('rv_a', 'nope', now(), now() + interval '1 hour');	-- pool must exist
:same
SELECT gpualloc.add_reservation('rv_a', 'rv', NULL, now() + interval '1 hour');	-- starts_at given
:same
SELECT gpualloc.add_reservation('rv_a', 'rv', now(), 'infinity');	-- ends_at finite
:same
SELECT gpualloc.add_reservation('rv_a', 'rv', '2030-01-01 12:00+00', '2030-01-01 11:00+00');	-- ends after it starts
:same
SELECT gpualloc.add_reservation('rv_a', 'rv', '2020-01-01 10:00+00', '2020-01-01 12:00+00');	-- not over already
:same
SELECT gpualloc.add_reservation('rv_a', 'rv', now(), now() + interval '1 hour', first_gpu => -1);	-- index >= 0
:same
SELECT gpualloc.add_reservation('rv_a', 'rv', now(), now() + interval '1 hour', gpus => 0);	-- gpus >= 1
:same
SELECT gpualloc.add_reservation('rv_a', 'rv', now(), now() + interval '1 hour', reason => repeat('x', 1001));	-- reason bounded
:same
\set VERBOSITY terse
SELECT gpualloc.add_reservation('rv_b', 'rv', now() + interval '4 hours', now() + interval '6 hours',
	first_gpu => 2, gpus => 2);	-- another tenant's reservation holds those GPUs then
\set VERBOSITY default
:same
-- one that only touches it, or of the same tenant, is not refused
BEGIN;
SELECT gpualloc.add_reservation('rv_b', 'rv', now() + interval '5 hours', now() + interval '6 hours') > 0 AS after_it;
SELECT gpualloc.add_reservation('rv_a', 'rv', now() + interval '2 hours', now() + interval '3 hours', gpus => 1) > 0
	AS same_tenant;
ROLLBACK;
:same
SELECT gpualloc.remove_reservation(999999);	-- reservation must exist
:same
SELECT gpualloc.remove_reservation(NULL);	-- reservation must be given
:same
SET ROLE rv_a_user;
SELECT gpualloc.add_reservation('rv_a', 'rv', now(), now() + interval '1 hour');	-- admins only
SELECT gpualloc.remove_reservation(1);	-- admins only
RESET ROLE;
:same
-- the table's own checks, for rows written by hand (terse: the rows hold now())
\set VERBOSITY terse
INSERT INTO gpualloc.advance_reservations (tenant, pool_id, first_gpu, starts_at, ends_at)
SELECT 'rv_a', pool_id, -1, now(), now() + interval '1 hour' FROM gpualloc.pools WHERE name = 'rv';
INSERT INTO gpualloc.advance_reservations (tenant, pool_id, starts_at, ends_at)
SELECT 'rv_unregistered', pool_id, now(), now() + interval '1 hour' FROM gpualloc.pools WHERE name = 'rv';
\set VERBOSITY default
:same

-- each tenant's members see its own reservations, no one else's
SET ROLE rv_a_user;
SELECT count(*) AS rv_a_sees FROM gpualloc.reservation_schedule;
SET ROLE rv_b_user;
SELECT count(*) AS rv_b_sees FROM gpualloc.reservation_schedule;
SELECT count(*) AS rv_b_sees_in_table FROM gpualloc.advance_reservations;
SET ROLE rv_reader;
SELECT count(*) AS reader_sees FROM gpualloc.reservation_schedule;
RESET ROLE;

-- the block a job holds now, as "first index + size"
CREATE FUNCTION pg_temp.held(job bigint) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(min(g.node * 4 + g.slot) || ' + ' || count(*), 'none')
	FROM gpualloc.allocations a JOIN gpualloc.gpus g USING (gpu_id)
	WHERE a.job_id = job AND a.end_seq IS NULL $$;

-- with a current plan, the fast path books rv_b's 4-hour job nowhere (its
-- run would reach the reservation), rv_a's at once, and a short rv_b job
-- that ends before the reservation begins (margin included: 0.5 h * 1.6)
SELECT status FROM gpualloc.replan('fast');
SELECT gpualloc.submit_job('rv-b-long', 'training', 'rv', 4, tenant => 'rv_b', work_gpu_hours => 16) AS b \gset
SELECT pg_temp.held(:b) AS b_not_booked;
SELECT gpualloc.submit_job('rv-a-long', 'training', 'rv', 4, tenant => 'rv_a', work_gpu_hours => 16) AS a \gset
SELECT pg_temp.held(:a) AS a_booked;
SELECT gpualloc.submit_job('rv-b-short', 'training', 'rv', 4, tenant => 'rv_b', work_gpu_hours => 2) AS s \gset
SELECT pg_temp.held(:s) AS s_ends_before_it;

-- the plan starts rv_b's long job once the reservation is over, and
-- queue_plan says why it waits
SELECT status FROM gpualloc.replan('fast');
SELECT r.plan_start + b.step_first * r.step >= (SELECT ends_at FROM gpualloc.advance_reservations)
	   AS b_after_the_reservation
FROM gpualloc.plan_blocks b JOIN gpualloc.plan_runs r USING (plan_id)
WHERE b.plan_id = (SELECT max(plan_id) FROM gpualloc.plan_runs) AND b.job_id = :b;
SELECT name, pending_reason LIKE 'held back by advance reservation % of another tenant on GPUs 0.. of the pool until %; planned to start at %'
	   AS held_back
FROM gpualloc.queue_plan WHERE job_id = :b;
SELECT count(*) AS other_blocks_inside_reservations
FROM gpualloc.plan_blocks b
JOIN gpualloc.plan_runs r USING (plan_id)
JOIN gpualloc.jobs j ON j.job_id = b.job_id
JOIN gpualloc.advance_reservations v ON v.pool_id = b.pool_id AND v.tenant <> j.tenant
WHERE b.plan_id = (SELECT max(plan_id) FROM gpualloc.plan_runs)
  AND b.gpu_first < coalesce(v.first_gpu + v.gpus, 2147483647) AND v.first_gpu < b.gpu_first + b.gpu_count
  AND r.plan_start + b.step_first * r.step < v.ends_at
  AND v.starts_at < r.plan_start + (b.step_first + b.step_count) * r.step;

-- removing the reservation frees its GPUs at the next plan
SELECT gpualloc.remove_reservation(reservation_id) FROM gpualloc.advance_reservations;
SELECT count(*) AS reservations_left FROM gpualloc.reservation_schedule;
SELECT gpualloc.cancel_job(:a);
SELECT gpualloc.cancel_job(:b);
SELECT gpualloc.cancel_job(:s);
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();
