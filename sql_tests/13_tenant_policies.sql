-- Tenant governance: policies per tenant and pool, the fair-share factor and
-- the effective priority the planner gives queued jobs.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- an error as "SQLSTATE: message", so each case shows its code
CREATE FUNCTION pg_temp.try(stmt text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE stmt;
	RETURN 'ok';
EXCEPTION WHEN others THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;

SELECT gpualloc.add_pool('gov', 'L40S', 48, 362, node_size => 4) > 0 AS pool_added;
SELECT gpualloc.add_node('gov', 0);
CREATE ROLE gov_heavy NOLOGIN;
CREATE ROLE gov_light NOLOGIN;
CREATE ROLE gov_idle NOLOGIN;
CREATE ROLE gov_unregistered NOLOGIN;
CREATE ROLE gov_alice LOGIN IN ROLE gpualloc_submitter, gov_light;
CREATE ROLE gov_viewer LOGIN IN ROLE gpualloc_reader;
CREATE ROLE gov_outsider LOGIN;
SELECT gpualloc.add_tenant('gov_heavy'), gpualloc.add_tenant('gov_light'), gpualloc.add_tenant('gov_idle');

-- policies: guarantees within the pool's 4 GPUs
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', guarantee => 2, "limit" => 4, cohort => 'research');
SELECT gpualloc.set_tenant_policy('gov_light', 'gov', guarantee => 1, borrow => true, borrow_limit => 2, weight => 2);
SELECT gpualloc.set_tenant_policy('gov_idle', 'gov', guarantee => 1, borrow => false);
-- setting again replaces the row
SELECT gpualloc.set_tenant_policy('gov_light', 'gov', guarantee => 1, borrow => true, borrow_limit => 3);
SELECT tenant, guarantee, gpu_limit, may_borrow, borrow_limit, weight, cohort
FROM gpualloc.tenant_policies ORDER BY tenant;
CREATE TEMP TABLE policies_before AS SELECT * FROM gpualloc.tenant_policies;

-- every bad input: an error naming the field and the rule, nothing changed
SELECT v.label, pg_temp.try(v.stmt) AS result
FROM (VALUES
	('unregistered tenant', $$SELECT gpualloc.set_tenant_policy('gov_unregistered', 'gov')$$),
	('NULL tenant', $$SELECT gpualloc.set_tenant_policy(NULL, 'gov')$$),
	('unknown pool', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'nope')$$),
	('NULL guarantee', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', guarantee => NULL)$$),
	('negative guarantee', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', guarantee => -1)$$),
	('guarantees above the pool', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', guarantee => 3)$$),
	('negative limit', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', guarantee => 0, "limit" => -1)$$),
	('limit below guarantee', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', guarantee => 2, "limit" => 1)$$),
	('NULL borrow', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', borrow => NULL)$$),
	('borrow_limit without borrow', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', borrow => false, borrow_limit => 1)$$),
	('negative borrow_limit', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', borrow_limit => -1)$$),
	('zero weight', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', weight => 0)$$),
	('negative weight', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', weight => -1)$$),
	('NaN weight', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', weight => 'NaN')$$),
	('huge weight', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', weight => 1e7)$$),
	('tiny weight', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', weight => 1e-310)$$),
	('NULL weight', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', weight => NULL)$$),
	('bad cohort', $$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', cohort => 'no spaces')$$),
	('remove: no policy', $$SELECT gpualloc.remove_tenant_policy('gov_unregistered', 'gov')$$),
	('remove: unknown pool', $$SELECT gpualloc.remove_tenant_policy('gov_heavy', 'nope')$$),
	('direct insert', $$INSERT INTO gpualloc.tenant_policies (tenant, pool_id) SELECT 'gov_unregistered', 1$$)
) AS v(label, stmt);
-- not an admin
SET ROLE gov_alice;
SELECT pg_temp.try($$SELECT gpualloc.set_tenant_policy('gov_light', 'gov', guarantee => 0)$$) AS submitter_sets,
	   pg_temp.try($$SELECT gpualloc.remove_tenant_policy('gov_light', 'gov')$$) AS submitter_removes;
RESET ROLE;
SELECT count(*) AS changed_rows
FROM (SELECT * FROM gpualloc.tenant_policies EXCEPT SELECT * FROM policies_before
	  UNION ALL
	  SELECT * FROM policies_before EXCEPT SELECT * FROM gpualloc.tenant_policies) d;

-- removing a policy; the pool's guarantees then leave room for more
SELECT gpualloc.remove_tenant_policy('gov_idle', 'gov');
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', guarantee => 3, "limit" => 4, cohort => 'research');
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', guarantee => 2, "limit" => 4, cohort => 'research');

-- Fair share on a hand-made history, as of a fixed moment T: gov_heavy held
-- all 4 GPUs from T - 72 h to T - 48 h, gov_light 1 GPU from T - 24 h to
-- T - 23 h.  (History written directly, as from before the change log.)
\set T '''2026-01-10 00:00+00'''
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max, status,
						   submitted_at, started_at, finished_at, block_first, block_size)
SELECT v.name, 'training', v.tenant, p.pool_id, 1, v.gpus, v.gpus, 'succeeded',
	   :T::timestamptz - v.began, :T::timestamptz - v.began, :T::timestamptz - v.ended, 0, v.gpus
FROM gpualloc.pools p,
	 (VALUES ('gov-past-heavy', 'gov_heavy'::name, 4, interval '72 hours', interval '48 hours'),
			 ('gov-past-light', 'gov_light'::name, 1, interval '24 hours', interval '23 hours'))
	 AS v(name, tenant, gpus, began, ended)
WHERE p.name = 'gov';
INSERT INTO gpualloc.allocations (gpu_id, job_id, during, begin_seq, end_seq)
SELECT g.gpu_id, j.job_id, tstzrange(j.started_at, j.finished_at), 0, 0
FROM gpualloc.jobs j
JOIN gpualloc.gpus g ON g.pool_id = j.pool_id AND g.node * 4 + g.slot < j.block_size
WHERE j.name IN ('gov-past-heavy', 'gov-past-light');

-- the default half-life is 7 days (168 h); gov_idle, without policy or
-- work in the pool, is no member of it
SHOW gpualloc.fairshare_half_life;
SELECT tenant, pool, weight, round(share::numeric, 4) AS share,
	   round(decayed_gpu_hours::numeric, 4) AS decayed_gpu_hours,
	   round(normalized_usage::numeric, 5) AS normalized_usage, round(factor::numeric, 5) AS factor,
	   round(priority_factor::numeric, 5) AS priority_factor
FROM gpualloc.fairshare(:T) WHERE pool = 'gov';
-- the same figures from the definition, not the function's closed form:
-- each GPU-minute held, weighted by 2^(-age / 168 h) at its midpoint
WITH minutes AS (
	SELECT j.tenant, sum(power(2::float8, -(extract(epoch FROM :T::timestamptz - m) / 3600 - 1.0 / 120) / 168) / 60) AS usage
	FROM gpualloc.jobs j
	JOIN gpualloc.allocations a ON a.job_id = j.job_id
	CROSS JOIN generate_series(lower(a.during), upper(a.during) - interval '1 minute', interval '1 minute') m
	WHERE j.name IN ('gov-past-heavy', 'gov-past-light')
	GROUP BY j.tenant
), expected AS (
	-- shares: weights 1 (gov_heavy) and 1 (gov_light), so 0.5 each
	SELECT m.tenant, m.usage, m.usage / sum(m.usage) OVER () AS normalized,
		   power(2::float8, -(m.usage / sum(m.usage) OVER ()) / 0.5) AS factor
	FROM minutes m
)
SELECT e.tenant, round(e.usage::numeric, 4) AS by_minutes,
	   abs(f.decayed_gpu_hours - e.usage) < 1e-6 * e.usage AS usage_matches,
	   abs(f.factor - e.factor) < 1e-6 AS factor_matches,
	   abs(f.priority_factor - e.factor / max(e.factor) OVER ()) < 1e-6 AS priority_factor_matches
FROM expected e JOIN gpualloc.fairshare(:T) f ON f.tenant = e.tenant AND f.pool = 'gov'
ORDER BY e.tenant;

-- weight counts: gov_light at weight 3 has share 3/4 and a factor nearer 1
SELECT gpualloc.set_tenant_policy('gov_light', 'gov', guarantee => 1, weight => 3);
SELECT tenant, round(share::numeric, 4) AS share, round(factor::numeric, 5) AS factor
FROM gpualloc.fairshare(:T) WHERE pool = 'gov';
-- the smallest weight beside the largest: a share of 1e-12, whose usage
-- puts the factor at its floor 2^-20 without overflowing on the way
SELECT gpualloc.set_tenant_policy('gov_light', 'gov', guarantee => 1, weight => 1e-6);
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', guarantee => 2, "limit" => 4, cohort => 'research', weight => 1e6);
SELECT tenant, share, factor, factor = 2 ^ -20 AS at_floor
FROM gpualloc.fairshare(:T) WHERE pool = 'gov';
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov', guarantee => 2, "limit" => 4, cohort => 'research');
SELECT gpualloc.set_tenant_policy('gov_light', 'gov', guarantee => 1);
-- a shorter half-life forgets gov_heavy's older hours faster
SET gpualloc.fairshare_half_life = '1d';
SELECT tenant, round(decayed_gpu_hours::numeric, 4) AS decayed_gpu_hours, round(factor::numeric, 5) AS factor
FROM gpualloc.fairshare(:T) WHERE pool = 'gov';
RESET gpualloc.fairshare_half_life;
-- a tenant alone in a pool: factor 2^(-1/1) = 1/2, yet it plans at its own
-- priority (priority factor 1), so fair share does not lower it below the services
SELECT gpualloc.add_pool('gov-solo', 'L4', 24, 121, node_size => 2) > 0 AS solo_pool;
SELECT gpualloc.add_node('gov-solo', 0);
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max, status,
						   submitted_at, started_at, finished_at, block_first, block_size)
SELECT 'gov-solo-past', 'training', 'gov_heavy', p.pool_id, 1, 2, 2, 'succeeded',
	   :T::timestamptz - interval '2 hours', :T::timestamptz - interval '2 hours', :T::timestamptz - interval '1 hour', 0, 2
FROM gpualloc.pools p WHERE p.name = 'gov-solo';
INSERT INTO gpualloc.allocations (gpu_id, job_id, during, begin_seq, end_seq)
SELECT g.gpu_id, j.job_id, tstzrange(j.started_at, j.finished_at), 0, 0
FROM gpualloc.jobs j JOIN gpualloc.gpus g ON g.pool_id = j.pool_id
WHERE j.name = 'gov-solo-past';
SELECT tenant, share, normalized_usage, factor, priority_factor FROM gpualloc.fairshare(:T) WHERE pool = 'gov-solo';
-- before any use, every factor is 1; with fair share off too
SELECT tenant, factor FROM gpualloc.fairshare(:T::timestamptz - interval '10 days') WHERE pool = 'gov';
SET gpualloc.fairshare = off;
SELECT tenant, factor FROM gpualloc.fairshare(:T) WHERE pool = 'gov';
RESET gpualloc.fairshare;

-- The planner keeps the quotas: gov_light joins gov_heavy's cohort, so
-- either may borrow the other's idle guarantee and take the whole pool.
SELECT gpualloc.set_tenant_policy('gov_light', 'gov', guarantee => 1, borrow_limit => 3, cohort => 'research');
-- The planner: gov_heavy used the pool over the last day, gov_light not.
-- Each submits an equal job for all 4 GPUs, gov_heavy first; the one
-- placed now is gov_light's (not_before keeps both off the fast path).
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max, status,
						   submitted_at, started_at, finished_at, block_first, block_size)
SELECT 'gov-recent-heavy', 'training', 'gov_heavy', p.pool_id, 1, 4, 4, 'succeeded',
	   now() - interval '25 hours', now() - interval '25 hours', now() - interval '1 hour', 0, 4
FROM gpualloc.pools p WHERE p.name = 'gov';
INSERT INTO gpualloc.allocations (gpu_id, job_id, during, begin_seq, end_seq)
SELECT g.gpu_id, j.job_id, tstzrange(j.started_at, j.finished_at), 0, 0
FROM gpualloc.jobs j JOIN gpualloc.gpus g ON g.pool_id = j.pool_id
WHERE j.name = 'gov-recent-heavy';
SELECT gpualloc.submit_job('gov-heavy-next', 'training', 'gov', 4, 4, tenant => 'gov_heavy',
	work_gpu_hours => 8, not_before => now() + interval '1 minute') AS heavy_job \gset
SELECT gpualloc.submit_job('gov-light-next', 'training', 'gov', 4, 4, tenant => 'gov_light',
	work_gpu_hours => 8, not_before => now() + interval '1 minute') AS light_job \gset
UPDATE gpualloc.jobs SET not_before = NULL WHERE job_id IN (:heavy_job, :light_job);
-- both queued at the plan: gov_heavy's at priority 1 x 2^-2 (all the pool's
-- recent use is its own, its share is 1/2), gov_light's at 1 x 1
SELECT tenant, round(normalized_usage::numeric, 4) AS normalized_usage, round(factor::numeric, 4) AS factor,
	   round(priority_factor::numeric, 4) AS priority_factor
FROM gpualloc.fairshare() WHERE pool = 'gov' ORDER BY tenant;
SELECT name, status, priority, round(effective_priority::numeric, 4) AS effective_priority
FROM gpualloc.queue_plan WHERE job_id IN (:heavy_job, :light_job) ORDER BY job_id;
SELECT status FROM gpualloc.replan('fast');
SELECT job_name, count(*) AS gpus FROM gpualloc.current_allocation WHERE pool = 'gov' GROUP BY job_name;
SELECT name, status FROM gpualloc.jobs WHERE job_id IN (:heavy_job, :light_job) ORDER BY job_id;
-- the plan places gov_heavy's after it
SELECT q.name, q.planned_start > (SELECT planned_start FROM gpualloc.queue_plan WHERE job_id = :light_job) AS after_light
FROM gpualloc.queue_plan q WHERE q.job_id = :heavy_job;

-- tenant_usage now: GPUs held, borrowed above the guarantee, fair share
SELECT tenant, pool, guarantee, gpu_limit, may_borrow, borrow_limit, cohort, gpus_in_use, gpus_borrowed,
	   decayed_gpu_hours > 0 AS has_usage, weight, share, round(fairshare_factor::numeric, 2) AS factor,
	   round(priority_factor::numeric, 2) AS priority_factor
FROM gpualloc.tenant_usage WHERE pool = 'gov' ORDER BY tenant;

-- a submitter sees its own tenants' policies and usage only
SET ROLE gov_alice;
SELECT tenant, guarantee FROM gpualloc.tenant_policies ORDER BY tenant;
SELECT tenant, pool, gpus_in_use FROM gpualloc.tenant_usage ORDER BY tenant, pool;
SELECT tenant, pool FROM gpualloc.fairshare() ORDER BY tenant, pool;
-- a condition that leaks what it sees sees no other tenant's row first
CREATE FUNCTION pg_temp.leak(t name) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS $$
BEGIN
	RAISE NOTICE 'saw %', t;
	RETURN true;
END
$$;
SET client_min_messages = notice;
SELECT tenant FROM gpualloc.tenant_usage WHERE pg_temp.leak(tenant) AND pool = 'gov';
SET client_min_messages = warning;
RESET ROLE;
-- a reader sees every tenant; a role that is neither, nothing
SET ROLE gov_viewer;
SELECT tenant, pool FROM gpualloc.tenant_usage WHERE pool = 'gov' ORDER BY tenant;
SELECT pg_temp.try($$SELECT * FROM gpualloc.tenant_policies$$) AS reader_reads_policies;
RESET ROLE;
SET ROLE gov_outsider;
SELECT pg_temp.try($$SELECT * FROM gpualloc.tenant_usage$$) AS outsider_usage,
	   pg_temp.try($$SELECT * FROM gpualloc.fairshare()$$) AS outsider_fairshare;
RESET ROLE;

-- the rollup: usage rolled up once and continued from the rows since equals
-- usage computed from every row (as of two hours ahead, the open rows count)
SELECT now() + interval '2 hours' AS later \gset
CREATE TEMP TABLE usage_from_rows AS SELECT * FROM gpualloc_internal.decayed_usage(:'later');
SELECT gpualloc_internal.roll_up_usage() AS pairs_rolled_up;
SELECT gpualloc_internal.roll_up_usage() AS not_due_again;
SELECT count(*) AS state_rows, bool_and(seq = gpualloc.allocation_seq()) AS at_latest_change
FROM gpualloc_internal.usage_rollup_state;
SELECT count(*) AS pairs, bool_and(abs(f.usage - r.usage) <= 1e-9 * greatest(f.usage, 1)) AS same_usage
FROM usage_from_rows f JOIN gpualloc_internal.decayed_usage(:'later') r USING (tenant, pool_id);

-- why a job waits: its tenant's limit, then its quota (what the pool leaves
-- unguaranteed and its cohort lends), in queue and queue_plan alike.  An
-- 8-GPU pool: gov_heavy is guaranteed 4 and uses none; gov_light, guaranteed
-- 1, runs a job on 4 GPUs: 3 above its guarantee, as many as the pool leaves
-- unguaranteed (8 - 4 - 1)
SELECT gpualloc.add_pool('gov-q', 'L40S', 48, 362, node_size => 8) > 0 AS quota_pool;
SELECT gpualloc.add_node('gov-q', 0);
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov-q', guarantee => 4, cohort => 'lab');
SELECT gpualloc.set_tenant_policy('gov_light', 'gov-q', guarantee => 1, "limit" => 4);
SELECT gpualloc.submit_job('gov-q-run', 'training', 'gov-q', 4, 4, tenant => 'gov_light',
	work_gpu_hours => 40, not_before => now() + interval '1 minute') AS q_run \gset
SELECT gpualloc.job_started(:q_run, block_first => 0, block_size => 4);
SELECT gpualloc.submit_job('gov-q-more', 'training', 'gov-q', 1, 1, tenant => 'gov_light',
	work_gpu_hours => 1, not_before => now() + interval '1 minute') AS more_job \gset
UPDATE gpualloc.jobs SET not_before = NULL WHERE job_id = :more_job;
-- at its limit of 4
SELECT q.pending_code, q.pending_reason, p.pending_code = q.pending_code AS plan_code_agrees,
	   p.pending_reason = q.pending_reason AS plan_reason_agrees
FROM gpualloc.queue q JOIN gpualloc.queue_plan p USING (job_id) WHERE job_id = :more_job;
-- no limit: one more GPU is beyond the unguaranteed 3, and it has no cohort
SELECT gpualloc.set_tenant_policy('gov_light', 'gov-q', guarantee => 1);
SELECT pending_code, pending_reason FROM gpualloc.queue WHERE job_id = :more_job;
-- in gov_heavy's cohort, but it may not borrow
SELECT gpualloc.set_tenant_policy('gov_light', 'gov-q', guarantee => 1, borrow => false, cohort => 'lab');
SELECT pending_code, pending_reason FROM gpualloc.queue WHERE job_id = :more_job;
-- may borrow 1 GPU of gov_heavy's idle guarantee: that one is covered, two are not
SELECT gpualloc.set_tenant_policy('gov_light', 'gov-q', guarantee => 1, borrow_limit => 1, cohort => 'lab');
SELECT pending_code, pending_reason FROM gpualloc.queue WHERE job_id = :more_job;
UPDATE gpualloc.jobs SET gpus_min = 2, gpus_max = 2 WHERE job_id = :more_job;
SELECT pending_code, pending_reason FROM gpualloc.queue WHERE job_id = :more_job;
UPDATE gpualloc.jobs SET gpus_min = 1, gpus_max = 1 WHERE job_id = :more_job;
-- borrowing without bound: its quota lets it; the plan's reason again
SELECT gpualloc.set_tenant_policy('gov_light', 'gov-q', guarantee => 1, cohort => 'lab');
SELECT pending_code FROM gpualloc.queue WHERE job_id = :more_job;
-- a full pool is no quota: the plan's reason
SELECT gpualloc.set_tenant_policy('gov_light', 'gov-q', guarantee => 1);
SELECT gpualloc.drain_gpu('gov-q', 0, s) FROM generate_series(4, 7) s;
SELECT gpualloc.set_gpu_state('gov-q', 0, s, 'down') FROM generate_series(4, 7) s;
SELECT pending_code FROM gpualloc.queue WHERE job_id = :more_job;
SELECT gpualloc.cancel_job(:more_job);
SELECT gpualloc.cancel_job(:q_run);
-- a booked job waits for its executor; once started it has no reason
SELECT status, pending_code FROM gpualloc.queue WHERE job_id = :light_job;
SELECT gpualloc.job_started(:light_job);
SELECT status, pending_code, pending_reason FROM gpualloc.queue WHERE job_id = :light_job;

-- rows ended after the rollup are added to it: the same usage as from every
-- row (to rounding: a span of a few seconds is a difference of two terms
-- near H / ln 2)
SELECT gpualloc.job_finished(:light_job);
CREATE TEMP TABLE usage_continued AS SELECT * FROM gpualloc_internal.decayed_usage(:'later');
BEGIN;
DELETE FROM gpualloc_internal.usage_rollup_state;
SELECT count(*) AS pairs, bool_and(abs(f.usage - r.usage) <= 1e-9 * greatest(f.usage, 1)) AS same_usage
FROM usage_continued r JOIN gpualloc_internal.decayed_usage(:'later') f USING (tenant, pool_id);
ROLLBACK;
-- another half-life makes the rollup stale: computed from the rows again, and
-- rolled up anew
SET gpualloc.fairshare_half_life = '1d';
SELECT gpualloc_internal.roll_up_usage() > 0 AS rolled_again;
SELECT half_life FROM gpualloc_internal.usage_rollup_state;
RESET gpualloc.fairshare_half_life;

-- The planner keeps the policies: in a free 4-GPU pool where gov_light may
-- hold 2 GPUs, of its two 2-GPU jobs one is placed now, the other waits for
-- it (not_before keeps both off the fast path)
SELECT gpualloc.add_pool('gov-p', 'L40S', 48, 362, node_size => 4) > 0 AS plan_pool;
SELECT gpualloc.add_node('gov-p', 0);
SELECT gpualloc.set_tenant_policy('gov_light', 'gov-p', "limit" => 2);
SELECT count(gpualloc.submit_job('gov-p-' || i, 'training', 'gov-p', 2, 2, tenant => 'gov_light',
	work_gpu_hours => 8, not_before => now() + interval '1 minute')) AS submitted
FROM generate_series(1, 2) i;
UPDATE gpualloc.jobs SET not_before = NULL WHERE name LIKE 'gov-p-%';
SELECT status FROM gpualloc.replan('fast');
SELECT count(DISTINCT job_name) AS jobs_placed, count(job_name) AS gpus
FROM gpualloc.current_allocation WHERE pool = 'gov-p';
SELECT name, status, pending_code FROM gpualloc.queue WHERE name LIKE 'gov-p-%' ORDER BY status, name;
-- the first runs 4 hours (8 GPU-hours on 2 GPUs) from the step under way
SELECT name, status, planned_start - now() > interval '3 hours' AS after_the_first
FROM gpualloc.queue_plan WHERE name LIKE 'gov-p-%' AND status = 'queued';
-- submit_job's fast path keeps them too: the plan leaves 2 GPUs idle, yet
-- gov_light's next job waits at its limit, while gov_heavy's is booked
SELECT gpualloc.submit_job('gov-p-light', 'training', 'gov-p', 1, 1, tenant => 'gov_light',
	work_gpu_hours => 1) AS p_light \gset
SELECT gpualloc.submit_job('gov-p-heavy', 'training', 'gov-p', 1, 1, tenant => 'gov_heavy',
	work_gpu_hours => 1) AS p_heavy \gset
SELECT name, status, pending_code FROM gpualloc.queue WHERE job_id IN (:p_light, :p_heavy) ORDER BY name;
-- and its quota: gov_light guaranteed 3 (it holds 2), gov_heavy 1, no
-- cohort: no GPU of the pool is unguaranteed and none is lent, so with 2
-- GPUs free gov_light may take 1 more and gov_heavy 1
SELECT gpualloc.cancel_job(:p_light), gpualloc.cancel_job(:p_heavy);
SELECT gpualloc.set_tenant_policy('gov_light', 'gov-p', guarantee => 3),
	   gpualloc.set_tenant_policy('gov_heavy', 'gov-p', guarantee => 1);
SELECT gpualloc_internal.quota_max_gpus('gov_heavy', p.pool_id, 1, 2) AS heavy_may_take,
	   gpualloc_internal.quota_max_gpus('gov_light', p.pool_id, 1, 2) AS light_may_take,
	   gpualloc_internal.quota_max_gpus('gov_light', p.pool_id, 2, 2) AS light_may_take_2,
	   gpualloc_internal.quota_max_gpus('gov_light', p.pool_id + 1000, 1, 2) AS no_policy_pool
FROM gpualloc.pools p WHERE p.name = 'gov-p';
-- gov_light's 2-GPU job waits on its quota though 2 GPUs are free;
-- gov_heavy's job of 1 or 2 GPUs is booked on 1
SELECT gpualloc.submit_job('gov-p-light2', 'training', 'gov-p', 2, 2, tenant => 'gov_light',
	work_gpu_hours => 1) AS p_light2 \gset
SELECT name, status, pending_code FROM gpualloc.queue WHERE job_id = :p_light2;
SELECT gpualloc.submit_job('gov-p-heavy2', 'training', 'gov-p', 1, 2, tenant => 'gov_heavy',
	work_gpu_hours => 1) AS p_heavy2 \gset
SELECT name, status, block_size FROM gpualloc.queue WHERE job_id = :p_heavy2;
SELECT gpualloc.cancel_job(job_id) FROM gpualloc.jobs
WHERE name LIKE 'gov-p-%' AND status IN ('queued', 'booked') ORDER BY job_id;

-- Borrowing never blocks a lender: in a 4-GPU pool shared half and half by
-- one cohort, gov_heavy has held its 2 GPUs around the clock for the last
-- 3 days and holds none this minute.  gov_light's job of 4 GPUs would
-- borrow that idle half, but gov_heavy's forecast need (the median of what
-- it held at the same time of day) claims it at every step: the job waits.
SELECT gpualloc.add_pool('gov-n', 'L40S', 48, 362, node_size => 4) > 0 AS need_pool;
SELECT gpualloc.add_node('gov-n', 0);
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov-n', guarantee => 2, cohort => 'lab2'),
	   gpualloc.set_tenant_policy('gov_light', 'gov-n', guarantee => 2, borrow_limit => 2, cohort => 'lab2');
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max, status,
						   submitted_at, started_at, finished_at, block_first, block_size)
SELECT 'gov-n-history', 'training', 'gov_heavy', p.pool_id, 1, 2, 2, 'succeeded',
	   now() - interval '80 hours', now() - interval '80 hours', now() - interval '1 minute', 0, 2
FROM gpualloc.pools p WHERE p.name = 'gov-n';
INSERT INTO gpualloc.allocations (gpu_id, job_id, during, begin_seq, end_seq)
SELECT g.gpu_id, j.job_id, tstzrange(j.started_at, j.finished_at), 0, 0
FROM gpualloc.jobs j JOIN gpualloc.gpus g ON g.pool_id = j.pool_id AND g.slot < 2
WHERE j.name = 'gov-n-history';
SELECT n.tenant, min(n.gpus) AS least_need, max(n.gpus) AS most_need, count(*) AS steps
FROM gpualloc_internal.tenant_needs n
JOIN gpualloc.pools p ON p.pool_id = n.pool_id AND p.name = 'gov-n'
GROUP BY n.tenant ORDER BY n.tenant;
SELECT gpualloc.submit_job('gov-n-borrow', 'training', 'gov-n', 4, 4, tenant => 'gov_light',
	work_gpu_hours => 8, not_before => now() + interval '1 minute') AS n_job \gset
UPDATE gpualloc.jobs SET not_before = NULL WHERE job_id = :n_job;
SELECT status FROM gpualloc.replan('fast');
SELECT name, status, planned_start IS NULL AS not_in_the_plan, pending_code, pending_reason
FROM gpualloc.queue_plan WHERE job_id = :n_job;
-- nor does submit_job's fast path lend that half, though the plan leaves it idle
SELECT gpualloc.submit_job('gov-n-fast', 'training', 'gov-n', 4, 4, tenant => 'gov_light',
	work_gpu_hours => 8) AS n_fast \gset
SELECT name, status, pending_code FROM gpualloc.queue WHERE job_id = :n_fast;
SELECT gpualloc.cancel_job(:n_fast);
-- without the forecast (a lookback of 0) only planned work claims a
-- guarantee, and the job borrows the idle half at once
SET gpualloc.lender_need_lookback = 0;
SELECT status FROM gpualloc.replan('fast');
SELECT name, status FROM gpualloc.jobs WHERE job_id = :n_job;
RESET gpualloc.lender_need_lookback;
SELECT gpualloc.cancel_job(:n_job);

-- a tenant's policies go with it; a pool's with the pool
SELECT gpualloc.add_pool('gov-tmp', 'L4', 24, 121, node_size => 2) > 0 AS tmp_pool;
SELECT gpualloc.add_node('gov-tmp', 0);
SELECT gpualloc.set_tenant_policy('gov_idle', 'gov-tmp', guarantee => 2);
SELECT gpualloc.remove_tenant('gov_idle');
SELECT count(*) AS idle_policies FROM gpualloc.tenant_policies WHERE tenant = 'gov_idle';
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov-tmp', guarantee => 1);
SELECT pool_id AS tmp_pool_id FROM gpualloc.pools WHERE name = 'gov-tmp' \gset
SELECT gpualloc.remove_pool('gov-tmp');
SELECT count(*) AS tmp_policies FROM gpualloc.tenant_policies WHERE pool_id = :tmp_pool_id;

-- A pool that loses a GPU (not a whole node) is guaranteed more than it
-- has: each plan scales its guarantees down and warns, and the guarantees
-- can be lowered one at a time (a change asking for no more than the
-- tenant had), while a raise is still refused.
SELECT gpualloc.add_pool('gov-shrink', 'L4', 24, 121, node_size => 4) > 0 AS shrink_pool;
SELECT gpualloc.add_node('gov-shrink', 0);
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov-shrink', guarantee => 2),
	   gpualloc.set_tenant_policy('gov_light', 'gov-shrink', guarantee => 2);
SELECT gpualloc.remove_gpu('gov-shrink', 0, 3);
SELECT status FROM gpualloc.replan('fast');
SELECT pg_temp.try($$SELECT gpualloc.set_tenant_policy('gov_light', 'gov-shrink', guarantee => 2, weight => 2)$$)
	   AS same_guarantee_new_weight,
	   pg_temp.try($$SELECT gpualloc.set_tenant_policy('gov_light', 'gov-shrink', guarantee => 3)$$) AS raised,
	   pg_temp.try($$SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov-shrink', guarantee => 1)$$) AS lowered;
SELECT status FROM gpualloc.replan('fast');
SELECT gpualloc.remove_pool('gov-shrink');

-- lowering a tenant's maximum priority lowers its waiting jobs above it
SELECT gpualloc.submit_job('gov-prio-high', 'training', 'gov', 1, tenant => 'gov_light', priority => 9,
						   work_gpu_hours => 1) AS prio_job \gset
SET client_min_messages = notice;
SELECT gpualloc.set_tenant('gov_light', 2);
SET client_min_messages = warning;
SELECT status IN ('queued', 'booked') AS waiting, priority FROM gpualloc.jobs WHERE job_id = :prio_job;
SELECT gpualloc.set_tenant('gov_light', NULL);
SELECT gpualloc.cancel_job(:prio_job);

-- a job larger than its tenant's quota could ever give it waits on 'quota',
-- whether or not that many GPUs are free now: gov_light may hold its 4
-- guaranteed and borrow 2 of the pool's 8, never 8
SELECT gpualloc.add_pool('gov-never', 'L4', 24, 121) > 0 AS never_pool;
SELECT gpualloc.add_node('gov-never', 0);
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov-never', guarantee => 4, cohort => 'pair'),
	   gpualloc.set_tenant_policy('gov_light', 'gov-never', guarantee => 4, borrow_limit => 2, cohort => 'pair');
SELECT gpualloc.submit_job('gov-never-small', 'training', 'gov-never', 1, tenant => 'gov_heavy',
						   work_gpu_hours => 4) AS never_small \gset
SELECT gpualloc.submit_job('gov-never-big', 'training', 'gov-never', 8, tenant => 'gov_light',
						   work_gpu_hours => 8) AS never_big \gset
SELECT status FROM gpualloc.replan('fast');
SELECT pending_code, pending_reason FROM gpualloc.queue WHERE job_id = :never_big;
SELECT gpualloc.cancel_job(:never_big), gpualloc.cancel_job(:never_small);
SELECT gpualloc.remove_pool('gov-never');

-- Both modes give work within a guarantee first claim on it: in a pool of
-- 4 guaranteed half to each, gov_light's small job of priority 0.25 within
-- its half starts now, and gov_heavy's job of priority 2 for all 4 GPUs
-- (which would borrow gov_light's half) after it, though a plan starting
-- the big job first is worth more.  The full mode keeps that too.
SELECT gpualloc.add_pool('gov-claim', 'L4', 24, 121, node_size => 4) > 0 AS claim_pool;
SELECT gpualloc.add_node('gov-claim', 0);
SELECT gpualloc.set_tenant_policy('gov_heavy', 'gov-claim', guarantee => 2, borrow_limit => 2, cohort => 'claim'),
	   gpualloc.set_tenant_policy('gov_light', 'gov-claim', guarantee => 2, cohort => 'claim');
SELECT gpualloc.submit_job('gov-claim-big', 'training', 'gov-claim', 4, 4, tenant => 'gov_heavy', priority => 2,
	work_gpu_hours => 16, not_before => now() + interval '1 minute') AS claim_big \gset
SELECT gpualloc.submit_job('gov-claim-small', 'training', 'gov-claim', 2, 2, tenant => 'gov_light', priority => 0.25,
	work_gpu_hours => 4, not_before => now() + interval '1 minute') AS claim_small \gset
UPDATE gpualloc.jobs SET not_before = NULL WHERE job_id IN (:claim_big, :claim_small);
SELECT status FROM gpualloc.replan('full', time_limit => '2 seconds');
SELECT job_name, count(*) AS gpus FROM gpualloc.current_allocation
WHERE pool = 'gov-claim' AND job_name IS NOT NULL GROUP BY job_name;
-- the small job runs 2 hours: the big one is planned after it
SELECT q.name, q.planned_start > now() + interval '90 minutes' AS after_small
FROM gpualloc.queue_plan q WHERE q.job_id = :claim_big;
SELECT gpualloc.cancel_job(:claim_big), gpualloc.cancel_job(:claim_small);
SELECT gpualloc.remove_pool('gov-claim');
