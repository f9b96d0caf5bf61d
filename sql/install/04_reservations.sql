-- Advance reservations: GPU ranges of a pool held for one tenant over a
-- future time range.  The planner and the submit fast path treat a
-- reservation as a maintenance window (04_maintenance.sql) for every job of
-- another tenant and for every service, and as open GPUs for its tenant's
-- jobs; the checks of its range are those of a window.

-- Two tenants can't both be promised a GPU at once: a reservation that
-- meets another tenant's on some GPU and moment is refused (as Slurm
-- refuses overlapping reservations), one of the same tenant allowed.  The
-- pool row is locked first, so two concurrent calls check one after the
-- other (FOR NO KEY UPDATE: submissions, which only key-share it, go on).
CREATE FUNCTION gpualloc_internal.check_reservation_overlap(p gpualloc.pools, tenant name,
															starts_at timestamptz, ends_at timestamptz,
															first_gpu integer, gpus integer)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	o gpualloc.advance_reservations;
BEGIN
	PERFORM 1 FROM gpualloc.pools x WHERE x.pool_id = p.pool_id FOR NO KEY UPDATE;
	SELECT * INTO o FROM gpualloc.advance_reservations r
	WHERE r.pool_id = p.pool_id AND r.tenant <> check_reservation_overlap.tenant
	  AND r.starts_at < check_reservation_overlap.ends_at AND check_reservation_overlap.starts_at < r.ends_at
	  AND pg_catalog.int4range(r.first_gpu, r.first_gpu + r.gpus)
		  && pg_catalog.int4range(check_reservation_overlap.first_gpu,
								  check_reservation_overlap.first_gpu + check_reservation_overlap.gpus)
	ORDER BY r.starts_at, r.reservation_id LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'the reservation overlaps advance reservation % of tenant "%"', o.reservation_id, o.tenant
			USING ERRCODE = 'exclusion_violation',
				  DETAIL = pg_catalog.format('Reservation %s holds GPUs %s of pool %s from %s to %s.',
											 o.reservation_id,
											 CASE WHEN o.gpus IS NULL THEN o.first_gpu || ' to the last'
												  ELSE o.first_gpu || '..' || (o.first_gpu + o.gpus - 1) END,
											 p.name, o.starts_at, o.ends_at),
				  HINT = 'Choose other GPUs or times, or remove that reservation first.';
	END IF;
END
$$;

-- Hold GPUs first_gpu .. first_gpu + gpus - 1 of a pool (topology indexes
-- node * node_size + slot; gpus NULL: to the pool's end) for a registered
-- tenant from starts_at to ends_at (admin).  Returns the reservation's id.
CREATE FUNCTION gpualloc.add_reservation(tenant name, pool text, starts_at timestamptz, ends_at timestamptz,
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
	PERFORM gpualloc_internal.require_admin('add an advance reservation');
	IF NOT EXISTS (SELECT 1 FROM gpualloc.tenants t WHERE t.tenant = add_reservation.tenant) THEN
		RAISE EXCEPTION 'tenant "%" is not registered', coalesce(tenant::text, 'NULL')
			USING ERRCODE = 'undefined_object',
				  HINT = 'Register it first with gpualloc.add_tenant.';
	END IF;
	p := gpualloc_internal.pool(pool);
	PERFORM gpualloc_internal.check_closed_range(p, starts_at, ends_at, first_gpu, gpus, 'reservation');
	PERFORM gpualloc_internal.check_reason('reason', reason);
	PERFORM gpualloc_internal.check_reservation_overlap(p, tenant, starts_at, ends_at, first_gpu, gpus);
	INSERT INTO gpualloc.advance_reservations (tenant, pool_id, first_gpu, gpus, starts_at, ends_at, reason)
	VALUES (tenant, p.pool_id, first_gpu, gpus, starts_at, ends_at, coalesce(reason, ''))
	RETURNING reservation_id INTO new_id;
	PERFORM gpualloc.request_replan();
	RETURN new_id;
END
$$;

-- Drop an advance reservation (admin): its GPUs are open to all at the next plan.
CREATE FUNCTION gpualloc.remove_reservation(reservation_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	PERFORM gpualloc_internal.require_admin('remove an advance reservation');
	DELETE FROM gpualloc.advance_reservations r WHERE r.reservation_id = remove_reservation.reservation_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'advance reservation % does not exist', coalesce(reservation_id::text, 'NULL')
			USING ERRCODE = 'undefined_object',
				  HINT = 'List them with: SELECT * FROM gpualloc.reservation_schedule;';
	END IF;
	PERFORM gpualloc.request_replan();
END
$$;

-- Every advance reservation the caller may see (row-level security of
-- advance_reservations: its tenants' own; admins all), with its pool's
-- name, the topology indexes it holds and where it stands now.  It runs
-- with the caller's rights, so the policies apply.
CREATE VIEW gpualloc.reservation_schedule WITH (security_invoker = true) AS
SELECT r.reservation_id, r.tenant, p.name AS pool, r.first_gpu,
	   CASE WHEN r.gpus IS NOT NULL THEN r.first_gpu + r.gpus - 1 END AS last_gpu,
	   r.starts_at, r.ends_at,
	   CASE WHEN now() >= r.ends_at THEN 'over'
			WHEN now() >= r.starts_at THEN 'in progress'
			ELSE 'scheduled' END AS state,
	   r.reason
FROM gpualloc.advance_reservations r
JOIN gpualloc.pools p USING (pool_id)
ORDER BY r.starts_at, r.reservation_id;
