-- Cluster API: pools and GPUs.

CREATE FUNCTION gpualloc.add_pool(name text, gpu_model text, memory_gb double precision,
								  peak_tflops double precision, node_size integer DEFAULT 8)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	new_id integer;
BEGIN
	PERFORM gpualloc_internal.require_admin('add a pool');
	PERFORM gpualloc_internal.check_name('pool name', name);
	PERFORM gpualloc_internal.check_name('gpu_model', gpu_model);
	PERFORM gpualloc_internal.check_in_range('memory_gb', memory_gb, 1e-3, 1e6);
	PERFORM gpualloc_internal.check_in_range('peak_tflops', peak_tflops, 1e-3, 1e6);
	PERFORM gpualloc_internal.check_pow2('node_size', node_size);
	IF node_size > 1024 THEN
		RAISE EXCEPTION 'node_size must be at most 1024 GPUs, got %', node_size
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF EXISTS (SELECT 1 FROM gpualloc.pools p WHERE p.name = add_pool.name) THEN
		RAISE EXCEPTION 'pool "%" already exists', name
			USING ERRCODE = 'unique_violation';
	END IF;
	INSERT INTO gpualloc.pools (name, gpu_model, memory_gb, peak_tflops, node_size)
	VALUES (add_pool.name, add_pool.gpu_model, add_pool.memory_gb, add_pool.peak_tflops, add_pool.node_size)
	RETURNING pool_id INTO new_id;
	RETURN new_id;
END
$$;

CREATE FUNCTION gpualloc.remove_pool(name text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools;
BEGIN
	PERFORM gpualloc_internal.require_admin('remove a pool');
	p := gpualloc_internal.pool(name);
	-- waits for submissions to the pool still in flight (their rows lock it
	-- FOR KEY SHARE), so the checks below see their jobs
	PERFORM 1 FROM gpualloc.pools WHERE pool_id = p.pool_id FOR UPDATE;
	-- (a job on another of its pools still has this one as its first choice)
	IF EXISTS (SELECT 1 FROM gpualloc.jobs j WHERE (j.pool_id = p.pool_id OR j.requested_pool_id = p.pool_id)
			   AND j.status IN ('queued', 'booked', 'running')) THEN
		RAISE EXCEPTION 'pool "%" still has queued, booked or running jobs', name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Cancel or finish them first.';
	END IF;
	IF EXISTS (SELECT 1 FROM gpualloc.services s WHERE s.pool_id = p.pool_id) THEN
		RAISE EXCEPTION 'pool "%" still has services', name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Remove them with gpualloc.remove_service() first.';
	END IF;
	-- finished jobs keep their history only while their pool exists
	DELETE FROM gpualloc.jobs j WHERE j.pool_id = p.pool_id;
	DELETE FROM gpualloc.pools WHERE pool_id = p.pool_id;
END
$$;

CREATE FUNCTION gpualloc.add_gpu(pool text, node integer, slot integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools;
	new_id integer;
BEGIN
	PERFORM gpualloc_internal.require_admin('add a GPU');
	p := gpualloc_internal.pool(pool);
	IF node IS NULL OR node < 0 OR node > 65535 THEN
		RAISE EXCEPTION 'node must be between 0 and 65535, got %', coalesce(node::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF slot IS NULL OR slot < 0 OR slot >= p.node_size THEN
		RAISE EXCEPTION 'slot must be between 0 and % (node_size of pool "%" is %), got %',
			p.node_size - 1, pool, p.node_size, coalesce(slot::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF EXISTS (SELECT 1 FROM gpualloc.gpus g WHERE g.pool_id = p.pool_id AND g.node = add_gpu.node AND g.slot = add_gpu.slot) THEN
		RAISE EXCEPTION 'GPU node % slot % already exists in pool "%"', node, slot, pool
			USING ERRCODE = 'unique_violation';
	END IF;
	INSERT INTO gpualloc.gpus (pool_id, node, slot) VALUES (p.pool_id, node, slot)
	RETURNING gpu_id INTO new_id;
	RETURN new_id;
END
$$;

-- Add a whole node: slots 0 .. gpus-1 (all node_size slots by default).
CREATE FUNCTION gpualloc.add_node(pool text, node integer, gpus integer DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools;
	n integer;
BEGIN
	PERFORM gpualloc_internal.require_admin('add a node');
	p := gpualloc_internal.pool(pool);
	n := coalesce(gpus, p.node_size);
	IF n < 1 OR n > p.node_size THEN
		RAISE EXCEPTION 'gpus must be between 1 and the node_size % of pool "%", got %', p.node_size, pool, n
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	FOR s IN 0 .. n - 1 LOOP
		PERFORM gpualloc.add_gpu(pool, node, s);
	END LOOP;
	RETURN n;
END
$$;

-- A GPU can only go when nothing runs on it now or is booked on it later.
CREATE FUNCTION gpualloc.remove_gpu(pool text, node integer, slot integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	g gpualloc.gpus;
BEGIN
	PERFORM gpualloc_internal.require_admin('remove a GPU');
	g := gpualloc_internal.gpu(pool, node, slot);
	PERFORM gpualloc_internal.commit_lock();
	IF EXISTS (SELECT 1 FROM gpualloc.allocations a WHERE a.gpu_id = g.gpu_id AND a.end_seq IS NULL) THEN
		RAISE EXCEPTION 'GPU node % slot % of pool "%" is allocated now or later', node, slot, pool
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Drain it with gpualloc.drain_gpu() and remove it once its work has finished.';
	END IF;
	DELETE FROM gpualloc.gpus WHERE gpu_id = g.gpu_id;
END
$$;

CREATE FUNCTION gpualloc.set_gpu_state(pool text, node integer, slot integer, state text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	g gpualloc.gpus;
BEGIN
	PERFORM gpualloc_internal.require_admin('change a GPU''s state');
	g := gpualloc_internal.gpu(pool, node, slot);
	IF state IS NULL OR state NOT IN ('up', 'drain', 'down') THEN
		RAISE EXCEPTION 'state must be one of up, drain, down; got %', coalesce(state, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	PERFORM gpualloc_internal.commit_lock();
	UPDATE gpualloc.gpus SET state = set_gpu_state.state, state_changed_at = now()
	WHERE gpu_id = g.gpu_id AND gpus.state IS DISTINCT FROM set_gpu_state.state;
	IF state = 'down' THEN
		PERFORM gpualloc_internal.gpu_failed(g.gpu_id);
	END IF;
END
$$;

-- A GPU went down: a service's row on it ends; a job booked on it loses its
-- booking and goes back to the queue; a job running on it is handled by
-- gpualloc.on_gpu_failure: 'requeue' (back to the queue, the lost run
-- counted) or 'fail'.  Every change goes through the commit path, so the
-- executor hears of it; the planner is asked for a run at once.
CREATE FUNCTION gpualloc_internal.gpu_failed(p_gpu_id integer) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	a gpualloc.allocations;
	j gpualloc.jobs;
	what text;
	policy text := gpualloc_internal.setting('gpualloc.on_gpu_failure', 'requeue');
BEGIN
	SELECT * INTO a FROM gpualloc.allocations WHERE gpu_id = p_gpu_id AND end_seq IS NULL;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	SELECT format('GPU node %s slot %s of pool "%s" went down', g.node, g.slot, p.name) INTO what
	FROM gpualloc.gpus g JOIN gpualloc.pools p USING (pool_id) WHERE g.gpu_id = p_gpu_id;
	IF a.service_id IS NOT NULL THEN
		PERFORM gpualloc_internal.allocations_set(ARRAY[p_gpu_id], '{}', '{}', 'gpu_down');
		RETURN;
	END IF;
	SELECT * INTO j FROM gpualloc.jobs WHERE job_id = a.job_id FOR UPDATE;
	IF j.status = 'booked' THEN
		UPDATE gpualloc.jobs SET status_message = what || ' before the job started: booking released'
		WHERE job_id = j.job_id;
	ELSIF policy = 'fail' THEN
		UPDATE gpualloc.jobs
		SET status = 'failed', finished_at = greatest(now(), j.started_at),
			status_message = what || ' while it ran'
		WHERE job_id = j.job_id;
	ELSE
		UPDATE gpualloc.jobs
		SET status = 'queued', started_at = NULL, block_first = NULL, block_size = NULL,
			requeues = requeues + 1,
			lost_gpu_hours = lost_gpu_hours + j.block_size *
				greatest(0, extract(epoch FROM pg_catalog.clock_timestamp() - j.started_at)) / 3600,
			status_message = what || ' while it ran: requeued'
		WHERE job_id = j.job_id;
	END IF;
	PERFORM gpualloc_internal.release_job(j.job_id, 'gpu_down');
	PERFORM gpualloc.request_replan();
END
$$;

-- Drain: what runs on the GPU finishes; nothing new is placed there.
CREATE FUNCTION gpualloc.drain_gpu(pool text, node integer, slot integer) RETURNS void
LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$ SELECT gpualloc.set_gpu_state(pool, node, slot, 'drain') $$;
