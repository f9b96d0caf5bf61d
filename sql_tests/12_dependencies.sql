-- Job dependencies and time limits: submit_job's after_ok, after_any and
-- time_limit with every bad input (each refused, nothing written); the fast
-- path, the planner and job_started never starting a job before its
-- predecessors ended; a failed or cancelled after_ok predecessor cancelling
-- its dependents down the chain; the planner planning min(estimate, limit);
-- a running job past its time limit stopped and its GPUs freed.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

CREATE ROLE dep_team NOLOGIN;
CREATE ROLE dep_other NOLOGIN;
CREATE ROLE dep_user NOLOGIN IN ROLE dep_team, gpualloc_submitter;
SELECT gpualloc.add_tenant('dep_team');
SELECT gpualloc.add_tenant('dep_other');
SELECT gpualloc.add_pool('dp', 'H100-SXM', 80, 989) > 0 AS pool_added;
SELECT gpualloc.add_node('dp', 0) AS node_0;
-- job ids from 900001, whatever the tests before this one submitted
SELECT setval('gpualloc.jobs_job_id_seq', 900000);
SELECT status FROM gpualloc.replan('fast');

-- a pipeline: train, then quantize if it succeeded, then evaluate however that ended
SELECT gpualloc.submit_job('dp-train', 'training', 'dp', 4, 4, tenant => 'dep_team',
						   work_gpu_hours => 8) AS train \gset
SELECT gpualloc.submit_job('dp-quant', 'quantization', 'dp', 1, 2, tenant => 'dep_team',
						   work_gpu_hours => 1, after_ok => ARRAY[:train]) AS quant \gset
SELECT gpualloc.submit_job('dp-eval', 'batch_inference', 'dp', 1, 1, tenant => 'dep_team',
						   work_gpu_hours => 4, after_any => ARRAY[:quant],
						   time_limit => interval '1 hour') AS eval \gset
-- four GPUs are free, yet only train is booked by the fast path
SELECT name, status FROM gpualloc.jobs WHERE job_id IN (:train, :quant, :eval) ORDER BY job_id;
SELECT (SELECT j.name FROM gpualloc.jobs j WHERE j.job_id = d.job_id) AS job, d.kind,
	   (SELECT j.name FROM gpualloc.jobs j WHERE j.job_id = d.after_job_id) AS after
FROM gpualloc.job_dependencies d WHERE d.job_id IN (:quant, :eval) ORDER BY d.job_id;
SELECT time_limit FROM gpualloc.jobs WHERE job_id = :eval;

-- the plan puts quant after train's planned end and eval after quant's, eval
-- held for its 1-hour limit (2 steps), not its 4-hour estimate; only train is booked
SELECT status FROM gpualloc.replan('fast');
CREATE FUNCTION pg_temp.planned(job bigint, OUT first_step integer, OUT end_step integer)
LANGUAGE sql AS $$
	SELECT b.step_first, b.step_first + b.step_count FROM gpualloc.plan_blocks b
	WHERE b.job_id = job AND b.plan_id = (SELECT max(plan_id) FROM gpualloc.plan_runs WHERE status = 'succeeded') $$;
SELECT (pg_temp.planned(:quant)).first_step >= (pg_temp.planned(:train)).end_step AS quant_after_train,
	   (pg_temp.planned(:eval)).first_step >= (pg_temp.planned(:quant)).end_step AS eval_after_quant,
	   (pg_temp.planned(:eval)).end_step - (pg_temp.planned(:eval)).first_step AS eval_steps;
SELECT name, status FROM gpualloc.jobs WHERE job_id IN (:train, :quant, :eval) ORDER BY job_id;
-- the queue says what each waits for
SELECT name, regexp_replace(pending_reason, 'at .*', 'at …') AS pending_reason
FROM gpualloc.queue_plan WHERE job_id IN (:quant, :eval) ORDER BY job_id;

-- an executor may not start quant early, on any block
SELECT gpualloc.job_started(:quant, 4, 2);
SELECT status FROM gpualloc.jobs WHERE job_id = :quant;

-- train runs and succeeds: the next plan books quant, eval still waits
SELECT gpualloc.job_started(:train);
SELECT status FROM gpualloc.replan('fast');
SELECT name, status FROM gpualloc.jobs WHERE job_id IN (:train, :quant, :eval) ORDER BY job_id;
SELECT gpualloc.job_finished(:train, succeeded => true);
SELECT status FROM gpualloc.replan('fast');
SELECT name, status FROM gpualloc.jobs WHERE job_id IN (:train, :quant, :eval) ORDER BY job_id;
-- quant fails: eval (after_any) may run all the same
SELECT gpualloc.job_started(:quant);
SELECT gpualloc.job_finished(:quant, succeeded => false);
SELECT status FROM gpualloc.replan('fast');
SELECT name, status FROM gpualloc.jobs WHERE job_id IN (:train, :quant, :eval) ORDER BY job_id;
SELECT gpualloc.cancel_job(:eval);

-- a cancelled job cancels its after_ok dependents down the chain, not its after_any ones
SELECT gpualloc.submit_job('dp-t2', 'training', 'dp', 8, tenant => 'dep_team', work_gpu_hours => 800) AS t2 \gset
SELECT gpualloc.submit_job('dp-q2', 'quantization', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_ok => ARRAY[:t2]) AS q2 \gset
SELECT gpualloc.submit_job('dp-e2', 'batch_inference', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_ok => ARRAY[:q2]) AS e2 \gset
SELECT gpualloc.submit_job('dp-c2', 'batch_inference', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_any => ARRAY[:t2]) AS c2 \gset
SELECT gpualloc.cancel_job(:t2, 'wrong data');
SELECT name, status, status_message FROM gpualloc.jobs WHERE job_id IN (:t2, :q2, :e2, :c2) ORDER BY job_id;
SELECT gpualloc.cancel_job(:c2);

-- every bad input is refused, naming the field and the rule, and writes nothing
SELECT count(*) AS jobs_before FROM gpualloc.jobs \gset
SELECT count(*) AS links_before FROM gpualloc.job_dependencies \gset
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_ok => ARRAY[NULL]::bigint[]);
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_any => ARRAY[:train, NULL]);
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_ok => ARRAY[999999999]);
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_any => ARRAY[-1]);
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_ok => ARRAY[:train, :train]);
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_ok => ARRAY[:train], after_any => ARRAY[:train]);
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_any => ARRAY[:train, :quant, :eval, :t2, :q2, :e2, :c2, 1, 2]);
-- after_ok on a job that already failed or was cancelled could never run
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_ok => ARRAY[:quant]);
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_ok => ARRAY[:t2]);
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   time_limit => interval '0');
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   time_limit => interval '-1 hour');
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   time_limit => interval '367 days');
-- a member of dep_team cannot wait for a job of dep_other: to it, that job does not exist
SELECT gpualloc.submit_job('dp-other', 'training', 'dp', 8, tenant => 'dep_other', work_gpu_hours => 800) AS other \gset
SELECT gpualloc.submit_job('dp-other2', 'training', 'dp', 8, tenant => 'dep_other', work_gpu_hours => 8,
						   after_any => ARRAY[:other]) AS other2 \gset
SELECT count(*) AS jobs_before FROM gpualloc.jobs \gset
SELECT count(*) AS links_before FROM gpualloc.job_dependencies \gset
SET ROLE dep_user;
SELECT gpualloc.submit_job('dp-bad', 'training', 'dp', 1, tenant => 'dep_team', work_gpu_hours => 1,
						   after_ok => ARRAY[:other]);
-- and sees the links of its own tenant's jobs only
SELECT count(*) AS links_seen, count(*) FILTER (WHERE job_id = :other2) AS of_other_tenant
FROM gpualloc.job_dependencies;
RESET ROLE;
SELECT count(*) - :jobs_before AS jobs_added FROM gpualloc.jobs;
SELECT count(*) - :links_before AS links_added FROM gpualloc.job_dependencies;
SELECT gpualloc.cancel_job(:other2);
SELECT gpualloc.cancel_job(:other);

-- a running job past its limit is stopped: failed, its GPUs freed
SELECT gpualloc.submit_job('dp-long', 'training', 'dp', 2, tenant => 'dep_team', work_gpu_hours => 10,
						   time_limit => interval '1 hour') AS long \gset
UPDATE gpualloc.jobs SET submitted_at = now() - interval '3 hours' WHERE job_id = :long;
SELECT gpualloc.job_started(:long, started_at => now() - interval '90 minutes');
SELECT gpualloc_internal.stop_overdue_jobs() AS stopped;
SELECT status, status_message, finished_at IS NOT NULL AS finished FROM gpualloc.jobs WHERE job_id = :long;
SELECT count(*) AS open_rows FROM gpualloc.allocations WHERE job_id = :long AND end_seq IS NULL;
SELECT reason FROM gpualloc.allocation_commits ORDER BY seq DESC LIMIT 1;
SELECT gpualloc_internal.stop_overdue_jobs() AS stopped_again;
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();
