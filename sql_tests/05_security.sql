-- Roles: submitters see and change only their tenants' jobs; readers read views.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

CREATE ROLE team_vision NOLOGIN;
CREATE ROLE team_speech NOLOGIN;
CREATE ROLE alice LOGIN IN ROLE gpualloc_submitter, team_vision;
CREATE ROLE bob LOGIN IN ROLE gpualloc_submitter, team_speech;
CREATE ROLE carol LOGIN IN ROLE gpualloc_reader;
CREATE ROLE mallory LOGIN;
SELECT gpualloc.add_tenant('team_vision'), gpualloc.add_tenant('team_speech'), gpualloc.add_tenant('alice', max_priority => 2);

SET ROLE alice;
SELECT gpualloc.submit_job('vit-train', 'training', 'a100', 2, tenant => 'team_vision', work_gpu_hours => 10) > 0 AS alice_submitted;
SELECT gpualloc.submit_job('sneaky', 'training', 'a100', 2, tenant => 'team_speech');   -- not her tenant
SELECT gpualloc.submit_job('mine', 'training', 'a100', 1, work_gpu_hours => 2) > 0 AS alice_own_tenant;
SELECT gpualloc.submit_job('greedy', 'training', 'a100', 1, priority => 3);    -- above alice's maximum of 2
SELECT gpualloc.submit_job('shared', 'training', 'a100', 1, tenant => 'gpualloc_submitter'); -- every submitter's group
RESET ROLE;

SET ROLE bob;
SELECT gpualloc.submit_job('asr-train', 'training', 'a100', 4, tenant => 'team_speech', work_gpu_hours => 16) > 0 AS bob_submitted;
-- bob sees only his tenant's jobs
SELECT name, tenant FROM gpualloc.jobs ORDER BY job_id;
-- and cannot cancel alice's: it does not exist for him
SELECT gpualloc.cancel_job((SELECT job_id FROM gpualloc.jobs WHERE name = 'asr-train') - 2);
UPDATE gpualloc.jobs SET priority = 100;                                      -- no direct writes
SELECT gpualloc.add_pool('mine', 'A100', 80, 312);                            -- admin only
SELECT gpualloc.job_started(1, 0, 1);                                         -- executor only
SELECT * FROM gpualloc.current_allocation LIMIT 1;                            -- not a reader
RESET ROLE;

SET ROLE alice;
SELECT name, tenant, status FROM gpualloc.jobs ORDER BY job_id;
SELECT gpualloc.cancel_job((SELECT job_id FROM gpualloc.jobs WHERE name = 'vit-train'), 'not needed');
SELECT name, status FROM gpualloc.jobs ORDER BY job_id;
RESET ROLE;

SET ROLE carol;
SELECT count(*) > 0 AS reader_sees_gpus FROM gpualloc.current_allocation;
SELECT count(*) AS reader_sees_queue FROM gpualloc.queue WHERE tenant IN ('team_speech', 'alice');
SELECT count(*) FROM gpualloc.jobs;                                           -- views only
SELECT gpualloc.submit_job('x', 'training', 'a100', 1);                       -- cannot submit
RESET ROLE;

-- a reader reads the views, the ones with computed columns included
SET ROLE carol;
SELECT worker_alive IS NOT NULL AS reads_planner_status FROM gpualloc.planner_status;
SELECT count(pending_reason) >= 0 AS reads_pending_reasons FROM gpualloc.queue_plan;
RESET ROLE;

SET ROLE mallory;
SELECT gpualloc.submit_job('x', 'training', 'a100', 1);                       -- no role at all
SELECT count(*) FROM gpualloc.allocations;
RESET ROLE;

-- functions that run with raised rights pin their search_path
SELECT count(*) AS definer_functions_without_search_path
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'gpualloc' AND p.prosecdef
  AND NOT coalesce(p.proconfig::text[] && ARRAY['search_path=pg_catalog, gpualloc, pg_temp'], false);
SELECT count(*) AS callable_by_public
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'gpualloc' AND has_function_privilege('public', p.oid, 'EXECUTE');

-- every function pins its search_path, definer or not, internal or API
SELECT count(*) AS functions_without_search_path
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname IN ('gpualloc', 'gpualloc_internal')
  AND NOT coalesce(p.proconfig::text[] && ARRAY['search_path=pg_catalog, gpualloc, pg_temp'], false);
-- the API schema shows only the API; internals are usable by no role
SELECT count(*) AS internal_names_in_api
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE n.nspname = 'gpualloc' AND p.proname LIKE '\_%';
SELECT r AS role, has_schema_privilege(r, 'gpualloc_internal', 'USAGE') AS uses_internals
FROM unnest(ARRAY['gpualloc_admin', 'gpualloc_submitter', 'gpualloc_executor', 'gpualloc_reader', 'public']) r;
CREATE ROLE dave LOGIN IN ROLE gpualloc_admin;
SET ROLE dave;
SELECT gpualloc_internal.allocations_set(ARRAY[1], ARRAY[5::bigint], NULL, 'by hand'); -- an internal
INSERT INTO gpualloc.allocations (gpu_id, job_id, during, begin_seq)
VALUES (1, 5, tstzrange(now(), NULL), 99);                                   -- around the commit path
DELETE FROM gpualloc.allocations;                                            -- around the commit path
SELECT count(*) >= 0 AS admin_reads_allocations FROM gpualloc.allocations;
-- nor through the cascades of the tables above it, nor around the API's checks
DELETE FROM gpualloc.jobs;
DELETE FROM gpualloc.gpus;
DELETE FROM gpualloc.services;
DELETE FROM gpualloc.pools;
UPDATE gpualloc.jobs SET status = 'running';
INSERT INTO gpualloc.tenants (tenant) VALUES ('gpualloc_submitter');
TRUNCATE gpualloc.jobs CASCADE;
-- what the API leaves to admins by hand: staging demand, deleting old plans
SELECT r AS table_name, has_table_privilege('dave', r, 'SELECT') AS reads,
	   has_table_privilege('dave', r, 'INSERT') AS inserts, has_table_privilege('dave', r, 'DELETE') AS deletes
FROM unnest(ARRAY['gpualloc.demand_staging', 'gpualloc.plan_runs', 'gpualloc.jobs', 'gpualloc.tenants']) r;
RESET ROLE;

-- the catalogue explains the extension: every schema, table, view and
-- function has a comment
SELECT kind, name FROM (
	SELECT 'function' AS kind, p.oid::regprocedure::text AS name, obj_description(p.oid, 'pg_proc') AS c
	FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname IN ('gpualloc', 'gpualloc_internal')
	UNION ALL
	SELECT 'relation', c.oid::regclass::text, obj_description(c.oid, 'pg_class')
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname IN ('gpualloc', 'gpualloc_internal') AND c.relkind IN ('r', 'v', 'p')
	UNION ALL
	SELECT 'schema', n.nspname::text, obj_description(n.oid, 'pg_namespace')
	FROM pg_namespace n WHERE n.nspname IN ('gpualloc', 'gpualloc_internal')) o
WHERE c IS NULL ORDER BY 1, 2;
