-- Forecasters from SQL: job estimates and real-time demand.

-- A batch job's duration at `gpus` GPUs (a suggestion when NULL) with its
-- p10-p90 interval, from the analytic prior corrected by the finished jobs of
-- the same kind.  pool, when given, supplies the GPU model.
CREATE FUNCTION gpualloc.estimate_job(kind text, features jsonb, gpus integer DEFAULT NULL,
									  pool text DEFAULT NULL,
									  OUT gpus_used integer, OUT gpus_min integer, OUT gpus_suggested boolean,
									  OUT hours_p10 double precision, OUT hours_p50 double precision,
									  OUT hours_p90 double precision, OUT work_gpu_hours double precision,
									  OUT memory_gb double precision, OUT method text)
RETURNS record
SET search_path = pg_catalog, gpualloc, pg_temp
AS 'MODULE_PATHNAME', 'gpualloc_estimate_job'
LANGUAGE C STABLE CALLED ON NULL INPUT;

-- The features of a job whose work the submitter gave: known keys, types
-- and ranges of its kind, at most 64 kB (estimate.c).
CREATE FUNCTION gpualloc_internal.check_features(kind text, features jsonb) RETURNS void
SET search_path = pg_catalog, gpualloc, pg_temp
AS 'MODULE_PATHNAME', 'gpualloc_check_features'
LANGUAGE C STABLE;

-- Per step from `from` (floored to a step) over `horizon`: the p50 and upper
-- quantile of traffic, the upper quantile in GPUs, and the churn-shaped GPU
-- curve the planner uses, learned only from history before `from`.
CREATE FUNCTION gpualloc.forecast_demand(service text, "from" timestamptz, horizon interval DEFAULT '24 hours')
RETURNS TABLE (step_start timestamptz, traffic_p50 double precision, traffic_upper double precision,
			   gpus_upper integer, gpus_planned integer)
SET search_path = pg_catalog, gpualloc, pg_temp
AS 'MODULE_PATHNAME', 'gpualloc_forecast_demand'
LANGUAGE C STABLE CALLED ON NULL INPUT;
