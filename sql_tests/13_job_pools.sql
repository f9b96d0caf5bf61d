-- Jobs of several GPU models: submit_job's alt_pools with every bad input
-- (each refused, nothing written), each alternative's work (estimated on its
-- GPU model, or the submitted figure scaled by peak throughput), row-level
-- security of job_pools, and a plan that books a job on its alternative when
-- its first pool is full: the booking names that pool, the executor starts
-- it there, and a failed GPU puts it back in the queue with all its pools.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

CREATE ROLE jp_team NOLOGIN;
CREATE ROLE jp_other NOLOGIN;
CREATE ROLE jp_user NOLOGIN IN ROLE jp_team, gpualloc_submitter;
CREATE ROLE jp_other_user NOLOGIN IN ROLE jp_other, gpualloc_submitter;
SELECT gpualloc.add_tenant('jp_team');
SELECT gpualloc.add_tenant('jp_other');
-- a fast pool and a slower one of 8 GPUs each, a pool of 2 GPUs, one of small-memory GPUs
SELECT gpualloc.add_pool('jp-h100', 'H100-SXM', 80, 989) > 0 AS pool_added;
SELECT gpualloc.add_node('jp-h100', 0) AS node_0;
SELECT gpualloc.add_pool('jp-a100', 'A100-80GB', 80, 312) > 0 AS pool_added;
SELECT gpualloc.add_node('jp-a100', 0) AS node_0;
SELECT gpualloc.add_pool('jp-tiny', 'A100-80GB', 80, 312, 2) > 0 AS pool_added;
SELECT gpualloc.add_node('jp-tiny', 0) AS node_0;
SELECT gpualloc.add_pool('jp-l4', 'L4', 24, 121) > 0 AS pool_added;
SELECT gpualloc.add_node('jp-l4', 0) AS node_0;
-- job ids from 1300001, whatever the tests before this one submitted
SELECT setval('gpualloc.jobs_job_id_seq', 1300000);

-- A submitted figure is for the first pool; on an alternative it is scaled
-- by peak_tflops(first) / peak_tflops(alternative): 8 × 989 / 312.
SELECT gpualloc.submit_job('jp-scaled', 'training', 'jp-h100', 1, 2, tenant => 'jp_team',
						   work_gpu_hours => 8, not_before => now() + interval '2 days',
						   alt_pools => ARRAY['jp-a100', 'jp-tiny']) AS scaled \gset
SELECT p.name, jp.preference, round(jp.est_work_gpu_hours::numeric, 3) AS work, jp.est_method
FROM gpualloc.job_pools jp JOIN gpualloc.pools p USING (pool_id)
WHERE jp.job_id = :scaled ORDER BY jp.preference;
-- from features, each pool's work is the estimator's on its GPU model: more on the slower one
SELECT gpualloc.submit_job('jp-estimated', 'training', 'jp-h100', 1, 4, tenant => 'jp_team',
						   features => '{"strategy": "lora", "technique": "dpo", "params_b": 8, "tokens_m": 200}',
						   not_before => now() + interval '2 days', alt_pools => ARRAY['jp-a100']) AS estimated \gset
SELECT jp.est_work_gpu_hours > j.est_work_gpu_hours AS slower_pool_needs_more,
	   jp.est_method = j.est_method AS same_method,
	   round((jp.est_work_gpu_hours - (SELECT e.work_gpu_hours FROM gpualloc.estimate_job('training', j.features, 4, 'jp-a100') e))::numeric, 9) AS off_the_estimate
FROM gpualloc.jobs j JOIN gpualloc.job_pools jp USING (job_id) WHERE j.job_id = :estimated;
-- refresh_estimates renews an estimated alternative, never a scaled figure
-- (the queued jobs of earlier tests held out of it, then all undone)
BEGIN;
UPDATE gpualloc.jobs SET est_method = 'submitted'
WHERE status IN ('queued', 'booked') AND job_id NOT IN (:scaled, :estimated);
UPDATE gpualloc.job_pools SET est_work_gpu_hours = 1 WHERE job_id IN (:scaled, :estimated);
SELECT gpualloc_internal.refresh_estimates() >= 1 AS refreshed;
SELECT round(jp.est_work_gpu_hours::numeric, 3) AS scaled_kept
FROM gpualloc.job_pools jp WHERE jp.job_id = :scaled AND jp.preference = 1;
SELECT round((jp.est_work_gpu_hours - (SELECT e.work_gpu_hours FROM gpualloc.estimate_job('training', j.features, j.gpus_max, 'jp-a100') e))::numeric, 9) AS estimated_off_the_estimate
FROM gpualloc.jobs j JOIN gpualloc.job_pools jp USING (job_id) WHERE j.job_id = :estimated;
ROLLBACK;
-- no alternative, NULL or an empty list: a job of one pool, as before
SELECT gpualloc.submit_job('jp-one', 'training', 'jp-h100', 1, 1, tenant => 'jp_team', work_gpu_hours => 1,
						   not_before => now() + interval '2 days', alt_pools => '{}') AS one \gset
SELECT count(*) AS one_rows FROM gpualloc.job_pools WHERE job_id = :one;
-- the queue names each job's first pool and its alternatives
SELECT name, pool, first_pool, alt_pools FROM gpualloc.queue
WHERE job_id IN (:scaled, :estimated, :one) ORDER BY job_id;

-- Bad alt_pools: each refused with the field and the rule, nothing written.
SELECT count(*) AS jobs_before, (SELECT count(*) FROM gpualloc.job_pools) AS job_pools_before
FROM gpualloc.jobs \gset
\set VERBOSITY default
SELECT gpualloc.submit_job('jp-bad', 'training', 'jp-h100', 1, 1, tenant => 'jp_team', work_gpu_hours => 1,
						   alt_pools => ARRAY['jp-nowhere']);
SELECT gpualloc.submit_job('jp-bad', 'training', 'jp-h100', 1, 1, tenant => 'jp_team', work_gpu_hours => 1,
						   alt_pools => ARRAY['jp-h100']);
SELECT gpualloc.submit_job('jp-bad', 'training', 'jp-h100', 1, 1, tenant => 'jp_team', work_gpu_hours => 1,
						   alt_pools => ARRAY['jp-a100', 'jp-a100']);
SELECT gpualloc.submit_job('jp-bad', 'training', 'jp-h100', 1, 1, tenant => 'jp_team', work_gpu_hours => 1,
						   alt_pools => ARRAY['jp-a100', 'jp-tiny', 'jp-l4', 'jp-x']);
SELECT gpualloc.submit_job('jp-bad', 'training', 'jp-h100', 1, 1, tenant => 'jp_team', work_gpu_hours => 1,
						   alt_pools => ARRAY['jp-a100', NULL]);
SELECT gpualloc.submit_job('jp-bad', 'training', 'jp-h100', 1, 1, tenant => 'jp_team', work_gpu_hours => 1,
						   alt_pools => ARRAY[['jp-a100'], ['jp-tiny']]);
-- a block of 4 at least does not fit a pool of 2 GPUs
SELECT gpualloc.submit_job('jp-bad', 'training', 'jp-h100', 4, 8, tenant => 'jp_team', work_gpu_hours => 1,
						   alt_pools => ARRAY['jp-a100', 'jp-tiny']);
-- a full fine-tune of 8B parameters needs more GPUs of 24 GB than gpus_max allows
SELECT gpualloc.submit_job('jp-bad', 'training', 'jp-h100', 1, 2, tenant => 'jp_team',
						   features => '{"strategy": "full", "technique": "sft", "params_b": 8, "tokens_m": 200}',
						   alt_pools => ARRAY['jp-l4']);
-- work so small that scaled onto a faster model it rounds to 0 GPU-hours
SELECT gpualloc.submit_job('jp-bad', 'training', 'jp-l4', 1, 1, tenant => 'jp_team', work_gpu_hours => 5e-324,
						   alt_pools => ARRAY['jp-h100']);
-- an alternative's checks come after the job's own: a bad pool is still named first
SELECT gpualloc.submit_job('jp-bad', 'training', 'jp-nowhere', 1, 1, tenant => 'jp_team', work_gpu_hours => 1,
						   alt_pools => ARRAY['jp-nowhere-either']);
\set VERBOSITY terse
SELECT count(*) = :jobs_before AS no_job_written,
	   (SELECT count(*) FROM gpualloc.job_pools) = :job_pools_before AS no_alternative_written
FROM gpualloc.jobs;

-- Row-level security: a submitter sees its tenants' alternatives only.
SET ROLE jp_user;
SELECT count(*) AS team_sees FROM gpualloc.job_pools WHERE job_id IN (:scaled, :estimated);
SELECT gpualloc.submit_job('jp-own', 'training', 'jp-h100', 1, 1, work_gpu_hours => 1, tenant => 'jp_team',
						   not_before => now() + interval '2 days', alt_pools => ARRAY['jp-a100']) > 0 AS submitted;
INSERT INTO gpualloc.job_pools VALUES (:one, (SELECT pool_id FROM gpualloc.pools WHERE name = 'jp-a100'), 1, 1, 'x');
RESET ROLE;
SET ROLE jp_other_user;
SELECT count(*) AS other_sees FROM gpualloc.job_pools WHERE job_id IN (:scaled, :estimated);
RESET ROLE;
SELECT gpualloc.cancel_job(job_id) FROM gpualloc.jobs WHERE name IN ('jp-scaled', 'jp-estimated', 'jp-one', 'jp-own')
  AND status = 'queued';

-- A plan books a job on its alternative when its first pool is full.
SELECT gpualloc.submit_job('jp-fill', 'training', 'jp-h100', 8, 8, tenant => 'jp_team',
						   work_gpu_hours => 160) AS fill \gset
SELECT gpualloc.job_started(:fill, 0, 8);
-- the fast path tries the first pool only: the job waits for the planner
SELECT gpualloc.submit_job('jp-multi', 'training', 'jp-h100', 4, 4, tenant => 'jp_team',
						   work_gpu_hours => 8, alt_pools => ARRAY['jp-a100']) AS multi \gset
SELECT status, (SELECT name FROM gpualloc.pools p WHERE p.pool_id = j.pool_id) AS pool
FROM gpualloc.jobs j WHERE job_id = :multi;
SELECT status FROM gpualloc.replan('fast');
-- booked on jp-a100: the job names the pool it is booked on, its first choice kept
SELECT j.status, p.name AS pool, r.name AS requested_pool
FROM gpualloc.jobs j JOIN gpualloc.pools p ON p.pool_id = j.pool_id
LEFT JOIN gpualloc.pools r ON r.pool_id = j.requested_pool_id WHERE j.job_id = :multi;
SELECT pool, count(*) AS gpus FROM gpualloc.current_allocation WHERE job_id = :multi GROUP BY pool;
SELECT name, status, pool, block_first, block_size, nodes, slots FROM gpualloc.executor_work WHERE job_id = :multi;
SELECT name, status, pool, first_pool, alt_pools FROM gpualloc.queue WHERE job_id = :multi;
SELECT name, status, planned_pool, gpus FROM gpualloc.queue_plan WHERE job_id = :multi;
SELECT count(*) AS integrity_findings FROM gpualloc.check_integrity();
-- a re-plan keeps it there (or moves it; either way on one of its pools, whole)
SELECT status FROM gpualloc.replan('fast');
SELECT p.name AS pool FROM gpualloc.jobs j JOIN gpualloc.pools p USING (pool_id) WHERE j.job_id = :multi;
-- the executor starts it on its booking, in jp-a100
SELECT gpualloc.job_started(:multi);
SELECT j.status, p.name AS pool, j.block_first, j.block_size
FROM gpualloc.jobs j JOIN gpualloc.pools p USING (pool_id) WHERE j.job_id = :multi;
-- running there, it is planned there with its work there: 8 × 989 / 312
-- GPU-hours on 4 GPUs, 13 steps of 30 min (4 on jp-h100)
SELECT status FROM gpualloc.replan('fast');
SELECT p.name AS pool, b.step_count >= 12 AS planned_for_its_a100_work
FROM gpualloc.plan_blocks b JOIN gpualloc.pools p USING (pool_id)
WHERE b.job_id = :multi AND b.plan_id = (SELECT max(plan_id) FROM gpualloc.plan_runs WHERE status = 'succeeded');
SELECT count(*) AS integrity_findings FROM gpualloc.check_integrity();
-- a GPU of its block fails: queued again on its first choice, with all its pools open
SELECT gpualloc.set_gpu_state('jp-a100', 0, (SELECT block_first FROM gpualloc.jobs WHERE job_id = :multi), 'down');
SELECT j.status, p.name AS pool, j.requested_pool_id, j.requeues
FROM gpualloc.jobs j JOIN gpualloc.pools p USING (pool_id) WHERE j.job_id = :multi;
SELECT status FROM gpualloc.replan('fast');
SELECT j.status, p.name AS pool, r.name AS requested_pool
FROM gpualloc.jobs j JOIN gpualloc.pools p ON p.pool_id = j.pool_id
LEFT JOIN gpualloc.pools r ON r.pool_id = j.requested_pool_id WHERE j.job_id = :multi;
SELECT count(*) AS gpus_held, bool_and(pool = 'jp-a100' AND state = 'up') AS all_on_up_a100
FROM gpualloc.current_allocation WHERE job_id = :multi;
-- its first pool frees up: the next plan moves the booking back there,
-- where it runs sooner and faster; the job names jp-h100 again
SELECT gpualloc.job_finished(:fill, succeeded => true);
SELECT status FROM gpualloc.replan('fast');
SELECT j.status, p.name AS pool, j.requested_pool_id
FROM gpualloc.jobs j JOIN gpualloc.pools p USING (pool_id) WHERE j.job_id = :multi;
SELECT pool, count(*) AS gpus FROM gpualloc.current_allocation WHERE job_id = :multi GROUP BY pool;
SELECT count(*) AS integrity_findings FROM gpualloc.check_integrity();
SELECT gpualloc.job_started(:multi);
SELECT gpualloc.job_finished(:multi, succeeded => true);
SELECT j.status, p.name AS ran_on, r.name AS requested_pool
FROM gpualloc.jobs j JOIN gpualloc.pools p ON p.pool_id = j.pool_id
LEFT JOIN gpualloc.pools r ON r.pool_id = j.requested_pool_id WHERE j.job_id = :multi;
SELECT count(*) AS integrity_findings FROM gpualloc.check_integrity();

-- a pool that is some active job's first choice cannot be removed
SELECT gpualloc.submit_job('jp-wait', 'training', 'jp-tiny', 2, 2, tenant => 'jp_team', work_gpu_hours => 1,
						   alt_pools => ARRAY['jp-a100']) AS wait \gset
SELECT gpualloc.set_gpu_state('jp-tiny', 0, 0, 'down');
SELECT gpualloc.set_gpu_state('jp-tiny', 0, 1, 'down');
SELECT status FROM gpualloc.replan('fast');
SELECT j.status, p.name AS pool FROM gpualloc.jobs j JOIN gpualloc.pools p USING (pool_id) WHERE j.job_id = :wait;
SELECT gpualloc.remove_pool('jp-tiny');
SELECT gpualloc.cancel_job(:wait);
SELECT gpualloc.remove_pool('jp-tiny');
SELECT gpualloc.set_gpu_state('jp-a100', 0, 0, 'up');
