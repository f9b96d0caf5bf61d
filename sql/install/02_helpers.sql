-- Internal helpers: identity, lookups and the checks every entry point shares.
-- They raise errors that name the field and the rule.  They are not callable
-- by PUBLIC.  Like every function of the extension they pin search_path, so
-- no object a user creates in another schema (public, say) can stand in for a
-- built-in they call.

-- The role that called the API, seen through SECURITY DEFINER (C: GetOuterUserId).
CREATE FUNCTION gpualloc.caller_role() RETURNS name
SET search_path = pg_catalog, gpualloc, pg_temp
	AS 'MODULE_PATHNAME', 'gpualloc_caller_role'
	LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gpualloc_internal.is_admin() RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	SELECT pg_has_role(gpualloc.caller_role(), 'gpualloc_admin', 'MEMBER')
		OR (SELECT rolsuper FROM pg_roles WHERE rolname = gpualloc.caller_role())
$$;

CREATE FUNCTION gpualloc_internal.require_admin(action text) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF NOT gpualloc_internal.is_admin() THEN
		RAISE EXCEPTION 'permission denied to %', action
			USING ERRCODE = 'insufficient_privilege',
				  HINT = 'Only members of gpualloc_admin may do this.';
	END IF;
END
$$;

-- A gpualloc setting as text, or its default when the library is not loaded
-- in this session yet (its GUCs are defined when it loads).
CREATE FUNCTION gpualloc_internal.setting(setting text, fallback text) RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$ SELECT coalesce(nullif(pg_catalog.current_setting(setting, true), ''), fallback) $$;

-- Executors report what really happens to jobs: members of
-- gpualloc_executor, and admins.
CREATE FUNCTION gpualloc_internal.is_executor() RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	SELECT gpualloc_internal.is_admin() OR pg_has_role(gpualloc.caller_role(), 'gpualloc_executor', 'MEMBER')
$$;

CREATE FUNCTION gpualloc_internal.require_executor(action text) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF NOT gpualloc_internal.is_executor() THEN
		RAISE EXCEPTION 'permission denied to %', action
			USING ERRCODE = 'insufficient_privilege',
				  HINT = 'Only members of gpualloc_executor or gpualloc_admin may do this.';
	END IF;
END
$$;

-- A free-text field (a reason, a message) of bounded length.
CREATE FUNCTION gpualloc_internal.check_reason(field text, value text) RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF octet_length(value) > 1000 THEN
		RAISE EXCEPTION '% is % bytes; at most 1000 are kept', field, octet_length(value)
			USING ERRCODE = 'string_data_right_truncation';
	END IF;
END
$$;

-- A caller may act for a tenant when it is an admin or a member of the
-- tenant's role.
CREATE FUNCTION gpualloc_internal.can_act_for(tenant name) RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	SELECT gpualloc_internal.is_admin()
		OR EXISTS (SELECT 1 FROM pg_roles r
				   WHERE r.rolname = tenant
					 AND pg_has_role(gpualloc.caller_role(), r.oid, 'MEMBER'))
$$;

CREATE FUNCTION gpualloc_internal.check_name(field text, value text) RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF value IS NULL OR value !~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$' THEN
		RAISE EXCEPTION '% "%" is not a valid name', field, coalesce(value, 'NULL')
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = format('A %s is 1 to 63 characters: letters, digits, "_", ".", ":" or "-", starting with a letter or digit.', field);
	END IF;
END
$$;

CREATE FUNCTION gpualloc_internal.check_positive(field text, value double precision) RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF value IS NULL OR value = 'NaN' OR value <= 0 OR value = 'Infinity' THEN
		RAISE EXCEPTION '% must be a positive finite number, got %', field, coalesce(value::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
END
$$;

-- A number within [lo, hi]: for figures whose ratios the planner takes
-- (a pool's throughput against another's), so that no quotient over- or
-- underflows.
CREATE FUNCTION gpualloc_internal.check_in_range(field text, value double precision,
												 lo double precision, hi double precision) RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF value IS NULL OR value = 'NaN' OR value < lo OR value > hi THEN
		RAISE EXCEPTION '% must be a number in [%, %], got %', field, lo, hi, coalesce(value::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
END
$$;

-- A moment a read is taken as of: finite, from 2000 (the oldest history
-- kept) to a century ahead, so that ages and decays stay finite numbers.
CREATE FUNCTION gpualloc_internal.checked_moment(field text, value timestamptz) RETURNS timestamptz
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF value IS NULL OR NOT pg_catalog.isfinite(value) OR value < '2000-01-01 00:00+00'
	   OR value > pg_catalog.now() + interval '100 years' THEN
		RAISE EXCEPTION '% must be a time from 2000-01-01 to a century from now, got %', field, coalesce(value::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	RETURN value;
END
$$;

CREATE FUNCTION gpualloc_internal.check_pow2(field text, value integer) RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF value IS NULL OR value <= 0 OR (value & (value - 1)) <> 0 THEN
		RAISE EXCEPTION '% must be a power of two (1, 2, 4, 8, ...), got %', field, coalesce(value::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
END
$$;

CREATE FUNCTION gpualloc_internal.pool(pool text) RETURNS gpualloc.pools
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
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

CREATE FUNCTION gpualloc_internal.service(service text) RETURNS gpualloc.services
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
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

-- Lock and return a job the caller may act on: its tenant's members and
-- admins, and executors when as_executor.  Another tenant's job is reported
-- as missing, so its existence does not leak.
CREATE FUNCTION gpualloc_internal.job_for_update(p_job_id bigint, as_executor boolean DEFAULT false)
RETURNS gpualloc.jobs
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	j gpualloc.jobs;
BEGIN
	SELECT * INTO j FROM gpualloc.jobs WHERE job_id = p_job_id FOR UPDATE;
	IF NOT FOUND OR NOT (gpualloc_internal.can_act_for(j.tenant) OR (as_executor AND gpualloc_internal.is_executor())) THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'undefined_object';
	END IF;
	RETURN j;
END
$$;

CREATE FUNCTION gpualloc_internal.gpu(pool text, p_node integer, p_slot integer) RETURNS gpualloc.gpus
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools := gpualloc_internal.pool(pool);
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
