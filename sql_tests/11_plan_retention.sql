-- Plan runs older than gpualloc.plan_retention are deleted with their
-- blocks (the background planner does it before each run); the latest
-- successful plan and anything newer always stay.
SET client_min_messages = warning;
SELECT count(*) > 1 AS several_plans FROM gpualloc.plan_runs;
SELECT max(plan_id) AS latest FROM gpualloc.plan_runs WHERE status IN ('succeeded', 'fallback') \gset
SELECT count(*) AS latest_blocks FROM gpualloc.plan_blocks WHERE plan_id = :latest \gset
SELECT count(*) AS alloc_rows FROM gpualloc.allocations \gset
SELECT count(*) > 0 AS rows_from_older_plans FROM gpualloc.allocations WHERE plan_id < :latest;
SHOW gpualloc.plan_retention;
-- nothing is old enough yet
SELECT gpualloc_internal.purge_plans() AS purged_fresh;
-- every run 30 days older
UPDATE gpualloc.plan_runs SET started_at = started_at - interval '30 days',
	finished_at = finished_at - interval '30 days';
SET gpualloc.plan_retention = 0;
SELECT gpualloc_internal.purge_plans() AS purged_when_kept_forever;
SET gpualloc.plan_retention = '40d';
SELECT gpualloc_internal.purge_plans() AS purged_within_retention;
RESET gpualloc.plan_retention;
SELECT gpualloc_internal.purge_plans() > 0 AS purged_old;
SELECT count(*) AS runs_left, bool_and(plan_id >= :latest) AS latest_and_newer_only FROM gpualloc.plan_runs;
SELECT count(*) = :latest_blocks AS latest_blocks_kept FROM gpualloc.plan_blocks WHERE plan_id = :latest;
SELECT count(*) AS blocks_without_run FROM gpualloc.plan_blocks b
WHERE NOT EXISTS (SELECT 1 FROM gpualloc.plan_runs r WHERE r.plan_id = b.plan_id);
-- what those runs committed stays, no longer naming its plan
SELECT count(*) = :alloc_rows AS allocation_rows_kept,
	   count(*) FILTER (WHERE plan_id < :latest) AS rows_naming_a_deleted_plan
FROM gpualloc.allocations;
-- bad settings
SET gpualloc.plan_retention = -1;
SET gpualloc.plan_retention = 'forever';
-- only the planner's owner may purge
SET ROLE gpualloc_admin;
SELECT gpualloc_internal.purge_plans();
RESET ROLE;
