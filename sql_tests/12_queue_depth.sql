-- A plan considers, per pool and smallest size, the queued jobs in priority
-- order until their estimated work reaches gpualloc.queue_depth times the
-- pool's GPU-hours over the horizon; the rest wait for a later plan and say
-- so.  Booked jobs are always planned.
SET client_min_messages = warning;

-- 8 GPUs over a 24-hour horizon: 192 GPU-hours; a depth of 0.25 is 48
SELECT gpualloc.add_pool('qd', 'H100-SXM', 80, 989) > 0 AS pool_added;
SELECT gpualloc.add_node('qd', 0);
-- all released in an hour, so none is booked at submission
SELECT gpualloc.submit_job('qd-small-' || i, 'quantization', 'qd', 1, priority => 1,
						   work_gpu_hours => 2, not_before => now() + interval '1 hour') > 0 AS submitted
FROM generate_series(1, 8) i;
SELECT gpualloc.submit_job('qd-big-' || i, 'training', 'qd', 8, priority => CASE WHEN i <= 3 THEN 5 ELSE 0.5 END,
						   work_gpu_hours => 8, not_before => now() + interval '1 hour') > 0 AS submitted
FROM generate_series(1, 13) i;

CREATE FUNCTION pg_temp.planned() RETURNS TABLE (size integer, planned bigint, waiting bigint, reason text)
LANGUAGE sql AS $$
	SELECT j.gpus_min, count(*) FILTER (WHERE q.planned_start IS NOT NULL),
		   count(*) FILTER (WHERE q.planned_start IS NULL),
		   pg_catalog.min(q.pending_reason) FILTER (WHERE q.planned_start IS NULL)
	FROM gpualloc.queue_plan q JOIN gpualloc.jobs j USING (job_id)
	WHERE q.pool = 'qd' GROUP BY j.gpus_min ORDER BY j.gpus_min $$;

-- every job fits in the horizon: with the default depth all are planned
SHOW gpualloc.queue_depth;
SELECT status FROM gpualloc.replan('fast');
SELECT * FROM pg_temp.planned();

-- depth 0.25: the small jobs (16 GPU-hours) all; of the big ones the three
-- of priority 5 (24) and then three more, until 48 is reached
SET gpualloc.queue_depth = 0.25;
SELECT status FROM gpualloc.replan('fast');
SELECT * FROM pg_temp.planned();
SELECT name FROM gpualloc.queue_plan WHERE pool = 'qd' AND planned_start IS NOT NULL AND name LIKE 'qd-big-%'
ORDER BY name COLLATE "C";

-- 0: every queued job
SET gpualloc.queue_depth = 0;
SELECT status FROM gpualloc.replan('fast');
SELECT * FROM pg_temp.planned();

-- a booked job is planned whatever the depth: book one now, then plan with
-- a depth that leaves out every queued job of its size
RESET gpualloc.queue_depth;
SELECT gpualloc.submit_job('qd-now', 'quantization', 'qd', 1, priority => 0.1, work_gpu_hours => 1) AS now_job \gset
SELECT status FROM gpualloc.jobs WHERE job_id = :now_job;
SET gpualloc.queue_depth = 0.0001;
SELECT status FROM gpualloc.replan('fast');
SELECT status, planned_start IS NOT NULL AS planned FROM gpualloc.queue_plan WHERE job_id = :now_job;

-- a job whose predecessor waits behind the depth waits too, though its own
-- size class is within it; with every job considered it follows its
-- predecessor
SELECT gpualloc.submit_job('qd-pred', 'training', 'qd', 8, priority => 0.1, work_gpu_hours => 8,
						   not_before => now() + interval '1 hour') AS pred \gset
SELECT gpualloc.submit_job('qd-succ', 'quantization', 'qd', 1, priority => 9, work_gpu_hours => 1,
						   not_before => now() + interval '1 hour', after_ok => ARRAY[:pred]::bigint[]) AS succ \gset
SET gpualloc.queue_depth = 0.25;
SELECT status FROM gpualloc.replan('fast');
SELECT name, planned_start IS NOT NULL AS planned FROM gpualloc.queue_plan
WHERE job_id IN (:pred, :succ) ORDER BY name COLLATE "C";
SET gpualloc.queue_depth = 0;
SELECT status FROM gpualloc.replan('fast');
SELECT s.planned_start >= p.planned_start + interval '1 hour' AS succ_after_pred
FROM gpualloc.queue_plan p, gpualloc.queue_plan s WHERE p.job_id = :pred AND s.job_id = :succ;

-- bad settings
SET gpualloc.queue_depth = -1;
SET gpualloc.queue_depth = 'deep';
RESET gpualloc.queue_depth;

-- the successor first: cancelling its predecessor cancels it
SELECT count(*) AS cancelled FROM (SELECT gpualloc.cancel_job(:succ)) c;
SELECT count(*) AS cancelled FROM (SELECT gpualloc.cancel_job(job_id) FROM gpualloc.jobs
WHERE name LIKE 'qd-%' AND status IN ('queued', 'booked', 'running')) c;
SELECT status FROM gpualloc.replan('fast');
SELECT gpualloc.remove_pool('qd');
