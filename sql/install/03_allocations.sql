-- The one commit path of the allocation, its change feed and its integrity
-- check.
--
-- Every write to gpualloc.allocations (a planner's step, the submit fast
-- path, an executor's start and finish, a cancel, a GPU failing, a booking
-- expiring or rejected, a service removed) goes through
-- gpualloc_internal.allocations_set, under one transaction-level lock, at one commit
-- moment.  The lock is taken before any job row is locked, by every caller,
-- so the planner and the executors never deadlock; rows begin and end at the
-- commit moment taken under the lock (never a transaction's start), so a
-- report that commits while a plan is being solved can never leave the two
-- overlapping.

-- Take the commit lock.  Read committed is required: each statement after the
-- lock then sees what the previous holder committed.
CREATE FUNCTION gpualloc_internal.commit_lock() RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION 'gpualloc changes the allocation only in READ COMMITTED transactions'
			USING ERRCODE = 'invalid_transaction_state',
				  DETAIL = pg_catalog.format('This transaction is %s.', pg_catalog.current_setting('transaction_isolation')),
				  HINT = 'Call it outside an explicit REPEATABLE READ or SERIALIZABLE transaction.';
	END IF;
	PERFORM pg_catalog.pg_advisory_xact_lock(1735423330);	-- GPUALLOC_COMMIT_LOCK_KEY
END
$$;

-- The sequence number of the last committed change set (0: none yet).
CREATE FUNCTION gpualloc.allocation_seq() RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$ SELECT coalesce(max(seq), 0) FROM gpualloc.allocation_commits $$;

-- Make the open row of each listed GPU carry the given workload: jobs[i] or
-- services[i], idle when both are NULL (the two arrays may be shorter than
-- gpus; missing entries are NULL).  GPUs whose row already says so are left
-- alone.  Changed rows end and begin at one commit moment, get one new
-- sequence number, and a NOTIFY lists them.  Jobs follow their rows: a queued
-- job given rows is booked, a booked job left without rows is queued again.
-- Returns the number of GPUs changed.
CREATE FUNCTION gpualloc_internal.allocations_set(gpus integer[], jobs bigint[], services integer[],
										  reason text, plan_id bigint DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	c_gpus integer[];
	c_jobs bigint[];
	c_svcs integer[];
	c_old bigint[];
	touched bigint[];
	bad bigint;
	v_seq bigint;
	v_at timestamptz;
	payload text;
BEGIN
	PERFORM gpualloc_internal.commit_lock();
	SELECT coalesce(pg_catalog.array_agg(w.gpu_id ORDER BY w.gpu_id), '{}'),
		   pg_catalog.array_agg(w.job_id ORDER BY w.gpu_id),
		   pg_catalog.array_agg(w.service_id ORDER BY w.gpu_id),
		   coalesce(pg_catalog.array_agg(a.allocation_id) FILTER (WHERE a.allocation_id IS NOT NULL), '{}'),
		   coalesce(pg_catalog.array_agg(a.job_id) FILTER (WHERE a.job_id IS NOT NULL), '{}')
	INTO c_gpus, c_jobs, c_svcs, c_old, touched
	FROM (SELECT DISTINCT ON (u.gpu_id) u.gpu_id, u.job_id, u.service_id
		  FROM ROWS FROM (pg_catalog.unnest(gpus), pg_catalog.unnest(jobs), pg_catalog.unnest(services)) AS u(gpu_id, job_id, service_id)
		  WHERE u.gpu_id IS NOT NULL ORDER BY u.gpu_id) w
	LEFT JOIN gpualloc.allocations a ON a.gpu_id = w.gpu_id AND a.end_seq IS NULL
	WHERE a.job_id IS DISTINCT FROM w.job_id OR a.service_id IS DISTINCT FROM w.service_id;
	IF pg_catalog.cardinality(c_gpus) = 0 THEN
		RETURN 0;
	END IF;
	touched := ARRAY(SELECT DISTINCT x FROM pg_catalog.unnest(c_jobs || touched) x WHERE x IS NOT NULL ORDER BY x);
	SELECT j.job_id INTO bad FROM gpualloc.jobs j
	WHERE j.job_id = ANY (c_jobs) AND j.status NOT IN ('queued', 'booked', 'running')
	LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'job % is no longer queued, booked or running: it cannot be allocated', bad
			USING ERRCODE = 'object_not_in_prerequisite_state';
	END IF;

	SELECT coalesce(pg_catalog.max(c.seq), 0) + 1,
		   greatest(pg_catalog.clock_timestamp(), pg_catalog.max(c.at) + interval '1 microsecond')
	INTO v_seq, v_at
	FROM (SELECT * FROM gpualloc.allocation_commits ORDER BY seq DESC LIMIT 1) c;

	UPDATE gpualloc.allocations
	SET during = pg_catalog.tstzrange(pg_catalog.lower(during), v_at), end_seq = v_seq
	WHERE allocation_id = ANY (c_old);
	INSERT INTO gpualloc.allocations (gpu_id, job_id, service_id, plan_id, during, begin_seq)
	SELECT w.gpu_id, w.job_id, w.service_id, allocations_set.plan_id, pg_catalog.tstzrange(v_at, NULL), v_seq
	FROM ROWS FROM (pg_catalog.unnest(c_gpus), pg_catalog.unnest(c_jobs), pg_catalog.unnest(c_svcs)) AS w(gpu_id, job_id, service_id)
	WHERE w.job_id IS NOT NULL OR w.service_id IS NOT NULL;

	-- one pass over the touched jobs: booked when they hold rows, queued when
	-- not.  A booking names the pool it is on (pool_id), the first choice
	-- kept in requested_pool_id while that is another of the job's pools; a
	-- job queued again (its booking moved or released, a GPU of its run
	-- failed) is back on its first choice, with all its pools open again.
	-- A job given rows just now holds them (its pool is theirs); only a job
	-- whose rows ended is looked up, as it may hold GPUs this call left
	-- alone.  (Looking every job up cost 0.25 ms a job when a first plan
	-- booked hundreds at once: the rows inserted above are not in the
	-- table's statistics yet.)
	UPDATE gpualloc.jobs j
	SET status = CASE WHEN h.held THEN 'booked' ELSE 'queued' END,
		booked_at = CASE WHEN h.held THEN coalesce(j.booked_at, v_at) END,
		pool_id = CASE WHEN h.held THEN h.pool_id ELSE coalesce(j.requested_pool_id, j.pool_id) END,
		requested_pool_id = CASE WHEN h.held AND h.pool_id <> coalesce(j.requested_pool_id, j.pool_id)
								 THEN coalesce(j.requested_pool_id, j.pool_id) END
	FROM (SELECT t.job_id, coalesce(n.pool_id, o.pool_id) AS pool_id,
				 coalesce(n.pool_id, o.pool_id) IS NOT NULL AS held
		  FROM pg_catalog.unnest(touched) AS t(job_id)
		  LEFT JOIN (SELECT DISTINCT ON (w.job_id) w.job_id, g.pool_id
					 FROM ROWS FROM (pg_catalog.unnest(c_gpus), pg_catalog.unnest(c_jobs)) AS w(gpu_id, job_id)
					 JOIN gpualloc.gpus g ON g.gpu_id = w.gpu_id
					 WHERE w.job_id IS NOT NULL
					 ORDER BY w.job_id) n ON n.job_id = t.job_id
		  LEFT JOIN LATERAL (SELECT g.pool_id FROM gpualloc.allocations a JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id
							 WHERE n.job_id IS NULL AND a.job_id = t.job_id AND a.end_seq IS NULL LIMIT 1) o ON true) h
	WHERE j.job_id = h.job_id
	  AND ((j.status = 'queued' AND h.held) OR (j.status = 'booked' AND NOT h.held)
		   OR (j.status = 'booked' AND h.held AND h.pool_id <> j.pool_id)
		   OR (j.status = 'queued' AND NOT h.held AND j.requested_pool_id IS NOT NULL));

	INSERT INTO gpualloc.allocation_commits (seq, at, reason, plan_id, gpus_changed)
	VALUES (v_seq, v_at, reason, allocations_set.plan_id, pg_catalog.cardinality(c_gpus));

	-- a hint to re-read: ids only, never names; past the payload limit the
	-- lists are left out and the consumer reads allocation_changes()
	payload := pg_catalog.json_build_object('seq', v_seq, 'reason', reason, 'plan_id', allocations_set.plan_id,
											'gpus', c_gpus, 'jobs', touched, 'truncated', false)::text;
	IF pg_catalog.octet_length(payload) > 7900 THEN
		payload := pg_catalog.json_build_object('seq', v_seq, 'reason', reason, 'plan_id', allocations_set.plan_id,
												'gpus', '{}'::integer[], 'jobs', '{}'::bigint[], 'truncated', true)::text;
	END IF;
	PERFORM pg_catalog.pg_notify('gpualloc', payload);
	RETURN pg_catalog.cardinality(c_gpus);
END
$$;

-- End every open row of a job (it finished, was cancelled, rejected, or lost
-- its GPU).  Returns the number of GPUs freed.
CREATE FUNCTION gpualloc_internal.release_job(p_job_id bigint, reason text) RETURNS integer
LANGUAGE sql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	SELECT gpualloc_internal.allocations_set(coalesce(pg_catalog.array_agg(a.gpu_id), '{}'), '{}', '{}', reason)
	FROM gpualloc.allocations a
	WHERE a.job_id = p_job_id AND a.end_seq IS NULL
$$;

-- A planner's step 0, written around whatever changed since the planner read
-- the tables.  wanted: the plan's workload per GPU; known_bookings: the jobs
-- that were booked when the plan was made (only a plan books a job that is
-- already queued, and one planner runs at a time, so any other booking is a
-- submit during the solve; passing these, not every queued job, keeps the
-- lookup small however long the queue).  Under the commit lock it re-reads
-- jobs and GPUs:
--   - a running job's rows, and a booking the plan did not know of (a submit
--     during the solve), are kept whatever the plan says;
--   - a job is booked only when it is still queued or booked, every job it
--     waits for has ended, and its whole block is up and free of such rows; otherwise the plan's GPUs for it stay
--     with what holds them, or go idle when that was a booking the plan moved;
--   - a service takes only GPUs that are up (or that it already holds on a
--     drained GPU) and that no kept row holds;
--   - a booked job the plan moved or left out loses its old rows and is
--     queued again.
-- Returns the number of GPUs changed.
--
-- Past 256 GPUs its decision (the first statement) is planned for each
-- call's arrays.  A saved generic plan counts every array as 10 elements
-- (it cannot see them), so from a session's sixth commit on it looked each
-- GPU up by an index probe: about 8 us a GPU, 135 ms more than hash joins
-- at 16,384 GPUs.  Planning for the arrays costs 1 to 2 ms, which pays from
-- about 200 GPUs; below that the saved plan stays, and the commit lock is
-- not held for planning.  The setting ends with the decision: the rows
-- allocations_set writes each fire foreign-key checks, saved queries that
-- it would plan once a row (at 10,000 GPUs, 600 ms more).
CREATE FUNCTION gpualloc_internal.commit_plan_step(p_plan_id bigint, gpus integer[], jobs bigint[],
										   services integer[], known_bookings bigint[])
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
SET plan_cache_mode = auto
AS $$
DECLARE
	d_gpus integer[];
	d_jobs bigint[];
	d_svcs integer[];
BEGIN
	IF pg_catalog.cardinality(gpus) > 256 THEN
		-- local to this call: the SET clause above restores it on return
		PERFORM pg_catalog.set_config('plan_cache_mode', 'force_custom_plan', true);
	END IF;
	PERFORM gpualloc_internal.commit_lock();
	WITH known AS (
		SELECT DISTINCT u.job_id FROM pg_catalog.unnest(known_bookings) AS u(job_id)
	), now_held AS MATERIALIZED (
		-- GPUs and services removed while the plan was solved are still in
		-- it: a GPU gone is 'removed' (no job is booked on a block that lost
		-- one), a service gone wants nothing
		SELECT w.gpu_id, w.job_id AS want_job, ws.service_id AS want_svc, coalesce(g.state, 'removed') AS state,
			   a.job_id AS have_job, a.service_id AS have_svc,
			   (w.job_id IS DISTINCT FROM a.job_id OR ws.service_id IS DISTINCT FROM a.service_id
				OR g.state IS DISTINCT FROM 'up') AS differs
		FROM ROWS FROM (pg_catalog.unnest(gpus), pg_catalog.unnest(jobs), pg_catalog.unnest(services)) AS w(gpu_id, job_id, service_id)
		LEFT JOIN gpualloc.gpus g ON g.gpu_id = w.gpu_id
		LEFT JOIN gpualloc.services ws ON ws.service_id = w.service_id
		LEFT JOIN gpualloc.allocations a ON a.gpu_id = w.gpu_id AND a.end_seq IS NULL
	), touched AS MATERIALIZED (
		SELECT DISTINCT x.job_id
		FROM now_held h, LATERAL (VALUES (h.want_job), (h.have_job)) AS x(job_id)
		WHERE h.differs AND x.job_id IS NOT NULL
	), cur AS (
		-- A GPU that is up and already holds what the plan wants, of a job
		-- none of whose GPUs change, is decided "no change" by every rule
		-- below; leaving such GPUs out makes a re-plan that changes little
		-- cost little however many GPUs the cluster has.
		SELECT h.gpu_id, h.want_job, h.want_svc, h.state, h.have_job, h.have_svc,
			   (h.have_job IS NULL OR (hj.status = 'booked' AND k.job_id IS NOT NULL)) AS movable
		FROM now_held h
		LEFT JOIN gpualloc.jobs hj ON hj.job_id = h.have_job
		-- a join, not "= ANY (known_bookings)": a lookup per GPU, not a scan of every booking
		LEFT JOIN known k ON k.job_id = h.have_job
		WHERE h.differs OR h.want_job IN (SELECT t.job_id FROM touched t)
	), ok_jobs AS MATERIALIZED (
		-- once: the decision below names it in three places
		SELECT c.want_job FROM cur c JOIN gpualloc.jobs j ON j.job_id = c.want_job
		WHERE j.status IN ('queued', 'booked')
		  -- never a job whose predecessor has not ended (after_ok: succeeded)
		  AND NOT EXISTS (SELECT 1 FROM gpualloc.job_dependencies d JOIN gpualloc.jobs p ON p.job_id = d.after_job_id
						  WHERE d.job_id = j.job_id
							AND (p.status IN ('queued', 'booked', 'running')
								 OR (d.kind = 'after_ok' AND p.status <> 'succeeded')))
		GROUP BY c.want_job
		HAVING pg_catalog.bool_and(c.state = 'up' AND (c.movable OR c.have_job = c.want_job))
	), decided AS (
		SELECT c.gpu_id, c.want_job, c.want_svc,
			   CASE
				   WHEN c.state = 'removed' THEN 'keep'
				   WHEN NOT c.movable AND c.have_job IS DISTINCT FROM c.want_job THEN 'keep'
				   WHEN c.want_job IN (SELECT o.want_job FROM ok_jobs o) THEN 'job'
				   WHEN c.want_job IS NOT NULL AND NOT c.movable THEN 'keep'
				   WHEN c.want_svc IS NOT NULL AND (c.state = 'up' OR (c.state = 'drain' AND c.have_svc = c.want_svc)) THEN 'service'
				   WHEN c.want_job IS NOT NULL AND c.have_svc IS NOT NULL AND c.state <> 'down' THEN 'keep'
				   ELSE 'idle'
			   END AS what
		FROM cur c
	)
	SELECT coalesce(pg_catalog.array_agg(d.gpu_id), '{}'),
		   coalesce(pg_catalog.array_agg(CASE WHEN d.what = 'job' THEN d.want_job END), '{}'),
		   coalesce(pg_catalog.array_agg(CASE WHEN d.what = 'service' THEN d.want_svc END), '{}')
	INTO d_gpus, d_jobs, d_svcs
	FROM decided d WHERE d.what <> 'keep';
	PERFORM pg_catalog.set_config('plan_cache_mode', 'auto', true);
	RETURN gpualloc_internal.allocations_set(d_gpus, d_jobs, d_svcs, 'plan', p_plan_id);
END
$$;

-- Every row that began or ended after since_seq, in sequence order.
CREATE FUNCTION gpualloc.allocation_changes(since_seq bigint)
RETURNS TABLE (seq bigint, at timestamptz, change text, gpu_id integer, pool text, node integer,
			   slot integer, gpu_index integer, job_id bigint, service text)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF since_seq IS NULL OR since_seq < 0 THEN
		RAISE EXCEPTION 'since_seq must be 0 or a sequence number, got %', coalesce(since_seq::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Start from 0, or from gpualloc.allocation_seq() after reading current_allocation.';
	END IF;
	RETURN QUERY
	SELECT e.seq, c.at, e.change, a.gpu_id, p.name, g.node, g.slot, g.node * p.node_size + g.slot,
		   a.job_id, s.name
	FROM (SELECT a1.allocation_id, a1.begin_seq AS seq, 'begin'::text AS change
		  FROM gpualloc.allocations a1 WHERE a1.begin_seq > since_seq
		  UNION ALL
		  SELECT a2.allocation_id, a2.end_seq, 'end'
		  FROM gpualloc.allocations a2 WHERE a2.end_seq > since_seq) e
	JOIN gpualloc.allocations a ON a.allocation_id = e.allocation_id
	JOIN gpualloc.allocation_commits c ON c.seq = e.seq
	JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id
	JOIN gpualloc.pools p ON p.pool_id = g.pool_id
	LEFT JOIN gpualloc.services s ON s.service_id = a.service_id
	ORDER BY e.seq, e.change DESC, a.gpu_id;
END
$$;

-- Booked jobs not started within gpualloc.booking_timeout go back to the
-- queue (an executor that never starts a job must not hold its GPUs).
-- Returns how many were released.
CREATE FUNCTION gpualloc_internal.expire_bookings() RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	timeout interval := gpualloc_internal.setting('gpualloc.booking_timeout', '10min')::interval;
	j record;
	n integer := 0;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM gpualloc.jobs WHERE status = 'booked'
				   AND booked_at < pg_catalog.clock_timestamp() - timeout) THEN
		RETURN 0;
	END IF;
	PERFORM gpualloc_internal.commit_lock();
	FOR j IN SELECT job_id FROM gpualloc.jobs
			 WHERE status = 'booked' AND booked_at < pg_catalog.clock_timestamp() - timeout
			 ORDER BY job_id FOR UPDATE
	LOOP
		PERFORM gpualloc_internal.release_job(j.job_id, 'booking_timeout');
		UPDATE gpualloc.jobs SET status_message = pg_catalog.format('booking expired: not started within %s', timeout)
		WHERE job_id = j.job_id;
		n := n + 1;
	END LOOP;
	RETURN n;
END
$$;

-- Everything that should never be, one row per finding; empty when the
-- allocation and the jobs agree.
CREATE FUNCTION gpualloc.check_integrity()
RETURNS TABLE (problem text, job_id bigint, gpu_id integer, detail text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	-- open rows of jobs that are neither booked nor running
	SELECT 'open row of ' || j.status || ' job', j.job_id, a.gpu_id, 'allocation ' || a.allocation_id
	FROM gpualloc.allocations a JOIN gpualloc.jobs j ON j.job_id = a.job_id
	WHERE a.end_seq IS NULL AND j.status NOT IN ('booked', 'running')
	UNION ALL
	SELECT 'booked job without rows', j.job_id, NULL, NULL
	FROM gpualloc.jobs j
	WHERE j.status = 'booked'
	  AND NOT EXISTS (SELECT 1 FROM gpualloc.allocations a WHERE a.job_id = j.job_id AND a.end_seq IS NULL)
	UNION ALL
	-- a booking is one aligned block of a size the job accepts, in its pool
	SELECT 'booked job not on one aligned block', b.job_id, NULL,
		   format('%s GPUs from index %s', b.n, b.first)
	FROM (SELECT a.job_id, j.gpus_min, j.gpus_max, j.pool_id,
				 count(*)::integer AS n, min(g.node * p.node_size + g.slot) AS first,
				 max(g.node * p.node_size + g.slot) AS last, bool_and(g.pool_id = j.pool_id) AS same_pool
		  FROM gpualloc.allocations a JOIN gpualloc.jobs j ON j.job_id = a.job_id
		  JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id JOIN gpualloc.pools p ON p.pool_id = g.pool_id
		  WHERE a.end_seq IS NULL AND j.status = 'booked'
		  GROUP BY a.job_id, j.gpus_min, j.gpus_max, j.pool_id) b
	WHERE NOT b.same_pool OR b.n < b.gpus_min OR b.n > b.gpus_max OR (b.n & (b.n - 1)) <> 0
	   OR b.first % b.n <> 0 OR b.last - b.first + 1 <> b.n
	UNION ALL
	SELECT 'running job without rows', j.job_id, NULL, NULL
	FROM gpualloc.jobs j
	WHERE j.status = 'running'
	  AND NOT EXISTS (SELECT 1 FROM gpualloc.allocations a WHERE a.job_id = j.job_id AND a.end_seq IS NULL)
	UNION ALL
	-- a running job holds exactly the GPUs of its block
	SELECT 'running job off its block', j.job_id, a.gpu_id,
		   format('index %s, block [%s, %s)', g.node * p.node_size + g.slot, j.block_first, j.block_first + j.block_size)
	FROM gpualloc.allocations a JOIN gpualloc.jobs j ON j.job_id = a.job_id
	JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id JOIN gpualloc.pools p ON p.pool_id = g.pool_id
	WHERE a.end_seq IS NULL AND j.status = 'running'
	  AND (g.pool_id <> j.pool_id OR g.node * p.node_size + g.slot < j.block_first
		   OR g.node * p.node_size + g.slot >= j.block_first + j.block_size)
	UNION ALL
	SELECT 'running job missing GPUs of its block', j.job_id, NULL,
		   format('%s of %s GPUs', count(a.gpu_id), j.block_size)
	FROM gpualloc.jobs j
	JOIN gpualloc.allocations a ON a.job_id = j.job_id AND a.end_seq IS NULL
	WHERE j.status = 'running'
	GROUP BY j.job_id, j.block_size
	HAVING count(a.gpu_id) <> j.block_size
	UNION ALL
	SELECT 'running jobs on overlapping blocks', j1.job_id, NULL, 'overlaps job ' || j2.job_id
	FROM gpualloc.jobs j1 JOIN gpualloc.jobs j2
	  ON j1.pool_id = j2.pool_id AND j1.job_id < j2.job_id
	 AND j1.block_first < j2.block_first + j2.block_size AND j2.block_first < j1.block_first + j1.block_size
	WHERE j1.status = 'running' AND j2.status = 'running'
	UNION ALL
	SELECT 'open row on a down GPU', a.job_id, a.gpu_id, coalesce('service ' || s.name, 'job ' || a.job_id)
	FROM gpualloc.allocations a JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id
	LEFT JOIN gpualloc.services s ON s.service_id = a.service_id
	WHERE a.end_seq IS NULL AND g.state = 'down'
	UNION ALL
	SELECT 'booking past its timeout', j.job_id, NULL, 'booked at ' || j.booked_at
	FROM gpualloc.jobs j
	WHERE j.status = 'booked'
	  AND j.booked_at < clock_timestamp() - gpualloc_internal.setting('gpualloc.booking_timeout', '10min')::interval
	UNION ALL
	SELECT 'row outside the change log', a.job_id, a.gpu_id, 'allocation ' || a.allocation_id
	FROM gpualloc.allocations a
	-- (sequence 0 is history from before the change log)
	WHERE (a.begin_seq <> 0 AND NOT EXISTS (SELECT 1 FROM gpualloc.allocation_commits c WHERE c.seq = a.begin_seq))
	   OR (a.end_seq <> 0 AND NOT EXISTS (SELECT 1 FROM gpualloc.allocation_commits c WHERE c.seq = a.end_seq))
$$;
