-- gpualloc schema: the cluster, its work, the plans and the committed allocation.
-- Complain if the script is sourced in psql rather than via CREATE EXTENSION.
\echo Use "CREATE EXTENSION gpualloc CASCADE" to load this file. \quit

-- A pool is one GPU model.  GPUs of a pool are addressed by (node, slot); the
-- topology index node * node_size + slot is stable when nodes are added, so a
-- block "first index, size" keeps meaning the same GPUs.
CREATE TABLE gpualloc.pools (
	pool_id		serial PRIMARY KEY,
	name		text NOT NULL UNIQUE,
	gpu_model	text NOT NULL,
	memory_gb	double precision NOT NULL,
	peak_tflops	double precision NOT NULL,
	node_size	integer NOT NULL,
	created_at	timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT pools_node_size_pow2 CHECK (node_size > 0 AND node_size <= 1024 AND (node_size & (node_size - 1)) = 0),
	CONSTRAINT pools_memory_positive CHECK (memory_gb > 0 AND memory_gb < 'Infinity'),
	CONSTRAINT pools_tflops_positive CHECK (peak_tflops > 0 AND peak_tflops < 'Infinity')
);

CREATE TABLE gpualloc.gpus (
	gpu_id		serial PRIMARY KEY,
	pool_id		integer NOT NULL REFERENCES gpualloc.pools ON DELETE CASCADE,
	node		integer NOT NULL CHECK (node >= 0),
	slot		integer NOT NULL CHECK (slot >= 0),
	state		text NOT NULL DEFAULT 'up' CHECK (state IN ('up', 'drain', 'down')),
	state_changed_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (pool_id, node, slot)
);

-- Batch work: training, batch inference, quantization.
CREATE TABLE gpualloc.jobs (
	job_id		bigserial PRIMARY KEY,
	name		text NOT NULL,
	kind		text NOT NULL CHECK (kind IN ('training', 'batch_inference', 'quantization')),
	tenant		name NOT NULL,
	pool_id		integer NOT NULL REFERENCES gpualloc.pools,
	priority	double precision NOT NULL CHECK (priority > 0 AND priority < 'Infinity'),
	gpus_min	integer NOT NULL CHECK (gpus_min > 0 AND (gpus_min & (gpus_min - 1)) = 0),
	gpus_max	integer NOT NULL CHECK (gpus_max > 0 AND (gpus_max & (gpus_max - 1)) = 0),
	submitted_at timestamptz NOT NULL DEFAULT now(),
	not_before	timestamptz,
	deadline	timestamptz,
	features	jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(features) = 'object'),
	-- what the duration forecaster expects, at est_gpus GPUs
	est_gpus	integer,
	est_hours_p10 double precision,
	est_hours_p50 double precision,
	est_hours_p90 double precision,
	est_work_gpu_hours double precision,
	est_method	text,
	status		text NOT NULL DEFAULT 'queued'
				CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
	started_at	timestamptz,
	finished_at	timestamptz,
	-- the block the job runs on: topology indexes [block_first, block_first + block_size)
	block_first	integer,
	block_size	integer,
	status_message text,
	CONSTRAINT jobs_size_range CHECK (gpus_min <= gpus_max),
	CONSTRAINT jobs_deadline_after_not_before CHECK (deadline IS NULL OR not_before IS NULL OR deadline > not_before),
	CONSTRAINT jobs_block_aligned CHECK (block_size IS NULL OR
		(block_size > 0 AND (block_size & (block_size - 1)) = 0 AND block_first >= 0 AND block_first % block_size = 0)),
	CONSTRAINT jobs_running_has_block CHECK (status <> 'running' OR (started_at IS NOT NULL AND block_size IS NOT NULL)),
	CONSTRAINT jobs_finished_after_start CHECK (finished_at IS NULL OR started_at IS NULL OR finished_at >= started_at),
	CONSTRAINT jobs_estimate_positive CHECK (est_work_gpu_hours IS NULL OR (est_work_gpu_hours > 0 AND est_work_gpu_hours < 'Infinity'))
);
CREATE INDEX jobs_status_idx ON gpualloc.jobs (status, priority DESC, submitted_at);
CREATE INDEX jobs_tenant_idx ON gpualloc.jobs (tenant);

-- Elastic real-time inference.
CREATE TABLE gpualloc.services (
	service_id	serial PRIMARY KEY,
	name		text NOT NULL UNIQUE,
	pool_id		integer NOT NULL REFERENCES gpualloc.pools,
	priority	double precision NOT NULL CHECK (priority > 0 AND priority < 'Infinity'),
	capacity_per_gpu double precision NOT NULL CHECK (capacity_per_gpu > 0 AND capacity_per_gpu < 'Infinity'),
	churn_limit	integer NOT NULL CHECK (churn_limit >= 1),
	churn_budget integer CHECK (churn_budget >= 0),
	min_gpus	integer NOT NULL DEFAULT 0 CHECK (min_gpus >= 0),
	max_gpus	integer NOT NULL CHECK (max_gpus >= 1),
	created_at	timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT services_min_le_max CHECK (min_gpus <= max_gpus)
);

-- Hourly traffic per service (requests, tokens, whatever capacity_per_gpu counts).
CREATE TABLE gpualloc.demand_history (
	service_id	integer NOT NULL REFERENCES gpualloc.services ON DELETE CASCADE,
	hour		timestamptz NOT NULL,
	traffic		double precision NOT NULL CHECK (traffic >= 0 AND traffic < 'Infinity'),
	PRIMARY KEY (service_id, hour),
	CONSTRAINT demand_hour_aligned CHECK (date_trunc('hour', hour) = hour)
);

-- Where COPY lands bulk demand before gpualloc.load_demand() checks and moves it.
CREATE TABLE gpualloc.demand_staging (
	service		text,
	hour		timestamptz,
	traffic		double precision
);

-- One row per solve.
CREATE TABLE gpualloc.plan_runs (
	plan_id		bigserial PRIMARY KEY,
	mode		text NOT NULL CHECK (mode IN ('fast', 'full')),
	trigger		text NOT NULL CHECK (trigger IN ('manual', 'worker', 'submit')),
	started_at	timestamptz NOT NULL DEFAULT clock_timestamp(),
	finished_at	timestamptz,
	plan_start	timestamptz,
	step		interval,
	horizon_steps integer,
	n_gpus		integer,
	n_jobs		integer,
	n_services	integer,
	objective	double precision,
	bound		double precision,
	gap			double precision,
	solve_ms	double precision,
	status		text NOT NULL DEFAULT 'running'
				CHECK (status IN ('running', 'succeeded', 'fallback', 'failed')),
	message		text
);
CREATE INDEX plan_runs_started_idx ON gpualloc.plan_runs (started_at DESC);

-- The plan grid in compact form: a workload on a GPU range for a step range.
CREATE TABLE gpualloc.plan_blocks (
	plan_id		bigint NOT NULL REFERENCES gpualloc.plan_runs ON DELETE CASCADE,
	pool_id		integer NOT NULL REFERENCES gpualloc.pools ON DELETE CASCADE,
	job_id		bigint,
	service_id	integer,
	gpu_first	integer NOT NULL,
	gpu_count	integer NOT NULL CHECK (gpu_count > 0),
	step_first	integer NOT NULL CHECK (step_first >= 0),
	step_count	integer NOT NULL CHECK (step_count > 0),
	CONSTRAINT plan_blocks_one_workload CHECK (num_nonnulls(job_id, service_id) = 1)
);
CREATE INDEX plan_blocks_plan_idx ON gpualloc.plan_blocks (plan_id);

-- The committed allocation other systems read: a GPU, a workload, a time range.
-- The exclusion constraint makes the database refuse a GPU booked twice.
CREATE TABLE gpualloc.allocations (
	allocation_id bigserial PRIMARY KEY,
	gpu_id		integer NOT NULL REFERENCES gpualloc.gpus ON DELETE CASCADE,
	job_id		bigint REFERENCES gpualloc.jobs ON DELETE CASCADE,
	service_id	integer REFERENCES gpualloc.services ON DELETE CASCADE,
	plan_id		bigint REFERENCES gpualloc.plan_runs ON DELETE SET NULL,
	during		tstzrange NOT NULL,
	created_at	timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT allocations_one_workload CHECK (num_nonnulls(job_id, service_id) = 1),
	CONSTRAINT allocations_not_empty CHECK (NOT isempty(during)),
	CONSTRAINT allocations_no_double_booking EXCLUDE USING gist (gpu_id WITH =, during WITH &&)
);
CREATE INDEX allocations_job_idx ON gpualloc.allocations (job_id) WHERE job_id IS NOT NULL;
CREATE INDEX allocations_service_idx ON gpualloc.allocations (service_id) WHERE service_id IS NOT NULL;

SELECT pg_catalog.pg_extension_config_dump('gpualloc.pools', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.pools_pool_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.gpus', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.gpus_gpu_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.jobs', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.jobs_job_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.services', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.services_service_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.demand_history', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.plan_runs', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.plan_runs_plan_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.plan_blocks', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.allocations', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.allocations_allocation_id_seq', '');
-- Internal helpers: identity, lookups and the checks every entry point shares.
-- They raise errors that name the field and the rule.  They are not callable
-- by PUBLIC and run inside the API functions, which pin search_path, so they
-- do not pin it again (a SET clause on every nested call costs per call).

-- The role that called the API, seen through SECURITY DEFINER (C: GetOuterUserId).
CREATE FUNCTION gpualloc.caller_role() RETURNS name
	AS 'MODULE_PATHNAME', 'gpualloc_caller_role'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpualloc._is_admin() RETURNS boolean
LANGUAGE sql STABLE
AS $$
	SELECT pg_has_role(gpualloc.caller_role(), 'gpualloc_admin', 'MEMBER')
		OR (SELECT rolsuper FROM pg_roles WHERE rolname = gpualloc.caller_role())
$$;

CREATE FUNCTION gpualloc._require_admin(action text) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	IF NOT gpualloc._is_admin() THEN
		RAISE EXCEPTION 'permission denied to %', action
			USING ERRCODE = 'insufficient_privilege',
				  HINT = 'Only members of gpualloc_admin may do this.';
	END IF;
END
$$;

-- A caller may act for a tenant when it is an admin or a member of the
-- tenant's role.
CREATE FUNCTION gpualloc._can_act_for(tenant name) RETURNS boolean
LANGUAGE sql STABLE
AS $$
	SELECT gpualloc._is_admin()
		OR EXISTS (SELECT 1 FROM pg_roles r
				   WHERE r.rolname = tenant
					 AND pg_has_role(gpualloc.caller_role(), r.oid, 'MEMBER'))
$$;

CREATE FUNCTION gpualloc._check_name(field text, value text) RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF value IS NULL OR value !~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$' THEN
		RAISE EXCEPTION '% "%" is not a valid name', field, coalesce(value, 'NULL')
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = format('A %s is 1 to 63 characters: letters, digits, "_", ".", ":" or "-", starting with a letter or digit.', field);
	END IF;
END
$$;

CREATE FUNCTION gpualloc._check_positive(field text, value double precision) RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF value IS NULL OR value = 'NaN' OR value <= 0 OR value = 'Infinity' THEN
		RAISE EXCEPTION '% must be a positive finite number, got %', field, coalesce(value::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
END
$$;

CREATE FUNCTION gpualloc._check_pow2(field text, value integer) RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF value IS NULL OR value <= 0 OR (value & (value - 1)) <> 0 THEN
		RAISE EXCEPTION '% must be a power of two (1, 2, 4, 8, ...), got %', field, coalesce(value::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
END
$$;

CREATE FUNCTION gpualloc._pool(pool text) RETURNS gpualloc.pools
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p gpualloc.pools;
BEGIN
	SELECT * INTO p FROM gpualloc.pools WHERE name = pool;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'pool "%" does not exist', coalesce(pool, 'NULL')
			USING ERRCODE = 'undefined_object',
				  HINT = 'List pools with: SELECT name FROM gpualloc.pools;';
	END IF;
	RETURN p;
END
$$;

CREATE FUNCTION gpualloc._service(service text) RETURNS gpualloc.services
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s gpualloc.services;
BEGIN
	SELECT * INTO s FROM gpualloc.services WHERE name = service;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'service "%" does not exist', coalesce(service, 'NULL')
			USING ERRCODE = 'undefined_object',
				  HINT = 'Add it with gpualloc.add_service().';
	END IF;
	RETURN s;
END
$$;

-- Lock and return a job the caller may act on.  Another tenant's job is
-- reported as missing, so its existence does not leak.
CREATE FUNCTION gpualloc._job_for_update(p_job_id bigint) RETURNS gpualloc.jobs
LANGUAGE plpgsql
AS $$
DECLARE
	j gpualloc.jobs;
BEGIN
	SELECT * INTO j FROM gpualloc.jobs WHERE job_id = p_job_id FOR UPDATE;
	IF NOT FOUND OR NOT gpualloc._can_act_for(j.tenant) THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'undefined_object';
	END IF;
	RETURN j;
END
$$;

-- GPUs of a pool in topology order with their stable index.
CREATE FUNCTION gpualloc._topology_index(p gpualloc.pools, node integer, slot integer) RETURNS integer
LANGUAGE sql IMMUTABLE
AS $$ SELECT node * p.node_size + slot $$;

CREATE FUNCTION gpualloc._gpu(pool text, p_node integer, p_slot integer) RETURNS gpualloc.gpus
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p gpualloc.pools := gpualloc._pool(pool);
	g gpualloc.gpus;
BEGIN
	SELECT * INTO g FROM gpualloc.gpus WHERE pool_id = p.pool_id AND node = p_node AND slot = p_slot;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'GPU node % slot % does not exist in pool "%"', p_node, p_slot, pool
			USING ERRCODE = 'undefined_object';
	END IF;
	RETURN g;
END
$$;
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
	PERFORM gpualloc._require_admin('add a pool');
	PERFORM gpualloc._check_name('pool name', name);
	PERFORM gpualloc._check_name('gpu_model', gpu_model);
	PERFORM gpualloc._check_positive('memory_gb', memory_gb);
	PERFORM gpualloc._check_positive('peak_tflops', peak_tflops);
	PERFORM gpualloc._check_pow2('node_size', node_size);
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
	PERFORM gpualloc._require_admin('remove a pool');
	p := gpualloc._pool(name);
	IF EXISTS (SELECT 1 FROM gpualloc.jobs j WHERE j.pool_id = p.pool_id AND j.status IN ('queued', 'running')) THEN
		RAISE EXCEPTION 'pool "%" still has queued or running jobs', name
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
	PERFORM gpualloc._require_admin('add a GPU');
	p := gpualloc._pool(pool);
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
	PERFORM gpualloc._require_admin('add a node');
	p := gpualloc._pool(pool);
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
	PERFORM gpualloc._require_admin('remove a GPU');
	g := gpualloc._gpu(pool, node, slot);
	IF EXISTS (SELECT 1 FROM gpualloc.allocations a
			   WHERE a.gpu_id = g.gpu_id AND (upper_inf(a.during) OR upper(a.during) > now())) THEN
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
	PERFORM gpualloc._require_admin('change a GPU''s state');
	g := gpualloc._gpu(pool, node, slot);
	IF state IS NULL OR state NOT IN ('up', 'drain', 'down') THEN
		RAISE EXCEPTION 'state must be one of up, drain, down; got %', coalesce(state, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	UPDATE gpualloc.gpus SET state = set_gpu_state.state, state_changed_at = now()
	WHERE gpu_id = g.gpu_id AND gpus.state IS DISTINCT FROM set_gpu_state.state;
END
$$;

-- Drain: what runs on the GPU finishes; nothing new is placed there.
CREATE FUNCTION gpualloc.drain_gpu(pool text, node integer, slot integer) RETURNS void
LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$ SELECT gpualloc.set_gpu_state(pool, node, slot, 'drain') $$;
-- Job API: submit, cancel, and the executor's start and finish reports.

-- A tenant runs at most one active job of a given name.
CREATE UNIQUE INDEX jobs_active_name_idx ON gpualloc.jobs (tenant, name)
	WHERE status IN ('queued', 'running');

CREATE FUNCTION gpualloc._pool_capacity(p_pool_id integer) RETURNS integer
LANGUAGE sql STABLE
AS $$ SELECT count(*)::integer FROM gpualloc.gpus WHERE pool_id = p_pool_id AND state <> 'down' $$;

CREATE FUNCTION gpualloc._check_kind(kind text) RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF kind IS NULL OR kind NOT IN ('training', 'batch_inference', 'quantization') THEN
		RAISE EXCEPTION 'kind must be one of training, batch_inference, quantization; got %', coalesce(kind, 'NULL')
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Real-time inference is a service: use gpualloc.add_service().';
	END IF;
END
$$;

CREATE FUNCTION gpualloc._check_job_sizes(gpus_min integer, gpus_max integer, p gpualloc.pools) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	capacity integer := gpualloc._pool_capacity(p.pool_id);
BEGIN
	PERFORM gpualloc._check_pow2('gpus_min', gpus_min);
	PERFORM gpualloc._check_pow2('gpus_max', gpus_max);
	IF gpus_min > gpus_max THEN
		RAISE EXCEPTION 'gpus_min % exceeds gpus_max %', gpus_min, gpus_max
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF gpus_min > capacity THEN
		RAISE EXCEPTION 'gpus_min % is more GPUs than pool "%" has (% usable)', gpus_min, p.name, capacity
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Add GPUs to the pool or ask for a smaller block.';
	END IF;
END
$$;

CREATE FUNCTION gpualloc._check_tenant(tenant name) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	-- the common case: a role submits for itself
	IF tenant = gpualloc.caller_role() THEN
		RETURN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = tenant) THEN
		RAISE EXCEPTION 'tenant "%" is not a role', tenant
			USING ERRCODE = 'undefined_object',
				  DETAIL = 'A tenant is a database role; its members share its jobs.';
	END IF;
	IF NOT gpualloc._can_act_for(tenant) THEN
		RAISE EXCEPTION 'permission denied to submit jobs for tenant "%"', tenant
			USING ERRCODE = 'insufficient_privilege',
				  HINT = 'Submit as a member of the tenant''s role.';
	END IF;
END
$$;

CREATE FUNCTION gpualloc._check_times(not_before timestamptz, deadline timestamptz) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	IF not_before = '-infinity' OR not_before = 'infinity' THEN
		RAISE EXCEPTION 'not_before must be a finite time'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF deadline IS NOT NULL AND deadline <= now() THEN
		RAISE EXCEPTION 'deadline % is not in the future', deadline
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF deadline IS NOT NULL AND not_before IS NOT NULL AND deadline <= not_before THEN
		RAISE EXCEPTION 'deadline % is not after not_before %', deadline, not_before
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
END
$$;

CREATE FUNCTION gpualloc.submit_job(name text, kind text, pool text,
									gpus_min integer DEFAULT NULL, gpus_max integer DEFAULT NULL,
									priority double precision DEFAULT 1,
									features jsonb DEFAULT '{}',
									tenant name DEFAULT NULL,
									not_before timestamptz DEFAULT NULL,
									deadline timestamptz DEFAULT NULL,
									work_gpu_hours double precision DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools;
	who name := coalesce(tenant, gpualloc.caller_role());
	hi integer := coalesce(gpus_max, gpus_min);
	est record;
	new_id bigint;
BEGIN
	PERFORM gpualloc._check_name('job name', name);
	PERFORM gpualloc._check_kind(kind);
	p := gpualloc._pool(pool);
	IF features IS NULL OR jsonb_typeof(features) <> 'object' THEN
		RAISE EXCEPTION 'features must be a JSON object, got %', coalesce(jsonb_typeof(features), 'NULL')
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'For example: {"params_b": 8, "tokens_m": 200}';
	END IF;
	-- no size given: the estimator suggests one from the memory the job needs
	IF gpus_min IS NULL AND gpus_max IS NULL THEN
		est := gpualloc.estimate_job(kind, features, NULL, pool);
		gpus_min := est.gpus_min;
		hi := greatest(est.gpus_used, est.gpus_min);
	END IF;
	PERFORM gpualloc._check_job_sizes(gpus_min, hi, p);
	PERFORM gpualloc._check_positive('priority', priority);
	PERFORM gpualloc._check_times(not_before, deadline);
	IF work_gpu_hours IS NOT NULL THEN
		PERFORM gpualloc._check_positive('work_gpu_hours', work_gpu_hours);
	END IF;
	PERFORM gpualloc._check_tenant(who);
	IF EXISTS (SELECT 1 FROM gpualloc.jobs j WHERE j.tenant = who AND j.name = submit_job.name
			   AND j.status IN ('queued', 'running')) THEN
		RAISE EXCEPTION 'tenant "%" already has an active job named "%"', who, name
			USING ERRCODE = 'unique_violation',
				  HINT = 'Job names are unique per tenant among queued and running jobs.';
	END IF;
	-- the work the planner books: the submitter's figure, else the estimate at gpus_max
	IF work_gpu_hours IS NULL THEN
		est := gpualloc.estimate_job(kind, features, hi, pool);
	ELSE
		SELECT hi AS gpus_used, work_gpu_hours / hi AS hours_p10, work_gpu_hours / hi AS hours_p50,
			   work_gpu_hours / hi AS hours_p90, work_gpu_hours AS work_gpu_hours,
			   'submitted'::text AS method INTO est;
	END IF;
	INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max,
							   not_before, deadline, features,
							   est_gpus, est_hours_p10, est_hours_p50, est_hours_p90,
							   est_work_gpu_hours, est_method)
	VALUES (submit_job.name, submit_job.kind, who, p.pool_id, submit_job.priority, submit_job.gpus_min, hi,
			submit_job.not_before, submit_job.deadline, submit_job.features,
			est.gpus_used, est.hours_p10, est.hours_p50, est.hours_p90, est.work_gpu_hours, est.method)
	RETURNING job_id INTO new_id;
	-- the fast path: a block free now and for the job's duration is booked at once
	PERFORM gpualloc._start_now_if_free(new_id);
	RETURN new_id;
END
$$;

-- End a job's allocations at a time: rows running past it are cut, rows that
-- would only begin after it are dropped.
CREATE FUNCTION gpualloc._release_job_allocations(p_job_id bigint, at timestamptz) RETURNS void
LANGUAGE sql
AS $$
	DELETE FROM gpualloc.allocations WHERE job_id = p_job_id AND lower(during) >= at;
	UPDATE gpualloc.allocations SET during = tstzrange(lower(during), at)
	WHERE job_id = p_job_id AND during @> at;
$$;

CREATE FUNCTION gpualloc.cancel_job(job_id bigint, reason text DEFAULT NULL) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	j gpualloc.jobs := gpualloc._job_for_update(job_id);
BEGIN
	IF j.status NOT IN ('queued', 'running') THEN
		RAISE EXCEPTION 'job % is already %', j.job_id, j.status
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'Only queued or running jobs can be cancelled.';
	END IF;
	PERFORM gpualloc._release_job_allocations(j.job_id, now());
	UPDATE gpualloc.jobs
	SET status = 'cancelled', finished_at = CASE WHEN j.status = 'running' THEN now() END,
		status_message = reason
	WHERE jobs.job_id = j.job_id;
END
$$;

-- The block a job holds in the committed allocation, if it forms one.
CREATE FUNCTION gpualloc._allocated_block(p_job_id bigint, OUT first integer, OUT size integer)
LANGUAGE sql STABLE
AS $$
	SELECT min(g.node * p.node_size + g.slot), count(DISTINCT g.gpu_id)::integer
	FROM gpualloc.allocations a
	JOIN gpualloc.gpus g USING (gpu_id)
	JOIN gpualloc.pools p USING (pool_id)
	WHERE a.job_id = p_job_id AND (upper_inf(a.during) OR upper(a.during) > now())
$$;

CREATE FUNCTION gpualloc._check_block(j gpualloc.jobs, first integer, size integer) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p gpualloc.pools;
	present integer;
	clash bigint;
BEGIN
	SELECT * INTO p FROM gpualloc.pools WHERE pool_id = j.pool_id;
	PERFORM gpualloc._check_pow2('block_size', size);
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
	SELECT o.job_id INTO clash FROM gpualloc.jobs o
	WHERE o.pool_id = j.pool_id AND o.status = 'running' AND o.job_id <> j.job_id
	  AND o.block_first < first + size AND first < o.block_first + o.block_size
	LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'block [%, %) of pool "%" overlaps running job %', first, first + size, p.name, clash
			USING ERRCODE = 'exclusion_violation';
	END IF;
END
$$;

-- Book the job's block from its start until it finishes; other workloads'
-- bookings in the way are reported by name rather than by constraint.
CREATE FUNCTION gpualloc._book_running_job(j gpualloc.jobs, at timestamptz) RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	clash record;
BEGIN
	SELECT g.node, g.slot, coalesce('job ' || a.job_id, 'service ' || s.name) AS holder INTO clash
	FROM gpualloc.allocations a
	JOIN gpualloc.gpus g USING (gpu_id)
	JOIN gpualloc.pools p USING (pool_id)
	LEFT JOIN gpualloc.services s ON s.service_id = a.service_id
	WHERE g.pool_id = j.pool_id
	  AND g.node * p.node_size + g.slot >= j.block_first
	  AND g.node * p.node_size + g.slot < j.block_first + j.block_size
	  AND a.job_id IS DISTINCT FROM j.job_id
	  AND a.during && tstzrange(at, NULL)
	LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'GPU node % slot % is allocated to % at or after %', clash.node, clash.slot, clash.holder, at
			USING ERRCODE = 'exclusion_violation',
				  HINT = 'Start the job on the block gpualloc.allocations gives it.';
	END IF;
	DELETE FROM gpualloc.allocations WHERE job_id = j.job_id;
	INSERT INTO gpualloc.allocations (gpu_id, job_id, during)
	SELECT g.gpu_id, j.job_id, tstzrange(at, NULL)
	FROM gpualloc.gpus g JOIN gpualloc.pools p USING (pool_id)
	WHERE g.pool_id = j.pool_id
	  AND g.node * p.node_size + g.slot >= j.block_first
	  AND g.node * p.node_size + g.slot < j.block_first + j.block_size;
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
	PERFORM gpualloc._require_admin('report a job start');
	j := gpualloc._job_for_update(job_id);
	IF j.status <> 'queued' THEN
		RAISE EXCEPTION 'job % is %, so it cannot start', j.job_id, j.status
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'Only a queued job can start.';
	END IF;
	IF started_at IS NULL OR started_at > now() THEN
		RAISE EXCEPTION 'started_at % is in the future', coalesce(started_at::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF started_at < j.submitted_at THEN
		RAISE EXCEPTION 'started_at % is before job % was submitted', started_at, j.job_id
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF block_first IS NULL AND block_size IS NULL THEN
		b := gpualloc._allocated_block(j.job_id);
		IF b.size IS NULL OR b.size = 0 THEN
			RAISE EXCEPTION 'job % has no allocated block', j.job_id
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Give block_first and block_size, or wait for the planner to allocate one.';
		END IF;
		block_first := b.first;
		block_size := b.size;
	END IF;
	PERFORM gpualloc._check_block(j, block_first, block_size);
	UPDATE gpualloc.jobs
	SET status = 'running', started_at = job_started.started_at,
		block_first = job_started.block_first, block_size = job_started.block_size
	WHERE jobs.job_id = j.job_id
	RETURNING * INTO j;
	PERFORM gpualloc._book_running_job(j, started_at);
END
$$;

CREATE FUNCTION gpualloc.job_finished(job_id bigint, succeeded boolean DEFAULT true,
									  finished_at timestamptz DEFAULT now(),
									  message text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	j gpualloc.jobs;
BEGIN
	PERFORM gpualloc._require_admin('report a job finish');
	j := gpualloc._job_for_update(job_id);
	IF j.status <> 'running' THEN
		RAISE EXCEPTION 'job % is %, so it cannot finish', j.job_id, j.status
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'Only a running job can finish; a queued job is cancelled instead.';
	END IF;
	IF succeeded IS NULL THEN
		RAISE EXCEPTION 'succeeded must be true or false'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF finished_at IS NULL OR finished_at > now() THEN
		RAISE EXCEPTION 'finished_at % is in the future', coalesce(finished_at::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF finished_at < j.started_at THEN
		RAISE EXCEPTION 'finished_at % is before job % started', finished_at, j.job_id
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'A job cannot finish before it starts.';
	END IF;
	PERFORM gpualloc._release_job_allocations(j.job_id, finished_at);
	UPDATE gpualloc.jobs
	SET status = CASE WHEN succeeded THEN 'succeeded' ELSE 'failed' END,
		finished_at = job_finished.finished_at, status_message = message
	WHERE jobs.job_id = j.job_id;
END
$$;
-- Real-time services and their hourly demand.

CREATE FUNCTION gpualloc.add_service(name text, pool text, capacity_per_gpu double precision,
									 max_gpus integer, priority double precision DEFAULT 1,
									 churn_limit integer DEFAULT 2, min_gpus integer DEFAULT 0,
									 churn_budget integer DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools;
	capacity integer;
	new_id integer;
BEGIN
	PERFORM gpualloc._require_admin('add a service');
	PERFORM gpualloc._check_name('service name', name);
	p := gpualloc._pool(pool);
	capacity := gpualloc._pool_capacity(p.pool_id);
	PERFORM gpualloc._check_positive('capacity_per_gpu', capacity_per_gpu);
	PERFORM gpualloc._check_positive('priority', priority);
	IF max_gpus IS NULL OR max_gpus < 1 OR max_gpus > capacity THEN
		RAISE EXCEPTION 'max_gpus must be between 1 and the % usable GPUs of pool "%", got %',
			capacity, pool, coalesce(max_gpus::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF min_gpus IS NULL OR min_gpus < 0 OR min_gpus > max_gpus THEN
		RAISE EXCEPTION 'min_gpus must be between 0 and max_gpus %, got %', max_gpus, coalesce(min_gpus::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF churn_limit IS NULL OR churn_limit < 1 THEN
		RAISE EXCEPTION 'churn_limit must be at least 1 GPU per step, got %', coalesce(churn_limit::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF churn_budget < 0 THEN
		RAISE EXCEPTION 'churn_budget must not be negative, got %', churn_budget
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF EXISTS (SELECT 1 FROM gpualloc.services s WHERE s.name = add_service.name) THEN
		RAISE EXCEPTION 'service "%" already exists', name
			USING ERRCODE = 'unique_violation';
	END IF;
	INSERT INTO gpualloc.services (name, pool_id, priority, capacity_per_gpu, churn_limit,
								   churn_budget, min_gpus, max_gpus)
	VALUES (add_service.name, p.pool_id, add_service.priority, add_service.capacity_per_gpu,
			add_service.churn_limit, add_service.churn_budget, add_service.min_gpus, add_service.max_gpus)
	RETURNING service_id INTO new_id;
	RETURN new_id;
END
$$;

CREATE FUNCTION gpualloc.remove_service(name text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	s gpualloc.services;
BEGIN
	PERFORM gpualloc._require_admin('remove a service');
	s := gpualloc._service(name);
	-- its allocations and demand history go with it (foreign keys cascade)
	DELETE FROM gpualloc.services WHERE service_id = s.service_id;
END
$$;

CREATE FUNCTION gpualloc._check_demand_row(service text, hour timestamptz, traffic double precision,
										   what text DEFAULT '') RETURNS integer
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s gpualloc.services := gpualloc._service(service);
BEGIN
	IF hour IS NULL OR hour = 'infinity' OR hour = '-infinity' OR date_trunc('hour', hour) <> hour THEN
		RAISE EXCEPTION '%hour % is not the start of an hour', what, coalesce(hour::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use date_trunc(''hour'', ts).';
	END IF;
	IF traffic IS NULL OR traffic = 'NaN' OR traffic < 0 OR traffic = 'Infinity' THEN
		RAISE EXCEPTION '%traffic must be a finite number >= 0, got %', what, coalesce(traffic::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	RETURN s.service_id;
END
$$;

CREATE FUNCTION gpualloc.record_demand(service text, hour timestamptz, traffic double precision)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	sid integer;
BEGIN
	PERFORM gpualloc._require_admin('record demand');
	sid := gpualloc._check_demand_row(service, hour, traffic);
	INSERT INTO gpualloc.demand_history AS d (service_id, hour, traffic)
	VALUES (sid, record_demand.hour, record_demand.traffic)
	ON CONFLICT ON CONSTRAINT demand_history_pkey DO UPDATE SET traffic = EXCLUDED.traffic;
END
$$;

-- Bulk load from a table with columns (service text, hour timestamptz,
-- traffic double precision), by default gpualloc.demand_staging, which COPY
-- can fill.  Every row is checked before any is written; the staging table is
-- emptied once its rows are in.
CREATE FUNCTION gpualloc.load_demand(source regclass DEFAULT 'gpualloc.demand_staging')
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	r record;
	n bigint := 0;
	dup record;
BEGIN
	PERFORM gpualloc._require_admin('load demand');
	IF source IS NULL OR NOT has_table_privilege(gpualloc.caller_role(), source, 'SELECT') THEN
		RAISE EXCEPTION 'permission denied to read %', coalesce(source::text, 'NULL')
			USING ERRCODE = 'insufficient_privilege';
	END IF;
	CREATE TEMP TABLE gpualloc_demand_load (service_id integer, hour timestamptz, traffic double precision)
		ON COMMIT DROP;
	FOR r IN EXECUTE format('SELECT service::text AS service, hour::timestamptz AS hour, traffic::double precision AS traffic FROM %s', source)
	LOOP
		n := n + 1;
		INSERT INTO gpualloc_demand_load
		VALUES (gpualloc._check_demand_row(r.service, r.hour, r.traffic, format('row %s: ', n)), r.hour, r.traffic);
	END LOOP;
	SELECT s.name, l.hour INTO dup FROM gpualloc_demand_load l JOIN gpualloc.services s USING (service_id)
	GROUP BY s.name, l.hour HAVING count(*) > 1 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'service "%" has more than one row for hour %', dup.name, dup.hour
			USING ERRCODE = 'unique_violation';
	END IF;
	INSERT INTO gpualloc.demand_history (service_id, hour, traffic)
	SELECT service_id, hour, traffic FROM gpualloc_demand_load
	ON CONFLICT (service_id, hour) DO UPDATE SET traffic = EXCLUDED.traffic;
	DROP TABLE gpualloc_demand_load;
	IF source = 'gpualloc.demand_staging'::regclass THEN
		DELETE FROM gpualloc.demand_staging;
	END IF;
	RETURN n;
END
$$;
-- Read views: what other systems and people look at.

-- Every GPU with what it runs now (NULL workload: idle).
CREATE VIEW gpualloc.current_allocation AS
SELECT p.name AS pool, g.node, g.slot, g.node * p.node_size + g.slot AS gpu_index,
	   g.gpu_id, g.state,
	   CASE WHEN a.job_id IS NOT NULL THEN 'job' WHEN a.service_id IS NOT NULL THEN 'service' END AS workload_kind,
	   a.job_id, j.name AS job_name, j.tenant, s.name AS service,
	   lower(a.during) AS since, upper(a.during) AS until, a.plan_id
FROM gpualloc.gpus g
JOIN gpualloc.pools p USING (pool_id)
LEFT JOIN gpualloc.allocations a ON a.gpu_id = g.gpu_id AND a.during @> now()
LEFT JOIN gpualloc.jobs j ON j.job_id = a.job_id
LEFT JOIN gpualloc.services s ON s.service_id = a.service_id;

-- Queued and running jobs, most valuable first.
CREATE VIEW gpualloc.queue AS
SELECT j.job_id, j.name, j.kind, j.tenant, p.name AS pool, j.priority, j.gpus_min, j.gpus_max,
	   j.status, j.submitted_at, j.not_before, j.deadline,
	   j.est_gpus, j.est_hours_p50, j.est_hours_p90, j.est_work_gpu_hours,
	   j.started_at, j.block_first, j.block_size,
	   CASE WHEN j.status = 'running' AND j.est_work_gpu_hours IS NOT NULL
			THEN j.started_at + make_interval(secs => 3600 * j.est_work_gpu_hours / j.block_size)
	   END AS est_finish
FROM gpualloc.jobs j
JOIN gpualloc.pools p USING (pool_id)
WHERE j.status IN ('queued', 'running')
ORDER BY j.status DESC, j.priority DESC, j.submitted_at, j.job_id;
-- Planning: solve the horizon, commit its first step, look at any plan.

-- Plan now.  mode 'fast' is the heuristic; 'full' the MILP warm-started with
-- it, which also reports the LP bound and the gap.  time_limit defaults to
-- 1 ms (fast) or gpualloc.solver_time_limit (full).
CREATE FUNCTION gpualloc.replan(mode text DEFAULT 'fast', time_limit interval DEFAULT NULL,
								OUT plan_id bigint, OUT status text, OUT solved_by text,
								OUT objective double precision, OUT bound double precision,
								OUT gap double precision, OUT solve_ms double precision,
								OUT gpus_changed integer, OUT message text)
RETURNS record
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
-- Forecasters from SQL: job estimates and real-time demand.

-- A batch job's duration at `gpus` GPUs (a suggestion when NULL) with its
-- p10-p90 interval, from the analytic prior corrected by the finished jobs of
-- the same kind.  pool, when given, supplies the GPU model.
CREATE FUNCTION gpualloc.estimate_job(kind text, features jsonb, gpus integer DEFAULT NULL,
									  pool text DEFAULT NULL,
									  OUT gpus_used integer, OUT gpus_min integer, OUT gpus_suggested boolean,
									  OUT hours_p10 double precision, OUT hours_p50 double precision,
									  OUT hours_p90 double precision, OUT work_gpu_hours double precision,
									  OUT memory_gb double precision, OUT method text)
RETURNS record
AS 'MODULE_PATHNAME', 'gpualloc_estimate_job'
LANGUAGE C STABLE CALLED ON NULL INPUT;

-- Per step from `from` (floored to a step) over `horizon`: the p50 and upper
-- quantile of traffic, the upper quantile in GPUs, and the churn-shaped GPU
-- curve the planner uses, learned only from history before `from`.
CREATE FUNCTION gpualloc.forecast_demand(service text, "from" timestamptz, horizon interval DEFAULT '24 hours')
RETURNS TABLE (step_start timestamptz, traffic_p50 double precision, traffic_upper double precision,
			   gpus_upper integer, gpus_planned integer)
AS 'MODULE_PATHNAME', 'gpualloc_forecast_demand'
LANGUAGE C STABLE CALLED ON NULL INPUT;
-- The background planner's hooks: wake-up requests, estimate refresh, and the
-- fast path that starts a job within its submit_job call.

-- Ask the background planner for a run soon (debounced by
-- gpualloc.replan_debounce).  Returns whether a planner is there to hear it.
CREATE FUNCTION gpualloc.request_replan() RETURNS boolean
	AS 'MODULE_PATHNAME', 'gpualloc_request_replan'
	LANGUAGE C VOLATILE;

-- Freed GPUs should not idle until the next interval: a GPU going down or
-- draining, or a job ending before its estimate, asks for a run.
CREATE FUNCTION gpualloc._wake_on_gpu_state() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF NEW.state IS DISTINCT FROM OLD.state THEN
		PERFORM gpualloc.request_replan();
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER gpus_wake_planner AFTER UPDATE OF state ON gpualloc.gpus
	FOR EACH ROW EXECUTE FUNCTION gpualloc._wake_on_gpu_state();

CREATE FUNCTION gpualloc._wake_on_job_end() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF OLD.status = 'running' AND NEW.status IN ('succeeded', 'failed', 'cancelled')
	   AND (NEW.est_work_gpu_hours IS NULL
			OR NEW.finished_at < NEW.started_at
			   + make_interval(secs => 3600 * NEW.est_work_gpu_hours / NEW.block_size)) THEN
		PERFORM gpualloc.request_replan();
	END IF;
	RETURN NULL;
END
$$;

CREATE TRIGGER jobs_wake_planner AFTER UPDATE OF status ON gpualloc.jobs
	FOR EACH ROW EXECUTE FUNCTION gpualloc._wake_on_job_end();

-- Queued jobs' estimates follow what finished jobs taught the estimators;
-- figures the submitter gave are kept.
CREATE FUNCTION gpualloc._refresh_estimates() RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
	n integer;
BEGIN
	UPDATE gpualloc.jobs j
	SET (est_gpus, est_hours_p10, est_hours_p50, est_hours_p90, est_work_gpu_hours, est_method) =
		(SELECT e.gpus_used, e.hours_p10, e.hours_p50, e.hours_p90, e.work_gpu_hours, e.method
		 FROM gpualloc.estimate_job(j.kind, j.features, j.gpus_max,
									(SELECT p.name FROM gpualloc.pools p WHERE p.pool_id = j.pool_id)) e)
	WHERE j.status = 'queued' AND j.est_method IS DISTINCT FROM 'submitted';
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;

-- Aligned blocks of a job's sizes in its pool that are free now and, in the
-- latest plan, for the job's estimated duration: GPUs up, no allocation in
-- force, no planned workload (batch or service) over those steps.  Largest
-- block first, then lowest index.  None while there is no current plan.
CREATE FUNCTION gpualloc._free_block_now(j gpualloc.jobs, OUT first integer, OUT size integer)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p gpualloc.pools;
	span integer;
	busy integer[];
	l gpualloc.plan_runs;
	from_step integer;
	to_step integer;
BEGIN
	SELECT * INTO p FROM gpualloc.pools WHERE pool_id = j.pool_id;
	SELECT (max(node) + 1) * p.node_size INTO span FROM gpualloc.gpus WHERE pool_id = j.pool_id;
	-- without a current plan nobody knows what the services will need: wait
	SELECT * INTO l FROM gpualloc.plan_runs
	WHERE status IN ('succeeded', 'fallback') ORDER BY plan_id DESC LIMIT 1;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	from_step := floor(extract(epoch FROM now() - l.plan_start) / extract(epoch FROM l.step));
	IF from_step >= l.horizon_steps THEN
		RETURN;
	END IF;
	to_step := from_step + ceil(3600 * j.est_work_gpu_hours / j.gpus_min / extract(epoch FROM l.step));
	-- every topology index that cannot be used: absent, not up, allocated, or planned
	SELECT array_agg(i) INTO busy FROM (
		SELECT i FROM generate_series(0, coalesce(span, 0) - 1) i
		EXCEPT
		SELECT g.node * p.node_size + g.slot FROM gpualloc.gpus g
		WHERE g.pool_id = j.pool_id AND g.state = 'up'
		UNION
		SELECT g.node * p.node_size + g.slot FROM gpualloc.allocations a JOIN gpualloc.gpus g USING (gpu_id)
		WHERE g.pool_id = j.pool_id AND a.during && tstzrange(now(), NULL)
		UNION
		SELECT generate_series(b.gpu_first, b.gpu_first + b.gpu_count - 1) FROM gpualloc.plan_blocks b
		WHERE b.plan_id = l.plan_id AND b.pool_id = j.pool_id
		  AND b.step_first < to_step AND from_step < b.step_first + b.step_count) u;
	SELECT c.f, c.s INTO first, size
	FROM (SELECT s, f FROM generate_series(0, 16) k, LATERAL (SELECT (1 << k) AS s) sz,
			   LATERAL generate_series(0, coalesce(span, 0) - s, s) f
		  WHERE s BETWEEN j.gpus_min AND j.gpus_max) c
	WHERE NOT EXISTS (SELECT 1 FROM unnest(busy) b WHERE b >= c.f AND b < c.f + c.s)
	ORDER BY c.s DESC, c.f
	LIMIT 1;
END
$$;

-- Book a just-submitted job on a block free now, when there is one: the
-- executor sees it in allocations (and by NOTIFY) and starts it at once.
CREATE FUNCTION gpualloc._start_now_if_free(p_job_id bigint) RETURNS integer
LANGUAGE plpgsql
AS $$
DECLARE
	j gpualloc.jobs;
	b record;
	p gpualloc.pools;
BEGIN
	SELECT * INTO j FROM gpualloc.jobs WHERE job_id = p_job_id;
	IF j.est_work_gpu_hours IS NULL OR (j.not_before IS NOT NULL AND j.not_before > now()) THEN
		RETURN NULL;
	END IF;
	-- Nothing free even before others' uncommitted bookings: no need to queue
	-- behind them.  Otherwise book as the only booker (submits and the
	-- planner's commit of step 0) and look again with what they committed.
	b := gpualloc._free_block_now(j);
	IF b.size IS NULL THEN
		RETURN NULL;
	END IF;
	PERFORM pg_advisory_xact_lock(1735423330);	-- GPUALLOC_COMMIT_LOCK_KEY
	b := gpualloc._free_block_now(j);
	IF b.size IS NULL THEN
		RETURN NULL;
	END IF;
	IF j.deadline IS NOT NULL AND now() + make_interval(secs => 3600 * j.est_work_gpu_hours / b.size) > j.deadline THEN
		RETURN NULL;
	END IF;
	SELECT * INTO p FROM gpualloc.pools WHERE pool_id = j.pool_id;
	INSERT INTO gpualloc.allocations (gpu_id, job_id, during)
	SELECT g.gpu_id, j.job_id, tstzrange(now(), NULL)
	FROM gpualloc.gpus g
	WHERE g.pool_id = j.pool_id
	  AND g.node * p.node_size + g.slot >= b.first AND g.node * p.node_size + g.slot < b.first + b.size;
	PERFORM pg_notify('gpualloc', json_build_object('job_id', j.job_id, 'step_start', now(),
													'gpus_changed', b.size, 'fast_path', true)::text);
	RETURN b.first;
END
$$;
-- Dashboard reads: utilisation, value, real-time coverage, the planned queue,
-- plan runs, and the plan as an SVG picture.
--
-- History comes from gpualloc.allocations (each row's `during`), jobs,
-- services and demand_history.  An open-ended allocation row counts up to
-- now: the future is the plan's business, not history's.  Every hour is
-- [hour, hour + 1 h) clipped to the window asked for and to now, so the
-- current hour counts what has happened so far.
--
-- The functions take a time range and read only the rows of that range
-- through the indexes below; the *_hourly views are the same functions over
-- all history, for ad-hoc queries (a WHERE on their hour column filters after
-- the whole history is computed).

-- Months of history: allocations by time, demand by hour.
CREATE INDEX allocations_during_idx ON gpualloc.allocations USING gist (during);
CREATE INDEX allocations_lower_idx ON gpualloc.allocations (lower(during));
CREATE INDEX demand_history_hour_idx ON gpualloc.demand_history (hour);
CREATE INDEX plan_blocks_job_idx ON gpualloc.plan_blocks (job_id) WHERE job_id IS NOT NULL;

-- The window [lo, hi) a dashboard function reads: an infinite `from` starts at
-- the first allocation, `to` stops at now.
CREATE FUNCTION gpualloc._dashboard_window(from_ts timestamptz, to_ts timestamptz,
										   OUT lo timestamptz, OUT hi timestamptz)
LANGUAGE sql STABLE
AS $$
	SELECT CASE WHEN isfinite(from_ts) THEN from_ts
				ELSE (SELECT min(lower(a.during)) FROM gpualloc.allocations a) END,
		   greatest(least(to_ts, now()),
					CASE WHEN isfinite(from_ts) THEN from_ts
						 ELSE (SELECT min(lower(a.during)) FROM gpualloc.allocations a) END)
$$;

-- Every allocation row cut into its pieces per hour inside [lo, hi).
CREATE FUNCTION gpualloc._allocation_hours(lo timestamptz, hi timestamptz)
RETURNS TABLE (gpu_id integer, job_id bigint, service_id integer, hour timestamptz,
			   part tstzrange, gpu_hours double precision)
LANGUAGE sql STABLE
AS $$
	SELECT a.gpu_id, a.job_id, a.service_id, h.h,
		   a.during * tstzrange(h.h, h.h + interval '1 hour') * tstzrange(lo, hi),
		   extract(epoch FROM least(upper(a.during), h.h + interval '1 hour', hi)
								- greatest(lower(a.during), h.h, lo))::double precision / 3600
	FROM gpualloc.allocations a
	CROSS JOIN LATERAL generate_series(date_trunc('hour', greatest(lower(a.during), lo)),
									   least(upper(a.during), hi), interval '1 hour') AS h(h)
	WHERE a.during && tstzrange(lo, hi)
	  AND h.h < least(upper(a.during), hi)
$$;

-- Per service and hour inside [lo, hi): GPU-hours held, GPU-hours served (at
-- each instant the GPUs held up to the hour's actual demand; all of them
-- when the hour has no demand record), and the demand in GPUs.
CREATE FUNCTION gpualloc._service_hours(lo timestamptz, hi timestamptz)
RETURNS TABLE (service_id integer, hour timestamptz, held_gpu_hours double precision,
			   served_gpu_hours double precision, demand_gpus integer)
LANGUAGE sql STABLE
AS $$
	WITH pieces AS (
		SELECT p.service_id, p.hour, p.part
		FROM gpualloc._allocation_hours(lo, hi) p
		WHERE p.service_id IS NOT NULL
	), points AS (
		SELECT service_id, hour, lower(part) AS t, 1 AS d FROM pieces
		UNION ALL
		SELECT service_id, hour, upper(part), -1 FROM pieces
	), levels AS (
		SELECT service_id, hour, t,
			   sum(sum(d)) OVER w AS gpus,
			   lead(t) OVER w AS t_next
		FROM points
		GROUP BY service_id, hour, t
		WINDOW w AS (PARTITION BY service_id, hour ORDER BY t)
	), demand AS (
		SELECT dh.service_id, dh.hour, ceil(dh.traffic / s.capacity_per_gpu) AS gpus
		FROM gpualloc.demand_history dh
		JOIN gpualloc.services s ON s.service_id = dh.service_id
		WHERE dh.hour >= date_trunc('hour', lo) AND dh.hour < hi
	)
	SELECT l.service_id, l.hour,
		   sum(l.gpus * extract(epoch FROM l.t_next - l.t) / 3600)::double precision,
		   sum(least(l.gpus, coalesce(d.gpus, l.gpus)) * extract(epoch FROM l.t_next - l.t) / 3600)::double precision,
		   min(d.gpus)::integer
	FROM levels l
	LEFT JOIN demand d ON d.service_id = l.service_id AND d.hour = l.hour
	WHERE l.t_next IS NOT NULL
	GROUP BY l.service_id, l.hour
$$;

-- Utilisation per pool and hour.  A GPU is busy when it runs a batch job, or
-- serves a real-time service up to that service's actual demand in the hour;
-- GPUs a service holds above its demand are idle.  Available GPUs are those
-- not 'down' now (gpualloc.gpus keeps only the current state).
CREATE FUNCTION gpualloc.utilization(from_ts timestamptz, to_ts timestamptz)
RETURNS TABLE (pool text, hour timestamptz, gpus_available integer,
			   available_gpu_hours double precision, batch_gpu_hours double precision,
			   realtime_gpu_hours double precision, realtime_held_gpu_hours double precision,
			   busy_gpu_hours double precision, idle_gpu_hours double precision,
			   utilization double precision)
LANGUAGE sql STABLE STRICT SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	WITH w AS (
		SELECT * FROM gpualloc._dashboard_window(from_ts, to_ts)
	), hours AS (
		SELECT h AS hour,
			   extract(epoch FROM least(h + interval '1 hour', w.hi) - greatest(h, w.lo))::double precision / 3600 AS len
		FROM w, generate_series(date_trunc('hour', w.lo), w.hi, interval '1 hour') AS h
		WHERE h < w.hi
	), pools AS (
		SELECT p.pool_id, p.name, count(*) FILTER (WHERE g.state <> 'down')::integer AS up
		FROM gpualloc.pools p JOIN gpualloc.gpus g USING (pool_id)
		GROUP BY p.pool_id
	), batch AS (
		SELECT g.pool_id, ah.hour, sum(ah.gpu_hours) AS gpu_hours
		FROM w, gpualloc._allocation_hours(w.lo, w.hi) ah
		JOIN gpualloc.gpus g ON g.gpu_id = ah.gpu_id
		WHERE ah.job_id IS NOT NULL
		GROUP BY g.pool_id, ah.hour
	), realtime AS (
		SELECT s.pool_id, sh.hour, sum(sh.served_gpu_hours) AS served, sum(sh.held_gpu_hours) AS held
		FROM w, gpualloc._service_hours(w.lo, w.hi) sh
		JOIN gpualloc.services s ON s.service_id = sh.service_id
		GROUP BY s.pool_id, sh.hour
	)
	SELECT p.name, h.hour, p.up,
		   p.up * h.len,
		   coalesce(b.gpu_hours, 0),
		   coalesce(r.served, 0),
		   coalesce(r.held, 0),
		   coalesce(b.gpu_hours, 0) + coalesce(r.served, 0),
		   greatest(0, p.up * h.len - coalesce(b.gpu_hours, 0) - coalesce(r.served, 0)),
		   (coalesce(b.gpu_hours, 0) + coalesce(r.served, 0)) / nullif(p.up * h.len, 0)
	FROM pools p
	CROSS JOIN hours h
	LEFT JOIN batch b ON b.pool_id = p.pool_id AND b.hour = h.hour
	LEFT JOIN realtime r ON r.pool_id = p.pool_id AND r.hour = h.hour
	ORDER BY h.hour, p.name
$$;

-- Priority-weighted value per hour and tenant: the sum over the tenant's jobs
-- of priority x GPU-hours run in the hour.
CREATE FUNCTION gpualloc.tenant_value(from_ts timestamptz, to_ts timestamptz)
RETURNS TABLE (hour timestamptz, tenant name, jobs integer, job_gpu_hours double precision,
			   value double precision)
LANGUAGE sql STABLE STRICT SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	SELECT ah.hour, j.tenant, count(DISTINCT j.job_id)::integer, sum(ah.gpu_hours),
		   sum(j.priority * ah.gpu_hours)
	FROM gpualloc._dashboard_window(from_ts, to_ts) w,
		 gpualloc._allocation_hours(w.lo, w.hi) ah
	JOIN gpualloc.jobs j ON j.job_id = ah.job_id
	GROUP BY ah.hour, j.tenant
	ORDER BY ah.hour, j.tenant
$$;

-- Real-time coverage per service and hour of recorded demand: GPU-hours
-- demanded (the hour's demand in GPUs over the part of the hour inside the
-- window), held, served (held up to demand), unmet, and served / demanded.
CREATE FUNCTION gpualloc.service_coverage(from_ts timestamptz, to_ts timestamptz)
RETURNS TABLE (service text, pool text, hour timestamptz, traffic double precision,
			   demand_gpus integer, demanded_gpu_hours double precision,
			   held_gpu_hours double precision, served_gpu_hours double precision,
			   unmet_gpu_hours double precision, coverage double precision)
LANGUAGE sql STABLE STRICT SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	WITH w AS (
		SELECT lo, hi FROM gpualloc._dashboard_window(from_ts, to_ts)
	), w2 AS (
		-- an infinite start with no allocation at all still covers the demand
		SELECT coalesce(w.lo, (SELECT min(dh.hour) FROM gpualloc.demand_history dh)) AS lo, w.hi
		FROM w
	), demand AS (
		SELECT dh.service_id, dh.hour, dh.traffic, s.name, s.pool_id,
			   ceil(dh.traffic / s.capacity_per_gpu)::integer AS gpus,
			   extract(epoch FROM least(dh.hour + interval '1 hour', w2.hi)
								   - greatest(dh.hour, w2.lo))::double precision / 3600 AS len
		FROM w2
		JOIN gpualloc.demand_history dh
		  ON dh.hour >= date_trunc('hour', w2.lo) AND dh.hour < w2.hi
		JOIN gpualloc.services s ON s.service_id = dh.service_id
	), served AS (
		SELECT sh.* FROM w2, gpualloc._service_hours(w2.lo, w2.hi) sh
	), rows AS (
		SELECT d.name, p.name AS pool, d.hour, d.traffic, d.gpus, d.gpus * d.len AS demanded,
			   coalesce(sv.held_gpu_hours, 0) AS held, coalesce(sv.served_gpu_hours, 0) AS served
		FROM demand d
		JOIN gpualloc.pools p ON p.pool_id = d.pool_id
		LEFT JOIN served sv ON sv.service_id = d.service_id AND sv.hour = d.hour
		WHERE d.len > 0
	)
	SELECT name, pool, hour, traffic, gpus, demanded, held, served,
		   greatest(0, demanded - served),
		   CASE WHEN demanded > 0 THEN served / demanded ELSE 1 END
	FROM rows
	ORDER BY hour, name
$$;

CREATE VIEW gpualloc.utilization_hourly AS
SELECT * FROM gpualloc.utilization('-infinity', 'infinity');

CREATE VIEW gpualloc.tenant_value_hourly AS
SELECT * FROM gpualloc.tenant_value('-infinity', 'infinity');

CREATE VIEW gpualloc.service_coverage_hourly AS
SELECT * FROM gpualloc.service_coverage('-infinity', 'infinity');

-- Queued and running jobs with their start and estimated finish: a running
-- job's real start, a queued job's start in the latest successful plan (NULL
-- when that plan did not place it), and its finish at the planned size.
CREATE VIEW gpualloc.queue_plan AS
WITH latest AS (
	SELECT r.plan_id, r.plan_start, r.step
	FROM gpualloc.plan_runs r
	WHERE r.status IN ('succeeded', 'fallback')
	ORDER BY r.plan_id DESC
	LIMIT 1
), planned AS (
	SELECT b.job_id, l.plan_id,
		   l.plan_start + min(b.step_first) * l.step AS planned_start,
		   min(b.gpu_first) AS block_first,
		   (max(b.gpu_first + b.gpu_count) - min(b.gpu_first))::integer AS gpus
	FROM latest l
	JOIN gpualloc.plan_blocks b ON b.plan_id = l.plan_id AND b.job_id IS NOT NULL
	GROUP BY b.job_id, l.plan_id, l.plan_start, l.step
)
SELECT q.job_id, q.name, q.kind, q.tenant, q.pool, q.priority, q.status, q.submitted_at,
	   q.not_before, q.deadline, q.est_work_gpu_hours,
	   CASE WHEN q.status = 'running' THEN q.block_size ELSE p.gpus END AS gpus,
	   CASE WHEN q.status = 'running' THEN q.block_first ELSE p.block_first END AS block_first,
	   CASE WHEN q.status = 'running' THEN q.started_at ELSE p.planned_start END AS planned_start,
	   CASE WHEN q.status = 'running' THEN q.est_finish
			WHEN p.planned_start IS NOT NULL AND q.est_work_gpu_hours IS NOT NULL
			THEN p.planned_start + make_interval(secs => 3600 * q.est_work_gpu_hours / p.gpus)
	   END AS est_finish,
	   CASE WHEN q.status = 'queued' THEN now() - q.submitted_at END AS waiting,
	   q.deadline IS NOT NULL AND p.planned_start IS NOT NULL AND q.est_work_gpu_hours IS NOT NULL
		   AND p.planned_start + make_interval(secs => 3600 * q.est_work_gpu_hours / p.gpus) > q.deadline
		   AS misses_deadline,
	   p.plan_id
FROM gpualloc.queue q
LEFT JOIN planned p ON p.job_id = q.job_id
ORDER BY q.status DESC, coalesce(CASE WHEN q.status = 'running' THEN q.started_at ELSE p.planned_start END,
								 'infinity'), q.priority DESC, q.job_id;

-- Plan runs: how long they took, how far from optimal, what they placed.
CREATE VIEW gpualloc.plan_history AS
SELECT r.plan_id, r.mode, r.trigger, r.status, r.started_at, r.finished_at,
	   extract(epoch FROM r.finished_at - r.started_at)::double precision * 1000 AS wall_ms,
	   r.solve_ms, r.objective, r.bound, r.gap, r.plan_start, r.horizon_steps,
	   r.n_gpus, r.n_jobs, r.n_services,
	   (SELECT count(DISTINCT b.job_id)::integer FROM gpualloc.plan_blocks b
		WHERE b.plan_id = r.plan_id AND b.job_id IS NOT NULL) AS planned_jobs,
	   r.message
FROM gpualloc.plan_runs r;

-- The plan as an SVG Gantt chart (plan_svg.c).
CREATE FUNCTION gpualloc.plan_svg(plan_id bigint) RETURNS text
AS 'MODULE_PATHNAME', 'gpualloc_plan_svg'
LANGUAGE C STABLE STRICT SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp;
-- Roles and privileges.
--   gpualloc_admin      runs the cluster: every function, every table.
--   gpualloc_submitter  submits and cancels its tenants' jobs and reads them
--                       (row-level security on gpualloc.jobs).
--   gpualloc_reader     reads the views, nothing else.
-- Roles are cluster-wide, so they are created only when missing and outlive
-- the extension.
DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['gpualloc_admin', 'gpualloc_submitter', 'gpualloc_reader'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('CREATE ROLE %I NOLOGIN', r);
		END IF;
	END LOOP;
END
$$;

GRANT gpualloc_submitter, gpualloc_reader TO gpualloc_admin;

GRANT USAGE ON SCHEMA gpualloc TO gpualloc_admin, gpualloc_submitter, gpualloc_reader;

-- Nothing is callable by PUBLIC unless granted below.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA gpualloc FROM PUBLIC;

GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA gpualloc TO gpualloc_admin;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA gpualloc TO gpualloc_admin;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA gpualloc TO gpualloc_admin;

-- Submitters: their jobs, through the API and row-level security.
GRANT SELECT ON gpualloc.jobs, gpualloc.pools TO gpualloc_submitter;
GRANT EXECUTE ON FUNCTION
	gpualloc.submit_job(text, text, text, integer, integer, double precision, jsonb, name,
						timestamptz, timestamptz, double precision),
	gpualloc.cancel_job(bigint, text),
	gpualloc.estimate_job(text, jsonb, integer, text),
	gpualloc.caller_role()
TO gpualloc_submitter;

-- Readers: the views only.
GRANT SELECT ON gpualloc.current_allocation, gpualloc.queue TO gpualloc_reader;
GRANT SELECT ON gpualloc.utilization_hourly, gpualloc.tenant_value_hourly, gpualloc.service_coverage_hourly,
	gpualloc.queue_plan, gpualloc.plan_history TO gpualloc_reader;
GRANT EXECUTE ON FUNCTION gpualloc.utilization(timestamptz, timestamptz),
	gpualloc.tenant_value(timestamptz, timestamptz), gpualloc.service_coverage(timestamptz, timestamptz),
	gpualloc.plan_svg(bigint) TO gpualloc_reader;

ALTER TABLE gpualloc.jobs ENABLE ROW LEVEL SECURITY;

CREATE POLICY jobs_admin_all ON gpualloc.jobs TO gpualloc_admin
	USING (true) WITH CHECK (true);

-- A submitter sees the jobs of every tenant role it is a member of.
CREATE POLICY jobs_submitter_own_tenant ON gpualloc.jobs FOR SELECT TO gpualloc_submitter
	USING (tenant IN (SELECT r.rolname FROM pg_catalog.pg_roles r
					  WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')));
