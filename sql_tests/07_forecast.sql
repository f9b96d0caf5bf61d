-- Forecasters from SQL: job estimates, suggested sizes, demand forecasts.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- an estimate has an ordered interval and a power-of-two size
SELECT gpus_used, gpus_suggested, hours_p10 <= hours_p50 AND hours_p50 <= hours_p90 AS ordered,
	   round(work_gpu_hours::numeric / gpus_used, 6) = round(hours_p50::numeric, 6) AS work_is_hours_times_gpus,
	   method
FROM gpualloc.estimate_job('training', '{"strategy": "full", "technique": "sft", "params_b": 7, "tokens_m": 500}', 8);
-- more GPUs, shorter; bigger model, longer
SELECT a.hours_p50 > b.hours_p50 AS fewer_gpus_take_longer
FROM gpualloc.estimate_job('training', '{"variant": "lora_dpo", "params_b": 8, "tokens_m": 200}', 2) a,
	 gpualloc.estimate_job('training', '{"variant": "lora_dpo", "params_b": 8, "tokens_m": 200}', 8) b;
SELECT a.hours_p50 < b.hours_p50 AS bigger_model_takes_longer
FROM gpualloc.estimate_job('training', '{"variant": "full_sft", "params_b": 8, "tokens_m": 200}', 8) a,
	 gpualloc.estimate_job('training', '{"variant": "full_sft", "params_b": 70, "tokens_m": 200}', 8) b;
-- with no count given, a size is suggested from memory: bigger models need more GPUs
SELECT s.gpus_suggested, s.gpus_min, (s.gpus_min & (s.gpus_min - 1)) = 0 AS pow2,
	   s.gpus_min <= l.gpus_min AS grows
FROM gpualloc.estimate_job('training', '{"variant": "full_sft", "params_b": 1, "tokens_m": 10}') s,
	 gpualloc.estimate_job('training', '{"variant": "full_sft", "params_b": 70, "tokens_m": 10}') l;
-- quantization books whole GPU-hours
SELECT work_gpu_hours = ceil(work_gpu_hours) AS whole_gpu_hours, method LIKE 'quantization%' AS quant
FROM gpualloc.estimate_job('quantization', '{"params_b": 70, "algorithm": "gptq"}');
SELECT hours_p50 > 0 AS positive FROM gpualloc.estimate_job('batch_inference', '{"params_b": 8, "tokens_m": 900}', 2);

-- bad features: each names the feature
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "foo_bar"}');
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": -8, "variant": "lora_sft"}');
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": "big", "variant": "lora_sft"}');
SELECT * FROM gpualloc.estimate_job('training', '{"parms_b": 8, "variant": "lora_sft"}');
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft", "gpu_model": "tpu"}');
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": [8], "variant": "lora_sft"}');
SELECT * FROM gpualloc.estimate_job('quantization', '{"params_b": 8, "algorithm": "magic"}');
SELECT * FROM gpualloc.estimate_job('finetune', '{}');
SELECT * FROM gpualloc.estimate_job('training', '[]');
SELECT * FROM gpualloc.estimate_job('training', '{"params_b": 8, "variant": "lora_sft"}', 3);
SELECT gpualloc.submit_job('bad-features', 'training', 'h200', 2, features => '{"params_b": 8}');

-- submit_job stores the estimate; with no size it takes the suggestion
SELECT gpualloc.submit_job('auto-size', 'training', 'h200',
	features => '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}') AS auto \gset
SELECT j.gpus_min = est.gpus_min AS min_from_memory, j.est_gpus = j.gpus_max AS estimated_at_max,
	   est_hours_p10 <= est_hours_p50 AND est_hours_p50 <= est_hours_p90 AS interval_stored,
	   est_work_gpu_hours > 0 AS work_stored, est_method LIKE 'training%' AS method_stored
FROM gpualloc.jobs j, gpualloc.estimate_job('training', j.features, NULL, 'h200') est
WHERE j.job_id = :auto;

-- finished jobs become training data for their kind
SELECT gpualloc.add_pool('lab', 'H100-SXM', 80, 989) > 0 AS lab, gpualloc.add_node('lab', 0);
SELECT gpualloc.submit_job('lab-run', 'training', 'lab', 1, 1,
	features => '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}') AS lab_job \gset
SELECT method AS before FROM gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}', 1, 'lab');
UPDATE gpualloc.jobs SET submitted_at = now() - interval '5 hours' WHERE job_id = :lab_job;
SELECT gpualloc.job_started(:lab_job, 7, 1, started_at => now() - interval '4 hours');
SELECT gpualloc.job_finished(:lab_job);
SELECT method AS after FROM gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}', 1, 'lab');
-- the fit is kept between calls and redone when a job finishes: in a later
-- statement, and within a transaction after the write that finished it
SELECT gpualloc.submit_job('lab-run-2', 'training', 'lab', 1, 1,
	features => '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}') AS lab_job2 \gset
SELECT gpualloc.submit_job('lab-queued', 'training', 'lab', 1, 1,
	features => '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}') AS lab_queued \gset
UPDATE gpualloc.jobs SET submitted_at = now() - interval '5 hours' WHERE job_id = :lab_job2;
SELECT gpualloc.job_started(:lab_job2, 6, 1, started_at => now() - interval '3 hours');
BEGIN;
SELECT method AS before_finish FROM gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}', 1, 'lab');
SELECT gpualloc.job_finished(:lab_job2);
SELECT method AS after_finish FROM gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}', 1, 'lab');
COMMIT;
-- a queued job the estimator now refuses (here its features lost a required
-- key) keeps its estimate and stops no other job's refresh
SELECT gpualloc.submit_job('lab-refused', 'training', 'lab', 1, 1,
	features => '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}') AS lab_refused \gset
UPDATE gpualloc.jobs SET features = '{"variant": "lora_sft", "params_b": 8}' WHERE job_id = :lab_refused;
SELECT est_hours_p50 AS refused_p50, est_method AS refused_method FROM gpualloc.jobs WHERE job_id = :lab_refused \gset
SELECT count(*) AS estimates_of_refused FROM gpualloc_internal.estimate_or_skip('training', '{"variant": "lora_sft", "params_b": 8}', 1, 'lab');
-- one statement re-estimates the queue from the same fit
SELECT gpualloc_internal.refresh_estimates() > 0 AS refreshed;
SELECT est_hours_p50 = :refused_p50 AND est_method = :'refused_method' AS refused_keeps_its_estimate
FROM gpualloc.jobs WHERE job_id = :lab_refused;
SELECT gpualloc.cancel_job(:lab_refused);
SELECT j.est_method, j.est_hours_p50 = e.hours_p50 AS same_as_estimate
FROM gpualloc.jobs j, gpualloc.estimate_job('training', j.features, j.gpus_max, 'lab') e
WHERE j.job_id = :lab_queued;
SELECT gpualloc.cancel_job(:lab_queued);

-- from 40 finished jobs of a kind on, a second-order correction learns what
-- the kind's own model misses beyond one factor: here runs that took twice
-- the estimate for 1B and 70B models and the estimate for 8B ones, a
-- curvature in the model size that a factor per variant cannot follow
CREATE TEMP TABLE curve AS
SELECT i, x.p, jsonb_build_object('variant', 'lora_sft', 'params_b', x.p, 'tokens_m', x.t) AS features,
	   e.hours_p50 * CASE x.p WHEN 8 THEN 1 ELSE 2 END AS hours
FROM generate_series(1, 48) i,
	 LATERAL (SELECT (ARRAY[1, 8, 70])[1 + i % 3] AS p, 20 + (i * 37) % 400 AS t) x,
	 LATERAL gpualloc.estimate_job('training', jsonb_build_object('variant', 'lora_sft', 'params_b', x.p, 'tokens_m', x.t), 1, 'lab') e;
SELECT hours_p50 AS small_before FROM gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 1, "tokens_m": 100}', 1, 'lab') \gset
SELECT hours_p50 AS mid_before FROM gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}', 1, 'lab') \gset
SELECT hours_p50 AS large_before FROM gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 70, "tokens_m": 100}', 1, 'lab') \gset
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max, features,
						   status, submitted_at, started_at, finished_at, block_first, block_size)
SELECT 'curve-' || c.i, 'training', j.tenant, j.pool_id, 1, 1, 1, c.features, 'succeeded',
	   now() - c.hours * interval '1 hour' - interval '1 minute', now() - c.hours * interval '1 hour', now(), 0, 1
FROM curve c, gpualloc.jobs j WHERE j.job_id = :lab_job;
SELECT method LIKE '% second-order correction (% jobs)' AS corrected,
	   hours_p10 < hours_p50 AND hours_p50 < hours_p90 AS ordered
FROM gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}', 1, 'lab');
-- both ends rise above the middle, which no factor linear in log(params_b)
-- can give, and every estimate is within a quarter of its truth
SELECT s.hours_p50 / :small_before - m.hours_p50 / :mid_before > 0.5 AND
	   l.hours_p50 / :large_before - m.hours_p50 / :mid_before > 0.5 AS ends_above_middle,
	   abs(s.hours_p50 / :small_before - 2) < 0.5 AND abs(m.hours_p50 / :mid_before - 1) < 0.25 AND
	   abs(l.hours_p50 / :large_before - 2) < 0.5 AS near_truth
FROM gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 1, "tokens_m": 100}', 1, 'lab') s,
	 gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 8, "tokens_m": 100}', 1, 'lab') m,
	 gpualloc.estimate_job('training', '{"variant": "lora_sft", "params_b": 70, "tokens_m": 100}', 1, 'lab') l;
DELETE FROM gpualloc.jobs WHERE name LIKE 'curve-%';

-- demand: steps of the horizon, planned GPUs at or above the upper quantile
-- within the churn limit, learned only from history before `from`
SELECT count(*) AS steps, bool_and(gpus_planned >= least(gpus_upper, 8)) AS covers_upper,
	   bool_and(traffic_upper >= traffic_p50) AS upper_above_p50
FROM gpualloc.forecast_demand('assist', now(), '24 hours');
SELECT max(abs(gpus_planned - prev)) <= 2 AS within_churn_limit
FROM (SELECT gpus_planned, lag(gpus_planned) OVER (ORDER BY step_start) AS prev
	  FROM gpualloc.forecast_demand('assist', now(), '24 hours')) f;
SELECT count(*) AS steps, max(gpus_planned) AS gpus
FROM gpualloc.forecast_demand('assist', '2000-01-01 00:00+00', '2 hours');   -- no history then
-- a burst at the traffic bound from nothing: the upper curve remembers it
-- (errors against no traffic are scored in absolute units only) and stays
-- within that bound
SELECT gpualloc.add_service('burst', 'lab', capacity_per_gpu => 1e12, max_gpus => 4) > 0 AS burst;
SELECT gpualloc.record_demand_rows(array_agg('burst'::text), array_agg(h),
								   array_agg(CASE WHEN h = date_trunc('hour', now(), 'UTC') - interval '6 hours'
												  THEN 1e15 ELSE 0 END::float8)) AS hours
FROM generate_series(date_trunc('hour', now(), 'UTC') - interval '72 hours',
					 date_trunc('hour', now(), 'UTC') - interval '1 hour', interval '1 hour') h;
SELECT max(traffic_upper) BETWEEN 1e14 AND 1e15 AS near_the_burst, min(traffic_upper) >= 0 AS non_negative,
	   max(gpus_planned) <= 4 AS within_max_gpus
FROM gpualloc.forecast_demand('burst', now(), '24 hours');
SELECT gpualloc.remove_service('burst');
SELECT * FROM gpualloc.forecast_demand('nope', now(), '1 hour');
SELECT * FROM gpualloc.forecast_demand('assist', now(), '1 minute');
SELECT * FROM gpualloc.forecast_demand('assist', 'infinity', '1 hour');
SELECT * FROM gpualloc.forecast_demand('assist', NULL, '1 hour');
