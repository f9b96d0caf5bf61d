-- The demo cluster: one pool of 8 A100s on one node, a chat service with a
-- week of hourly demand, and a queue of mixed batch work.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpualloc CASCADE;

SELECT gpualloc.add_pool('a100', 'A100-80GB', memory_gb => 80, peak_tflops => 312, node_size => 8);
SELECT gpualloc.add_node('a100', 0);

-- chat: one GPU serves 50 requests/s; demand peaks in the afternoon and dips
-- at night and at weekends.
SELECT gpualloc.add_service('chat', 'a100', capacity_per_gpu => 50, max_gpus => 6,
							priority => 2, churn_limit => 2, min_gpus => 1);
INSERT INTO gpualloc.demand_staging (service, hour, traffic)
SELECT 'chat', h,
	   round((120 + 110 * greatest(0, sin(pi() * (extract(hour FROM h AT TIME ZONE 'UTC') - 6) / 16)))
			 * CASE WHEN extract(isodow FROM h AT TIME ZONE 'UTC') >= 6 THEN 0.6 ELSE 1 END)
FROM generate_series(date_trunc('hour', now()) - interval '7 days',
					 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') AS h;
SELECT gpualloc.load_demand() AS demand_hours_loaded;

-- the jobs belong to the demo's own role, registered as a tenant
SELECT gpualloc.add_tenant(current_user)
WHERE NOT EXISTS (SELECT 1 FROM gpualloc.tenants WHERE tenant = current_user);

SELECT gpualloc.submit_job('llama8b-lora-dpo', 'training', 'a100', 2, 4, priority => 3,
	features => '{"strategy": "lora", "technique": "dpo", "params_b": 8, "tokens_m": 200}',
	work_gpu_hours => 12);
SELECT gpualloc.submit_job('mistral7b-full-sft', 'training', 'a100', 4, 4, priority => 2,
	features => '{"strategy": "full", "technique": "sft", "params_b": 7, "tokens_m": 500}',
	work_gpu_hours => 40);
SELECT gpualloc.submit_job('catalog-scoring', 'batch_inference', 'a100', 1, 2, priority => 1,
	features => '{"params_b": 8, "tokens_m": 900}', work_gpu_hours => 6);
SELECT gpualloc.submit_job('llama70b-awq', 'quantization', 'a100', 2, 2, priority => 1.5,
	features => '{"params_b": 70, "algorithm": "awq"}', work_gpu_hours => 4,
	deadline => now() + interval '12 hours');
