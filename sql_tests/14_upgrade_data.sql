-- Updating from 0.1: what 0.1 accepted and 0.2 bounds is brought within
-- 0.2's rules, not lost and not planned as is (the schema comparison of a
-- fresh install and an updated one is t/010_upgrade.pl's).
\set SHOW_CONTEXT never
SET client_min_messages = warning;
CREATE DATABASE gpualloc_upgrade_regress;
\c gpualloc_upgrade_regress
SET client_min_messages = warning;
\set SHOW_CONTEXT never
CREATE ROLE regress_upg_team NOLOGIN;
CREATE EXTENSION gpualloc VERSION '0.1' CASCADE;
SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
SELECT gpualloc.add_node('a100', 0);
SELECT gpualloc.add_service('chat', 'a100', 100, 4, churn_limit => 2);
-- 0.1 checked demand hours in the session's zone: at +05:30 every row is at :30 UTC
SET timezone = 'Asia/Kolkata';
SELECT count(gpualloc.record_demand('chat', date_trunc('hour', now()) - make_interval(hours => h), 150))
FROM generate_series(1, 48) h;
RESET timezone;
-- 0.1 took any finite priority: two near the double's limit
SELECT gpualloc.submit_job('big', 'training', 'a100', 8, priority => 1.5e308, tenant => 'regress_upg_team', work_gpu_hours => 1e6);
SELECT gpualloc.submit_job('big2', 'training', 'a100', 8, priority => 1.5e308, tenant => 'regress_upg_team', work_gpu_hours => 1e6);
-- and an admin could submit for a shared role
SELECT gpualloc.submit_job('shared', 'training', 'a100', 1, tenant => 'gpualloc_submitter', work_gpu_hours => 1);
-- refused: 0.2 never lets a gpualloc_* role be a tenant
ALTER EXTENSION gpualloc UPDATE TO '0.2';
SELECT extversion FROM pg_extension WHERE extname = 'gpualloc';
UPDATE gpualloc.jobs SET tenant = 'regress_upg_team' WHERE tenant = 'gpualloc_submitter';
ALTER EXTENSION gpualloc UPDATE TO '0.2';
SELECT extversion FROM pg_extension WHERE extname = 'gpualloc';
SELECT tenant FROM gpualloc.tenants ORDER BY 1;
-- the demand kept, on whole UTC hours
SELECT count(*) AS demand_rows, count(*) FILTER (WHERE date_trunc('hour', hour, 'UTC') = hour) AS on_utc_hours
FROM gpualloc.demand_history;
-- waiting jobs at gpualloc.max_priority, and plans are made
SELECT name, status, priority FROM gpualloc.jobs ORDER BY job_id;
SELECT status, objective < 'Infinity' AS finite FROM gpualloc.replan('fast');
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();
\c contrib_regression
DROP DATABASE gpualloc_upgrade_regress;
DROP ROLE regress_upg_team;
