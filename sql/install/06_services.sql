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
	PERFORM gpualloc_internal.require_admin('add a service');
	PERFORM gpualloc_internal.check_name('service name', name);
	p := gpualloc_internal.pool(pool);
	capacity := gpualloc_internal.pool_capacity(p.pool_id);
	PERFORM gpualloc_internal.check_positive('capacity_per_gpu', capacity_per_gpu);
	PERFORM gpualloc_internal.check_positive('priority', priority);
	-- bounded so a service's value and its demand in GPUs stay finite numbers
	IF priority > 1e6 THEN
		RAISE EXCEPTION 'priority must be at most 1e6, got %', priority
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF capacity_per_gpu < 1e-6 OR capacity_per_gpu > 1e15 THEN
		RAISE EXCEPTION 'capacity_per_gpu must be from 1e-6 to 1e15, got %', capacity_per_gpu
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'It is the traffic one GPU serves, in the unit of the demand you record.';
	END IF;
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
	PERFORM gpualloc_internal.require_admin('remove a service');
	PERFORM gpualloc_internal.commit_lock();
	s := gpualloc_internal.service(name);
	-- its GPUs are given back through the commit path (executors are told),
	-- then its rows and demand history go with it (foreign keys cascade)
	PERFORM gpualloc_internal.allocations_set(coalesce(pg_catalog.array_agg(a.gpu_id), '{}'), '{}', '{}', 'service_removed')
	FROM gpualloc.allocations a WHERE a.service_id = s.service_id AND a.end_seq IS NULL;
	DELETE FROM gpualloc.services WHERE service_id = s.service_id;
END
$$;

CREATE FUNCTION gpualloc_internal.check_demand_row(service text, hour timestamptz, traffic double precision,
										   what text DEFAULT '') RETURNS integer
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	s gpualloc.services := gpualloc_internal.service(service);
BEGIN
	IF hour IS NULL OR hour = 'infinity' OR hour = '-infinity' OR date_trunc('hour', hour, 'UTC') <> hour THEN
		RAISE EXCEPTION '%hour % is not the start of an hour', what, coalesce(hour::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Demand is recorded per whole UTC hour: use date_trunc(''hour'', ts, ''UTC'').';
	END IF;
	-- history only, from a sane epoch: a row years off would stretch every
	-- forecast over an empty past or a future nobody has seen
	IF hour < '2000-01-01 00:00+00' OR hour > date_trunc('hour', now(), 'UTC') THEN
		RAISE EXCEPTION '%hour % is outside the demand history range', what, hour
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'Demand history holds hours from 2000-01-01 up to the current hour.';
	END IF;
	IF traffic IS NULL OR traffic = 'NaN' OR traffic < 0 OR traffic > 1e15 THEN
		RAISE EXCEPTION '%traffic must be a finite number from 0 to 1e15, got %', what, coalesce(traffic::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF traffic / s.capacity_per_gpu > 1e6 THEN
		RAISE EXCEPTION '%traffic % is % GPUs of service "%"; at most 1e6 GPUs are planned for', what, traffic,
			traffic / s.capacity_per_gpu, s.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Check the traffic''s unit against the service''s capacity_per_gpu.';
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
	PERFORM gpualloc_internal.require_admin('record demand');
	sid := gpualloc_internal.check_demand_row(service, hour, traffic);
	INSERT INTO gpualloc.demand_history AS d (service_id, hour, traffic)
	VALUES (sid, record_demand.hour, record_demand.traffic)
	ON CONFLICT ON CONSTRAINT demand_history_pkey DO UPDATE SET traffic = EXCLUDED.traffic;
END
$$;

-- Move hourly demand from a table (by default gpualloc.demand_staging) into
-- demand_history, after checking every row; a bad row stops the load and
-- nothing is written.  The source is read with the caller's own rights (this
-- function is not SECURITY DEFINER) and must be a plain or partitioned table,
-- so no view, function or foreign table the caller controls ever runs with
-- the extension's rights; the rows then go to record_demand_rows, which does.
CREATE FUNCTION gpualloc.load_demand(source regclass DEFAULT 'gpualloc.demand_staging')
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	kind "char";
	missing text;
	services text[];
	hours timestamptz[];
	traffic double precision[];
	n bigint;
BEGIN
	IF source IS NULL THEN
		RAISE EXCEPTION 'source must name a table, got NULL'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT c.relkind INTO kind FROM pg_catalog.pg_class c WHERE c.oid = source;
	IF kind NOT IN ('r', 'p') THEN
		RAISE EXCEPTION 'source % is not a table', source
			USING ERRCODE = 'wrong_object_type',
				  DETAIL = 'load_demand reads only plain or partitioned tables, not views, foreign tables or materialized views.',
				  HINT = 'Copy the rows into gpualloc.demand_staging, or into a table of your own.';
	END IF;
	-- every partition a plain table too: a foreign one would run its wrapper
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_partition_tree(source) t
			   JOIN pg_catalog.pg_class c ON c.oid = t.relid WHERE c.relkind NOT IN ('r', 'p')) THEN
		RAISE EXCEPTION 'source % has a partition that is not a table', source
			USING ERRCODE = 'wrong_object_type',
				  DETAIL = 'load_demand reads only plain tables and partitioned tables of plain tables.';
	END IF;
	-- built-in column types only: a type of the table owner's own (or a domain)
	-- brings casts and checks of theirs, run by whoever calls load_demand
	SELECT pg_catalog.string_agg(pg_catalog.format('%s %s', a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod)), ', ')
	INTO missing
	FROM pg_catalog.pg_attribute a
	WHERE a.attrelid = source AND a.attname IN ('service', 'hour', 'traffic') AND a.attnum > 0 AND NOT a.attisdropped
	  AND a.atttypid NOT IN ('text'::regtype, 'varchar'::regtype, 'bpchar'::regtype, 'name'::regtype,
							 'timestamptz'::regtype, 'timestamp'::regtype, 'int2'::regtype, 'int4'::regtype,
							 'int8'::regtype, 'float4'::regtype, 'float8'::regtype, 'numeric'::regtype);
	IF missing IS NOT NULL THEN
		RAISE EXCEPTION 'source % has columns of types load_demand does not read: %', source, missing
			USING ERRCODE = 'datatype_mismatch',
				  DETAIL = 'service is text, varchar or name; hour timestamptz or timestamp; traffic a built-in number type.';
	END IF;
	SELECT pg_catalog.string_agg(want, ', ') INTO missing
	FROM pg_catalog.unnest(ARRAY['service', 'hour', 'traffic']) AS want
	WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
					  WHERE a.attrelid = source AND a.attname = want AND a.attnum > 0 AND NOT a.attisdropped);
	IF missing IS NOT NULL THEN
		RAISE EXCEPTION 'source % has no column %', source, missing
			USING ERRCODE = 'undefined_column',
				  DETAIL = 'A demand table has the columns service (text), hour (timestamptz) and traffic (a number).';
	END IF;
	EXECUTE pg_catalog.format('SELECT pg_catalog.array_agg(service::text), pg_catalog.array_agg(hour::timestamptz), '
							  'pg_catalog.array_agg(traffic::double precision) FROM %s', source)
	INTO services, hours, traffic;
	n := gpualloc.record_demand_rows(coalesce(services, '{}'), coalesce(hours, '{}'), coalesce(traffic, '{}'));
	IF source = 'gpualloc.demand_staging'::regclass THEN
		DELETE FROM gpualloc.demand_staging;
	END IF;
	RETURN n;
END
$$;

-- Check and store hourly demand given as three arrays of one length (what
-- load_demand read, or a client's batch); a bad row stops it all.
CREATE FUNCTION gpualloc.record_demand_rows(services text[], hours timestamptz[], traffic double precision[])
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	ids integer[] := '{}';
	dup record;
BEGIN
	PERFORM gpualloc_internal.require_admin('load demand');
	IF services IS NULL OR hours IS NULL OR traffic IS NULL THEN
		RAISE EXCEPTION 'services, hours and traffic must be arrays, not NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF pg_catalog.array_ndims(services) > 1 OR pg_catalog.array_ndims(hours) > 1 OR pg_catalog.array_ndims(traffic) > 1
	   OR coalesce(pg_catalog.array_lower(services, 1), 1) <> 1 OR coalesce(pg_catalog.array_lower(hours, 1), 1) <> 1
	   OR coalesce(pg_catalog.array_lower(traffic, 1), 1) <> 1
	   OR pg_catalog.cardinality(services) <> pg_catalog.cardinality(hours)
	   OR pg_catalog.cardinality(services) <> pg_catalog.cardinality(traffic) THEN
		RAISE EXCEPTION 'services, hours and traffic must be one-dimensional arrays of one length, from index 1; got %, % and % elements',
			pg_catalog.cardinality(services), pg_catalog.cardinality(hours), pg_catalog.cardinality(traffic)
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	FOR i IN 1 .. pg_catalog.cardinality(services) LOOP
		ids := ids || gpualloc_internal.check_demand_row(services[i], hours[i], traffic[i], pg_catalog.format('row %s: ', i));
	END LOOP;
	SELECT s.name, r.hour INTO dup
	FROM ROWS FROM (pg_catalog.unnest(ids), pg_catalog.unnest(hours)) AS r(service_id, hour)
	JOIN gpualloc.services s ON s.service_id = r.service_id
	GROUP BY s.name, r.hour HAVING pg_catalog.count(*) > 1 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'service "%" has more than one row for hour %', dup.name, dup.hour
			USING ERRCODE = 'unique_violation';
	END IF;
	INSERT INTO gpualloc.demand_history (service_id, hour, traffic)
	SELECT r.service_id, r.hour, r.traffic
	FROM ROWS FROM (pg_catalog.unnest(ids), pg_catalog.unnest(hours), pg_catalog.unnest(traffic)) AS r(service_id, hour, traffic)
	ON CONFLICT (service_id, hour) DO UPDATE SET traffic = EXCLUDED.traffic;
	RETURN coalesce(pg_catalog.cardinality(services), 0);
END
$$;
