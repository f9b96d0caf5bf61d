-- Roles and privileges.
--   gpualloc_admin      runs the cluster: every function, every table.
--   gpualloc_submitter  submits and cancels its tenants' jobs and reads them
--                       (row-level security on gpualloc.jobs).
--   gpualloc_executor   reads the allocation and its change feed, and reports
--                       what really happens to jobs: job_started,
--                       job_finished, job_rejected.
--   gpualloc_reader     reads the views, nothing else.
-- Roles are cluster-wide, so they are created only when missing and outlive
-- the extension.
DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['gpualloc_admin', 'gpualloc_submitter', 'gpualloc_executor', 'gpualloc_reader'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('CREATE ROLE %I NOLOGIN', r);
		END IF;
	END LOOP;
END
$$;

GRANT gpualloc_submitter, gpualloc_executor, gpualloc_reader TO gpualloc_admin;

GRANT USAGE ON SCHEMA gpualloc TO gpualloc_admin, gpualloc_submitter, gpualloc_executor, gpualloc_reader;

-- Nothing is callable by PUBLIC unless granted below.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA gpualloc FROM PUBLIC;

GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA gpualloc TO gpualloc_admin;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA gpualloc TO gpualloc_admin;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA gpualloc TO gpualloc_admin;

-- Submitters: their jobs, through the API and row-level security.
GRANT SELECT ON gpualloc.jobs, gpualloc.pools TO gpualloc_submitter;
GRANT EXECUTE ON FUNCTION
	gpualloc.submit_job(text, text, text, integer, integer, double precision, jsonb, name,
						timestamptz, timestamptz, double precision, text),
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
	gpualloc.job_finished(bigint, boolean, timestamptz, text),
	gpualloc.job_rejected(bigint, text),
	gpualloc.caller_role()
TO gpualloc_executor;

-- Readers: the views only.
GRANT SELECT ON gpualloc.current_allocation, gpualloc.queue TO gpualloc_reader;
GRANT EXECUTE ON FUNCTION gpualloc.allocation_seq(), gpualloc.allocation_changes(bigint) TO gpualloc_reader;
GRANT SELECT ON gpualloc.utilization_hourly, gpualloc.tenant_value_hourly, gpualloc.service_coverage_hourly,
	gpualloc.queue_plan, gpualloc.plan_history TO gpualloc_reader;
GRANT EXECUTE ON FUNCTION gpualloc.utilization(timestamptz, timestamptz),
	gpualloc.tenant_value(timestamptz, timestamptz), gpualloc.service_coverage(timestamptz, timestamptz),
	gpualloc.plan_svg(bigint, text) TO gpualloc_reader;

ALTER TABLE gpualloc.jobs ENABLE ROW LEVEL SECURITY;

CREATE POLICY jobs_admin_all ON gpualloc.jobs TO gpualloc_admin
	USING (true) WITH CHECK (true);

-- A submitter sees the jobs of every tenant role it is a member of.
CREATE POLICY jobs_submitter_own_tenant ON gpualloc.jobs FOR SELECT TO gpualloc_submitter
	USING (tenant IN (SELECT r.rolname FROM pg_catalog.pg_roles r
					  WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')));
