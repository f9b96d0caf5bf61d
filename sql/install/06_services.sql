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
	PERFORM gpualloc._commit_lock();
	s := gpualloc._service(name);
	-- its GPUs are given back through the commit path (executors are told),
	-- then its rows and demand history go with it (foreign keys cascade)
	PERFORM gpualloc._allocations_set(coalesce(pg_catalog.array_agg(a.gpu_id), '{}'), '{}', '{}', 'service_removed')
	FROM gpualloc.allocations a WHERE a.service_id = s.service_id AND a.end_seq IS NULL;
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
