-- bench-scale: one pool of :gpus GPUs (nodes of 8), two real-time services
-- with two weeks of hourly demand, and :queued queued jobs of mixed kinds,
-- sizes (1 to 8 GPUs) and lengths.  The jobs go into the table in one
-- statement, as submit_job would have written them with work_gpu_hours
-- given, so that the setup of 50,000 jobs takes seconds.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION gpualloc CASCADE;
SELECT gpualloc.add_tenant('postgres');
SELECT gpualloc.add_pool('h100', 'H100-SXM', 80, 989);
SELECT gpualloc.add_node('h100', n) FROM generate_series(0, :gpus / 8 - 1) n;
SELECT gpualloc.add_service('chat', 'h100', capacity_per_gpu => 100, max_gpus => :gpus / 16,
							priority => 2, churn_limit => 8);
SELECT gpualloc.add_service('search', 'h100', capacity_per_gpu => 100, max_gpus => :gpus / 32,
							priority => 2, churn_limit => 8);
INSERT INTO gpualloc.demand_staging
SELECT s, h, (:gpus / 64) * 100 * (1 + 0.8 * sin(pi() * extract(hour FROM h AT TIME ZONE 'UTC') / 24))
FROM unnest(ARRAY['chat', 'search']) s,
	 generate_series(date_trunc('hour', now()) - interval '14 days',
					 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand();
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max,
						   est_gpus, est_hours_p10, est_hours_p50, est_hours_p90, est_work_gpu_hours, est_method)
SELECT 'queued-' || i, (ARRAY['training', 'batch_inference', 'quantization'])[1 + i % 3], 'postgres',
	   (SELECT pool_id FROM gpualloc.pools WHERE name = 'h100'), 1 + (i % 5),
	   1 << (i % 4), 1 << (i % 4 + (i % 2)), 1 << (i % 4 + (i % 2)),
	   w / (1 << (i % 4 + (i % 2))), w / (1 << (i % 4 + (i % 2))), w / (1 << (i % 4 + (i % 2))), w, 'submitted'
FROM generate_series(1, :queued) i, LATERAL (SELECT (4 + (i * 37 % 200))::double precision AS w) x;
ANALYZE;
CREATE SEQUENCE bench_job_seq;
