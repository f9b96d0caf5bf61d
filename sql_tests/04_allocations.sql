-- The committed allocation: the database itself refuses a GPU booked twice.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

CREATE FUNCTION gpu(p text, n int, s int) RETURNS int LANGUAGE sql AS
$$ SELECT gpu_id FROM gpualloc.gpus JOIN gpualloc.pools USING (pool_id) WHERE name = p AND node = n AND slot = s $$;

-- job 5 runs on a100 [0, 2) from the previous file
SELECT count(*) AS job5_gpus FROM gpualloc.allocations WHERE job_id = 5;
INSERT INTO gpualloc.allocations (gpu_id, service_id, during, begin_seq, end_seq)
VALUES (gpu('a100', 0, 7), 1, tstzrange('2026-12-01 10:00+00', '2026-12-01 10:30+00'), 0, 0);
INSERT INTO gpualloc.allocations (gpu_id, service_id, during, begin_seq, end_seq)
VALUES (gpu('a100', 0, 7), 1, tstzrange('2026-12-01 10:30+00', '2026-12-01 11:00+00'), 0, 0);  -- adjacent: fine
-- double bookings written straight into the table are rejected
INSERT INTO gpualloc.allocations (gpu_id, service_id, during, begin_seq, end_seq)
VALUES (gpu('a100', 0, 7), 1, tstzrange('2026-12-01 10:15+00', '2026-12-01 10:45+00'), 0, 0);
\set VERBOSITY terse
INSERT INTO gpualloc.allocations (gpu_id, service_id, during, begin_seq, end_seq)
VALUES (gpu('a100', 0, 0), 1, tstzrange('2099-01-01 00:00+00', '2099-01-01 00:30+00'), 0, 0);  -- job 5 holds it until it ends
-- a row must name exactly one workload and a non-empty time range
INSERT INTO gpualloc.allocations (gpu_id, job_id, service_id, during, begin_seq, end_seq)
VALUES (gpu('a100', 0, 6), 5, 1, tstzrange('2026-12-01 10:00+00', '2026-12-01 10:30+00'), 0, 0);
INSERT INTO gpualloc.allocations (gpu_id, service_id, during, begin_seq, end_seq)
VALUES (gpu('a100', 0, 6), 1, tstzrange('2026-12-01 10:00+00', '2026-12-01 10:00+00'), 0, 0);
\set VERBOSITY default
SELECT count(*) AS rows_on_gpu7 FROM gpualloc.allocations WHERE gpu_id = gpu('a100', 0, 7);

-- a GPU in use cannot be removed; a pool with work cannot go either
SELECT gpualloc.remove_gpu('a100', 0, 0);
SELECT gpualloc.remove_pool('a100');
SELECT gpualloc.add_service('tts', 'h100', 10, 2);
SELECT gpualloc.remove_pool('h100');                                         -- its service must go first
SELECT gpualloc.remove_service('tts');
SELECT gpualloc.remove_pool('h100');
SELECT name FROM gpualloc.pools ORDER BY 1;
-- a removed service's allocations go with it
INSERT INTO gpualloc.allocations (gpu_id, service_id, during, begin_seq, end_seq)
VALUES (gpu('a100', 1, 3), 1, tstzrange(now() - interval '10 minutes', now() + interval '20 minutes'), 0, 0);
SELECT count(*) AS chat_rows FROM gpualloc.allocations WHERE service_id = 1;
SELECT gpualloc.remove_service('chat');
SELECT count(*) AS service_rows FROM gpualloc.allocations WHERE service_id IS NOT NULL;
