-- Job API: submit, cancel, and the executor's start and finish reports.

CREATE FUNCTION gpualloc_internal.pool_capacity(p_pool_id integer) RETURNS integer
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$ SELECT count(*)::integer FROM gpualloc.gpus WHERE pool_id = p_pool_id AND state <> 'down' $$;

-- A tenant is a role, never one of the extension's own roles nor a
-- predefined one: their members are every submitter or executor, so a job
-- owned by one would be every member's.
CREATE FUNCTION gpualloc_internal.check_tenant_role(role name) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF role IS NULL OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = role) THEN
		RAISE EXCEPTION 'tenant "%" is not a role', coalesce(role::text, 'NULL')
			USING ERRCODE = 'undefined_object',
				  DETAIL = 'A tenant is a database role; its members share its jobs.';
	END IF;
	IF role LIKE 'gpualloc\_%' OR role LIKE 'pg\_%' THEN
		RAISE EXCEPTION 'role "%" cannot be a tenant', role
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'The gpualloc_* roles and predefined pg_* roles are shared by many users.',
				  HINT = 'Create a role for the team: CREATE ROLE team_x NOLOGIN; and grant it to its members.';
	END IF;
END
$$;

CREATE FUNCTION gpualloc_internal.check_max_priority(max_priority double precision) RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF max_priority IS NOT NULL AND (max_priority = 'NaN' OR max_priority <= 0 OR max_priority > 1e6) THEN
		RAISE EXCEPTION 'max_priority must be a number in (0, 1e6], got %', max_priority
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
END
$$;

-- Register a role as a tenant (admin).
CREATE FUNCTION gpualloc.add_tenant(role name, max_priority double precision DEFAULT NULL) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	PERFORM gpualloc_internal.require_admin('register a tenant');
	PERFORM gpualloc_internal.check_tenant_role(role);
	PERFORM gpualloc_internal.check_max_priority(max_priority);
	IF EXISTS (SELECT 1 FROM gpualloc.tenants t WHERE t.tenant = role) THEN
		RAISE EXCEPTION 'tenant "%" is already registered', role
			USING ERRCODE = 'unique_violation',
				  HINT = 'Change it with gpualloc.set_tenant().';
	END IF;
	INSERT INTO gpualloc.tenants (tenant, max_priority) VALUES (role, max_priority);
END
$$;

-- Change a tenant's maximum priority (NULL: gpualloc.max_priority).  Its
-- jobs still waiting (queued or booked) above the new maximum are brought
-- down to it, as submit_job would have refused them: the maximum binds
-- what is planned from now on, not only what is submitted.
CREATE FUNCTION gpualloc.set_tenant(role name, max_priority double precision) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	cap double precision;
	lowered integer;
BEGIN
	PERFORM gpualloc_internal.require_admin('change a tenant');
	PERFORM gpualloc_internal.check_max_priority(max_priority);
	UPDATE gpualloc.tenants t SET max_priority = set_tenant.max_priority WHERE t.tenant = role;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'tenant "%" is not registered', coalesce(role::text, 'NULL')
			USING ERRCODE = 'undefined_object';
	END IF;
	cap := coalesce(max_priority, gpualloc_internal.setting('gpualloc.max_priority', '10')::double precision);
	UPDATE gpualloc.jobs j SET priority = cap
	WHERE j.tenant = role AND j.status IN ('queued', 'booked') AND j.priority > cap;
	GET DIAGNOSTICS lowered = ROW_COUNT;
	IF lowered > 0 THEN
		RAISE NOTICE '% waiting jobs of tenant "%" lowered to priority %', lowered, role, cap;
	END IF;
END
$$;

-- Unregister a tenant: only once it has no job at all (jobs keep their owner).
CREATE FUNCTION gpualloc.remove_tenant(role name) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	PERFORM gpualloc_internal.require_admin('remove a tenant');
	IF NOT EXISTS (SELECT 1 FROM gpualloc.tenants t WHERE t.tenant = role) THEN
		RAISE EXCEPTION 'tenant "%" is not registered', coalesce(role::text, 'NULL')
			USING ERRCODE = 'undefined_object';
	END IF;
	IF EXISTS (SELECT 1 FROM gpualloc.jobs j WHERE j.tenant = role) THEN
		RAISE EXCEPTION 'tenant "%" still owns jobs', role
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'Finished jobs keep their tenant for accounting.';
	END IF;
	DELETE FROM gpualloc.tenants t WHERE t.tenant = role;
END
$$;

-- Queue a batch job; book it at once on a block free for its whole run
-- unless it waits for another job (after_ok, after_any).
-- Its checks, with the errors the API documents, and the fast path are in C
-- (src/pg/submit.c, src/pg/fast_path.c): index probes through plans prepared
-- once per backend, so a submission costs the same however long the queue.
-- The booking goes through gpualloc_internal.allocations_set under the
-- commit lock, like every write to the allocation.
CREATE FUNCTION gpualloc.submit_job(name text, kind text, pool text,
									gpus_min integer DEFAULT NULL, gpus_max integer DEFAULT NULL,
									priority double precision DEFAULT 1,
									features jsonb DEFAULT '{}',
									tenant name DEFAULT NULL,
									not_before timestamptz DEFAULT NULL,
									deadline timestamptz DEFAULT NULL,
									work_gpu_hours double precision DEFAULT NULL,
									command text DEFAULT NULL,
									after_ok bigint[] DEFAULT NULL,
									after_any bigint[] DEFAULT NULL,
									time_limit interval DEFAULT NULL,
									alt_pools text[] DEFAULT NULL)
RETURNS bigint
SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
-- short queries: compiling them would cost more than it saves
SET jit = off
AS 'MODULE_PATHNAME', 'gpualloc_submit_job'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;

CREATE FUNCTION gpualloc.cancel_job(job_id bigint, reason text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	j gpualloc.jobs;
BEGIN
	PERFORM gpualloc_internal.check_reason('reason', reason);
	PERFORM gpualloc_internal.commit_lock();
	j := gpualloc_internal.job_for_update(job_id);
	IF j.status NOT IN ('queued', 'booked', 'running') THEN
		RAISE EXCEPTION 'job % is already %', j.job_id, j.status
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'Only queued, booked or running jobs can be cancelled.';
	END IF;
	UPDATE gpualloc.jobs
	SET status = 'cancelled', booked_at = NULL,
		-- the commit moment, not the transaction's start: a start that
		-- committed while this cancel waited for the lock came later
		finished_at = CASE WHEN j.status = 'running' THEN greatest(pg_catalog.clock_timestamp(), j.started_at) END,
		status_message = reason
	WHERE jobs.job_id = j.job_id;
	PERFORM gpualloc_internal.release_job(j.job_id, 'cancel');
END
$$;

-- A job starts only once every job it waits for has ended (after_ok:
-- succeeded), as the planner and the fast path see it.
CREATE FUNCTION gpualloc_internal.check_dependencies_met(p_job_id bigint) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	d record;
BEGIN
	SELECT p.job_id, p.status, d0.kind INTO d
	FROM gpualloc.job_dependencies d0 JOIN gpualloc.jobs p ON p.job_id = d0.after_job_id
	WHERE d0.job_id = p_job_id
	  AND (p.status IN ('queued', 'booked', 'running') OR (d0.kind = 'after_ok' AND p.status <> 'succeeded'))
	ORDER BY p.job_id LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'job % waits for job % (%), which is %', p_job_id, d.job_id, d.kind, d.status
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'A job starts only after every job it waits for has ended (after_ok: succeeded).';
	END IF;
END
$$;

-- A job that failed or was cancelled can never satisfy an after_ok link:
-- its queued dependents are cancelled (which cascades down their own
-- chains through this trigger), as Slurm does for a dependency that can
-- never be satisfied.  Dependents are always queued here: nothing books or
-- starts a job before its predecessors ended.
CREATE FUNCTION gpualloc_internal.cancel_unsatisfiable_dependents() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	UPDATE gpualloc.jobs j
	SET status = 'cancelled', booked_at = NULL,
		status_message = pg_catalog.format('dependency never satisfied: after_ok job %s %s', NEW.job_id, NEW.status)
	FROM gpualloc.job_dependencies d
	WHERE d.after_job_id = NEW.job_id AND d.kind = 'after_ok' AND j.job_id = d.job_id
	  AND j.status = 'queued';
	RETURN NULL;
END
$$;

CREATE TRIGGER jobs_cancel_unsatisfiable_dependents
AFTER UPDATE OF status ON gpualloc.jobs
FOR EACH ROW WHEN (NEW.status IN ('failed', 'cancelled') AND OLD.status IS DISTINCT FROM NEW.status)
EXECUTE FUNCTION gpualloc_internal.cancel_unsatisfiable_dependents();

-- Running jobs past their time limit are stopped: marked failed (the limit
-- named in status_message) and their GPUs freed through the commit path, so
-- executors see the rows end (NOTIFY reason "time_limit") and stop them.
-- Returns how many were stopped.
CREATE FUNCTION gpualloc_internal.stop_overdue_jobs() RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	j record;
	n integer := 0;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM gpualloc.jobs WHERE status = 'running' AND time_limit IS NOT NULL
				   AND started_at + time_limit <= pg_catalog.clock_timestamp()) THEN
		RETURN 0;
	END IF;
	PERFORM gpualloc_internal.commit_lock();
	FOR j IN SELECT job_id, time_limit FROM gpualloc.jobs
			 WHERE status = 'running' AND time_limit IS NOT NULL
			   AND started_at + time_limit <= pg_catalog.clock_timestamp()
			 ORDER BY job_id FOR UPDATE
	LOOP
		UPDATE gpualloc.jobs
		SET status = 'failed', finished_at = greatest(pg_catalog.clock_timestamp(), started_at),
			status_message = pg_catalog.format('time limit of %s reached: stopped', j.time_limit)
		WHERE job_id = j.job_id;
		PERFORM gpualloc_internal.release_job(j.job_id, 'time_limit');
		n := n + 1;
	END LOOP;
	RETURN n;
END
$$;

-- The block a job holds in the committed allocation, if it forms one.
CREATE FUNCTION gpualloc_internal.allocated_block(p_job_id bigint, OUT first integer, OUT size integer)
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	SELECT min(g.node * p.node_size + g.slot), count(DISTINCT g.gpu_id)::integer
	FROM gpualloc.allocations a
	JOIN gpualloc.gpus g USING (gpu_id)
	JOIN gpualloc.pools p USING (pool_id)
	WHERE a.job_id = p_job_id AND a.end_seq IS NULL
$$;

CREATE FUNCTION gpualloc_internal.check_block(j gpualloc.jobs, first integer, size integer) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools;
	present integer;
	clash record;
BEGIN
	SELECT * INTO p FROM gpualloc.pools WHERE pool_id = j.pool_id;
	PERFORM gpualloc_internal.check_pow2('block_size', size);
	IF size < j.gpus_min OR size > j.gpus_max THEN
		RAISE EXCEPTION 'block_size % is outside the job''s range [%, %]', size, j.gpus_min, j.gpus_max
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF first IS NULL OR first < 0 OR first % size <> 0 THEN
		RAISE EXCEPTION 'block_first % is not aligned to block_size %', coalesce(first::text, 'NULL'), size
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'A block of 2^k GPUs starts at a topology index that is a multiple of 2^k.';
	END IF;
	SELECT count(*) INTO present FROM gpualloc.gpus g
	WHERE g.pool_id = j.pool_id AND g.state <> 'down'
	  AND g.node * p.node_size + g.slot >= first AND g.node * p.node_size + g.slot < first + size;
	IF present <> size THEN
		RAISE EXCEPTION 'block [%, %) of pool "%" has % usable GPUs, not %', first, first + size, p.name, present, size
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'Every GPU of the block must exist and not be down.';
	END IF;
	-- other workloads' rows in force on the block are reported by name
	SELECT g.node, g.slot, coalesce('job ' || a.job_id, 'service ' || s.name) AS holder INTO clash
	FROM gpualloc.allocations a
	JOIN gpualloc.gpus g USING (gpu_id)
	LEFT JOIN gpualloc.services s ON s.service_id = a.service_id
	WHERE g.pool_id = j.pool_id AND a.end_seq IS NULL
	  AND g.node * p.node_size + g.slot >= first AND g.node * p.node_size + g.slot < first + size
	  AND a.job_id IS DISTINCT FROM j.job_id
	ORDER BY g.node, g.slot
	LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'GPU node % slot % is allocated to %', clash.node, clash.slot, clash.holder
			USING ERRCODE = 'exclusion_violation',
				  HINT = 'Start the job on the block gpualloc.allocations gives it.';
	END IF;
END
$$;

CREATE FUNCTION gpualloc.job_started(job_id bigint, block_first integer DEFAULT NULL,
									 block_size integer DEFAULT NULL,
									 started_at timestamptz DEFAULT now())
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	j gpualloc.jobs;
	b record;
BEGIN
	PERFORM gpualloc_internal.require_executor('report a job start');
	PERFORM gpualloc_internal.commit_lock();
	j := gpualloc_internal.job_for_update(job_id, true);
	IF j.status NOT IN ('queued', 'booked') THEN
		RAISE EXCEPTION 'job % is %, so it cannot start', j.job_id, j.status
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'Only a booked job, or a queued one given a block, can start.';
	END IF;
	IF started_at IS NULL THEN
		RAISE EXCEPTION 'started_at must be given'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF started_at > now() THEN
		RAISE EXCEPTION 'started_at % is in the future', started_at
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	PERFORM gpualloc_internal.check_dependencies_met(j.job_id);
	IF block_first > 1 << 30 OR block_size > 1 << 30 THEN
		RAISE EXCEPTION 'block_first and block_size must be at most 2^30, got % and %', block_first, block_size
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF started_at < j.submitted_at THEN
		RAISE EXCEPTION 'started_at % is before job % was submitted', started_at, j.job_id
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF block_first IS NULL AND block_size IS NULL THEN
		b := gpualloc_internal.allocated_block(j.job_id);
		IF b.size IS NULL OR b.size = 0 THEN
			RAISE EXCEPTION 'job % has no allocated block', j.job_id
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Give block_first and block_size, or wait for the planner to allocate one.';
		END IF;
		block_first := b.first;
		block_size := b.size;
	END IF;
	PERFORM gpualloc_internal.check_block(j, block_first, block_size);
	UPDATE gpualloc.jobs
	SET status = 'running', booked_at = NULL, started_at = job_started.started_at,
		block_first = job_started.block_first, block_size = job_started.block_size
	WHERE jobs.job_id = j.job_id;
	-- the block's GPUs carry the job; a booking elsewhere is given back
	PERFORM gpualloc_internal.allocations_set(pg_catalog.array_agg(u.gpu_id),
									  pg_catalog.array_agg(CASE WHEN u.in_block THEN j.job_id END),
									  '{}', 'job_started')
	FROM (SELECT g.gpu_id, true AS in_block
		  FROM gpualloc.gpus g JOIN gpualloc.pools p USING (pool_id)
		  WHERE g.pool_id = j.pool_id
			AND g.node * p.node_size + g.slot >= job_started.block_first
			AND g.node * p.node_size + g.slot < job_started.block_first + job_started.block_size
		  UNION
		  SELECT a.gpu_id, false FROM gpualloc.allocations a
		  JOIN gpualloc.gpus g USING (gpu_id) JOIN gpualloc.pools p USING (pool_id)
		  WHERE a.job_id = j.job_id AND a.end_seq IS NULL
			AND NOT (g.pool_id = j.pool_id
					 AND g.node * p.node_size + g.slot >= job_started.block_first
					 AND g.node * p.node_size + g.slot < job_started.block_first + job_started.block_size)) u;
END
$$;

CREATE FUNCTION gpualloc.job_finished(job_id bigint, succeeded boolean DEFAULT true,
									  finished_at timestamptz DEFAULT now(),
									  message text DEFAULT NULL,
									  block_first integer DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	j gpualloc.jobs;
BEGIN
	PERFORM gpualloc_internal.require_executor('report a job finish');
	PERFORM gpualloc_internal.check_reason('message', message);
	PERFORM gpualloc_internal.commit_lock();
	j := gpualloc_internal.job_for_update(job_id, true);
	IF j.status <> 'running' THEN
		RAISE EXCEPTION 'job % is %, so it cannot finish', j.job_id, j.status
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'Only a running job can finish; a queued or booked job is cancelled instead.';
	END IF;
	-- the run the executor reports, named by its block: a run lost to a
	-- requeue that ends after the job started again elsewhere is not this one
	IF job_finished.block_first IS NOT NULL AND job_finished.block_first IS DISTINCT FROM j.block_first THEN
		RAISE EXCEPTION 'job % runs on the block from GPU %, not %: the report is of an earlier run',
			j.job_id, j.block_first, job_finished.block_first
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'The job was requeued and started again since that run began; its end changes nothing.';
	END IF;
	IF succeeded IS NULL THEN
		RAISE EXCEPTION 'succeeded must be true or false'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF finished_at IS NULL THEN
		RAISE EXCEPTION 'finished_at must be given'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF finished_at > now() THEN
		RAISE EXCEPTION 'finished_at % is in the future', finished_at
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF finished_at < j.started_at THEN
		RAISE EXCEPTION 'finished_at % is before job % started', finished_at, j.job_id
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'A job cannot finish before it starts.';
	END IF;
	UPDATE gpualloc.jobs
	SET status = CASE WHEN succeeded THEN 'succeeded' ELSE 'failed' END,
		finished_at = job_finished.finished_at, status_message = message
	WHERE jobs.job_id = j.job_id;
	PERFORM gpualloc_internal.release_job(j.job_id, 'job_finished');
END
$$;

-- The executor could not start a booked job (image missing, node trouble):
-- its booking is released and the planner is asked to place it again.
CREATE FUNCTION gpualloc.job_rejected(job_id bigint, reason text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	j gpualloc.jobs;
BEGIN
	PERFORM gpualloc_internal.require_executor('reject a job');
	IF reason IS NULL OR reason !~ '\S' THEN
		RAISE EXCEPTION 'reason must be given'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Say why the job could not start; it is shown in the job''s status_message.';
	END IF;
	PERFORM gpualloc_internal.check_reason('reason', reason);
	PERFORM gpualloc_internal.commit_lock();
	j := gpualloc_internal.job_for_update(job_id, true);
	IF j.status <> 'booked' THEN
		RAISE EXCEPTION 'job % is %, so it cannot be rejected', j.job_id, j.status
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'Only a booked job can be rejected; a running one finishes as failed.';
	END IF;
	UPDATE gpualloc.jobs SET status_message = 'rejected by the executor: ' || reason
	WHERE jobs.job_id = j.job_id;
	PERFORM gpualloc_internal.release_job(j.job_id, 'rejected');
	PERFORM gpualloc.request_replan();
END
$$;
