-- Tenant governance: each tenant's policy in a pool (guarantee, limit,
-- borrowing, fair-share weight, cohort) and its fair-share factor, which
-- the planner multiplies into the priority of its queued jobs
-- (src/pg/fairshare.c, docs/model.md "Fair share").

-- Each policy as rules R9 and R10 read it (docs/model.md, Tenant quotas):
-- the guarantee g, the limit (NULL: none), and the borrow limit b: 0 for a
-- tenant that may not borrow or has no cohort to borrow from, 2147483647
-- (no bound) for one that may borrow without a borrow_limit.  The one
-- place the planner, the fast path and the queue's reasons take it from.
CREATE VIEW gpualloc_internal.quota_rules AS
SELECT tp.tenant, tp.pool_id, tp.guarantee AS g, tp.gpu_limit,
	   CASE WHEN NOT tp.may_borrow OR tp.cohort IS NULL THEN 0
			ELSE coalesce(tp.borrow_limit, 2147483647) END AS b,
	   tp.weight, tp.cohort
FROM gpualloc.tenant_policies tp;

-- A policy's GPU counts: a whole number of GPUs, at least 0.
CREATE FUNCTION gpualloc_internal.check_gpu_count(field text, value integer) RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
BEGIN
	IF value < 0 THEN
		RAISE EXCEPTION '% must be 0 or more GPUs, got %', field, value
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
END
$$;

-- The rules between a policy's fields, and the pool's guarantees within its
-- GPUs (the pool row is locked, so two admins cannot both take its last GPUs).
CREATE FUNCTION gpualloc_internal.check_tenant_policy(p_tenant name, p_pool gpualloc.pools, guarantee integer,
													  gpu_limit integer, borrow boolean, borrow_limit integer,
													  weight double precision, cohort text) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	pool_gpus integer;
	others integer;
BEGIN
	IF guarantee IS NULL THEN
		RAISE EXCEPTION 'guarantee must be 0 or more GPUs, got NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	PERFORM gpualloc_internal.check_gpu_count('guarantee', guarantee);
	PERFORM gpualloc_internal.check_gpu_count('limit', gpu_limit);
	IF gpu_limit < guarantee THEN
		RAISE EXCEPTION 'limit (%) must be at least the guarantee (%)', gpu_limit, guarantee
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'A NULL limit means none.';
	END IF;
	IF borrow IS NULL THEN
		RAISE EXCEPTION 'borrow must be true or false, got NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	PERFORM gpualloc_internal.check_gpu_count('borrow_limit', borrow_limit);
	IF NOT borrow AND borrow_limit IS NOT NULL THEN
		RAISE EXCEPTION 'borrow_limit is set but borrow is false'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'A tenant that may not borrow has no borrow limit.';
	END IF;
	IF weight IS NULL OR weight = 'NaN' OR weight < 1e-6 OR weight > 1e6 THEN
		RAISE EXCEPTION 'weight must be a number in [1e-6, 1e6], got %', coalesce(weight::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'Weights are relative: a tenant''s share is its weight over the pool''s sum.';
	END IF;
	IF cohort IS NOT NULL THEN
		PERFORM gpualloc_internal.check_name('cohort', cohort);
	END IF;
	PERFORM 1 FROM gpualloc.pools p WHERE p.pool_id = p_pool.pool_id FOR UPDATE;
	SELECT count(*)::integer INTO pool_gpus FROM gpualloc.gpus g WHERE g.pool_id = p_pool.pool_id;
	SELECT coalesce(sum(tp.guarantee), 0)::integer INTO others FROM gpualloc.tenant_policies tp
	WHERE tp.pool_id = p_pool.pool_id AND tp.tenant <> p_tenant;
	-- a pool that lost GPUs may be guaranteed more than it has (each plan
	-- scales its guarantees down): a change that asks for no more than the
	-- tenant had is let through, so the guarantees can be lowered one by one
	IF others + guarantee > pool_gpus
	   AND guarantee > coalesce((SELECT tp.guarantee FROM gpualloc.tenant_policies tp
								 WHERE tp.pool_id = p_pool.pool_id AND tp.tenant = p_tenant), 0) THEN
		RAISE EXCEPTION 'guarantees of pool "%" would sum to % GPUs; the pool has %',
				p_pool.name, others + guarantee, pool_gpus
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Other tenants are guaranteed %s GPUs; this guarantee asks for %s.',
											 others, guarantee),
				  HINT = 'Lower a guarantee or add nodes to the pool first.';
	END IF;
END
$$;

-- Set (create or replace) a tenant's policy in a pool (admin).
CREATE FUNCTION gpualloc.set_tenant_policy(tenant name, pool text, guarantee integer DEFAULT 0,
										   "limit" integer DEFAULT NULL, borrow boolean DEFAULT true,
										   borrow_limit integer DEFAULT NULL,
										   weight double precision DEFAULT 1, cohort text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools;
BEGIN
	PERFORM gpualloc_internal.require_admin('set a tenant policy');
	IF NOT EXISTS (SELECT 1 FROM gpualloc.tenants t WHERE t.tenant = set_tenant_policy.tenant) THEN
		RAISE EXCEPTION 'tenant "%" is not registered', coalesce(set_tenant_policy.tenant::text, 'NULL')
			USING ERRCODE = 'undefined_object',
				  HINT = 'Register it with gpualloc.add_tenant().';
	END IF;
	p := gpualloc_internal.pool(set_tenant_policy.pool);
	PERFORM gpualloc_internal.check_tenant_policy(set_tenant_policy.tenant, p, set_tenant_policy.guarantee,
		set_tenant_policy."limit", set_tenant_policy.borrow, set_tenant_policy.borrow_limit,
		set_tenant_policy.weight, set_tenant_policy.cohort);
	INSERT INTO gpualloc.tenant_policies AS tp
		(tenant, pool_id, guarantee, gpu_limit, may_borrow, borrow_limit, weight, cohort)
	VALUES (set_tenant_policy.tenant, p.pool_id, set_tenant_policy.guarantee, set_tenant_policy."limit",
			set_tenant_policy.borrow, set_tenant_policy.borrow_limit, set_tenant_policy.weight,
			set_tenant_policy.cohort)
	ON CONFLICT ON CONSTRAINT tenant_policies_pkey DO UPDATE
	SET guarantee = excluded.guarantee, gpu_limit = excluded.gpu_limit, may_borrow = excluded.may_borrow,
		borrow_limit = excluded.borrow_limit, weight = excluded.weight, cohort = excluded.cohort,
		updated_at = now();
END
$$;

-- Drop a tenant's policy in a pool (admin): it falls back to no guarantee,
-- no limit and weight 1.
CREATE FUNCTION gpualloc.remove_tenant_policy(tenant name, pool text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	p gpualloc.pools;
BEGIN
	PERFORM gpualloc_internal.require_admin('remove a tenant policy');
	p := gpualloc_internal.pool(remove_tenant_policy.pool);
	DELETE FROM gpualloc.tenant_policies tp
	WHERE tp.tenant = remove_tenant_policy.tenant AND tp.pool_id = p.pool_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'tenant "%" has no policy in pool "%"',
				coalesce(remove_tenant_policy.tenant::text, 'NULL'), p.name
			USING ERRCODE = 'undefined_object';
	END IF;
END
$$;

-- The most GPUs (a power of two in [gpus_min, gpus_max]) a job of a tenant
-- may take in a pool now without breaking rules R9 and R10 (docs/model.md,
-- Tenant quotas) with the GPUs each tenant holds now: its tenant stays
-- within its limit, and the GPUs held above guarantees that neither the
-- pool's unguaranteed GPUs nor lending within cohorts cover do not rise
-- above what the running jobs left.  A guarantee lends only what neither
-- its tenant's GPUs nor its forecast need over the job's `run` claim.  0
-- when no size may; gpus_max when the pool has no policy.  submit_job's
-- fast path books no larger block.
CREATE FUNCTION gpualloc_internal.quota_max_gpus(p_tenant name, p_pool integer, gpus_min integer,
												 gpus_max integer, run interval DEFAULT interval '0')
RETURNS integer
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
WITH pol AS (
	SELECT r.tenant, r.g, r.gpu_limit, r.b, r.cohort
	FROM gpualloc_internal.quota_rules r WHERE r.pool_id = p_pool
), held AS (
	SELECT j.tenant, count(*)::integer AS u
	FROM gpualloc.gpus g
	JOIN gpualloc.allocations a ON a.gpu_id = g.gpu_id AND a.end_seq IS NULL
	JOIN gpualloc.jobs j ON j.job_id = a.job_id
	WHERE g.pool_id = p_pool AND EXISTS (SELECT 1 FROM pol)
	GROUP BY j.tenant
), needs AS (
	-- the most each needs over the steps of the job's run from the one under way
	SELECT n.tenant, max(n.gpus) AS need
	FROM gpualloc_internal.tenant_needs n
	WHERE n.pool_id = p_pool
	  AND n.step <= ceil(extract(epoch FROM run)
						 / extract(epoch FROM coalesce(pg_catalog.current_setting('gpualloc.step', true),
													   '30min')::interval))
	GROUP BY n.tenant
), tu AS (
	SELECT coalesce(p.tenant, h.tenant) AS tenant, coalesce(h.u, 0) AS u, coalesce(p.g, 0) AS g,
		   p.gpu_limit, coalesce(p.b, 0) AS b, p.cohort,
		   coalesce((SELECT n.need FROM needs n WHERE n.tenant = p.tenant), 0) AS n
	FROM pol p FULL JOIN held h ON h.tenant = p.tenant
	UNION ALL
	SELECT p_tenant, 0, 0, NULL, 0, NULL, 0
	WHERE NOT EXISTS (SELECT 1 FROM pol WHERE tenant = p_tenant)
	  AND NOT EXISTS (SELECT 1 FROM held WHERE tenant = p_tenant)
), sizes AS (
	SELECT 0 AS s
	UNION ALL
	SELECT 1 << k FROM pg_catalog.generate_series(0, 30) k WHERE (1 << k) BETWEEN gpus_min AND gpus_max
), trial AS (
	SELECT z.s, t.tenant, t.u + CASE WHEN t.tenant = p_tenant THEN z.s ELSE 0 END AS u,
		   t.g, t.gpu_limit, t.b, t.cohort, t.n
	FROM sizes z CROSS JOIN tu t
), lent AS (
	SELECT c.s, sum(least(c.br, c.idle)) AS lend
	FROM (SELECT t.s, sum(least(greatest(t.u - t.g, 0), t.b)) AS br, sum(greatest(t.g - greatest(t.u, t.n), 0)) AS idle
		  FROM trial t WHERE t.cohort IS NOT NULL GROUP BY t.s, t.cohort) c
	GROUP BY c.s
), excess AS (
	SELECT t.s,
		   sum(greatest(t.u - t.g, 0))
		   - ((SELECT count(*) FROM gpualloc.gpus g WHERE g.pool_id = p_pool)
			  - (SELECT coalesce(sum(p.g), 0) FROM pol p))
		   - coalesce((SELECT l.lend FROM lent l WHERE l.s = t.s), 0) AS e,
		   bool_and(t.tenant <> p_tenant OR t.gpu_limit IS NULL OR t.u <= t.gpu_limit) AS within_limit
	FROM trial t GROUP BY t.s
)
SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM pol) THEN gpus_max
			ELSE coalesce(max(x.s) FILTER (WHERE x.s > 0 AND x.within_limit AND x.e <= greatest(0, z.e)), 0)::integer
	   END
FROM excess x CROSS JOIN (SELECT e FROM excess WHERE s = 0) z
$$;

-- Each guaranteed tenant's forecast need per pool over the horizon of a
-- plan made now (docs/model.md, Tenant quotas: rule R10 lends no guarantee
-- its tenant's need claims).  Its want at a moment is the GPUs its jobs
-- held in the pool plus the largest size (at most the pool's largest block)
-- of each of its jobs waiting then for the pool as first choice, at most
-- its guarantee; sampled at every step (gpualloc.step) of the
-- gpualloc.lender_need_lookback before the step under way.  The need at a
-- step of the horizon (0 = the step under way, to gpualloc.horizon) is the
-- median of the wants sampled within an hour of the same time of day,
-- rounded up: a daily profile.  No row for a pool where the tenant is
-- guaranteed nothing, nor with a lookback of 0.  A view, not a function,
-- so that the queue's views may read it with their owner's rights.
CREATE VIEW gpualloc_internal.tenant_needs AS
WITH st AS (
	-- sample i (1..n_samples) is the moment plan_start - i * step; horizon
	-- step k starts at plan_start + k * step, so the two lie (k + i) steps
	-- apart, and at the same time of day within an hour when (k + i) modulo
	-- a day's steps is within an hour's steps of 0
	SELECT s.lookback, plan_start, step_s,
		   floor(extract(epoch FROM s.lookback)::float8 / step_s)::integer AS n_samples,
		   greatest(1, ceil(extract(epoch FROM s.horizon)::float8 / step_s)::integer) AS n_steps,
		   round(86400 / step_s)::integer AS day, round(3600 / step_s)::integer AS near
	FROM (SELECT coalesce(pg_catalog.current_setting('gpualloc.step', true), '30min')::interval AS step,
				 coalesce(pg_catalog.current_setting('gpualloc.lender_need_lookback', true), '3d')::interval
					 AS lookback,
				 coalesce(pg_catalog.current_setting('gpualloc.horizon', true), '1d')::interval AS horizon) s,
		 LATERAL (SELECT extract(epoch FROM s.step)::float8 AS step_s) e,
		 LATERAL (SELECT pg_catalog.to_timestamp(floor(extract(epoch FROM now())::float8 / e.step_s) * e.step_s)
				  AS plan_start) ps
), pol AS (
	SELECT tp.tenant, tp.pool_id, tp.guarantee AS g,
		   (SELECT (1 << floor(log(2, greatest(count(*), 1)::numeric))::integer)
			FROM gpualloc.gpus gg WHERE gg.pool_id = tp.pool_id) AS widest
	FROM gpualloc.tenant_policies tp, st
	WHERE tp.guarantee > 0 AND st.n_samples > 0
), held AS (
	-- each allocation row of the tenant's jobs counts at the samples it covers
	SELECT p.tenant, p.pool_id, i, count(*)::integer AS gpus
	FROM st, pol p
	JOIN gpualloc.gpus g ON g.pool_id = p.pool_id
	JOIN gpualloc.allocations a ON a.gpu_id = g.gpu_id AND a.job_id IS NOT NULL
	JOIN gpualloc.jobs j ON j.job_id = a.job_id AND j.tenant = p.tenant,
		 LATERAL pg_catalog.generate_series(
			 greatest(1, floor(extract(epoch FROM st.plan_start - coalesce(upper(a.during), st.plan_start))::float8
							   / st.step_s)::integer + 1),
			 least(st.n_samples, floor(extract(epoch FROM st.plan_start - lower(a.during))::float8
									   / st.step_s)::integer)) i
	WHERE a.during && tstzrange(st.plan_start - st.lookback, st.plan_start)
	GROUP BY p.tenant, p.pool_id, i
), waiting AS (
	-- each job of the tenant counts from its submission (or not_before) to
	-- its start, booking or end, at the samples in between
	SELECT p.tenant, p.pool_id, i, sum(least(j.gpus_max, p.widest))::integer AS gpus
	FROM st, pol p
	JOIN gpualloc.jobs j ON j.tenant = p.tenant AND coalesce(j.requested_pool_id, j.pool_id) = p.pool_id,
		 LATERAL (SELECT greatest(j.submitted_at, coalesce(j.not_before, j.submitted_at)) AS lo,
						 coalesce(least(j.started_at, j.finished_at,
										CASE WHEN j.status = 'booked' THEN j.booked_at END), st.plan_start) AS hi) w,
		 LATERAL pg_catalog.generate_series(
			 greatest(1, floor(extract(epoch FROM st.plan_start - w.hi)::float8 / st.step_s)::integer + 1),
			 least(st.n_samples, floor(extract(epoch FROM st.plan_start - w.lo)::float8 / st.step_s)::integer)) i
	WHERE j.submitted_at < st.plan_start
	  AND (j.finished_at IS NULL OR j.finished_at > st.plan_start - st.lookback)
	GROUP BY p.tenant, p.pool_id, i
), wants AS (
	SELECT p.tenant, p.pool_id, p.g, x.i, least(p.g, coalesce(h.gpus, 0) + coalesce(w.gpus, 0)) AS want
	FROM st CROSS JOIN pol p CROSS JOIN LATERAL pg_catalog.generate_series(1, st.n_samples) x(i)
	LEFT JOIN held h ON h.tenant = p.tenant AND h.pool_id = p.pool_id AND h.i = x.i
	LEFT JOIN waiting w ON w.tenant = p.tenant AND w.pool_id = p.pool_id AND w.i = x.i
)
SELECT w.tenant, w.pool_id, k AS step,
	   least(ceil(percentile_cont(0.5) WITHIN GROUP (ORDER BY w.want) - 1e-9), max(w.g))::integer AS gpus
FROM st, wants w, pg_catalog.generate_series(0, st.n_steps - 1) k
WHERE (k + w.i) % st.day <= st.near OR (k + w.i) % st.day >= st.day - st.near
GROUP BY w.tenant, w.pool_id, k;

-- The GPU-hours each tenant's jobs held per pool over [lo, as_of], each
-- hour weighted by 2^(-age / H) at as_of: the integral of 2^(-age / H) over
-- a span is H / ln 2 * (2^(-end / H) - 2^(-begin / H)).  Without min_seq,
-- from every row that overlaps [lo, as_of].  With min_seq, what changed
-- after a rollup made at lo with seq = min_seq, beyond the GPUs held then
-- (which decayed_usage counts as held on to as_of): the rows begun since,
-- and less, for the rows open then that have ended since, their time from
-- their end to as_of.
CREATE FUNCTION gpualloc_internal.held_usage(lo timestamptz, as_of timestamptz, half_life_hours double precision,
											 min_seq bigint)
RETURNS TABLE (tenant name, pool_id integer, usage double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	WITH rows AS (
		SELECT a.job_id, a.gpu_id, greatest(lower(a.during), lo) AS began,
			   least(coalesce(upper(a.during), as_of), as_of) AS ended, 1 AS sign
		FROM gpualloc.allocations a
		WHERE min_seq IS NULL AND a.job_id IS NOT NULL AND a.during && tstzrange(lo, as_of)
		UNION ALL
		SELECT a.job_id, a.gpu_id, greatest(lower(a.during), lo), least(coalesce(upper(a.during), as_of), as_of), 1
		FROM gpualloc.allocations a
		WHERE min_seq IS NOT NULL AND a.begin_seq > min_seq AND a.job_id IS NOT NULL
		UNION ALL
		SELECT a.job_id, a.gpu_id, upper(a.during), as_of, -1
		FROM gpualloc.allocations a
		WHERE min_seq IS NOT NULL AND a.begin_seq <= min_seq AND a.end_seq > min_seq AND a.job_id IS NOT NULL
	), spans AS (
		-- a job's GPUs mostly share one span: the integral once per span
		SELECT j.tenant, g.pool_id, (r.sign * count(*))::double precision AS gpus,
			   (extract(epoch FROM as_of - r.began) / 3600)::double precision AS age_begin,
			   (extract(epoch FROM as_of - r.ended) / 3600)::double precision AS age_end
		FROM rows r
		JOIN gpualloc.jobs j ON j.job_id = r.job_id
		JOIN gpualloc.gpus g ON g.gpu_id = r.gpu_id
		-- spans that end before they begin (a row begun, or one ended,
		-- after as_of) weigh nothing; compared as timestamps, as the scans
		-- test each row (ages in numeric cost a sixth of the query)
		WHERE r.began < r.ended
		GROUP BY j.tenant, g.pool_id, r.began, r.ended, r.sign
	)
	SELECT x.tenant, x.pool_id,
		   sum(x.gpus * half_life_hours / ln(2::double precision)
			   * (power(2::double precision, -x.age_end / half_life_hours)
				  - power(2::double precision, -x.age_begin / half_life_hours)))
	FROM spans x
	GROUP BY x.tenant, x.pool_id
$$;

-- Each tenant's decayed usage per pool as of a moment.  From the rollup
-- (gpualloc_internal.usage_rollup) when one was made with the current
-- half-life at or before as_of: its usage decayed to as_of, its GPUs held
-- from then to as_of, and the change sets since (held_usage with min_seq);
-- otherwise from the allocation rows of the last 20 half-lives (older hours
-- weigh below 2^-20).
CREATE FUNCTION gpualloc_internal.decayed_usage(as_of timestamptz)
RETURNS TABLE (tenant name, pool_id integer, usage double precision)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	h interval := gpualloc_internal.setting('gpualloc.fairshare_half_life', '7d')::interval;
	hours double precision := extract(epoch FROM h) / 3600;
	st gpualloc_internal.usage_rollup_state;
	age double precision;
BEGIN
	SELECT * INTO st FROM gpualloc_internal.usage_rollup_state;
	IF st.as_of IS NULL OR st.half_life <> h OR st.as_of > as_of THEN
		RETURN QUERY SELECT * FROM gpualloc_internal.held_usage(as_of - 20 * h, as_of, hours, NULL);
		RETURN;
	END IF;
	age := extract(epoch FROM as_of - st.as_of) / 3600;
	RETURN QUERY
	SELECT u.tenant, u.pool_id, greatest(sum(u.usage), 0)
	FROM (SELECT r.tenant, r.pool_id,
				 r.usage * power(2::double precision, -age / hours)
				 + r.gpus * hours / ln(2::double precision) * (1 - power(2::double precision, -age / hours)) AS usage
		  FROM gpualloc_internal.usage_rollup r
		  UNION ALL
		  SELECT n.tenant, n.pool_id, n.usage
		  FROM gpualloc_internal.held_usage(st.as_of, as_of, hours, st.seq) n) u
	GROUP BY u.tenant, u.pool_id;
END
$$;

-- Roll the fair-share usage up to now when the rollup is missing, was made
-- with another half-life, or is over an hour old.  Under the commit lock, so every change set up to the rollup's
-- seq ended its rows by its as_of, and the open rows are those it leaves
-- open.  Returns the rows written (0: not due).
-- The background planner calls it before each run.
CREATE FUNCTION gpualloc_internal.roll_up_usage() RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
DECLARE
	h interval := gpualloc_internal.setting('gpualloc.fairshare_half_life', '7d')::interval;
	st gpualloc_internal.usage_rollup_state;
	t timestamptz;
	n integer;
BEGIN
	SELECT * INTO st FROM gpualloc_internal.usage_rollup_state;
	IF st.as_of IS NOT NULL AND st.half_life = h AND st.as_of > pg_catalog.clock_timestamp() - interval '1 hour' THEN
		RETURN 0;
	END IF;
	PERFORM gpualloc_internal.commit_lock();
	t := pg_catalog.clock_timestamp();
	-- every pair of the old rollup is in the new one (decayed), so an upsert
	-- replaces it whole
	INSERT INTO gpualloc_internal.usage_rollup AS r (tenant, pool_id, usage, gpus)
	SELECT coalesce(u.tenant, o.tenant), coalesce(u.pool_id, o.pool_id), coalesce(u.usage, 0), coalesce(o.gpus, 0)
	FROM gpualloc_internal.decayed_usage(t) u
	FULL JOIN (SELECT j.tenant, g.pool_id, count(*)::integer AS gpus
			   FROM gpualloc.allocations a
			   JOIN gpualloc.jobs j ON j.job_id = a.job_id
			   JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id
			   WHERE a.end_seq IS NULL AND a.job_id IS NOT NULL
			   GROUP BY j.tenant, g.pool_id) o ON o.tenant = u.tenant AND o.pool_id = u.pool_id
	JOIN gpualloc.tenants tn ON tn.tenant = coalesce(u.tenant, o.tenant)
	JOIN gpualloc.pools p ON p.pool_id = coalesce(u.pool_id, o.pool_id)
	ON CONFLICT ON CONSTRAINT usage_rollup_pkey DO UPDATE SET usage = EXCLUDED.usage, gpus = EXCLUDED.gpus;
	GET DIAGNOSTICS n = ROW_COUNT;
	INSERT INTO gpualloc_internal.usage_rollup_state (as_of, seq, half_life)
	VALUES (t, gpualloc.allocation_seq(), h)
	ON CONFLICT (one_row) DO UPDATE SET as_of = EXCLUDED.as_of, seq = EXCLUDED.seq, half_life = EXCLUDED.half_life;
	RETURN n;
END
$$;

-- Fair share (Slurm's classic factor), per pool, as of a moment.  A
-- tenant's usage is the GPU-hours its jobs held in the pool, each hour
-- weighted by 2^(-age / gpualloc.fairshare_half_life); hours older than 20
-- half-lives (weight below 2^-20) are not read.  Its share is its weight
-- over the weights of the pool's tenants (those with a policy there, an
-- unfinished job there, or usage there; weight 1 without a policy); its
-- factor 2^(-normalized usage / share), at least 2^-20, 1 when nobody used
-- the pool.  The planner multiplies a queued job's priority by its tenant's
-- priority_factor: the factor over the highest factor of the pool's
-- tenants.  Jobs rank among themselves as by the factor, while the tenant
-- that used the pool least plans at its own priority, so fair share moves
-- no tenant's work below the services (a lone tenant's factor is 1/2).
-- With gpualloc.fairshare off, both are 1.
CREATE FUNCTION gpualloc_internal.fairshare(as_of timestamptz)
RETURNS TABLE (tenant name, pool_id integer, weight double precision, share double precision,
			   decayed_gpu_hours double precision, normalized_usage double precision,
			   factor double precision, priority_factor double precision)
LANGUAGE sql STABLE
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
WITH settings AS (
	SELECT s.h, (extract(epoch FROM s.h) / 3600)::double precision AS half_life_hours,
		   gpualloc_internal.setting('gpualloc.fairshare', 'on')::boolean AS enabled
	FROM (SELECT gpualloc_internal.setting('gpualloc.fairshare_half_life', '7d')::interval AS h) s
), held AS (
	SELECT d.tenant, d.pool_id, d.usage FROM gpualloc_internal.decayed_usage(as_of) d
), members AS (
	SELECT tp.tenant, tp.pool_id FROM gpualloc.tenant_policies tp
	UNION
	-- the active jobs' pairs made distinct on their own: in the union's
	-- one hash, sized for a row per job, 50,000 queued jobs cost 4 times
	-- as much
	SELECT a.tenant, a.pool_id
	FROM (SELECT DISTINCT j.tenant, j.pool_id FROM gpualloc.jobs j
		  WHERE j.status IN ('queued', 'booked', 'running')) a
	UNION
	SELECT h.tenant, h.pool_id FROM held h
), weighted AS (
	SELECT m.tenant, m.pool_id, coalesce(tp.weight, 1) AS weight, coalesce(h.usage, 0) AS usage
	FROM members m
	LEFT JOIN gpualloc.tenant_policies tp ON tp.tenant = m.tenant AND tp.pool_id = m.pool_id
	LEFT JOIN held h ON h.tenant = m.tenant AND h.pool_id = m.pool_id
), shares AS (
	SELECT w.tenant, w.pool_id, w.weight, w.usage,
		   w.weight / sum(w.weight) OVER pool AS share,
		   CASE WHEN sum(w.usage) OVER pool > 0 THEN w.usage / sum(w.usage) OVER pool ELSE 0 END AS normalized
	FROM weighted w
	WINDOW pool AS (PARTITION BY w.pool_id)
), factors AS (
	SELECT s.tenant, s.pool_id, s.weight, s.share, s.usage, s.normalized,
		   -- compared before dividing: a tiny share must not overflow the quotient
		   CASE WHEN NOT st.enabled THEN 1
				WHEN s.normalized >= 20 * s.share THEN power(2::double precision, -20)
				ELSE power(2::double precision, -s.normalized / s.share) END
			   AS factor
	FROM shares s CROSS JOIN settings st
)
SELECT f.tenant, f.pool_id, f.weight, f.share, f.usage, f.normalized, f.factor,
	   f.factor / max(f.factor) OVER (PARTITION BY f.pool_id)
FROM factors f
ORDER BY f.pool_id, f.tenant
$$;

-- The fair share of the tenants the caller may see: admins and readers all,
-- a submitter those whose role it is a member of.
CREATE FUNCTION gpualloc.fairshare(as_of timestamptz DEFAULT now())
RETURNS TABLE (tenant name, pool text, weight double precision, share double precision,
			   decayed_gpu_hours double precision, normalized_usage double precision,
			   factor double precision, priority_factor double precision)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, gpualloc, pg_temp
AS $$
	SELECT f.tenant, p.name, f.weight, f.share, f.decayed_gpu_hours, f.normalized_usage, f.factor,
		   f.priority_factor
	FROM gpualloc_internal.fairshare(gpualloc_internal.checked_moment('as_of', as_of)) f
	JOIN gpualloc.pools p ON p.pool_id = f.pool_id
	WHERE pg_catalog.pg_has_role(gpualloc.caller_role(), 'gpualloc_reader', 'MEMBER')
	   OR gpualloc_internal.can_act_for(f.tenant)
	ORDER BY p.name, f.tenant
$$;

-- Per tenant and pool: its policy, the GPUs it holds now and how many of
-- them lie above its guarantee, and its fair share.  A submitter sees its
-- own tenants only (gpualloc.fairshare filters; the barrier keeps a caller's
-- conditions from seeing the policies of other tenants first).
CREATE VIEW gpualloc.tenant_usage WITH (security_barrier) AS
SELECT f.tenant, f.pool, coalesce(tp.guarantee, 0) AS guarantee, tp.gpu_limit,
	   coalesce(tp.may_borrow, true) AS may_borrow, tp.borrow_limit, tp.cohort,
	   coalesce(u.gpus, 0) AS gpus_in_use,
	   greatest(coalesce(u.gpus, 0) - coalesce(tp.guarantee, 0), 0) AS gpus_borrowed,
	   f.decayed_gpu_hours, f.weight, f.share, f.normalized_usage, f.factor AS fairshare_factor,
	   f.priority_factor
FROM gpualloc.fairshare(now()) f
JOIN gpualloc.pools p ON p.name = f.pool
LEFT JOIN gpualloc.tenant_policies tp ON tp.tenant = f.tenant AND tp.pool_id = p.pool_id
LEFT JOIN (SELECT j.tenant, g.pool_id, count(*)::integer AS gpus
		   FROM gpualloc.allocations a
		   JOIN gpualloc.jobs j ON j.job_id = a.job_id
		   JOIN gpualloc.gpus g ON g.gpu_id = a.gpu_id
		   WHERE a.end_seq IS NULL
		   GROUP BY j.tenant, g.pool_id) u ON u.tenant = f.tenant AND u.pool_id = p.pool_id;
