-- bench-submit: 64 GPUs (8 nodes of 8), a real-time service with two weeks of
-- hourly demand, and 200 queued jobs of mixed kinds and sizes.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION gpualloc CASCADE;
SELECT gpualloc.add_tenant('postgres');
SELECT gpualloc.add_pool('h100', 'H100-SXM', 80, 989);
SELECT gpualloc.add_node('h100', n) FROM generate_series(0, 7) n;
SELECT gpualloc.add_service('chat', 'h100', capacity_per_gpu => 100, max_gpus => 16, priority => 2, churn_limit => 4);
INSERT INTO gpualloc.demand_staging
SELECT 'chat', h, 600 + 500 * sin(pi() * extract(hour FROM h AT TIME ZONE 'UTC') / 24)
FROM generate_series(date_trunc('hour', now()) - interval '14 days',
					 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand();
SELECT setseed(0.42);
SELECT gpualloc.submit_job('queued-' || i, (ARRAY['training', 'batch_inference', 'quantization'])[1 + i % 3],
						   'h100', 1 << (i % 4), 1 << (i % 4 + (i % 2)), priority => 1 + (i % 5),
						   work_gpu_hours => 4 + (i * 37 % 200))
FROM generate_series(1, 200) i;
SELECT status FROM gpualloc.replan('fast');
CREATE SEQUENCE bench_job_seq;
