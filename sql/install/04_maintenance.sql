-- Maintenance windows: GPU ranges closed over a future time range.  The
-- planner places no new work on them while they last and starts no job whose
-- estimated run would reach into one, so a pool drains ahead of its window.

-- The last topology index a pool can have: node 65535, its last slot.
CREATE FUNCTION gpualloc_internal.pool_index_limit(p gpualloc.pools) RETURNS integer
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$ SELECT 65536 * p.node_size - 1 $$;

-- The checks of a GPU range of pool p closed (a maintenance window) or held
-- (an advance reservation) from starts_at to ends_at: `what` names it in
-- the hint.  Raises the error that names the field and the rule.
CREATE FUNCTION gpualloc_internal.check_closed_range(p gpualloc.pools, starts_at timestamptz,
													 ends_at timestamptz, first_gpu integer,
													 gpus integer, what text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	lim integer;
BEGIN
	IF starts_at IS NULL OR NOT isfinite(starts_at) THEN
		RAISE EXCEPTION 'starts_at must be a finite time, got %', coalesce(starts_at::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF ends_at IS NULL OR NOT isfinite(ends_at) THEN
		RAISE EXCEPTION 'ends_at must be a finite time, got %', coalesce(ends_at::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF ends_at <= starts_at THEN
		RAISE EXCEPTION 'ends_at must be after starts_at'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('starts_at is %s, ends_at is %s.', starts_at, ends_at);
	END IF;
	IF ends_at <= pg_catalog.now() THEN
		RAISE EXCEPTION 'ends_at must be in the future, got %', ends_at
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = pg_catalog.format('A %s that is already over closes nothing.', what);
	END IF;
	lim := gpualloc_internal.pool_index_limit(p);
	IF first_gpu IS NULL OR first_gpu < 0 OR first_gpu > lim THEN
		RAISE EXCEPTION 'first_gpu must be a topology index between 0 and % (node * node_size + slot), got %',
			lim, coalesce(first_gpu::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF gpus IS NOT NULL AND (gpus < 1 OR gpus > lim - first_gpu + 1) THEN
		RAISE EXCEPTION 'gpus must be between 1 and % (the indexes from first_gpu % to the pool''s last), got %',
			lim - first_gpu + 1, first_gpu, gpus
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Leave gpus NULL to close every GPU from first_gpu on.';
	END IF;
END
$$;

-- Close GPUs first_gpu .. first_gpu + gpus - 1 of a pool (topology indexes
-- node * node_size + slot; gpus NULL: to the pool's end) from starts_at to
-- ends_at (admin).  Returns the window's id.
CREATE FUNCTION gpualloc.add_maintenance_window(pool text, starts_at timestamptz, ends_at timestamptz,
												first_gpu integer DEFAULT 0, gpus integer DEFAULT NULL,
												reason text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools;
	new_id integer;
BEGIN
	PERFORM gpualloc_internal.require_admin('add a maintenance window');
	p := gpualloc_internal.pool(pool);
	PERFORM gpualloc_internal.check_closed_range(p, starts_at, ends_at, first_gpu, gpus, 'window');
	PERFORM gpualloc_internal.check_reason('reason', reason);
	INSERT INTO gpualloc.maintenance_windows (pool_id, first_gpu, gpus, starts_at, ends_at, reason)
	VALUES (p.pool_id, first_gpu, gpus, starts_at, ends_at, coalesce(reason, ''))
	RETURNING window_id INTO new_id;
	PERFORM gpualloc.request_replan();
	RETURN new_id;
END
$$;

-- Drop a maintenance window (admin): its GPUs are open again at once.
CREATE FUNCTION gpualloc.remove_maintenance_window(window_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	PERFORM gpualloc_internal.require_admin('remove a maintenance window');
	DELETE FROM gpualloc.maintenance_windows w WHERE w.window_id = remove_maintenance_window.window_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'maintenance window % does not exist', coalesce(window_id::text, 'NULL')
			USING ERRCODE = 'undefined_object',
				  HINT = 'List them with: SELECT * FROM gpualloc.maintenance_schedule;';
	END IF;
	PERFORM gpualloc.request_replan();
END
$$;

-- Every maintenance window with its pool's name, the GPUs it closes and
-- where it stands now: scheduled, in progress or over.
CREATE VIEW gpualloc.maintenance_schedule AS
SELECT w.window_id, p.name AS pool, w.first_gpu,
	   CASE WHEN w.gpus IS NOT NULL THEN w.first_gpu + w.gpus - 1 END AS last_gpu,
	   (SELECT count(*) FROM gpualloc.gpus g
		WHERE g.pool_id = w.pool_id AND g.node * p.node_size + g.slot >= w.first_gpu
		  AND (w.gpus IS NULL OR g.node * p.node_size + g.slot < w.first_gpu + w.gpus))::integer AS gpus_closed,
	   w.starts_at, w.ends_at,
	   CASE WHEN now() >= w.ends_at THEN 'over'
			WHEN now() >= w.starts_at THEN 'in progress'
			ELSE 'scheduled' END AS state,
	   w.reason
FROM gpualloc.maintenance_windows w
JOIN gpualloc.pools p USING (pool_id)
ORDER BY w.starts_at, w.window_id;
