-- gpualloc 0.1 -> 0.2: the tables take 0.2's shape and keep their data; the
-- code (every function, view and trigger) of 0.1 is dropped here and 0.2's
-- is created by what the build appends to this file (sql/install/02..99), so
-- an upgraded database and a fresh 0.2 install are the same.
\echo Use "ALTER EXTENSION gpualloc UPDATE TO '0.2'" to load this file. \quit

-- names bind to the catalog and the extension only, never to a writable
-- public that the required extensions' schemas may bring onto the path
SET LOCAL search_path = pg_catalog, gpualloc, pg_temp;

-- 0.1's code: views first, then functions (their triggers go with them).
DO $$
DECLARE
	views text[];
	funcs text[];
	o text;
BEGIN
	SELECT array_agg(c.oid::regclass::text) INTO views
	FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class c ON c.oid = d.objid
	WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.deptype = 'e' AND c.relkind = 'v'
	  AND d.refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'gpualloc');
	SELECT array_agg(p.oid::regprocedure::text) INTO funcs
	FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_proc p ON p.oid = d.objid
	WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.deptype = 'e'
	  AND d.refobjid = (SELECT oid FROM pg_catalog.pg_extension WHERE extname = 'gpualloc');
	FOREACH o IN ARRAY coalesce(views, '{}') LOOP
		EXECUTE pg_catalog.format('DROP VIEW IF EXISTS %s CASCADE', o);
	END LOOP;
	FOREACH o IN ARRAY coalesce(funcs, '{}') LOOP
		EXECUTE pg_catalog.format('DROP FUNCTION IF EXISTS %s CASCADE', o);
	END LOOP;
END
$$;

-- the executor role is new
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'gpualloc_executor') THEN
		CREATE ROLE gpualloc_executor NOLOGIN;
	END IF;
END
$$;

CREATE SCHEMA gpualloc_internal;
REVOKE ALL ON SCHEMA gpualloc_internal FROM PUBLIC;

-- Tenants: every role that owns a job becomes a registered tenant.
CREATE TABLE gpualloc.tenants (
	tenant		name PRIMARY KEY,
	max_priority double precision CHECK (max_priority > 0 AND max_priority <= 1e6),
	created_at	timestamptz NOT NULL DEFAULT now()
);
-- 0.1 let an admin submit for any role, the shared ones too; 0.2 never lets
-- a gpualloc_* or pg_* role be a tenant (every submitter is a member of
-- gpualloc_submitter, so its jobs would be every submitter's to see and
-- cancel): refuse rather than register one.
DO $$
DECLARE
	bad text;
BEGIN
	SELECT pg_catalog.string_agg(DISTINCT pg_catalog.quote_ident(tenant::text), ', ') INTO bad
	FROM gpualloc.jobs WHERE tenant LIKE 'gpualloc\_%' OR tenant LIKE 'pg\_%';
	IF bad IS NOT NULL THEN
		RAISE EXCEPTION 'jobs are owned by %, which 0.2 does not allow as a tenant', bad
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'The gpualloc_* and predefined pg_* roles are shared by many users.',
				  HINT = 'At version 0.1, give those jobs a team role (UPDATE gpualloc.jobs SET tenant = ''team_x'' WHERE tenant = ...), then update again.';
	END IF;
END
$$;
INSERT INTO gpualloc.tenants (tenant) SELECT DISTINCT tenant FROM gpualloc.jobs;

-- Jobs: the booked status, the executor's command, lost runs.
ALTER TABLE gpualloc.jobs
	ADD COLUMN booked_at timestamptz,
	ADD COLUMN command text CHECK (octet_length(command) <= 8192),
	ADD COLUMN requeues integer NOT NULL DEFAULT 0,
	ADD COLUMN lost_gpu_hours double precision NOT NULL DEFAULT 0,
	DROP CONSTRAINT jobs_status_check,
	ADD CONSTRAINT jobs_status_check
		CHECK (status IN ('queued', 'booked', 'running', 'succeeded', 'failed', 'cancelled')),
	ADD CONSTRAINT jobs_tenant_fkey FOREIGN KEY (tenant) REFERENCES gpualloc.tenants;

-- Allocations: every row gets the change set that began it (and ended it);
-- what was there before the change log is history (sequence 0), what is in
-- force becomes change set 1.
CREATE TABLE gpualloc.allocation_commits (
	seq			bigint PRIMARY KEY CHECK (seq > 0),
	at			timestamptz NOT NULL,
	reason		text NOT NULL,
	plan_id		bigint,
	gpus_changed integer NOT NULL
);
ALTER TABLE gpualloc.allocations ADD COLUMN begin_seq bigint, ADD COLUMN end_seq bigint;
-- a row 0.1 booked to begin later is in force from now on
UPDATE gpualloc.allocations SET during = tstzrange(now(), NULL)
WHERE upper_inf(during) AND lower(during) > now();
DELETE FROM gpualloc.allocations WHERE NOT upper_inf(during) AND lower(during) > now();
UPDATE gpualloc.allocations SET begin_seq = 0, end_seq = 0 WHERE NOT upper_inf(during);
UPDATE gpualloc.allocations SET begin_seq = 1 WHERE upper_inf(during);
INSERT INTO gpualloc.allocation_commits (seq, at, reason, plan_id, gpus_changed)
SELECT 1, now(), 'upgrade', NULL, count(*)::integer FROM gpualloc.allocations WHERE upper_inf(during)
HAVING count(*) > 0;
ALTER TABLE gpualloc.allocations
	ALTER COLUMN begin_seq SET NOT NULL,
	ADD CONSTRAINT allocations_open_until_ended CHECK ((end_seq IS NULL) = upper_inf(during));
CREATE UNIQUE INDEX allocations_open_gpu_idx ON gpualloc.allocations (gpu_id) WHERE end_seq IS NULL;
CREATE INDEX allocations_begin_seq_idx ON gpualloc.allocations (begin_seq);
CREATE INDEX allocations_end_seq_idx ON gpualloc.allocations (end_seq) WHERE end_seq IS NOT NULL;

-- a queued job holding rows was booked in 0.1 without a name for it
UPDATE gpualloc.jobs j SET status = 'booked',
	booked_at = (SELECT min(lower(a.during)) FROM gpualloc.allocations a WHERE a.job_id = j.job_id AND a.end_seq IS NULL)
WHERE j.status = 'queued'
  AND EXISTS (SELECT 1 FROM gpualloc.allocations a WHERE a.job_id = j.job_id AND a.end_seq IS NULL);
-- rows of jobs that ended (0.1 could leave them open) end now
UPDATE gpualloc.allocations a SET during = tstzrange(lower(a.during), greatest(now(), lower(a.during) + interval '1 microsecond')),
	end_seq = 1
FROM gpualloc.jobs j
WHERE j.job_id = a.job_id AND a.end_seq IS NULL AND j.status NOT IN ('booked', 'running');
ALTER TABLE gpualloc.jobs
	ADD CONSTRAINT jobs_booked_has_time CHECK ((status = 'booked') = (booked_at IS NOT NULL));

-- estimates bounded (a larger one is an error of the features: capped);
-- demand hours whole UTC hours in any session time zone (0.1 took an hour of
-- a +05:30 zone, which no forecast can use: dropped)
UPDATE gpualloc.jobs SET est_work_gpu_hours = 1e7 WHERE est_work_gpu_hours > 1e7;
-- priorities bounded as 0.2 bounds what it plans (0.1 took any finite one,
-- and two near the double's limit make every plan's objective infinite):
-- waiting jobs at most gpualloc.max_priority, as set_tenant lowers them;
-- services at most 1e6, as add_service takes them
DO $$
DECLARE
	cap double precision := coalesce(nullif(pg_catalog.current_setting('gpualloc.max_priority', true), ''), '10')::double precision;
	n bigint;
BEGIN
	UPDATE gpualloc.jobs SET priority = cap WHERE status IN ('queued', 'booked') AND priority > cap;
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n > 0 THEN
		RAISE WARNING '% waiting jobs lowered to priority % (gpualloc.max_priority)', n, cap;
	END IF;
	UPDATE gpualloc.services SET priority = 1e6 WHERE priority > 1e6;
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n > 0 THEN
		RAISE WARNING '% services lowered to priority 1e6', n;
	END IF;
END
$$;
ALTER TABLE gpualloc.jobs DROP CONSTRAINT jobs_estimate_positive,
	ADD CONSTRAINT jobs_estimate_positive
		CHECK (est_work_gpu_hours IS NULL OR (est_work_gpu_hours > 0 AND est_work_gpu_hours <= 1e7));
-- 0.1 checked the hour in the session's time zone, so demand recorded in a
-- zone of a half-hour offset (Asia/Kolkata: every row) is at :30 UTC: such
-- a row moves to the UTC hour it starts in (a row already there wins), so
-- the history is not lost, and the operator is told.
DO $$
DECLARE
	moved bigint;
	dropped bigint;
BEGIN
	WITH off AS (
		DELETE FROM gpualloc.demand_history WHERE date_trunc('hour', hour, 'UTC') <> hour
		RETURNING service_id, date_trunc('hour', hour, 'UTC') AS hour, traffic),
	ins AS (
		INSERT INTO gpualloc.demand_history (service_id, hour, traffic)
		SELECT DISTINCT ON (service_id, hour) service_id, hour, traffic FROM off ORDER BY service_id, hour
		ON CONFLICT (service_id, hour) DO NOTHING
		RETURNING 1)
	SELECT (SELECT count(*) FROM off), (SELECT count(*) FROM ins) INTO dropped, moved;
	IF dropped > 0 THEN
		RAISE WARNING '% demand rows were not on a whole UTC hour: % moved to the UTC hour they start in, % dropped (that hour had a row)',
			dropped, moved, dropped - moved;
	END IF;
END
$$;
ALTER TABLE gpualloc.demand_history DROP CONSTRAINT demand_hour_aligned,
	ADD CONSTRAINT demand_hour_aligned CHECK (date_trunc('hour', hour, 'UTC') = hour);

DROP INDEX gpualloc.jobs_active_name_idx;
CREATE UNIQUE INDEX jobs_active_name_idx ON gpualloc.jobs (tenant, name)
	WHERE status IN ('queued', 'booked', 'running');
CREATE INDEX jobs_history_idx ON gpualloc.jobs (kind, finished_at DESC, job_id DESC)
	WHERE status = 'succeeded';
CREATE INDEX allocations_plan_idx ON gpualloc.allocations (plan_id) WHERE plan_id IS NOT NULL;
CREATE INDEX jobs_queue_idx ON gpualloc.jobs (pool_id, gpus_min, priority DESC, job_id)
	WHERE status = 'queued' AND est_work_gpu_hours IS NOT NULL;
CREATE INDEX jobs_without_estimate_idx ON gpualloc.jobs (job_id)
	WHERE status IN ('queued', 'booked') AND est_work_gpu_hours IS NULL;
-- plan blocks are deleted with their run or pool by triggers (08_planning.sql),
-- not checked row by row on insert
ALTER TABLE gpualloc.plan_blocks
	DROP CONSTRAINT plan_blocks_plan_id_fkey,
	DROP CONSTRAINT plan_blocks_pool_id_fkey;
-- one index for a plan's blocks and a job's among them
DROP INDEX gpualloc.plan_blocks_job_idx;
DROP INDEX gpualloc.plan_blocks_plan_idx;
CREATE INDEX plan_blocks_plan_idx ON gpualloc.plan_blocks (plan_id, job_id);

SELECT pg_catalog.pg_extension_config_dump('gpualloc.tenants', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.allocation_commits', '');

-- Jobs: time limits and dependencies.
ALTER TABLE gpualloc.jobs
	ADD COLUMN time_limit interval,
	ADD CONSTRAINT jobs_time_limit_positive CHECK (time_limit IS NULL OR time_limit > interval '0');
CREATE TABLE gpualloc.job_dependencies (
	job_id		bigint NOT NULL REFERENCES gpualloc.jobs ON DELETE CASCADE,
	after_job_id bigint NOT NULL REFERENCES gpualloc.jobs ON DELETE CASCADE,
	kind		text NOT NULL CHECK (kind IN ('after_ok', 'after_any')),
	PRIMARY KEY (job_id, after_job_id),
	CONSTRAINT job_dependencies_earlier CHECK (after_job_id < job_id)
);
CREATE INDEX job_dependencies_after_idx ON gpualloc.job_dependencies (after_job_id);
ALTER TABLE gpualloc.job_dependencies ENABLE ROW LEVEL SECURITY;
CREATE POLICY job_dependencies_admin_all ON gpualloc.job_dependencies TO gpualloc_admin
	USING (true) WITH CHECK (true);
CREATE POLICY job_dependencies_submitter_own_tenant ON gpualloc.job_dependencies FOR SELECT TO gpualloc_submitter
	USING (job_id IN (SELECT j.job_id FROM gpualloc.jobs j));
SELECT pg_catalog.pg_extension_config_dump('gpualloc.job_dependencies', '');
-- Maintenance windows: a GPU range of a pool (topology indexes first_gpu ..
-- first_gpu + gpus - 1; gpus NULL: to the pool's end, nodes added later
-- included) closed from starts_at to ends_at.  The planner places no new work
-- there, and no job whose estimated run would reach into it.
CREATE TABLE gpualloc.maintenance_windows (
	window_id	serial PRIMARY KEY,
	pool_id		integer NOT NULL REFERENCES gpualloc.pools ON DELETE CASCADE,
	first_gpu	integer NOT NULL DEFAULT 0,
	gpus		integer,
	starts_at	timestamptz NOT NULL,
	ends_at		timestamptz NOT NULL,
	reason		text NOT NULL DEFAULT '',
	created_at	timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT maintenance_windows_first_gpu CHECK (first_gpu >= 0),
	CONSTRAINT maintenance_windows_gpus CHECK (gpus IS NULL OR (gpus >= 1 AND first_gpu + gpus > first_gpu)),
	CONSTRAINT maintenance_windows_finite CHECK (isfinite(starts_at) AND isfinite(ends_at)),
	CONSTRAINT maintenance_windows_order CHECK (ends_at > starts_at),
	CONSTRAINT maintenance_windows_reason CHECK (octet_length(reason) <= 1000)
);
CREATE INDEX maintenance_windows_pool_idx ON gpualloc.maintenance_windows (pool_id, ends_at);
SELECT pg_catalog.pg_extension_config_dump('gpualloc.maintenance_windows', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.maintenance_windows_window_id_seq', '');

-- Tenants: a policy per pool (guarantee, limit, borrowing, fair-share weight, cohort).
CREATE TABLE gpualloc.tenant_policies (
	tenant		name NOT NULL REFERENCES gpualloc.tenants ON DELETE CASCADE,
	pool_id		integer NOT NULL REFERENCES gpualloc.pools ON DELETE CASCADE,
	guarantee	integer NOT NULL DEFAULT 0,
	gpu_limit	integer,
	may_borrow	boolean NOT NULL DEFAULT true,
	borrow_limit integer,
	weight		double precision NOT NULL DEFAULT 1,
	cohort		text,
	updated_at	timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (tenant, pool_id),
	CONSTRAINT tenant_policies_guarantee CHECK (guarantee >= 0),
	CONSTRAINT tenant_policies_limit CHECK (gpu_limit IS NULL OR gpu_limit >= guarantee),
	CONSTRAINT tenant_policies_borrow_limit CHECK (borrow_limit IS NULL OR (may_borrow AND borrow_limit >= 0)),
	CONSTRAINT tenant_policies_weight CHECK (weight > 0 AND weight <= 1e6),
	CONSTRAINT tenant_policies_cohort CHECK (cohort IS NULL OR cohort ~ '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}$')
);
CREATE INDEX tenant_policies_pool_idx ON gpualloc.tenant_policies (pool_id);

-- Fair-share usage rolled up: each tenant's decayed GPU-hours per pool as of
-- one moment, over every allocation row that had ended by then (change sets
-- up to seq) and the part before it of the rows still open, and the GPUs
-- its jobs held then.  A later computation decays it, counts those GPUs as
-- held since, and corrects by the rows of the change sets since (rows begun,
-- rows ended), so its cost follows the recent changes, not the whole history
-- nor the cluster's size.  Derived data: rebuilt from allocations when
-- missing or made with another half-life.
CREATE TABLE gpualloc_internal.usage_rollup_state (
	one_row		boolean PRIMARY KEY DEFAULT true CHECK (one_row),
	as_of		timestamptz NOT NULL,
	seq			bigint NOT NULL,
	half_life	interval NOT NULL
);
CREATE TABLE gpualloc_internal.usage_rollup (
	tenant		name NOT NULL REFERENCES gpualloc.tenants ON DELETE CASCADE,
	pool_id		integer NOT NULL REFERENCES gpualloc.pools ON DELETE CASCADE,
	usage		double precision NOT NULL,
	gpus		integer NOT NULL DEFAULT 0 CHECK (gpus >= 0),
	PRIMARY KEY (tenant, pool_id)
);
ALTER TABLE gpualloc.tenant_policies ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_policies_admin_all ON gpualloc.tenant_policies TO gpualloc_admin
	USING (true) WITH CHECK (true);
CREATE POLICY tenant_policies_submitter_own_tenant ON gpualloc.tenant_policies FOR SELECT TO gpualloc_submitter
	USING (tenant IN (SELECT r.rolname FROM pg_catalog.pg_roles r
					  WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')));
SELECT pg_catalog.pg_extension_config_dump('gpualloc.tenant_policies', '');
-- Advance reservations: a GPU range of a pool (topology indexes first_gpu ..
-- first_gpu + gpus - 1; gpus NULL: to the pool's end, nodes added later
-- included) held for one tenant from starts_at to ends_at.  Only that
-- tenant's jobs are placed there meanwhile; other jobs only when they end
-- before it begins; services not at all.
CREATE TABLE gpualloc.advance_reservations (
	reservation_id serial PRIMARY KEY,
	tenant		name NOT NULL REFERENCES gpualloc.tenants ON DELETE CASCADE,
	pool_id		integer NOT NULL REFERENCES gpualloc.pools ON DELETE CASCADE,
	first_gpu	integer NOT NULL DEFAULT 0,
	gpus		integer,
	starts_at	timestamptz NOT NULL,
	ends_at		timestamptz NOT NULL,
	reason		text NOT NULL DEFAULT '',
	created_at	timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT advance_reservations_first_gpu CHECK (first_gpu >= 0),
	CONSTRAINT advance_reservations_gpus CHECK (gpus IS NULL OR (gpus >= 1 AND first_gpu + gpus > first_gpu)),
	CONSTRAINT advance_reservations_finite CHECK (isfinite(starts_at) AND isfinite(ends_at)),
	CONSTRAINT advance_reservations_order CHECK (ends_at > starts_at),
	CONSTRAINT advance_reservations_reason CHECK (octet_length(reason) <= 1000)
);
CREATE INDEX advance_reservations_pool_idx ON gpualloc.advance_reservations (pool_id, ends_at);
CREATE INDEX advance_reservations_tenant_idx ON gpualloc.advance_reservations (tenant);
-- A tenant's members see its reservations; admins see all.
ALTER TABLE gpualloc.advance_reservations ENABLE ROW LEVEL SECURITY;
CREATE POLICY advance_reservations_admin_all ON gpualloc.advance_reservations TO gpualloc_admin
	USING (true) WITH CHECK (true);
CREATE POLICY advance_reservations_own_tenant ON gpualloc.advance_reservations FOR SELECT
	TO gpualloc_reader, gpualloc_submitter, gpualloc_executor
	USING (tenant IN (SELECT r.rolname FROM pg_catalog.pg_roles r
					  WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')));
SELECT pg_catalog.pg_extension_config_dump('gpualloc.advance_reservations', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.advance_reservations_reservation_id_seq', '');
-- Jobs of several GPU models: each job's further pools, and its first
-- choice while it is on another.
ALTER TABLE gpualloc.jobs ADD COLUMN requested_pool_id integer REFERENCES gpualloc.pools ON DELETE SET NULL;
CREATE TABLE gpualloc.job_pools (
	job_id		bigint NOT NULL REFERENCES gpualloc.jobs ON DELETE CASCADE,
	pool_id		integer NOT NULL REFERENCES gpualloc.pools ON DELETE CASCADE,
	preference	integer NOT NULL,
	est_work_gpu_hours double precision NOT NULL,
	est_method	text NOT NULL,
	PRIMARY KEY (job_id, pool_id),
	CONSTRAINT job_pools_preference UNIQUE (job_id, preference),
	CONSTRAINT job_pools_preference_range CHECK (preference BETWEEN 1 AND 3),
	CONSTRAINT job_pools_work_positive CHECK (est_work_gpu_hours > 0 AND est_work_gpu_hours <= 1e7)
);
CREATE INDEX job_pools_pool_idx ON gpualloc.job_pools (pool_id);
ALTER TABLE gpualloc.job_pools ENABLE ROW LEVEL SECURITY;
CREATE POLICY job_pools_admin_all ON gpualloc.job_pools TO gpualloc_admin
	USING (true) WITH CHECK (true);
CREATE POLICY job_pools_submitter_own_tenant ON gpualloc.job_pools FOR SELECT TO gpualloc_submitter
	USING (job_id IN (SELECT j.job_id FROM gpualloc.jobs j));
SELECT pg_catalog.pg_extension_config_dump('gpualloc.job_pools', '');

-- The rules of a job row: one CHECK calling C (src/pg/job_rules.c) in place
-- of the CHECK per rule that 0.1 and the steps above gave the table; every
-- row already keeps each of them.
CREATE FUNCTION gpualloc_internal.job_row_rules(kind text, priority double precision, gpus_min integer,
												gpus_max integer, features jsonb, status text,
												started_at timestamptz, finished_at timestamptz,
												block_first integer, block_size integer, booked_at timestamptz,
												command text, time_limit interval, not_before timestamptz,
												deadline timestamptz, est_work_gpu_hours double precision)
RETURNS boolean
-- it runs no SQL, but every function pins its search_path
SET search_path = pg_catalog, gpualloc, pg_temp
AS 'MODULE_PATHNAME', 'gpualloc_job_row_rules'
LANGUAGE C IMMUTABLE PARALLEL SAFE CALLED ON NULL INPUT;
DO $$
DECLARE
	c name;
BEGIN
	FOR c IN SELECT k.conname FROM pg_catalog.pg_constraint k
			 WHERE k.conrelid = 'gpualloc.jobs'::pg_catalog.regclass AND k.contype = 'c' LOOP
		EXECUTE pg_catalog.format('ALTER TABLE gpualloc.jobs DROP CONSTRAINT %I', c);
	END LOOP;
END
$$;
ALTER TABLE gpualloc.jobs ADD CONSTRAINT jobs_rules CHECK (gpualloc_internal.job_row_rules(kind, priority, gpus_min,
	gpus_max, features, status, started_at, finished_at, block_first, block_size, booked_at, command, time_limit,
	not_before, deadline, est_work_gpu_hours));

-- 0.2's code follows.
