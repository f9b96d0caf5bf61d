-- one submission; one in four carries features for the duration estimator
\set k random(0, 3)
\set prio random(1, 5)
\set with_features random(0, 3)
\if :with_features = 0
SELECT gpualloc.submit_job('bench-' || nextval('bench_job_seq'), 'training', 'h100', 1 << :k, 1 << :k,
	priority => :prio, features => '{"variant": "lora_sft", "params_b": 8, "tokens_m": 50}');
\else
SELECT gpualloc.submit_job('bench-' || nextval('bench_job_seq'), 'batch_inference', 'h100', 1 << :k, 1 << :k,
	priority => :prio, work_gpu_hours => 1 + :k);
\endif
