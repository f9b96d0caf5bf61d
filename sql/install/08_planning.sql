-- Planning: solve the horizon, commit its first step, look at any plan.

-- Plan blocks go with their run or their pool.  These triggers do what
-- ON DELETE CASCADE would: plan_blocks has no foreign keys, because a
-- foreign key checks every inserted row on its own, nearly three quarters of the time
-- it takes to store the 8,000 blocks of a 16,000-GPU plan; runs and pools
-- are deleted rarely and in bulk.
CREATE FUNCTION gpualloc_internal.plan_blocks_of_deleted() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF TG_TABLE_NAME = 'plan_runs' THEN
		DELETE FROM gpualloc.plan_blocks b USING deleted_rows d WHERE b.plan_id = d.plan_id;
	ELSE
		DELETE FROM gpualloc.plan_blocks b USING deleted_rows d WHERE b.pool_id = d.pool_id;
	END IF;
	RETURN NULL;
END
$$;
CREATE TRIGGER plan_runs_delete_blocks AFTER DELETE ON gpualloc.plan_runs
	REFERENCING OLD TABLE AS deleted_rows
	FOR EACH STATEMENT EXECUTE FUNCTION gpualloc_internal.plan_blocks_of_deleted();
CREATE TRIGGER pools_delete_plan_blocks AFTER DELETE ON gpualloc.pools
	REFERENCING OLD TABLE AS deleted_rows
	FOR EACH STATEMENT EXECUTE FUNCTION gpualloc_internal.plan_blocks_of_deleted();

-- Plan now.  mode 'fast' is the heuristic; 'full' the MILP warm-started with
-- it, which also reports the LP bound and the gap.  time_limit defaults to
-- 1 ms (fast) or gpualloc.solver_time_limit (full).
CREATE FUNCTION gpualloc.replan(mode text DEFAULT 'fast', time_limit interval DEFAULT NULL,
								OUT plan_id bigint, OUT status text, OUT solved_by text,
								OUT objective double precision, OUT bound double precision,
								OUT gap double precision, OUT solve_ms double precision,
								OUT gpus_changed integer, OUT message text)
RETURNS record
SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
-- short queries: compiling them would cost more than it saves
SET jit = off
AS 'MODULE_PATHNAME', 'gpualloc_replan'
LANGUAGE C VOLATILE CALLED ON NULL INPUT;

-- The grid of a plan: every GPU and step, with its workload (NULL: idle).
CREATE FUNCTION gpualloc.plan_grid(plan_id bigint)
RETURNS TABLE (pool text, node integer, slot integer, gpu_index integer, step integer,
			   step_start timestamptz, workload_kind text, job_id bigint, job_name text,
			   service text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	r gpualloc.plan_runs;
BEGIN
	SELECT * INTO r FROM gpualloc.plan_runs pr WHERE pr.plan_id = plan_grid.plan_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'plan % does not exist', coalesce(plan_grid.plan_id::text, 'NULL')
			USING ERRCODE = 'undefined_object',
				  HINT = 'Plans are listed in gpualloc.plan_runs.';
	END IF;
	IF r.status NOT IN ('succeeded', 'fallback') THEN
		RAISE EXCEPTION 'plan % has no grid: its status is %', r.plan_id, r.status
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = coalesce(r.message, '');
	END IF;
	RETURN QUERY
	SELECT p.name, g.node, g.slot, g.node * p.node_size + g.slot, s.step,
		   r.plan_start + s.step * r.step,
		   CASE WHEN b.job_id IS NOT NULL THEN 'job' WHEN b.service_id IS NOT NULL THEN 'service' END,
		   b.job_id, j.name, sv.name
	FROM gpualloc.gpus g
	JOIN gpualloc.pools p USING (pool_id)
	CROSS JOIN generate_series(0, r.horizon_steps - 1) AS s(step)
	LEFT JOIN gpualloc.plan_blocks b
		   ON b.plan_id = r.plan_id AND b.pool_id = g.pool_id
		  AND g.node * p.node_size + g.slot >= b.gpu_first
		  AND g.node * p.node_size + g.slot < b.gpu_first + b.gpu_count
		  AND s.step >= b.step_first AND s.step < b.step_first + b.step_count
	LEFT JOIN gpualloc.jobs j ON j.job_id = b.job_id
	LEFT JOIN gpualloc.services sv ON sv.service_id = b.service_id
	ORDER BY p.name, g.node, g.slot, s.step;
END
$$;
