-- Jobs: submit, cancel, start and finish, with the lifecycle's rules.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- only a registered tenant owns jobs; the caller here is its own tenant
SELECT gpualloc.submit_job('early', 'training', 'a100', 1);                   -- not registered yet
SELECT gpualloc.add_tenant('postgres');

SELECT gpualloc.submit_job('llama8b-dpo', 'training', 'a100', 4, 8, priority => 3,
	features => '{"strategy": "lora", "technique": "dpo", "params_b": 8, "tokens_m": 200}',
	work_gpu_hours => 64) AS j1;
SELECT gpualloc.submit_job('score-catalog', 'batch_inference', 'a100', 2, priority => 1,
	work_gpu_hours => 6) AS j2;
SELECT gpualloc.submit_job('quant-70b', 'quantization', 'a100', 1, 2, priority => 2,
	features => '{"params_b": 70, "algorithm": "awq"}', not_before => now() + interval '1 hour', deadline => now() + interval '1 day') AS j3;
SELECT job_id, name, kind, tenant, pool, priority, gpus_min, gpus_max, status, est_gpus, est_hours_p50, est_work_gpu_hours
FROM gpualloc.queue ORDER BY job_id;

-- the executor reports the start on an aligned block, then the finish
SELECT gpualloc.job_started(1, block_first => 0, block_size => 8, started_at => now());
SELECT status, block_first, block_size, started_at > now() - interval '1 minute' AS started_recently FROM gpualloc.jobs WHERE job_id = 1;
SELECT count(*) AS booked, bool_and(upper_inf(during)) AS open_ended FROM gpualloc.allocations WHERE job_id = 1;
SELECT pool, gpu_index, workload_kind, job_name FROM gpualloc.current_allocation WHERE job_id IS NOT NULL ORDER BY gpu_index;
SELECT gpualloc.job_finished(1, succeeded => true, message => 'converged');
SELECT status, finished_at > now() - interval '1 minute' AS finished_recently, status_message FROM gpualloc.jobs WHERE job_id = 1;
SELECT count(*) AS open_allocations FROM gpualloc.allocations WHERE job_id = 1 AND upper_inf(during);
SELECT gpualloc.job_started(2, 8, 2);
SELECT gpualloc.job_finished(2, succeeded => false, message => 'OOM');
SELECT status, status_message FROM gpualloc.jobs WHERE job_id = 2;
SELECT gpualloc.cancel_job(3, 'superseded');
SELECT status, status_message, finished_at IS NULL AS never_ran FROM gpualloc.jobs WHERE job_id = 3;
-- the name is free again once the job is no longer active
-- (not_before keeps it off the fast path, so it stays unallocated for the checks below)
SELECT gpualloc.submit_job('quant-70b', 'quantization', 'a100', 1, 2,
	features => '{"params_b": 70, "algorithm": "gptq"}', not_before => now() + interval '1 minute') AS j4;

-- bad input: each names the field and the rule, and changes nothing
SELECT gpualloc.submit_job('x', 'finetune', 'a100', 1);                       -- unknown kind
SELECT gpualloc.submit_job('x', 'training', 'nope', 1);                       -- unknown pool
SELECT gpualloc.submit_job('x', 'training', 'a100', 3);                       -- size not a power of two
SELECT gpualloc.submit_job('x', 'training', 'a100', 0);                       -- zero GPUs
SELECT gpualloc.submit_job('x', 'training', 'a100', 8, 4);                    -- min above max
SELECT gpualloc.submit_job('x', 'training', 'a100', 64);                      -- more GPUs than the pool has
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, priority => -1);       -- negative priority
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, priority => 'NaN');    -- NaN priority
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, priority => 'Infinity'); -- infinite priority
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, features => '[1, 2]'); -- features not an object
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, deadline => '2020-01-01 00:00+00'); -- deadline passed
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, not_before => '2099-01-02 00:00+00',
	deadline => '2099-01-01 00:00+00');                                    -- deadline before not_before
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, work_gpu_hours => 0);  -- zero work
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, tenant => 'nobody_such_role'); -- unknown tenant
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, priority => 10.5);     -- above the tenant's maximum
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, 16);                   -- gpus_max beyond the pool
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, work_gpu_hours => 1e308); -- absurd work
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, work_gpu_hours => 2,
	features => '{"junk": 1}');                                                -- unknown feature, work given
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, work_gpu_hours => 2,
	features => '{"params_b": 1e300}');                                        -- feature out of range, work given
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, work_gpu_hours => 2,
	features => jsonb_build_object('notes', repeat('x', 70000)));              -- over 64 kB
SELECT gpualloc.submit_job('x', 'training', 'a100', 1, priority => 1.7976931348623157e308); -- far above it
SELECT gpualloc.add_tenant('gpualloc_submitter');                             -- a shared group role
SELECT gpualloc.add_tenant('pg_read_all_data');                               -- a predefined role
SELECT gpualloc.add_tenant('nobody_such_role');                               -- not a role
SELECT gpualloc.add_tenant('postgres');                                       -- twice
SELECT gpualloc.add_tenant(NULL);                                             -- no role
SELECT gpualloc.set_tenant('postgres', 0);                                    -- zero maximum
SELECT gpualloc.set_tenant('postgres', 'NaN');                                -- NaN maximum
SELECT gpualloc.set_tenant('postgres', 1e7);                                  -- beyond 1e6
SELECT gpualloc.set_tenant('nobody_such_role', 5);                            -- not registered
SELECT gpualloc.remove_tenant('postgres');                                    -- still owns jobs
SELECT gpualloc.submit_job('quant-70b', 'quantization', 'a100', 1);           -- duplicate active name
SELECT gpualloc.submit_job('x y', 'training', 'a100', 1);                     -- invalid name
SELECT gpualloc.job_started(4, 1, 2);                                         -- misaligned block
SELECT gpualloc.job_started(4, 0, 4);                                         -- block larger than gpus_max
SELECT gpualloc.job_started(4, 12, 2);                                        -- block over missing GPUs
SELECT gpualloc.job_started(4);                                               -- no block allocated
SELECT gpualloc.job_started(4, 0, 2, started_at => '2020-01-01 00:00+00'); -- start before submission
SELECT gpualloc.job_finished(4);                                              -- finish a queued job
SELECT gpualloc.job_finished(1);                                              -- finish twice
SELECT gpualloc.job_started(4, 0, 2, started_at => '2099-01-01 00:00+00');   -- start in the future
SELECT gpualloc.cancel_job(1);                                                -- cancel a finished job
SELECT gpualloc.cancel_job(999);                                              -- unknown job
SELECT gpualloc.job_started(999, 0, 1);                                       -- unknown job
SELECT count(*) AS jobs, count(*) FILTER (WHERE status = 'queued') AS queued FROM gpualloc.jobs;

-- start on a block that overlaps a running job
SELECT gpualloc.submit_job('other', 'training', 'a100', 2, work_gpu_hours => 4,
	not_before => now() + interval '1 minute') AS j5;
SELECT gpualloc.job_started(4, 0, 2);
SELECT gpualloc.job_started(5, 0, 2);                                         -- overlaps job 4
SELECT gpualloc.job_finished(4, finished_at => '2020-01-01 00:00+00'); -- finish before start
SELECT gpualloc.cancel_job(4, 'operator request');
SELECT status, finished_at > now() - interval '1 minute' AS stopped_recently FROM gpualloc.jobs WHERE job_id = 4;
SELECT count(*) AS open_allocations FROM gpualloc.allocations WHERE job_id = 4 AND upper_inf(during);
SELECT gpualloc.job_started(5, 0, 2);
SELECT job_id, status FROM gpualloc.queue ORDER BY job_id;

-- the executor's reports, the change feed and their bad inputs
SELECT gpualloc.job_rejected(5, 'image missing');                             -- running, not booked
SELECT gpualloc.job_rejected(5, NULL);                                        -- no reason
SELECT gpualloc.job_rejected(5, repeat('x', 1001));                           -- reason too long
SELECT gpualloc.cancel_job(5, repeat('x', 1001));                             -- reason too long
SELECT gpualloc.job_finished(5, message => repeat('x', 1001));                -- message too long
SELECT gpualloc.submit_job('cmd', 'training', 'a100', 1, command => repeat('x', 8193)); -- command too long
SELECT gpualloc.submit_job('cmd', 'training', 'a100', 1, command => '   ');   -- blank command
SELECT gpualloc.allocation_changes(-1);                                       -- negative sequence
SELECT gpualloc.allocation_changes(NULL);                                     -- no sequence
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT gpualloc.cancel_job(5);                                                -- needs read committed
ROLLBACK;
SELECT status FROM gpualloc.jobs WHERE job_id = 5;
SELECT gpualloc.allocation_seq() > 0 AS has_changes;
SELECT change, count(*) FROM gpualloc.allocation_changes(0) GROUP BY change ORDER BY change;
SELECT count(*) AS integrity_problems FROM gpualloc.check_integrity();

-- the table's rules hold for rows written around the API too (as the
-- owner): each broken rule is named, and a row keeping them all is written
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max)
SELECT 'rules-probe', 'training', (SELECT min(tenant) FROM gpualloc.tenants), min(pool_id), 1, 1, 1
FROM gpualloc.pools RETURNING job_id AS queued_job \gset
UPDATE gpualloc.jobs SET kind = 'serving' WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET priority = 'NaN' WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET priority = 0 WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET gpus_min = 3 WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET gpus_max = 0 WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET gpus_min = 8, gpus_max = 4 WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET features = '[1]' WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET command = repeat('x', 8193) WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET time_limit = '0 s' WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET not_before = now(), deadline = now() WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET est_work_gpu_hours = 'NaN' WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET est_work_gpu_hours = 1.1e7 WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET status = 'paused' WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET block_size = 4, block_first = 2 WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET block_size = 3, block_first = 0 WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET status = 'running', started_at = now() WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET booked_at = now() WHERE job_id = :queued_job;
UPDATE gpualloc.jobs SET status = 'failed', started_at = now(), finished_at = now() - interval '1 s'
WHERE job_id = :queued_job;
-- NULLs pass as in SQL, and a row within every rule is written
BEGIN;
UPDATE gpualloc.jobs SET block_size = 4, block_first = NULL, command = repeat('x', 8192), time_limit = '1 s',
	est_work_gpu_hours = 1e7, deadline = NULL
WHERE job_id = :queued_job;
ROLLBACK;
DELETE FROM gpualloc.jobs WHERE job_id = :queued_job;
-- its id given back: the files after this one number their jobs as before
SELECT setval('gpualloc.jobs_job_id_seq', :queued_job - 1) IS NOT NULL AS id_given_back;
