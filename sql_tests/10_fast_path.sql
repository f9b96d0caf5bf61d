-- The submit fast path at the edges of its search: the largest size first,
-- then the lowest index; GPUs past a hole in the node numbers; GPUs free now
-- that the current plan gives a workload over the job's run are left alone;
-- a job that would miss its deadline even starting now waits for a plan.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

CREATE ROLE fp_team NOLOGIN;
SELECT gpualloc.add_tenant('fp_team');
SELECT gpualloc.add_pool('fp', 'H100-SXM', 80, 989) > 0 AS pool_added;
-- nodes 0 and 100: topology indexes 0-7 and 800-807, nothing in between
SELECT gpualloc.add_node('fp', 0) AS node_0, gpualloc.add_node('fp', 100) AS node_100;

-- the block a job holds now, as "first index + size"
CREATE FUNCTION pg_temp.held(job bigint) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(min(g.node * 8 + g.slot) || ' + ' || count(*), 'none')
	FROM gpualloc.allocations a JOIN gpualloc.gpus g USING (gpu_id)
	WHERE a.job_id = job AND a.end_seq IS NULL $$;

-- the latest plan is the one with the highest id: the plans written by hand
-- with ids past the sequence (08_dashboard) go, and a current plan with
-- nothing in pool fp is made
DELETE FROM gpualloc.plan_runs WHERE plan_id > (SELECT last_value FROM gpualloc.plan_runs_plan_id_seq);
SELECT status FROM gpualloc.replan('fast');

SELECT gpualloc.submit_job('fp-a', 'training', 'fp', 4, 8, tenant => 'fp_team', work_gpu_hours => 8) AS a \gset
SELECT gpualloc.submit_job('fp-b', 'training', 'fp', 8, tenant => 'fp_team', work_gpu_hours => 8) AS b \gset
SELECT gpualloc.submit_job('fp-c', 'training', 'fp', 1, tenant => 'fp_team', work_gpu_hours => 1) AS c \gset
SELECT pg_temp.held(:a) AS a_largest_lowest, pg_temp.held(:b) AS b_past_the_hole, pg_temp.held(:c) AS c_nothing_free;
SELECT j.name, j.status FROM gpualloc.jobs j WHERE j.job_id IN (:a, :b, :c) ORDER BY j.name;

-- a runs on 0-7 and is pinned there in the next plan for its two steps
SELECT gpualloc.job_started(:a);
SELECT gpualloc.cancel_job(:b);
SELECT gpualloc.cancel_job(:c);
SELECT status FROM gpualloc.replan('fast');
-- a ends early: 0-7 are free now, but the plan still gives them to a
SELECT gpualloc.job_finished(:a);
SELECT gpualloc.submit_job('fp-d', 'training', 'fp', 8, tenant => 'fp_team', work_gpu_hours => 8) AS d \gset
SELECT gpualloc.submit_job('fp-e', 'training', 'fp', 4, tenant => 'fp_team', work_gpu_hours => 4) AS e \gset
SELECT pg_temp.held(:d) AS d_beside_the_plan, pg_temp.held(:e) AS e_planned_busy;

-- 800-807 free again: a job that cannot finish by its deadline is not booked,
-- the same job without one is
SELECT gpualloc.cancel_job(:d);
SELECT gpualloc.submit_job('fp-f', 'training', 'fp', 1, tenant => 'fp_team', work_gpu_hours => 1,
						   deadline => now() + interval '10 minutes') AS f \gset
SELECT gpualloc.submit_job('fp-g', 'training', 'fp', 1, tenant => 'fp_team', work_gpu_hours => 1) AS g \gset
SELECT pg_temp.held(:f) AS f_misses_deadline, pg_temp.held(:g) AS g_lowest_unplanned;
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();
