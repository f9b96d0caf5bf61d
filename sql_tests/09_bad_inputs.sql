-- Bad inputs: a corpus for every function a user can call, each refused with
-- an error that names the field and the rule, and each refusal changing
-- nothing.
--
-- Each bad input is one line, with the rule it breaks in its comment,
-- followed by :same, which prints t when every table of the gpualloc schema
-- still has the checksum saved before the corpus (sec_state(): an md5 of each
-- table's rows in a fixed order, over all of them).  Inputs the extension
-- accepts although it should refuse them are not in this file.
--
-- The file sets up its own pool, service, tenants, roles and jobs.  Job ids
-- start at 800001 (the sequence is set below) and plan ids 800001 and 800002
-- are inserted, so the ids in the messages are fixed.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, YMD';

-- The checksum of every gpualloc table, readable from any role the corpus
-- switches to (it runs as its owner, the superuser running the suite).
CREATE TABLE sec_saved (state text NOT NULL);
CREATE FUNCTION sec_state() RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	r record;
	h text;
	acc text := '';
BEGIN
	FOR r IN SELECT c.oid::regclass AS rel, c.relname FROM pg_class c
			 JOIN pg_namespace n ON n.oid = c.relnamespace
			 WHERE n.nspname IN ('gpualloc', 'gpualloc_internal') AND c.relkind IN ('r', 'p')
			 ORDER BY n.nspname, c.relname LOOP
		EXECUTE format('SELECT md5(coalesce(string_agg(t::text, '','' ORDER BY t::text), '''')) FROM %s t', r.rel)
		INTO h;
		acc := acc || r.rel::text || '=' || h || ';';
	END LOOP;
	RETURN md5(acc);
END
$$;
CREATE FUNCTION sec_save() RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
AS $$ DELETE FROM sec_saved; INSERT INTO sec_saved SELECT sec_state(); $$;
CREATE FUNCTION sec_same() RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp
AS $$ SELECT sec_state() = (SELECT state FROM sec_saved) $$;
\set same 'SELECT sec_same();'
-- the checksum covers every table of the extension's two schemas
SELECT count(*) AS tables_checked FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('gpualloc', 'gpualloc_internal') AND c.relkind IN ('r', 'p');

-- Roles: a non-superuser admin, two submitters of two tenants, an executor,
-- a reader, and a login role with no gpualloc role at all.
CREATE ROLE sec_admin LOGIN IN ROLE gpualloc_admin;
CREATE ROLE sec_team NOLOGIN;
CREATE ROLE sec_other_team NOLOGIN;
CREATE ROLE sec_sub LOGIN IN ROLE gpualloc_submitter, sec_team;
CREATE ROLE sec_sub2 LOGIN IN ROLE gpualloc_submitter, sec_other_team;
CREATE ROLE sec_exec LOGIN IN ROLE gpualloc_executor;
CREATE ROLE sec_reader LOGIN IN ROLE gpualloc_reader;
CREATE ROLE sec_nobody LOGIN;
SELECT gpualloc.add_tenant('sec_team', max_priority => 5), gpualloc.add_tenant('sec_other_team');

-- Pool "sec": two nodes of 4 GPUs (indexes 0-7), index 7 down, so 7 usable;
-- a pool with no GPU; a pool that has only a service.
SELECT gpualloc.add_pool('sec', 'A100-80GB', 80, 312, node_size => 4) > 0 AS pool_added;
SELECT gpualloc.add_node('sec', 0), gpualloc.add_node('sec', 1);
SELECT gpualloc.set_gpu_state('sec', 1, 3, 'down');
SELECT gpualloc.add_pool('sec-empty', 'A100-80GB', 80, 312, node_size => 2) > 0 AS pool_added;
SELECT gpualloc.add_pool('sec-svc', 'A100-80GB', 80, 312, node_size => 2) > 0 AS pool_added;
SELECT gpualloc.add_node('sec-svc', 0);
SELECT gpualloc.add_service('sec-chat', 'sec', capacity_per_gpu => 10, max_gpus => 2) > 0 AS service_added;
SELECT gpualloc.add_service('sec-svc-chat', 'sec-svc', capacity_per_gpu => 10, max_gpus => 1) > 0 AS service_added;
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 10:00+00', 5);

-- Jobs of sec_team in each state: 800001 queued, 800002 booked on indexes
-- 4-5, 800003 running on 0-1, 800004 succeeded, 800005 cancelled; 800006
-- queued for sec_other_team.  not_before keeps them off the submit fast path.
SELECT setval('gpualloc.jobs_job_id_seq', 800000);
SET ROLE sec_sub;
SELECT gpualloc.submit_job('sec-queued', 'training', 'sec', 2, tenant => 'sec_team', work_gpu_hours => 4,
	not_before => now() + interval '1 hour') AS queued;
SELECT gpualloc.submit_job('sec-booked', 'training', 'sec', 2, tenant => 'sec_team', work_gpu_hours => 4,
	not_before => now() + interval '1 hour') AS booked;
SELECT gpualloc.submit_job('sec-running', 'training', 'sec', 2, tenant => 'sec_team', work_gpu_hours => 4,
	not_before => now() + interval '1 hour') AS running;
SELECT gpualloc.submit_job('sec-done', 'quantization', 'sec', 1, tenant => 'sec_team', work_gpu_hours => 1,
	not_before => now() + interval '1 hour') AS done;
SELECT gpualloc.submit_job('sec-cancelled', 'batch_inference', 'sec', 1, tenant => 'sec_team', work_gpu_hours => 1,
	not_before => now() + interval '1 hour') AS cancelled;
RESET ROLE;
SET ROLE sec_sub2;
SELECT gpualloc.submit_job('sec-other', 'training', 'sec', 1, tenant => 'sec_other_team', work_gpu_hours => 1,
	not_before => now() + interval '1 hour') AS other;
RESET ROLE;
SELECT gpualloc_internal.allocations_set(array_agg(g.gpu_id ORDER BY g.slot), ARRAY[800002, 800002]::bigint[], '{}', 'submit') AS booked_gpus
FROM gpualloc.gpus g JOIN gpualloc.pools p USING (pool_id) WHERE p.name = 'sec' AND g.node = 1 AND g.slot IN (0, 1);
SELECT gpualloc.job_started(800003, 0, 2);
SELECT gpualloc.job_started(800004, 2, 1);
SELECT gpualloc.job_finished(800004, succeeded => true);
SELECT gpualloc.cancel_job(800005, 'not needed');
SELECT job_id, name, tenant, status, coalesce(j.block_first, b.block_first) AS block_first,
	   coalesce(j.block_size, b.block_size) AS block_size
FROM gpualloc.jobs j LEFT JOIN gpualloc_internal.bookings b USING (job_id) WHERE job_id > 800000 ORDER BY job_id;
-- plans without a grid
INSERT INTO gpualloc.plan_runs (plan_id, mode, trigger, status, message)
VALUES (800001, 'fast', 'manual', 'failed', 'sec: the solver failed'), (800002, 'full', 'worker', 'running', NULL);

-- Sources load_demand must refuse, each with one bad row or a bad shape.
CREATE TABLE sec_no_traffic (service text, hour timestamptz);
CREATE TABLE sec_bad_traffic (service text, hour timestamptz, traffic float8);
INSERT INTO sec_bad_traffic VALUES ('sec-chat', '2025-06-02 11:00+00', 3), ('sec-chat', '2025-06-02 12:00+00', -1);
CREATE TABLE sec_nan_traffic AS SELECT 'sec-chat'::text AS service, '2025-06-02 11:00+00'::timestamptz AS hour, 'NaN'::float8 AS traffic;
CREATE TABLE sec_huge_traffic AS SELECT 'sec-chat'::text AS service, '2025-06-02 11:00+00'::timestamptz AS hour, 1e16::float8 AS traffic;
CREATE TABLE sec_dup_hour (service text, hour timestamptz, traffic float8);
INSERT INTO sec_dup_hour VALUES ('sec-chat', '2025-06-02 11:00+00', 1), ('sec-chat', '2025-06-02 11:00+00', 2);
CREATE TABLE sec_unknown_service AS SELECT 'sec-nope'::text AS service, '2025-06-02 11:00+00'::timestamptz AS hour, 1::float8 AS traffic;
CREATE TABLE sec_null_service AS SELECT NULL::text AS service, '2025-06-02 11:00+00'::timestamptz AS hour, 1::float8 AS traffic;
CREATE TABLE sec_half_hour AS SELECT 'sec-chat'::text AS service, '2025-06-02 11:30+00'::timestamptz AS hour, 1::float8 AS traffic;
CREATE TABLE sec_old_hour AS SELECT 'sec-chat'::text AS service, '1999-12-31 23:00+00'::timestamptz AS hour, 1::float8 AS traffic;
CREATE TABLE sec_future_hour AS SELECT 'sec-chat'::text AS service, '2999-01-01 00:00+00'::timestamptz AS hour, 1::float8 AS traffic;
CREATE TABLE sec_null_hour AS SELECT 'sec-chat'::text AS service, NULL::timestamptz AS hour, 1::float8 AS traffic;
CREATE TABLE sec_text_traffic AS SELECT 'sec-chat'::text AS service, '2025-06-02 11:00+00'::timestamptz AS hour, 'lots'::text AS traffic;
CREATE TABLE sec_text_hour AS SELECT 'sec-chat'::text AS service, 'yesterday-ish'::text AS hour, 1::float8 AS traffic;
CREATE VIEW sec_demand_view AS SELECT 'sec-chat'::text AS service, '2025-06-02 11:00+00'::timestamptz AS hour, 1::float8 AS traffic;
CREATE MATERIALIZED VIEW sec_demand_matview AS SELECT * FROM sec_demand_view;
CREATE TEMP VIEW sec_temp_view AS SELECT * FROM sec_demand_view;
CREATE SEQUENCE sec_seq;
CREATE TABLE sec_private AS SELECT * FROM sec_demand_view;            -- sec_admin may not read it

-- Save the state; from here on every line is a bad input.
SELECT sec_save();
\pset tuples_only on
\pset format unaligned
-- the checksum sees a change (rolled back)
BEGIN;
UPDATE gpualloc.pools SET memory_gb = 81 WHERE name = 'sec';
SELECT sec_same() AS same_after_a_change;
ROLLBACK;
:same

-- add_pool(name, gpu_model, memory_gb, peak_tflops, node_size)
SELECT gpualloc.add_pool(NULL, 'A100-80GB', 80, 312); :same -- name: NULL
SELECT gpualloc.add_pool('', 'A100-80GB', 80, 312); :same -- name: empty
SELECT gpualloc.add_pool('bad name!', 'A100-80GB', 80, 312); :same -- name: space and "!"
SELECT gpualloc.add_pool(repeat('p', 64), 'A100-80GB', 80, 312); :same -- name: 64 characters, over 63
SELECT gpualloc.add_pool('-sec', 'A100-80GB', 80, 312); :same -- name: starts with "-"
SELECT gpualloc.add_pool('_sec', 'A100-80GB', 80, 312); :same -- name: starts with "_"
SELECT gpualloc.add_pool('café', 'A100-80GB', 80, 312); :same -- name: non-ASCII letter
SELECT gpualloc.add_pool('sec;drop', 'A100-80GB', 80, 312); :same -- name: ";"
SELECT gpualloc.add_pool('sec/pool', 'A100-80GB', 80, 312); :same -- name: "/"
SELECT gpualloc.add_pool(E'sec\nx', 'A100-80GB', 80, 312); :same -- name: newline inside
SELECT gpualloc.add_pool(E'sec\n', 'A100-80GB', 80, 312); :same -- name: trailing newline
SELECT gpualloc.add_pool('sec''s', 'A100-80GB', 80, 312); :same -- name: quote
SELECT gpualloc.add_pool('<svg>', 'A100-80GB', 80, 312); :same -- name: markup
SELECT gpualloc.add_pool('sec', 'A100-80GB', 80, 312); :same -- name: already exists
SELECT gpualloc.add_pool('sec2', NULL, 80, 312); :same -- gpu_model: NULL
SELECT gpualloc.add_pool('sec2', '', 80, 312); :same -- gpu_model: empty
SELECT gpualloc.add_pool('sec2', 'A100 80GB', 80, 312); :same -- gpu_model: space
SELECT gpualloc.add_pool('sec2', repeat('m', 64), 80, 312); :same -- gpu_model: over 63 characters
SELECT gpualloc.add_pool('sec2', 'A100-80GB', NULL, 312); :same -- memory_gb: NULL
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 0, 312); :same -- memory_gb: zero
SELECT gpualloc.add_pool('sec2', 'A100-80GB', -80, 312); :same -- memory_gb: negative
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 'NaN', 312); :same -- memory_gb: NaN
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 'Infinity', 312); :same -- memory_gb: infinite
SELECT gpualloc.add_pool('sec2', 'A100-80GB', '-Infinity', 312); :same -- memory_gb: minus infinity
SELECT gpualloc.add_pool('sec2', 'A100-80GB', '1e309', 312); :same -- memory_gb: beyond double precision
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 'eighty', 312); :same -- memory_gb: not a number
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, NULL); :same -- peak_tflops: NULL
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 0); :same -- peak_tflops: zero
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, -1e308); :same -- peak_tflops: negative
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 'NaN'); :same -- peak_tflops: NaN
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 'Infinity'); :same -- peak_tflops: infinite
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 1e308); :same -- peak_tflops: above 1e6 (an alternative pool's work would underflow)
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 1e-300); :same -- peak_tflops: below 1e-3
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 1e-300, 312); :same -- memory_gb: below 1e-3
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 1e7, 312); :same -- memory_gb: above 1e6
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 312, node_size => NULL); :same -- node_size: NULL
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 312, node_size => 0); :same -- node_size: zero
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 312, node_size => -8); :same -- node_size: negative
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 312, node_size => 6); :same -- node_size: not a power of two
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 312, node_size => 2048); :same -- node_size: above 1024
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 312, node_size => 1073741824); :same -- node_size: 2^30
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 312, node_size => 2147483647); :same -- node_size: largest integer
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 312, node_size => 2147483648); :same -- node_size: beyond integer
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80, 312, node_size => 8.5); :same -- node_size: fractional (no such signature)
SELECT gpualloc.add_pool(42, 'A100-80GB', 80, 312); :same -- name: an integer (no such signature)
SELECT gpualloc.add_pool('sec2', 'A100-80GB', 80); :same -- peak_tflops: missing

-- remove_pool(name)
SELECT gpualloc.remove_pool(NULL); :same -- name: NULL
SELECT gpualloc.remove_pool(''); :same -- name: empty, no such pool
SELECT gpualloc.remove_pool('sec-nope'); :same -- name: no such pool
SELECT gpualloc.remove_pool('SEC'); :same -- name: names are case-sensitive
SELECT gpualloc.remove_pool(repeat('p', 70)); :same -- name: over-long, no such pool
SELECT gpualloc.remove_pool('sec'); :same -- still has queued, booked and running jobs
SELECT gpualloc.remove_pool('sec-svc'); :same -- still has a service

-- add_node(pool, node, gpus)
SELECT gpualloc.add_node(NULL, 2); :same -- pool: NULL
SELECT gpualloc.add_node('sec-nope', 2); :same -- pool: no such pool
SELECT gpualloc.add_node('sec', NULL); :same -- node: NULL
SELECT gpualloc.add_node('sec', -1); :same -- node: negative
SELECT gpualloc.add_node('sec', 65536); :same -- node: above 65535
SELECT gpualloc.add_node('sec', 2147483647); :same -- node: largest integer
SELECT gpualloc.add_node('sec', 2147483648); :same -- node: beyond integer
SELECT gpualloc.add_node('sec', 'two'); :same -- node: not a number
SELECT gpualloc.add_node('sec', 2, 0); :same -- gpus: zero
SELECT gpualloc.add_node('sec', 2, -1); :same -- gpus: negative
SELECT gpualloc.add_node('sec', 2, 5); :same -- gpus: more than node_size 4
SELECT gpualloc.add_node('sec', 2, 2147483647); :same -- gpus: largest integer
SELECT gpualloc.add_node('sec', 0); :same -- node 0 exists: its first GPU is a duplicate
SELECT gpualloc.add_node('sec-empty', 0, 3); :same -- gpus: more than node_size 2

-- add_gpu(pool, node, slot)
SELECT gpualloc.add_gpu(NULL, 2, 0); :same -- pool: NULL
SELECT gpualloc.add_gpu('', 2, 0); :same -- pool: empty, no such pool
SELECT gpualloc.add_gpu('sec', NULL, 0); :same -- node: NULL
SELECT gpualloc.add_gpu('sec', -1, 0); :same -- node: negative
SELECT gpualloc.add_gpu('sec', 65536, 0); :same -- node: above 65535
SELECT gpualloc.add_gpu('sec', -2147483648, 0); :same -- node: smallest integer
SELECT gpualloc.add_gpu('sec', 2, NULL); :same -- slot: NULL
SELECT gpualloc.add_gpu('sec', 2, -1); :same -- slot: negative
SELECT gpualloc.add_gpu('sec', 2, 4); :same -- slot: node_size 4 is one past the last slot
SELECT gpualloc.add_gpu('sec', 2, 2147483647); :same -- slot: largest integer
SELECT gpualloc.add_gpu('sec', 0, 0); :same -- GPU already exists
SELECT gpualloc.add_gpu('sec', 1.5, 0); :same -- node: fractional (no such signature)

-- remove_gpu(pool, node, slot)
SELECT gpualloc.remove_gpu(NULL, 0, 0); :same -- pool: NULL
SELECT gpualloc.remove_gpu('sec-nope', 0, 0); :same -- pool: no such pool
SELECT gpualloc.remove_gpu('sec', 7, 0); :same -- no such GPU
SELECT gpualloc.remove_gpu('sec', NULL, 0); :same -- node: NULL
SELECT gpualloc.remove_gpu('sec', 0, -1); :same -- slot: negative
SELECT gpualloc.remove_gpu('sec', 0, 0); :same -- GPU runs job 800003
SELECT gpualloc.remove_gpu('sec', 1, 0); :same -- GPU is booked for job 800002

-- set_gpu_state(pool, node, slot, state) and drain_gpu(pool, node, slot)
SELECT gpualloc.set_gpu_state('sec', 0, 3, 'broken'); :same -- state: unknown
SELECT gpualloc.set_gpu_state('sec', 0, 3, NULL); :same -- state: NULL
SELECT gpualloc.set_gpu_state('sec', 0, 3, ''); :same -- state: empty
SELECT gpualloc.set_gpu_state('sec', 0, 3, 'UP'); :same -- state: states are lower case
SELECT gpualloc.set_gpu_state('sec', 0, 3, ' down'); :same -- state: leading space
SELECT gpualloc.set_gpu_state('sec', 0, 3, 'offline'); :same -- state: not one of up, drain, down
SELECT gpualloc.set_gpu_state('sec', 0, 3, 'drained'); :same -- state: "drain", not "drained"
SELECT gpualloc.set_gpu_state('sec', 9, 0, 'down'); :same -- no such GPU
SELECT gpualloc.set_gpu_state('sec-nope', 0, 0, 'down'); :same -- pool: no such pool
SELECT gpualloc.set_gpu_state(NULL, 0, 0, 'down'); :same -- pool: NULL
SELECT gpualloc.set_gpu_state('sec', 0, NULL, 'down'); :same -- slot: NULL
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT gpualloc.set_gpu_state('sec', 0, 3, 'down'); -- needs a READ COMMITTED transaction
ROLLBACK;
:same
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT gpualloc.set_gpu_state('sec', 0, 0, 'down'); -- needs a READ COMMITTED transaction
ROLLBACK;
:same
SELECT gpualloc.drain_gpu('sec', 9, 0); :same -- no such GPU
SELECT gpualloc.drain_gpu('sec-nope', 0, 0); :same -- pool: no such pool
SELECT gpualloc.drain_gpu(NULL, 0, 0); :same -- pool: NULL
SELECT gpualloc.drain_gpu('sec', NULL, NULL); :same -- node and slot: NULL
SELECT gpualloc.drain_gpu('sec', 0); :same -- slot: missing

-- add_service(name, pool, capacity_per_gpu, max_gpus, priority, churn_limit, min_gpus, churn_budget)
SELECT gpualloc.add_service(NULL, 'sec', 10, 2); :same -- name: NULL
SELECT gpualloc.add_service('', 'sec', 10, 2); :same -- name: empty
SELECT gpualloc.add_service('sec/chat', 'sec', 10, 2); :same -- name: "/"
SELECT gpualloc.add_service('sec chat', 'sec', 10, 2); :same -- name: space
SELECT gpualloc.add_service(repeat('s', 64), 'sec', 10, 2); :same -- name: over 63 characters
SELECT gpualloc.add_service('sec-chat', 'sec', 10, 2); :same -- name: already exists
SELECT gpualloc.add_service('sec-tts', NULL, 10, 2); :same -- pool: NULL
SELECT gpualloc.add_service('sec-tts', 'sec-nope', 10, 2); :same -- pool: no such pool
SELECT gpualloc.add_service('sec-tts', 'sec', NULL, 2); :same -- capacity_per_gpu: NULL
SELECT gpualloc.add_service('sec-tts', 'sec', 0, 2); :same -- capacity_per_gpu: zero
SELECT gpualloc.add_service('sec-tts', 'sec', -10, 2); :same -- capacity_per_gpu: negative
SELECT gpualloc.add_service('sec-tts', 'sec', 'NaN', 2); :same -- capacity_per_gpu: NaN
SELECT gpualloc.add_service('sec-tts', 'sec', 'Infinity', 2); :same -- capacity_per_gpu: infinite
SELECT gpualloc.add_service('sec-tts', 'sec', 10, NULL); :same -- max_gpus: NULL
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 0); :same -- max_gpus: zero
SELECT gpualloc.add_service('sec-tts', 'sec', 10, -1); :same -- max_gpus: negative
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 8); :same -- max_gpus: more than the 7 usable GPUs
SELECT gpualloc.add_service('sec-tts', 'sec-empty', 10, 1); :same -- max_gpus: the pool has no GPU
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, priority => NULL); :same -- priority: NULL
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, priority => 0); :same -- priority: zero
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, priority => -1); :same -- priority: negative
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, priority => 'NaN'); :same -- priority: NaN
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, priority => 'Infinity'); :same -- priority: infinite
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, churn_limit => NULL); :same -- churn_limit: NULL
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, churn_limit => 0); :same -- churn_limit: below 1
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, churn_limit => -2147483648); :same -- churn_limit: smallest integer
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, min_gpus => NULL); :same -- min_gpus: NULL
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, min_gpus => -1); :same -- min_gpus: negative
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, min_gpus => 3); :same -- min_gpus: above max_gpus
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, churn_budget => -1); :same -- churn_budget: negative
SELECT gpualloc.add_service('sec-tts', 'sec', 10, 2, priority => 1e308); :same -- priority: above 1e6
SELECT gpualloc.add_service('sec-tts', 'sec', 1e-300, 2); :same -- capacity_per_gpu: below 1e-6
SELECT gpualloc.add_service('sec-tts', 'sec', 1e300, 2); :same -- capacity_per_gpu: above 1e15

-- remove_service(name)
SELECT gpualloc.remove_service(NULL); :same -- name: NULL
SELECT gpualloc.remove_service(''); :same -- name: empty, no such service
SELECT gpualloc.remove_service('sec-nope'); :same -- name: no such service
SELECT gpualloc.remove_service('SEC-CHAT'); :same -- name: names are case-sensitive
SELECT gpualloc.remove_service(repeat('s', 70)); :same -- name: over-long, no such service

-- record_demand(service, hour, traffic)
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', 1e15); :same -- traffic: 1e14 GPUs of the service
SET TimeZone = 'Asia/Kolkata';
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 06:00+05:30', 20); -- hour: a whole hour of +05:30 is not a UTC hour
SET TimeZone = 'UTC'; :same
SELECT gpualloc.record_demand(NULL, '2025-06-02 11:00+00', 1); :same -- service: NULL
SELECT gpualloc.record_demand('sec-nope', '2025-06-02 11:00+00', 1); :same -- service: no such service
SELECT gpualloc.record_demand('sec-chat', NULL, 1); :same -- hour: NULL
SELECT gpualloc.record_demand('sec-chat', 'infinity', 1); :same -- hour: infinity
SELECT gpualloc.record_demand('sec-chat', '-infinity', 1); :same -- hour: minus infinity
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:30+00', 1); :same -- hour: not the start of an hour
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00:01+00', 1); :same -- hour: one second past
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00:00.000001+00', 1); :same -- hour: one microsecond past
SELECT gpualloc.record_demand('sec-chat', '1999-12-31 23:00+00', 1); :same -- hour: before 2000
SELECT gpualloc.record_demand('sec-chat', '4713-01-01 00:00+00 BC', 1); :same -- hour: 4713 BC
SELECT gpualloc.record_demand('sec-chat', '294276-01-01 00:00+00', 1); :same -- hour: year 294276
SELECT gpualloc.record_demand('sec-chat', '2999-01-01 00:00+00', 1); :same -- hour: not begun yet
SELECT gpualloc.record_demand('sec-chat', '294277-01-01 00:00+00', 1); :same -- hour: beyond timestamptz
SELECT gpualloc.record_demand('sec-chat', 'an hour ago', 1); :same -- hour: not a time
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', NULL); :same -- traffic: NULL
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', -1); :same -- traffic: negative
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', -1e-300); :same -- traffic: just below zero
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', 'NaN'); :same -- traffic: NaN
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', 'Infinity'); :same -- traffic: infinite
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', '-Infinity'); :same -- traffic: minus infinity
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', 1e16); :same -- traffic: above 1e15
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', 1e308); :same -- traffic: 1e308
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', '1e309'); :same -- traffic: beyond double precision

-- load_demand(source)
SELECT gpualloc.load_demand(NULL); :same -- source: NULL
SELECT gpualloc.load_demand('sec_no_such_table'); :same -- source: no such relation
SELECT gpualloc.load_demand(''); :same -- source: empty name
SELECT gpualloc.load_demand('sec_demand_view'); :same -- source: a view
SELECT gpualloc.load_demand('sec_temp_view'); :same -- source: a temporary view
SELECT gpualloc.load_demand('sec_demand_matview'); :same -- source: a materialized view
SELECT gpualloc.load_demand('sec_seq'); :same -- source: a sequence
SELECT gpualloc.load_demand('gpualloc.pools_pkey'); :same -- source: an index
SELECT gpualloc.load_demand('pg_catalog.pg_class'); :same -- source: a catalog without the columns
SELECT gpualloc.load_demand('gpualloc.pools'); :same -- source: no service, hour, traffic columns
SELECT gpualloc.load_demand('sec_no_traffic'); :same -- source: no traffic column
SELECT gpualloc.load_demand('sec_bad_traffic'); :same -- row 2: negative traffic, so row 1 is not loaded either
SELECT gpualloc.load_demand('sec_nan_traffic'); :same -- row 1: NaN traffic
SELECT gpualloc.load_demand('sec_huge_traffic'); :same -- row 1: traffic above 1e15
SELECT gpualloc.load_demand('sec_dup_hour'); :same -- two rows for one hour
SELECT gpualloc.load_demand('sec_unknown_service'); :same -- row 1: no such service
SELECT gpualloc.load_demand('sec_null_service'); :same -- row 1: NULL service
SELECT gpualloc.load_demand('sec_half_hour'); :same -- row 1: not the start of an hour
SELECT gpualloc.load_demand('sec_old_hour'); :same -- row 1: before 2000
SELECT gpualloc.load_demand('sec_future_hour'); :same -- row 1: not begun yet
SELECT gpualloc.load_demand('sec_null_hour'); :same -- row 1: NULL hour
SELECT gpualloc.load_demand('sec_text_traffic'); :same -- traffic column: text that is not a number
SELECT gpualloc.load_demand('sec_text_hour'); :same -- hour column: text that is not a time
-- a bad row in the staging table is kept there, and nothing loads
INSERT INTO gpualloc.demand_staging VALUES ('sec-chat', '2025-06-02 11:00+00', 2), ('sec-chat', '2025-06-02 12:00+00', 'NaN');
SELECT sec_save();
SELECT gpualloc.load_demand(); :same -- row 2 of demand_staging: NaN traffic
DELETE FROM gpualloc.demand_staging;
SELECT sec_save();

-- record_demand_rows(services, hours, traffic): three arrays of one length
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat', 'sec-chat'], ARRAY['2025-06-02 11:00+00', '2025-06-02 12:00+00']::timestamptz[], ARRAY[1, -1]::float8[]); :same -- row 2: negative traffic
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat'], ARRAY['2025-06-02 11:30+00']::timestamptz[], ARRAY[1]::float8[]); :same -- row 1: not the start of an hour
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat'], ARRAY['294276-01-01 00:00+00']::timestamptz[], ARRAY[1]::float8[]); :same -- row 1: year 294276
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat'], ARRAY['2025-06-02 11:00+00']::timestamptz[], ARRAY['NaN']::float8[]); :same -- row 1: NaN traffic
SELECT gpualloc.record_demand_rows(ARRAY['sec-nope'], ARRAY['2025-06-02 11:00+00']::timestamptz[], ARRAY[1]::float8[]); :same -- row 1: no such service
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat', 'sec-chat'], ARRAY['2025-06-02 11:00+00', '2025-06-02 11:00+00']::timestamptz[], ARRAY[1, 2]::float8[]); :same -- two rows for one hour
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat', 'sec-chat'], ARRAY['2025-06-02 11:00+00']::timestamptz[], ARRAY[1, 2]::float8[]); :same -- hours: shorter than services
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat', 'sec-chat'], ARRAY['2025-06-02 11:00+00', '2025-06-02 12:00+00']::timestamptz[], ARRAY[1]::float8[]); :same -- traffic: shorter than services
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat'], ARRAY['2025-06-02 11:00+00', '2025-06-02 12:00+00']::timestamptz[], ARRAY[1, 2]::float8[]); :same -- services: shorter than hours and traffic
SELECT gpualloc.record_demand_rows('{{sec-chat}}'::text[], '{{2025-06-02 11:00+00}}'::timestamptz[], '{{1}}'::float8[]); :same -- two-dimensional arrays
SELECT gpualloc.record_demand_rows('[5:5]={sec-chat}'::text[], '[5:5]={2025-06-02 11:00+00}'::timestamptz[], '[5:5]={1}'::float8[]); :same -- arrays that start at index 5
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat'], ARRAY['2025-06-02 11:00+00'], ARRAY[1]); :same -- untyped arrays: text for hours (no such signature)

-- submit_job(name, kind, pool, gpus_min, gpus_max, priority, features, tenant, not_before, deadline, work_gpu_hours, command),
-- as the superuser, whose tenant (postgres) 02_jobs registered with the default maximum priority 10
SELECT gpualloc.submit_job(NULL, 'training', 'sec', 1, work_gpu_hours => 1); :same -- name: NULL
SELECT gpualloc.submit_job('', 'training', 'sec', 1, work_gpu_hours => 1); :same -- name: empty
SELECT gpualloc.submit_job('x y', 'training', 'sec', 1, work_gpu_hours => 1); :same -- name: space
SELECT gpualloc.submit_job(repeat('j', 64), 'training', 'sec', 1, work_gpu_hours => 1); :same -- name: over 63 characters
SELECT gpualloc.submit_job('../etc/passwd', 'training', 'sec', 1, work_gpu_hours => 1); :same -- name: starts with "."
SELECT gpualloc.submit_job('job$(id)', 'training', 'sec', 1, work_gpu_hours => 1); :same -- name: shell characters
SELECT gpualloc.submit_job(E'job\t1', 'training', 'sec', 1, work_gpu_hours => 1); :same -- name: tab
SELECT gpualloc.submit_job('x', NULL, 'sec', 1, work_gpu_hours => 1); :same -- kind: NULL
SELECT gpualloc.submit_job('x', 'finetune', 'sec', 1, work_gpu_hours => 1); :same -- kind: unknown
SELECT gpualloc.submit_job('x', 'Training', 'sec', 1, work_gpu_hours => 1); :same -- kind: kinds are lower case
SELECT gpualloc.submit_job('x', 'inference', 'sec', 1, work_gpu_hours => 1); :same -- kind: real-time inference is a service
SELECT gpualloc.submit_job('x', '', 'sec', 1, work_gpu_hours => 1); :same -- kind: empty
SELECT gpualloc.submit_job('x', 'training', NULL, 1, work_gpu_hours => 1); :same -- pool: NULL
SELECT gpualloc.submit_job('x', 'training', 'sec-nope', 1, work_gpu_hours => 1); :same -- pool: no such pool
SELECT gpualloc.submit_job('x', 'training', 'sec-empty', 1, work_gpu_hours => 1); :same -- pool: no GPU at all
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => NULL, work_gpu_hours => 1); :same -- features: NULL
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '[1, 2]', work_gpu_hours => 1); :same -- features: an array
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '"lora"', work_gpu_hours => 1); :same -- features: a string
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '42', work_gpu_hours => 1); :same -- features: a number
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => 'null', work_gpu_hours => 1); :same -- features: JSON null
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": 8', work_gpu_hours => 1); :same -- features: not JSON
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"junk": 1}', work_gpu_hours => 1); :same -- features: unknown key, work given
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"Params_B": 8}', work_gpu_hours => 1); :same -- features: keys are lower case
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": "big"}', work_gpu_hours => 1); :same -- features: a number given as text
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": -8}', work_gpu_hours => 1); :same -- features: negative model size
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": 1e300}', work_gpu_hours => 1); :same -- features: model size out of range
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"strategy": "lora", "technique": "sft", "params_b": 1e-300, "tokens_m": 1e-300}'); :same -- features: an estimate of 0 GPU-hours
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": 1e400}', work_gpu_hours => 1); :same -- features: beyond double precision
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": null}', work_gpu_hours => 1); :same -- features: JSON null value
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": [8]}', work_gpu_hours => 1); :same -- features: an array value
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": {"value": 8}}', work_gpu_hours => 1); :same -- features: a nested object
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => jsonb_build_object('notes', repeat('n', 70000)), work_gpu_hours => 1); :same -- features: over 64 kB
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"parms_b": 8, "variant": "lora_sft"}'); :same -- features: misspelt key, estimated
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"variant": "lora_sft"}'); :same -- features: no model size to estimate from
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": 0, "variant": "lora_sft"}'); :same -- features: zero model size
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": 8, "variant": "lora_sft", "tokens_m": -1}'); :same -- features: negative tokens
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": 8, "variant": "lora_sft", "gpu_model": "tpu"}'); :same -- features: unknown GPU model
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": 8, "variant": "lora_sft", "precision": "int3"}'); :same -- features: unknown precision
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, features => '{"params_b": true, "variant": "lora_sft"}'); :same -- features: a boolean model size
SELECT gpualloc.submit_job('x', 'quantization', 'sec', 1, features => '{"params_b": 8}'); :same -- features: no algorithm to estimate from
SELECT gpualloc.submit_job('x', 'batch_inference', 'sec', 1, features => '{}'); :same -- features: empty, nothing to estimate from
SELECT gpualloc.submit_job('x', 'training', 'sec'); :same -- no size, no features: nothing to suggest a size from
SELECT gpualloc.submit_job('x', 'training', 'sec', 0, work_gpu_hours => 1); :same -- gpus_min: zero
SELECT gpualloc.submit_job('x', 'training', 'sec', -2, work_gpu_hours => 1); :same -- gpus_min: negative
SELECT gpualloc.submit_job('x', 'training', 'sec', 3, work_gpu_hours => 1); :same -- gpus_min: not a power of two
SELECT gpualloc.submit_job('x', 'training', 'sec', 16, work_gpu_hours => 1); :same -- gpus_min: more than the pool has
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, 8, work_gpu_hours => 1); :same -- gpus_max: 8, the pool has 7 usable
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, 6, work_gpu_hours => 1); :same -- gpus_max: not a power of two
SELECT gpualloc.submit_job('x', 'training', 'sec', 4, 2, work_gpu_hours => 1); :same -- gpus_min above gpus_max
SELECT gpualloc.submit_job('x', 'training', 'sec', NULL, 2, work_gpu_hours => 1); :same -- gpus_min: NULL with gpus_max given
SELECT gpualloc.submit_job('x', 'training', 'sec', 1073741824, work_gpu_hours => 1); :same -- gpus_min: 2^30
SELECT gpualloc.submit_job('x', 'training', 'sec', -2147483648, work_gpu_hours => 1); :same -- gpus_min: smallest integer
SELECT gpualloc.submit_job('x', 'training', 'sec', 2147483647, work_gpu_hours => 1); :same -- gpus_min: largest integer
SELECT gpualloc.submit_job('x', 'training', 'sec', '2.5', work_gpu_hours => 1); :same -- gpus_min: not an integer
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, priority => NULL, work_gpu_hours => 1); :same -- priority: NULL
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, priority => 0, work_gpu_hours => 1); :same -- priority: zero
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, priority => -1, work_gpu_hours => 1); :same -- priority: negative
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, priority => 'NaN', work_gpu_hours => 1); :same -- priority: NaN
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, priority => 'Infinity', work_gpu_hours => 1); :same -- priority: infinite
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, priority => '-Infinity', work_gpu_hours => 1); :same -- priority: minus infinity
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, priority => 11, work_gpu_hours => 1); :same -- priority: above the tenant's maximum 10
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, priority => 1e308, work_gpu_hours => 1); :same -- priority: 1e308
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_nobody'); :same -- tenant: a role that is not registered
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, not_before => 'infinity', work_gpu_hours => 1); :same -- not_before: infinity
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, not_before => '-infinity', work_gpu_hours => 1); :same -- not_before: minus infinity
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, deadline => '-infinity', work_gpu_hours => 1); :same -- deadline: minus infinity
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, deadline => '4713-01-01 00:00+00 BC', work_gpu_hours => 1); :same -- deadline: 4713 BC
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, deadline => '2020-01-01 00:00+00', work_gpu_hours => 1); :same -- deadline: passed
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, not_before => '2999-01-01 00:00+00',
	deadline => '2999-01-01 00:00+00', work_gpu_hours => 1); :same -- deadline: equal to not_before
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, not_before => '294276-01-02 00:00+00',
	deadline => '294276-01-01 00:00+00', work_gpu_hours => 1); :same -- deadline: before not_before, year 294276
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, not_before => '294277-01-01 00:00+00', work_gpu_hours => 1); :same -- not_before: beyond timestamptz
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, not_before => 'tomorrowish', work_gpu_hours => 1); :same -- not_before: not a time
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 0); :same -- work_gpu_hours: zero
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => -1); :same -- work_gpu_hours: negative
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 'NaN'); :same -- work_gpu_hours: NaN
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 'Infinity'); :same -- work_gpu_hours: infinite
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1e308); :same -- work_gpu_hours: 1e308
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 10000001); :same -- work_gpu_hours: above 1e7
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, command => ''); :same -- command: empty
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, command => '   '); :same -- command: blank
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, command => E'\t\n'); :same -- command: only a tab and a newline
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, command => repeat('c', 8193)); :same -- command: 8193 bytes
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, command => repeat('é', 4097)); :same -- command: 4097 characters, 8194 bytes
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_no_such_role'); :same -- tenant: not a role
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => ''); :same -- tenant: empty
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_nobody'::text); :same -- tenant: text for a name, not registered
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'gpualloc_submitter'); :same -- tenant: the shared submitter role
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'pg_read_all_data'); :same -- tenant: a predefined role
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_team', priority => 6); :same -- priority: above sec_team's maximum 5
SELECT gpualloc.submit_job('sec-queued', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_team'); :same -- name: sec_team already has it active
SELECT gpualloc.submit_job(1, 'training', 'sec', 1, work_gpu_hours => 1); :same -- name: an integer (no such signature)
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, colour => 'red'); :same -- an argument that does not exist
SELECT gpualloc.submit_job('sec-huge', 'training', 'sec', 1, tenant => 'sec_team',
	features => '{"variant": "full_sft", "params_b": 100000, "tokens_m": 1e9, "epochs": 1000}'); :same -- estimated work beyond 1e7 GPU-hours
SELECT gpualloc.submit_job('sec-x', 'training', 'sec', 1, deadline => 'infinity', work_gpu_hours => 1); :same -- deadline: infinite

-- cancel_job(job_id, reason)
SELECT gpualloc.cancel_job(NULL); :same -- job_id: NULL
SELECT gpualloc.cancel_job(0); :same -- job_id: zero
SELECT gpualloc.cancel_job(-1); :same -- job_id: negative
SELECT gpualloc.cancel_job(999999999); :same -- job_id: no such job
SELECT gpualloc.cancel_job(9223372036854775807); :same -- job_id: largest bigint
SELECT gpualloc.cancel_job('one'); :same -- job_id: not a number
SELECT gpualloc.cancel_job(800004); :same -- the job succeeded
SELECT gpualloc.cancel_job(800005); :same -- the job is already cancelled
SELECT gpualloc.cancel_job(800001, repeat('r', 1001)); :same -- reason: 1001 bytes
SELECT gpualloc.cancel_job(800001, repeat('é', 501)); :same -- reason: 501 characters, 1002 bytes
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT gpualloc.cancel_job(800001); -- needs a READ COMMITTED transaction
ROLLBACK;
:same
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT gpualloc.cancel_job(800003); -- needs a READ COMMITTED transaction
ROLLBACK;
:same

-- job_started(job_id, block_first, block_size, started_at)
SELECT gpualloc.job_started(NULL); :same -- job_id: NULL
SELECT gpualloc.job_started(999999999, 0, 1); :same -- job_id: no such job
SELECT gpualloc.job_started(-1, 0, 1); :same -- job_id: negative
SELECT gpualloc.job_started(800003); :same -- the job is already running
SELECT gpualloc.job_started(800004, 2, 1); :same -- the job succeeded
SELECT gpualloc.job_started(800005, 2, 1); :same -- the job was cancelled
SELECT gpualloc.job_started(800001); :same -- a queued job with no booking and no block given
SELECT gpualloc.job_started(800001, 1, 2); :same -- block_first: not aligned to the block size
SELECT gpualloc.job_started(800001, 0, 3); :same -- block_size: not a power of two
SELECT gpualloc.job_started(800001, 0, 0); :same -- block_size: zero
SELECT gpualloc.job_started(800001, 0, -2); :same -- block_size: negative
SELECT gpualloc.job_started(800001, NULL, 2); :same -- block_first: NULL with a size
SELECT gpualloc.job_started(800001, 2, NULL); :same -- block_size: NULL with a start
SELECT gpualloc.job_started(800001, -2, 2); :same -- block_first: negative
SELECT gpualloc.job_started(800001, 0, 4); :same -- block_size: above the job's gpus_max 2
SELECT gpualloc.job_started(800001, 2, 1); :same -- block_size: below the job's gpus_min 2
SELECT gpualloc.job_started(800001, 8, 2); :same -- block: GPUs that do not exist
SELECT gpualloc.job_started(800001, 6, 2); :same -- block: index 7 is down
SELECT gpualloc.job_started(800001, 2147483646, 2); :same -- block_first: at the end of the integers
SELECT gpualloc.job_started(800001, 0, 2); :same -- block: job 800003 runs there
SELECT gpualloc.job_started(800001, 4, 2); :same -- block: job 800002 is booked there
SELECT gpualloc.job_started(800002, 0, 2); :same -- a booked job started where another job runs
SELECT gpualloc.job_started(800001, 2, 2, started_at => NULL); :same -- started_at: NULL
SELECT gpualloc.job_started(800001, 2, 2, started_at => '2999-01-01 00:00+00'); :same -- started_at: in the future
SELECT gpualloc.job_started(800001, 2, 2, started_at => 'infinity'); :same -- started_at: infinity
SELECT gpualloc.job_started(800001, 2, 2, started_at => '294276-01-01 00:00+00'); :same -- started_at: year 294276
SELECT gpualloc.job_started(800001, 2, 2, started_at => '-infinity'); :same -- started_at: minus infinity, before the submission
SELECT gpualloc.job_started(800001, 2, 2, started_at => '4713-01-01 00:00+00 BC'); :same -- started_at: 4713 BC, before the submission
SELECT gpualloc.job_started(800002, started_at => '2020-01-01 00:00+00'); :same -- started_at: before the submission
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT gpualloc.job_started(800002); -- needs a READ COMMITTED transaction
ROLLBACK;
:same

-- job_finished(job_id, succeeded, finished_at, message, block_first)
SELECT gpualloc.job_finished(NULL); :same -- job_id: NULL
SELECT gpualloc.job_finished(999999999); :same -- job_id: no such job
SELECT gpualloc.job_finished(800001); :same -- a queued job cannot finish
SELECT gpualloc.job_finished(800002); :same -- a booked job cannot finish
SELECT gpualloc.job_finished(800004); :same -- the job already succeeded
SELECT gpualloc.job_finished(800005, false); :same -- the job was cancelled
SELECT gpualloc.job_finished(800003, succeeded => NULL); :same -- succeeded: NULL
SELECT gpualloc.job_finished(800003, finished_at => NULL); :same -- finished_at: NULL
SELECT gpualloc.job_finished(800003, finished_at => '2999-01-01 00:00+00'); :same -- finished_at: in the future
SELECT gpualloc.job_finished(800003, finished_at => 'infinity'); :same -- finished_at: infinity
SELECT gpualloc.job_finished(800003, finished_at => '-infinity'); :same -- finished_at: minus infinity, before the start
SELECT gpualloc.job_finished(800003, finished_at => '4713-01-01 00:00+00 BC'); :same -- finished_at: 4713 BC, before the start
SELECT gpualloc.job_finished(800003, finished_at => '2020-01-01 00:00+00'); :same -- finished_at: before the start
SELECT gpualloc.job_finished(800003, message => repeat('m', 1001)); :same -- message: 1001 bytes
SELECT gpualloc.job_finished(800003, block_first => 1000); :same -- block_first: not the block the job runs on
SELECT gpualloc.job_finished(800003, succeeded => 'maybe'); :same -- succeeded: not a boolean
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT gpualloc.job_finished(800003); -- needs a READ COMMITTED transaction
ROLLBACK;
:same

-- job_rejected(job_id, reason)
SELECT gpualloc.job_rejected(800002, NULL); :same -- reason: NULL
SELECT gpualloc.job_rejected(800002, '  '); :same -- reason: blank
SELECT gpualloc.job_rejected(800002, repeat('r', 1001)); :same -- reason: 1001 bytes
SELECT gpualloc.job_rejected(NULL, 'image missing'); :same -- job_id: NULL
SELECT gpualloc.job_rejected(999999999, 'image missing'); :same -- job_id: no such job
SELECT gpualloc.job_rejected(800001, 'image missing'); :same -- a queued job has no booking to reject
SELECT gpualloc.job_rejected(800003, 'image missing'); :same -- a running job finishes as failed instead
SELECT gpualloc.job_rejected(800004, 'image missing'); :same -- the job succeeded
SELECT gpualloc.job_rejected(800005, 'image missing'); :same -- the job was cancelled
SELECT gpualloc.job_rejected(800002); :same -- reason: missing
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT gpualloc.job_rejected(800002, 'image missing'); -- needs a READ COMMITTED transaction
ROLLBACK;
:same

-- add_tenant(role, max_priority), set_tenant(role, max_priority), remove_tenant(role)
SELECT gpualloc.add_tenant(NULL); :same -- role: NULL
SELECT gpualloc.add_tenant(''); :same -- role: empty
SELECT gpualloc.add_tenant('sec_no_such_role'); :same -- role: not a role
SELECT gpualloc.add_tenant('SEC_TEAM'); :same -- role: role names are case-sensitive
SELECT gpualloc.add_tenant(repeat('r', 70)); :same -- role: over-long, truncated to 63 characters, not a role
SELECT gpualloc.add_tenant('public'); :same -- role: PUBLIC is not a role
SELECT gpualloc.add_tenant('gpualloc_submitter'); :same -- role: the shared submitter role
SELECT gpualloc.add_tenant('gpualloc_admin'); :same -- role: the shared admin role
SELECT gpualloc.add_tenant('gpualloc_executor'); :same -- role: the shared executor role
SELECT gpualloc.add_tenant('gpualloc_reader'); :same -- role: the shared reader role
SELECT gpualloc.add_tenant('pg_read_all_data'); :same -- role: a predefined role
SELECT gpualloc.add_tenant('pg_monitor'); :same -- role: a predefined role
SELECT gpualloc.add_tenant('sec_team'); :same -- role: already registered
SELECT gpualloc.add_tenant('sec_team'::text); :same -- role: text for a name, already registered
SELECT gpualloc.add_tenant('sec_no_such_role'::varchar); :same -- role: varchar for a name, not a role
SELECT gpualloc.add_tenant('sec_nobody', 0); :same -- max_priority: zero
SELECT gpualloc.add_tenant('sec_nobody', -1); :same -- max_priority: negative
SELECT gpualloc.add_tenant('sec_nobody', 'NaN'); :same -- max_priority: NaN
SELECT gpualloc.add_tenant('sec_nobody', 'Infinity'); :same -- max_priority: infinite
SELECT gpualloc.add_tenant('sec_nobody', '-Infinity'); :same -- max_priority: minus infinity
SELECT gpualloc.add_tenant('sec_nobody', 1000000.5); :same -- max_priority: above 1e6
SELECT gpualloc.add_tenant('sec_nobody', 1e308); :same -- max_priority: 1e308
SELECT gpualloc.set_tenant('sec_no_such_role', 5); :same -- role: not registered
SELECT gpualloc.set_tenant('sec_nobody', 5); :same -- role: a role that is not registered
SELECT gpualloc.set_tenant(NULL, 5); :same -- role: NULL
SELECT gpualloc.set_tenant('gpualloc_submitter', 5); :same -- role: the shared submitter role is never registered
SELECT gpualloc.set_tenant('sec_team', 0); :same -- max_priority: zero
SELECT gpualloc.set_tenant('sec_team', -5); :same -- max_priority: negative
SELECT gpualloc.set_tenant('sec_team', 'NaN'); :same -- max_priority: NaN
SELECT gpualloc.set_tenant('sec_team', 'Infinity'); :same -- max_priority: infinite
SELECT gpualloc.set_tenant('sec_team', 1e7); :same -- max_priority: above 1e6
SELECT gpualloc.set_tenant('sec_team'); :same -- max_priority: missing
SELECT gpualloc.remove_tenant(NULL); :same -- role: NULL
SELECT gpualloc.remove_tenant(''); :same -- role: empty, not registered
SELECT gpualloc.remove_tenant('sec_no_such_role'); :same -- role: not registered
SELECT gpualloc.remove_tenant('sec_team'); :same -- still owns jobs
SELECT gpualloc.remove_tenant('sec_other_team'); :same -- still owns a queued job

-- replan(mode, time_limit)
SELECT * FROM gpualloc.replan('optimal'); :same -- mode: unknown
SELECT * FROM gpualloc.replan(NULL); :same -- mode: NULL
SELECT * FROM gpualloc.replan(''); :same -- mode: empty
SELECT * FROM gpualloc.replan('FAST'); :same -- mode: modes are lower case
SELECT * FROM gpualloc.replan('fast '); :same -- mode: trailing space
SELECT * FROM gpualloc.replan('full', time_limit => '-1 second'); :same -- time_limit: negative
SELECT * FROM gpualloc.replan('full', time_limit => '0'); :same -- time_limit: zero
SELECT * FROM gpualloc.replan('fast', time_limit => '-1 month'); :same -- time_limit: negative months
SELECT * FROM gpualloc.replan('full', time_limit => '2 hours'); :same -- time_limit: above 1 hour
SELECT * FROM gpualloc.replan('full', time_limit => '1 month'); :same -- time_limit: a month
SELECT * FROM gpualloc.replan('full', time_limit => '178000000 years'); :same -- time_limit: the largest interval
SELECT * FROM gpualloc.replan('full', time_limit => '1 fortnight'); :same -- time_limit: not an interval
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM gpualloc.replan('fast'); -- runs only in READ COMMITTED transactions
ROLLBACK;
:same
-- planning settings: each checked when set, the two together when a plan is made
SET gpualloc.step = '20min';
SET gpualloc.horizon = '100min';
SET gpualloc.step = '30min';
SELECT * FROM gpualloc.replan('fast'); :same -- horizon 100 min is not whole 30-min steps
SET gpualloc.horizon = '90min';
SET gpualloc.step = '60min';
SELECT * FROM gpualloc.replan('full'); :same -- horizon 90 min is not whole 60-min steps
RESET gpualloc.step;
RESET gpualloc.horizon;
SET gpualloc.step = '7min'; :same -- step: does not divide an hour
SET gpualloc.step = '0'; :same -- step: zero
SET gpualloc.step = '2h'; :same -- step: above an hour
SET gpualloc.step = '45min'; :same -- step: does not divide an hour
SET gpualloc.horizon = '30min'; :same -- horizon: below an hour
SET gpualloc.horizon = '8d'; :same -- horizon: above 7 days
SET gpualloc.penalty = -1; :same -- penalty: negative
SET gpualloc.penalty = 1001; :same -- penalty: above 1000
SET gpualloc.penalty = 'NaN'; :same -- penalty: NaN
SET gpualloc.half_life = '0'; :same -- half_life: zero
SET gpualloc.half_life = '31d'; :same -- half_life: above 30 days
SET gpualloc.solver_time_limit = '2h'; :same -- solver_time_limit: above an hour
SET gpualloc.solver_time_limit = '1ms'; :same -- solver_time_limit: below 10 ms
SET gpualloc.demand_quantile = 1; :same -- demand_quantile: above 0.999
SET gpualloc.demand_quantile = 0.1; :same -- demand_quantile: below 0.5
SET gpualloc.max_priority = 0; :same -- max_priority: zero
SET gpualloc.max_priority = 1e7; :same -- max_priority: above 1e6
SET gpualloc.booking_timeout = '1s'; :same -- booking_timeout: below 10 s
SET gpualloc.booking_timeout = '8d'; :same -- booking_timeout: above 7 days
SET gpualloc.on_gpu_failure = 'ignore'; :same -- on_gpu_failure: neither requeue nor fail
SET gpualloc.enabled = off; :same -- enabled: reloadable only
SET gpualloc.replan_interval = '1s'; :same -- replan_interval: reloadable only
SET gpualloc.database = 'template1'; :same -- database: at postmaster start only
SET gpualloc.no_such_setting = 1; :same -- a setting that does not exist under the reserved prefix
SHOW gpualloc.step;

-- plan_grid(plan_id) and plan_svg(plan_id)
SELECT * FROM gpualloc.plan_grid(NULL); :same -- plan_id: NULL
SELECT * FROM gpualloc.plan_grid(999999999); :same -- plan_id: no such plan
SELECT * FROM gpualloc.plan_grid(-1); :same -- plan_id: negative
SELECT * FROM gpualloc.plan_grid(800001); :same -- the plan failed: no grid
SELECT * FROM gpualloc.plan_grid(800002); :same -- the plan is still running: no grid
SELECT * FROM gpualloc.plan_grid('latest'); :same -- plan_id: not a number
SELECT gpualloc.plan_svg(NULL); :same -- plan_id: NULL
SELECT gpualloc.plan_svg(900000, color_by => NULL); :same -- color_by: NULL
SELECT gpualloc.plan_svg(999999999); :same -- plan_id: no such plan
SELECT gpualloc.plan_svg(-1); :same -- plan_id: negative
SELECT gpualloc.plan_svg(0); :same -- plan_id: zero
SELECT gpualloc.plan_svg(800001); :same -- the plan failed: no grid
SELECT gpualloc.plan_svg(800002); :same -- the plan is still running: no grid
SELECT gpualloc.plan_svg(9223372036854775808); :same -- plan_id: beyond bigint (no such signature)
SELECT gpualloc.plan_svg(800001, color_by => 'tenant'); :same -- the plan failed, coloured by tenant
SELECT gpualloc.plan_svg(900000, color_by => 'rainbow'); :same -- color_by: neither kind nor tenant
SELECT gpualloc.plan_svg(900000, color_by => 'KIND'); :same -- color_by: lower case only
SELECT gpualloc.plan_svg(900000, color_by => ''); :same -- color_by: empty
SELECT gpualloc.plan_svg(900000, color_by => 'service'); :same -- color_by: services always have their own colours

-- estimate_job(kind, features, gpus, pool)
SELECT * FROM gpualloc.estimate_job(NULL, '{"params_b": 8}'); :same -- kind: NULL
SELECT * FROM gpualloc.estimate_job('finetune', '{"params_b": 8}'); :same -- kind: unknown
SELECT * FROM gpualloc.estimate_job('training', NULL); :same -- features: NULL
SELECT * FROM gpualloc.estimate_job('training', '[]'); :same -- features: an array
SELECT * FROM gpualloc.estimate_job('training', '"lora"'); :same -- features: a string
SELECT * FROM gpualloc.estimate_job('training', '{}'); :same -- features: empty, no variant
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft"}', 3); :same -- gpus: not a power of two
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft"}', -1); :same -- gpus: negative
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft"}', 0); :same -- gpus: zero (NULL asks for a suggestion)
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft"}', 2147483647); :same -- gpus: largest integer
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft"}', 1, 'sec-nope'); :same -- pool: no such pool
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "foo_bar"}'); :same -- variant: unknown
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "strategy": "lora"}'); :same -- strategy without technique
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "strategy": "magic", "technique": "sft"}'); :same -- strategy: unknown
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": -8, "variant": "lora_sft"}'); :same -- params_b: negative
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 1e6, "variant": "lora_sft"}'); :same -- params_b: above 1e5
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": "8", "variant": "lora_sft"}'); :same -- params_b: text
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": [8], "variant": "lora_sft"}'); :same -- params_b: an array
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft", "tokens_m": 1e400}'); :same -- tokens_m: beyond double precision
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft", "epochs": 0}'); :same -- epochs: zero
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft", "trainable_share": 2}'); :same -- trainable_share: above 1
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft", "precision": "int3"}'); :same -- precision: unknown
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft", "gpu_model": "tpu"}'); :same -- gpu_model: unknown
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft", "parms_b": 8}'); :same -- key: misspelt
SELECT * FROM gpualloc.estimate_job('quantization', '{"params_b": 8}'); :same -- algorithm: missing
SELECT * FROM gpualloc.estimate_job('quantization', '{"params_b": 8, "algorithm": "magic"}'); :same -- algorithm: unknown
SELECT * FROM gpualloc.estimate_job('quantization', '{"params_b": 8, "algorithm": "gptq", "bits": 0}'); :same -- bits: zero
SELECT * FROM gpualloc.estimate_job('batch_inference', '{"tokens_m": 900}'); :same -- params_b: missing
SELECT * FROM gpualloc.estimate_job('batch_inference', '{"params_b": 8, "tokens_m": -900}'); :same -- tokens_m: negative
SELECT * FROM gpualloc.estimate_job('batch_inference', '{"params_b": 8, "algorithm": "awq"}'); :same -- algorithm: not a batch inference feature

-- forecast_demand(service, from, horizon)
SELECT * FROM gpualloc.forecast_demand(NULL, '2025-06-02 12:00+00'); :same -- service: NULL
SELECT * FROM gpualloc.forecast_demand('sec-chat', '294276-12-31 12:00+00', '1 day'); :same -- from: beyond a year ahead
SELECT * FROM gpualloc.forecast_demand('sec-chat', '1999-12-31 23:00+00'); :same -- from: before 2000
SELECT * FROM gpualloc.forecast_demand('sec-nope', '2025-06-02 12:00+00'); :same -- service: no such service
SELECT * FROM gpualloc.forecast_demand('sec-chat', NULL); :same -- from: NULL
SELECT * FROM gpualloc.forecast_demand('sec-chat', 'infinity'); :same -- from: infinity
SELECT * FROM gpualloc.forecast_demand('sec-chat', '-infinity'); :same -- from: minus infinity
SELECT * FROM gpualloc.forecast_demand('sec-chat', '2025-06-02 12:00+00', NULL); :same -- horizon: NULL
SELECT * FROM gpualloc.forecast_demand('sec-chat', '2025-06-02 12:00+00', '0'); :same -- horizon: zero
SELECT * FROM gpualloc.forecast_demand('sec-chat', '2025-06-02 12:00+00', '1 minute'); :same -- horizon: below one step
SELECT * FROM gpualloc.forecast_demand('sec-chat', '2025-06-02 12:00+00', '-1 hour'); :same -- horizon: negative
SELECT * FROM gpualloc.forecast_demand('sec-chat', '2025-06-02 12:00+00', '15 days'); :same -- horizon: above 14 days
SELECT * FROM gpualloc.forecast_demand('sec-chat', '2025-06-02 12:00+00', '1000 years'); :same -- horizon: a thousand years
SELECT * FROM gpualloc.forecast_demand('sec-chat', '2025-06-02 12:00+00', '178000000 years'); :same -- horizon: the largest interval

-- utilization, tenant_value, service_coverage (from, to): only ill-formed times are errors
SELECT * FROM gpualloc.utilization('2025-06-02', 'soon'); :same -- to: not a time
SELECT * FROM gpualloc.utilization('294277-01-01', 'infinity'); :same -- from: beyond timestamptz
SELECT * FROM gpualloc.tenant_value('4715-01-01 00:00+00 BC', 'infinity'); :same -- from: before timestamptz
SELECT * FROM gpualloc.service_coverage(1, 2); :same -- integers are not times (no such signature)

-- fairshare(as_of)
SELECT * FROM gpualloc.fairshare(NULL); :same -- as_of: NULL
SELECT * FROM gpualloc.fairshare('infinity'); :same -- as_of: infinite
SELECT * FROM gpualloc.fairshare('-infinity'); :same -- as_of: minus infinity
SELECT * FROM gpualloc.fairshare('294275-01-01'); :same -- as_of: more than a century ahead
SELECT * FROM gpualloc.fairshare('1999-12-31 23:00+00'); :same -- as_of: before 2000

-- allocation_changes(since_seq)
SELECT * FROM gpualloc.allocation_changes(NULL); :same -- since_seq: NULL
SELECT * FROM gpualloc.allocation_changes(-1); :same -- since_seq: negative
SELECT * FROM gpualloc.allocation_changes(-9223372036854775808); :same -- since_seq: smallest bigint
SELECT * FROM gpualloc.allocation_changes('last'); :same -- since_seq: not a number

-- a non-superuser admin: the same rules, and its own rights for load_demand
SET ROLE sec_admin;
SELECT gpualloc.add_tenant('gpualloc_submitter'); :same -- the shared submitter role as a tenant
SELECT gpualloc.add_tenant('sec_admin', 1e7); :same -- max_priority: above 1e6
SELECT gpualloc.add_pool('sec admin', 'A100-80GB', 80, 312); :same -- pool name: space
SELECT gpualloc.set_gpu_state('sec', 0, 0, 'gone'); :same -- state: unknown
SELECT * FROM gpualloc.replan('optimal'); :same -- mode: unknown
SELECT gpualloc.load_demand('sec_demand_view'); :same -- source: a view
SELECT gpualloc.load_demand('sec_private'); :same -- source: a table the admin may not read
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1); :same -- tenant: sec_admin is not registered
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_team', priority => 6); :same -- priority: above sec_team's maximum, admin or not
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat'], ARRAY['1999-12-31 23:00+00'::timestamptz], ARRAY[1::float8]); :same -- row 1: before 2000
INSERT INTO gpualloc.allocations (gpu_id, job_id, during, begin_seq) SELECT gpu_id, 800001, tstzrange(now(), NULL), 1 FROM gpualloc.gpus LIMIT 1; :same -- the allocation changes only through its commit path
UPDATE gpualloc.allocations SET end_seq = NULL; :same -- the allocation changes only through its commit path
DELETE FROM gpualloc.allocation_commits; :same -- the change log is not the admin's to edit
SELECT gpualloc_internal.allocations_set(ARRAY[1], ARRAY[800001]::bigint[], '{}', 'by hand'); :same -- internals are no role's
SELECT gpualloc_internal.release_job(800003, 'cancel'); :same -- internals are no role's
SET gpualloc.penalty = 1; :same -- planning settings are the superuser's
SET gpualloc.max_priority = 1e6; :same -- planning settings are the superuser's
RESET ROLE;

-- a submitter (sec_sub of sec_team): its tenants' jobs only, nothing else
SET ROLE sec_sub;
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1); :same -- tenant: sec_sub itself is not registered
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_other_team'); :same -- tenant: not a member
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_nobody'); :same -- tenant: neither registered nor a member: refused for the membership, which does not tell whether it is registered
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_no_such_role'); :same -- tenant: no such role: refused the same way
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'gpualloc_submitter'); :same -- tenant: the shared role, not registered
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'postgres'); :same -- tenant: registered, not a member
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_team', priority => 5.5); :same -- priority: above 5
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1e8, tenant => 'sec_team'); :same -- work_gpu_hours: above 1e7
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_team', features => '{"x": 1}'); :same -- features: unknown key
SELECT gpualloc.cancel_job(800006); :same -- another tenant's job does not exist for it
SELECT gpualloc.cancel_job(800004); :same -- its own job already succeeded
SELECT gpualloc.job_started(800001, 2, 2); :same -- executor only
SELECT gpualloc.job_finished(800003); :same -- executor only
SELECT gpualloc.job_rejected(800002, 'no'); :same -- executor only
SELECT gpualloc.add_pool('sec-sub', 'A100-80GB', 80, 312); :same -- admin only
SELECT gpualloc.remove_pool('sec'); :same -- admin only
SELECT gpualloc.add_node('sec', 2); :same -- admin only
SELECT gpualloc.add_gpu('sec', 2, 0); :same -- admin only
SELECT gpualloc.remove_gpu('sec', 0, 3); :same -- admin only
SELECT gpualloc.set_gpu_state('sec', 0, 0, 'down'); :same -- admin only
SELECT gpualloc.drain_gpu('sec', 0, 0); :same -- admin only
SELECT gpualloc.add_service('sec-sub', 'sec', 10, 1); :same -- admin only
SELECT gpualloc.remove_service('sec-chat'); :same -- admin only
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', 1); :same -- admin only
SELECT gpualloc.load_demand(); :same -- admin only
SELECT gpualloc.add_tenant('sec_sub'); :same -- admin only
SELECT gpualloc.set_tenant('sec_team', 1e6); :same -- admin only
SELECT gpualloc.remove_tenant('sec_team'); :same -- admin only
SELECT * FROM gpualloc.replan('fast'); :same -- admin only
SELECT * FROM gpualloc.plan_grid(1); :same -- admin only
SELECT gpualloc.plan_svg(1); :same -- readers and admins only
SELECT * FROM gpualloc.forecast_demand('sec-chat', '2025-06-02 12:00+00'); :same -- admin only
SELECT * FROM gpualloc.utilization('2025-06-02', '2025-06-03'); :same -- readers and admins only
SELECT * FROM gpualloc.tenant_value('2025-06-02', '2025-06-03'); :same -- readers and admins only
SELECT * FROM gpualloc.service_coverage('2025-06-02', '2025-06-03'); :same -- readers and admins only
SELECT * FROM gpualloc.allocation_changes(0); :same -- executors, readers and admins only
SELECT gpualloc.allocation_seq(); :same -- executors, readers and admins only
SELECT * FROM gpualloc.check_integrity(); :same -- admin only
SELECT gpualloc.request_replan(); :same -- admin only
SELECT gpualloc.planner_next_run(); :same -- readers and admins only
SELECT * FROM gpualloc.planner_status; :same -- readers and admins only
SELECT gpualloc_internal.allocations_set(ARRAY[1], ARRAY[800001]::bigint[], '{}', 'submit'); :same -- internal
SELECT gpualloc.record_demand_rows(ARRAY['sec-chat'], ARRAY['2025-06-02 11:00+00'::timestamptz], ARRAY[1::float8]); :same -- admin only
SELECT gpualloc_internal.release_job(800003, 'cancel'); :same -- internal
UPDATE gpualloc.jobs SET priority = 1000 WHERE job_id = 800001; :same -- no direct writes
INSERT INTO gpualloc.tenants (tenant) VALUES ('sec_sub'); :same -- no direct writes
DELETE FROM gpualloc.allocations; :same -- no direct writes
SELECT count(*) FROM gpualloc.current_allocation; :same -- not an executor or reader
SET gpualloc.max_priority = 1e6; :same -- planning settings are the superuser's
RESET ROLE;

-- the other submitter (sec_sub2 of sec_other_team) cannot touch sec_team's jobs
SET ROLE sec_sub2;
SELECT gpualloc.cancel_job(800001); :same -- another tenant's queued job does not exist for it
SELECT gpualloc.cancel_job(800003, 'mine now'); :same -- another tenant's running job does not exist for it
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_team'); :same -- tenant: not a member
SELECT gpualloc.submit_job('sec-other', 'training', 'sec', 1, work_gpu_hours => 1, tenant => 'sec_other_team'); :same -- name: already active for its tenant
RESET ROLE;

-- an executor: reads the allocation and reports on jobs, nothing else
SET ROLE sec_exec;
SELECT gpualloc.job_started(999999999, 0, 1); :same -- job_id: no such job
SELECT gpualloc.job_started(800001); :same -- no booking and no block given
SELECT gpualloc.job_started(800001, 0, 2); :same -- block: job 800003 runs there
SELECT gpualloc.job_finished(800001); :same -- a queued job cannot finish
SELECT gpualloc.job_finished(800003, finished_at => '2999-01-01 00:00+00'); :same -- finished_at: in the future
SELECT gpualloc.job_rejected(800003, 'image missing'); :same -- a running job cannot be rejected
SELECT gpualloc.job_rejected(800002, repeat('r', 1001)); :same -- reason: 1001 bytes
SELECT * FROM gpualloc.allocation_changes(-1); :same -- since_seq: negative
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1); :same -- submitters only
SELECT gpualloc.cancel_job(800001); :same -- submitters and admins only
SELECT gpualloc.add_pool('sec-exec', 'A100-80GB', 80, 312); :same -- admin only
SELECT gpualloc.set_gpu_state('sec', 0, 0, 'down'); :same -- admin only
SELECT gpualloc.add_service('sec-exec', 'sec', 10, 1); :same -- admin only
SELECT gpualloc.record_demand('sec-chat', '2025-06-02 11:00+00', 1); :same -- admin only
SELECT gpualloc.add_tenant('sec_exec'); :same -- admin only
SELECT * FROM gpualloc.replan('fast'); :same -- admin only
SELECT gpualloc.plan_svg(1); :same -- readers and admins only
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft"}'); :same -- submitters and admins only
SELECT * FROM gpualloc.utilization('2025-06-02', '2025-06-03'); :same -- readers and admins only
SELECT * FROM gpualloc.check_integrity(); :same -- admin only
SELECT gpualloc.request_replan(); :same -- admin only
SELECT gpualloc.planner_next_run(); :same -- readers and admins only
SELECT gpualloc_internal.release_job(800003, 'job_finished'); :same -- internal
SELECT count(*) FROM gpualloc.jobs; :same -- no table reads
DELETE FROM gpualloc.allocations; :same -- no direct writes
RESET ROLE;

-- a reader: the read views and dashboard functions only
SET ROLE sec_reader;
SELECT * FROM gpualloc.allocation_changes(NULL); :same -- since_seq: NULL
SELECT gpualloc.plan_svg(800001); :same -- the plan failed: no grid
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1); :same -- submitters only
SELECT gpualloc.cancel_job(800001); :same -- submitters and admins only
SELECT gpualloc.job_started(800001, 2, 2); :same -- executors only
SELECT gpualloc.job_finished(800003); :same -- executors only
SELECT gpualloc.job_rejected(800002, 'no'); :same -- executors only
SELECT gpualloc.add_pool('sec-reader', 'A100-80GB', 80, 312); :same -- admin only
SELECT gpualloc.remove_service('sec-chat'); :same -- admin only
SELECT gpualloc.load_demand('sec_bad_traffic'); :same -- admin only
SELECT gpualloc.add_tenant('sec_reader'); :same -- admin only
SELECT * FROM gpualloc.replan('fast'); :same -- admin only
SELECT * FROM gpualloc.plan_grid(1); :same -- admin only
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft"}'); :same -- submitters and admins only
SELECT * FROM gpualloc.forecast_demand('sec-chat', '2025-06-02 12:00+00'); :same -- admin only
SELECT * FROM gpualloc.check_integrity(); :same -- admin only
SELECT gpualloc.request_replan(); :same -- admin only
SELECT gpualloc.caller_role(); :same -- submitters and executors only
SELECT count(*) FROM gpualloc.allocations; :same -- views only
UPDATE gpualloc.pools SET node_size = 1; :same -- no direct writes
RESET ROLE;

-- a login role with no gpualloc role: not even the schema
SET ROLE sec_nobody;
SELECT gpualloc.submit_job('x', 'training', 'sec', 1, work_gpu_hours => 1); :same -- no gpualloc role
SELECT gpualloc.cancel_job(800001); :same -- no gpualloc role
SELECT gpualloc.job_started(800001, 2, 2); :same -- no gpualloc role
SELECT gpualloc.add_tenant('sec_nobody'); :same -- no gpualloc role
SELECT gpualloc.add_pool('sec-nobody', 'A100-80GB', 80, 312); :same -- no gpualloc role
SELECT * FROM gpualloc.replan('fast'); :same -- no gpualloc role
SELECT gpualloc.plan_svg(1); :same -- no gpualloc role
SELECT * FROM gpualloc.utilization('2025-06-02', '2025-06-03'); :same -- no gpualloc role
SELECT gpualloc.allocation_seq(); :same -- no gpualloc role
SELECT gpualloc.request_replan(); :same -- no gpualloc role
SELECT gpualloc.planner_next_run(); :same -- no gpualloc role
SELECT count(*) FROM gpualloc.current_allocation; :same -- no gpualloc role
SELECT count(*) FROM gpualloc.jobs; :same -- no gpualloc role
RESET ROLE;

\pset format aligned
\pset tuples_only off
-- nothing changed: the same checksum, and the jobs as they were set up
SELECT sec_same() AS unchanged;
SELECT job_id, name, tenant, status FROM gpualloc.jobs WHERE job_id > 800000 ORDER BY job_id;
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity()
WHERE job_id > 800000 AND problem <> 'booking past its timeout';

-- the corpus's helpers go; its roles, tenants and jobs stay, as 05_security's do
DROP FUNCTION sec_same(), sec_save(), sec_state();
DROP TABLE sec_saved, sec_no_traffic, sec_bad_traffic, sec_nan_traffic, sec_huge_traffic, sec_dup_hour,
	sec_unknown_service, sec_null_service, sec_half_hour, sec_old_hour, sec_future_hour, sec_null_hour,
	sec_text_traffic, sec_text_hour, sec_private;
DROP MATERIALIZED VIEW sec_demand_matview;
DROP VIEW sec_temp_view, sec_demand_view;
DROP SEQUENCE sec_seq;
