-- Roles and privileges.
--   gpualloc_admin      runs the cluster through every function; reads every table.
--   gpualloc_submitter  submits and cancels its tenants' jobs and reads them
--                       (row-level security on gpualloc.jobs).
--   gpualloc_executor   reads the allocation and its change feed, and reports
--                       what really happens to jobs: job_started,
--                       job_finished, job_rejected.
--   gpualloc_reader     reads the views, nothing else.
-- The roles themselves are created in 01_schema.sql (they outlive the
-- extension); this file grants what every version's code needs, so it runs
-- in the install script and in every upgrade script.

GRANT gpualloc_submitter, gpualloc_executor, gpualloc_reader TO gpualloc_admin;

GRANT USAGE ON SCHEMA gpualloc TO gpualloc_admin, gpualloc_submitter, gpualloc_executor, gpualloc_reader;

-- Nothing is callable by PUBLIC unless granted below; internals by nobody.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA gpualloc FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA gpualloc_internal FROM PUBLIC;

-- An admin reads every table and writes through the API only: a row written
-- by hand skips the API's checks, and a job, GPU, service or pool deleted
-- by hand would take its allocation rows with it (their foreign keys
-- cascade) behind the commit path's back, unseen by the change feed.
GRANT SELECT ON ALL TABLES IN SCHEMA gpualloc TO gpualloc_admin;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON ALL TABLES IN SCHEMA gpualloc FROM gpualloc_admin;
-- demand is staged by hand and loaded by load_demand (which empties the
-- stage with the caller's rights)
GRANT INSERT, UPDATE, DELETE, TRUNCATE ON gpualloc.demand_staging TO gpualloc_admin;
-- plans are written by the planner only; an admin may delete old ones
GRANT DELETE ON gpualloc.plan_runs, gpualloc.plan_blocks TO gpualloc_admin;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA gpualloc TO gpualloc_admin;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA gpualloc TO gpualloc_admin;

-- Submitters: their jobs, through the API and row-level security.
GRANT SELECT ON gpualloc.jobs, gpualloc.job_dependencies, gpualloc.pools TO gpualloc_submitter;
-- their tenants' policies and usage (row-level security, and the filter of fairshare())
GRANT SELECT ON gpualloc.tenant_policies, gpualloc.tenant_usage TO gpualloc_submitter;
GRANT EXECUTE ON FUNCTION gpualloc.fairshare(timestamptz) TO gpualloc_submitter, gpualloc_reader;
GRANT SELECT ON gpualloc.tenant_usage TO gpualloc_reader;
GRANT SELECT ON gpualloc.job_pools TO gpualloc_submitter;
GRANT EXECUTE ON FUNCTION
	gpualloc.submit_job(text, text, text, integer, integer, double precision, jsonb, name,
						timestamptz, timestamptz, double precision, text, bigint[], bigint[], interval, text[]),
	gpualloc.cancel_job(bigint, text),
	gpualloc.estimate_job(text, jsonb, integer, text),
	gpualloc.caller_role()
TO gpualloc_submitter;

-- Executors: the allocation, its change feed and the job reports.
GRANT SELECT ON gpualloc.current_allocation, gpualloc.executor_work TO gpualloc_executor;
GRANT EXECUTE ON FUNCTION
	gpualloc.allocation_seq(),
	gpualloc.allocation_changes(bigint),
	gpualloc.job_started(bigint, integer, integer, timestamptz),
	gpualloc.job_finished(bigint, boolean, timestamptz, text, integer),
	gpualloc.job_rejected(bigint, text),
	gpualloc.caller_role()
TO gpualloc_executor;

-- Readers: the views only.
GRANT SELECT ON gpualloc.current_allocation, gpualloc.queue, gpualloc.planner_status TO gpualloc_reader;
GRANT SELECT ON gpualloc.maintenance_schedule TO gpualloc_reader, gpualloc_executor, gpualloc_submitter;
-- the reservation schedule runs with the caller's rights: row-level
-- security of advance_reservations shows each its tenants' own
GRANT SELECT ON gpualloc.reservation_schedule, gpualloc.advance_reservations, gpualloc.pools
	TO gpualloc_reader, gpualloc_executor, gpualloc_submitter;
GRANT EXECUTE ON FUNCTION gpualloc.planner_next_run(), gpualloc.planner_pid() TO gpualloc_reader;
GRANT EXECUTE ON FUNCTION gpualloc.allocation_seq(), gpualloc.allocation_changes(bigint) TO gpualloc_reader;
GRANT SELECT ON gpualloc.utilization_hourly, gpualloc.tenant_value_hourly, gpualloc.service_coverage_hourly,
	gpualloc.queue_plan, gpualloc.plan_history TO gpualloc_reader;
GRANT EXECUTE ON FUNCTION gpualloc.utilization(timestamptz, timestamptz),
	gpualloc.tenant_value(timestamptz, timestamptz), gpualloc.service_coverage(timestamptz, timestamptz),
	gpualloc.plan_svg(bigint, text) TO gpualloc_reader;
