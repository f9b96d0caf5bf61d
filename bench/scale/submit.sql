-- bench-scale: one submission of 1 to 8 GPUs with its work given
\set k random(0, 3)
\set prio random(1, 5)
SELECT gpualloc.submit_job('bench-' || nextval('bench_job_seq'), 'batch_inference', 'h100', 1 << :k, 1 << :k,
	priority => :prio, work_gpu_hours => 1 + :k);
