-- gpualloc schema: the cluster, its work, the plans and the committed allocation.
-- Complain if the script is sourced in psql rather than via CREATE EXTENSION.
\echo Use "CREATE EXTENSION gpualloc CASCADE" to load this file. \quit

-- CREATE EXTENSION puts the schemas of required extensions (btree_gist's,
-- often a writable public) on the search_path: every name below, in tables,
-- constraints, indexes, views and functions, must bind to the catalog and
-- the extension only.  The setting ends with the script.
SET LOCAL search_path = pg_catalog, gpualloc, pg_temp;

-- gpualloc lives in schema gpualloc.  PostgreSQL refuses another SCHEMA for
-- it, except with CASCADE, where it installs gpualloc in gpualloc anyway and
-- puts the extensions it requires into the schema asked for: refuse that too.
DO $$
DECLARE
	asked text := substring(pg_catalog.current_query()
							FROM '(?i)create\s+extension\s+(?:if\s+not\s+exists\s+)?"?gpualloc"?\s.*?\mschema\M\s+("[^"]+"|[A-Za-z_][A-Za-z0-9_$]*)');
BEGIN
	IF asked IS NOT NULL
	   AND (CASE WHEN asked LIKE '"%' THEN btrim(asked, '"') ELSE lower(asked) END) <> 'gpualloc' THEN
		RAISE EXCEPTION 'extension "gpualloc" must be installed in schema "gpualloc", not %', asked
			USING ERRCODE = 'feature_not_supported',
				  HINT = 'Run CREATE EXTENSION gpualloc CASCADE without SCHEMA; btree_gist may be created in any schema beforehand.';
	END IF;
END
$$;

-- Roles are cluster-wide, so they are created only when missing and outlive
-- the extension (see 99_security.sql for what each may do).
DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['gpualloc_admin', 'gpualloc_submitter', 'gpualloc_executor', 'gpualloc_reader'] LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
			EXECUTE format('CREATE ROLE %I NOLOGIN', r);
		END IF;
	END LOOP;
END
$$;

-- Internals (helpers, the commit path, checks) live in a schema of their own
-- that no role but the extension's owner can use: gpualloc shows only the
-- API.
CREATE SCHEMA gpualloc_internal;
REVOKE ALL ON SCHEMA gpualloc_internal FROM PUBLIC;

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

-- The tenants: database roles registered to own jobs.  Members of a tenant's
-- role share its jobs.  max_priority bounds the priority its jobs may ask for
-- (NULL: gpualloc.max_priority).
CREATE TABLE gpualloc.tenants (
	tenant		name PRIMARY KEY,
	max_priority double precision CHECK (max_priority > 0 AND max_priority <= 1e6),
	created_at	timestamptz NOT NULL DEFAULT now()
);

-- The rules of a row of gpualloc.jobs, in C (src/pg/job_rules.c): the
-- table's one CHECK calls it.  Here with the tables rather than with the
-- code (02 to 99), as the constraint needs it before the table exists.
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

-- Batch work: training, batch inference, quantization.
CREATE TABLE gpualloc.jobs (
	job_id		bigserial PRIMARY KEY,
	name		text NOT NULL,
	kind		text NOT NULL,
	tenant		name NOT NULL REFERENCES gpualloc.tenants,
	pool_id		integer NOT NULL REFERENCES gpualloc.pools,
	priority	double precision NOT NULL,
	gpus_min	integer NOT NULL,
	gpus_max	integer NOT NULL,
	submitted_at timestamptz NOT NULL DEFAULT now(),
	not_before	timestamptz,
	deadline	timestamptz,
	features	jsonb NOT NULL DEFAULT '{}',
	-- what the duration forecaster expects, at est_gpus GPUs
	est_gpus	integer,
	est_hours_p10 double precision,
	est_hours_p50 double precision,
	est_hours_p90 double precision,
	est_work_gpu_hours double precision,
	est_method	text,
	-- queued: waiting; booked: the allocation gives it a block and the
	-- executor has not started it yet; running; then one of the three ends
	status		text NOT NULL DEFAULT 'queued',
	started_at	timestamptz,
	finished_at	timestamptz,
	-- the block the job runs on: topology indexes [block_first, block_first + block_size)
	block_first	integer,
	block_size	integer,
	status_message text,
	-- since 0.2 (appended, so an upgraded table has the same shape):
	booked_at	timestamptz,
	-- what the executor runs (a shell command line); NULL: the executor knows
	command		text,
	-- runs lost to a failed GPU: how many, and their GPU-hours
	requeues	integer NOT NULL DEFAULT 0,
	lost_gpu_hours double precision NOT NULL DEFAULT 0,
	-- a hard limit on the run: past started_at + time_limit the job is
	-- stopped (failed) and its GPUs freed; NULL: none
	time_limit	interval,
	-- the job's first-choice pool while it is booked or running on one of
	-- its alternative pools (gpualloc.job_pools; pool_id then names the pool
	-- it is on); NULL while pool_id is its first choice
	requested_pool_id integer REFERENCES gpualloc.pools ON DELETE SET NULL,
	-- every rule of a row in one call: kind, status and features of their
	-- kinds; priority positive and finite; gpus_min and gpus_max powers of
	-- two, in order; command at most 8 kB; time_limit positive; deadline
	-- after not_before; est_work_gpu_hours in (0, 1e7]; the block aligned;
	-- a running job started on a block; booked_at set exactly while booked;
	-- finished_at not before started_at (src/pg/job_rules.c, and why one call)
	CONSTRAINT jobs_rules CHECK (gpualloc_internal.job_row_rules(kind, priority, gpus_min, gpus_max, features,
		status, started_at, finished_at, block_first, block_size, booked_at, command, time_limit,
		not_before, deadline, est_work_gpu_hours))
);
CREATE INDEX jobs_status_idx ON gpualloc.jobs (status, priority DESC, submitted_at);
CREATE INDEX jobs_tenant_idx ON gpualloc.jobs (tenant);
-- what a plan reads of the queue, in the order it considers it, per pool and
-- smallest size (gpualloc.queue_depth, src/pg/queue_depth.c)
CREATE INDEX jobs_queue_idx ON gpualloc.jobs (pool_id, gpus_min, priority DESC, job_id)
	WHERE status = 'queued' AND est_work_gpu_hours IS NOT NULL;
-- the queued jobs a plan leaves out for want of an estimate: few, counted often
CREATE INDEX jobs_without_estimate_idx ON gpualloc.jobs (job_id)
	WHERE status IN ('queued', 'booked') AND est_work_gpu_hours IS NULL;
-- the estimators' history: the most recent finished jobs of a kind
CREATE INDEX jobs_history_idx ON gpualloc.jobs (kind, finished_at DESC, job_id DESC)
	WHERE status = 'succeeded';

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
	-- whole UTC hours, whatever the session's time zone (an hour of a
	-- +05:30 zone is not one)
	CONSTRAINT demand_hour_aligned CHECK (date_trunc('hour', hour, 'UTC') = hour)
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
-- No foreign keys: the planner alone writes these rows, in the transaction
-- that inserted their run, for pools it has just read; triggers on plan_runs
-- and pools delete them with their run or pool (08_planning.sql).
CREATE TABLE gpualloc.plan_blocks (
	plan_id		bigint NOT NULL,
	pool_id		integer NOT NULL,
	job_id		bigint,
	service_id	integer,
	gpu_first	integer NOT NULL,
	gpu_count	integer NOT NULL CHECK (gpu_count > 0),
	step_first	integer NOT NULL CHECK (step_first >= 0),
	step_count	integer NOT NULL CHECK (step_count > 0),
	CONSTRAINT plan_blocks_one_workload CHECK (num_nonnulls(job_id, service_id) = 1)
);
-- A plan's blocks, and a job's among them (the planned queue, plan
-- history, the plan picture): one index, as every reader names the plan; a
-- second on job_id alone cost a fifth of storing a plan (9 of 31 ms for
-- 8,000 jobs' blocks).
CREATE INDEX plan_blocks_plan_idx ON gpualloc.plan_blocks (plan_id, job_id);

-- Every change to the allocation is one change set: a sequence number, the
-- commit moment it took effect, and why.  Consumers read changes by sequence
-- (gpualloc.allocation_changes) and so never miss one.
CREATE TABLE gpualloc.allocation_commits (
	seq			bigint PRIMARY KEY CHECK (seq > 0),
	at			timestamptz NOT NULL,
	reason		text NOT NULL,
	plan_id		bigint,
	gpus_changed integer NOT NULL
);

-- The committed allocation other systems read: a GPU, a workload, a time range.
-- A row is open (end_seq NULL, during unbounded above) while in force; the
-- change set that began it and the one that ended it are recorded.  The
-- exclusion constraint makes the database refuse a GPU booked twice.
CREATE TABLE gpualloc.allocations (
	allocation_id bigserial PRIMARY KEY,
	gpu_id		integer NOT NULL REFERENCES gpualloc.gpus ON DELETE CASCADE,
	job_id		bigint REFERENCES gpualloc.jobs ON DELETE CASCADE,
	service_id	integer REFERENCES gpualloc.services ON DELETE CASCADE,
	plan_id		bigint REFERENCES gpualloc.plan_runs ON DELETE SET NULL,
	during		tstzrange NOT NULL,
	created_at	timestamptz NOT NULL DEFAULT now(),
	begin_seq	bigint NOT NULL,	-- 0: history from before the change log
	end_seq		bigint,
	CONSTRAINT allocations_open_until_ended CHECK ((end_seq IS NULL) = upper_inf(during)),
	CONSTRAINT allocations_one_workload CHECK (num_nonnulls(job_id, service_id) = 1),
	CONSTRAINT allocations_not_empty CHECK (NOT isempty(during)),
	CONSTRAINT allocations_no_double_booking EXCLUDE USING gist (gpu_id WITH =, during WITH &&)
);
CREATE INDEX allocations_job_idx ON gpualloc.allocations (job_id) WHERE job_id IS NOT NULL;
-- deleting an old plan run clears plan_id of the rows it committed
CREATE INDEX allocations_plan_idx ON gpualloc.allocations (plan_id) WHERE plan_id IS NOT NULL;
CREATE UNIQUE INDEX allocations_open_gpu_idx ON gpualloc.allocations (gpu_id) WHERE end_seq IS NULL;
CREATE INDEX allocations_begin_seq_idx ON gpualloc.allocations (begin_seq);
CREATE INDEX allocations_end_seq_idx ON gpualloc.allocations (end_seq) WHERE end_seq IS NOT NULL;
CREATE INDEX allocations_service_idx ON gpualloc.allocations (service_id) WHERE service_id IS NOT NULL;

-- A tenant runs at most one active job of a given name.
CREATE UNIQUE INDEX jobs_active_name_idx ON gpualloc.jobs (tenant, name)
	WHERE status IN ('queued', 'booked', 'running');

-- Months of history: allocations by time, demand by hour.
CREATE INDEX allocations_during_idx ON gpualloc.allocations USING gist (during);
CREATE INDEX allocations_lower_idx ON gpualloc.allocations (lower(during));
CREATE INDEX demand_history_hour_idx ON gpualloc.demand_history (hour);

-- A job waits for earlier jobs (Slurm's --dependency=afterok/afterany): it is
-- placed only once each has ended (after_ok: succeeded).  A job may only wait
-- for a job submitted before it, so the links never form a cycle.
CREATE TABLE gpualloc.job_dependencies (
	job_id		bigint NOT NULL REFERENCES gpualloc.jobs ON DELETE CASCADE,
	after_job_id bigint NOT NULL REFERENCES gpualloc.jobs ON DELETE CASCADE,
	kind		text NOT NULL CHECK (kind IN ('after_ok', 'after_any')),
	PRIMARY KEY (job_id, after_job_id),
	CONSTRAINT job_dependencies_earlier CHECK (after_job_id < job_id)
);
CREATE INDEX job_dependencies_after_idx ON gpualloc.job_dependencies (after_job_id);

-- Pools a job may also run on, after its first (jobs.pool_id, or
-- jobs.requested_pool_id while it is on another), in preference order, each
-- with the job's estimated work there.
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
-- Per-tenant policy in a pool: a guarantee of GPUs, a limit, whether and how
-- far it may borrow above its guarantee, its fair-share weight and the
-- cohort it lends to and borrows from.  Set through
-- gpualloc.set_tenant_policy, which also keeps a pool's guarantees within its
-- GPUs.
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

ALTER TABLE gpualloc.jobs ENABLE ROW LEVEL SECURITY;

CREATE POLICY jobs_admin_all ON gpualloc.jobs TO gpualloc_admin
	USING (true) WITH CHECK (true);

-- A submitter sees the jobs of every tenant role it is a member of.
CREATE POLICY jobs_submitter_own_tenant ON gpualloc.jobs FOR SELECT TO gpualloc_submitter
	USING (tenant IN (SELECT r.rolname FROM pg_catalog.pg_roles r
					  WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')));

-- A job's links are seen by whoever sees the job.
ALTER TABLE gpualloc.job_dependencies ENABLE ROW LEVEL SECURITY;
CREATE POLICY job_dependencies_admin_all ON gpualloc.job_dependencies TO gpualloc_admin
	USING (true) WITH CHECK (true);
CREATE POLICY job_dependencies_submitter_own_tenant ON gpualloc.job_dependencies FOR SELECT TO gpualloc_submitter
	USING (job_id IN (SELECT j.job_id FROM gpualloc.jobs j));

-- A job's further pools likewise.
ALTER TABLE gpualloc.job_pools ENABLE ROW LEVEL SECURITY;
CREATE POLICY job_pools_admin_all ON gpualloc.job_pools TO gpualloc_admin
	USING (true) WITH CHECK (true);
CREATE POLICY job_pools_submitter_own_tenant ON gpualloc.job_pools FOR SELECT TO gpualloc_submitter
	USING (job_id IN (SELECT j.job_id FROM gpualloc.jobs j));
-- A tenant's policies are seen by its members.
ALTER TABLE gpualloc.tenant_policies ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_policies_admin_all ON gpualloc.tenant_policies TO gpualloc_admin
	USING (true) WITH CHECK (true);
CREATE POLICY tenant_policies_submitter_own_tenant ON gpualloc.tenant_policies FOR SELECT TO gpualloc_submitter
	USING (tenant IN (SELECT r.rolname FROM pg_catalog.pg_roles r
					  WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')));

SELECT pg_catalog.pg_extension_config_dump('gpualloc.pools', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.pools_pool_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.gpus', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.gpus_gpu_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.tenants', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.maintenance_windows', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.maintenance_windows_window_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.jobs', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.jobs_job_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.job_dependencies', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.job_pools', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.services', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.services_service_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.demand_history', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.plan_runs', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.plan_runs_plan_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.plan_blocks', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.allocations', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.allocations_allocation_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('gpualloc.allocation_commits', '');
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
