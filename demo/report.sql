-- The demo's one-page HTML report, written to standard output: the current
-- allocation, the queue with planned starts, the plan picture, the plan run,
-- and the simulator's comparison with fifo on the demo cluster (psql variable
-- `sim`: the JSON of `gpualloc-sim compare --json`, or empty).
\set ON_ERROR_STOP on
\pset format unaligned
\pset tuples_only on
\pset footer off
SET client_min_messages = warning;

CREATE FUNCTION pg_temp.h(v anyelement) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT replace(replace(replace(coalesce(v::text, ''), '&', '&amp;'), '<', '&lt;'), '>', '&gt;') $$;
CREATE FUNCTION pg_temp.pct(v double precision) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT coalesce(to_char(100 * v, 'FM990.0') || '%', '') $$;
CREATE FUNCTION pg_temp.ts(v timestamptz) RETURNS text LANGUAGE sql STABLE
AS $$ SELECT coalesce(to_char(v AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), '') $$;

WITH latest AS (
	SELECT * FROM gpualloc.plan_history
	WHERE status IN ('succeeded', 'fallback') ORDER BY plan_id DESC LIMIT 1
), alloc AS (
	SELECT string_agg(format('<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class="%s">%s</td><td>%s</td></tr>',
							 pg_temp.h(pool), node, slot, pg_temp.h(state),
							 CASE WHEN job_id IS NOT NULL THEN 'job' WHEN service IS NOT NULL THEN 'service' ELSE 'idle' END,
							 pg_temp.h(coalesce(job_name, service, 'idle')), pg_temp.ts(since)),
					  E'\n' ORDER BY pool, gpu_index) AS rows
	FROM gpualloc.current_allocation
), queue AS (
	SELECT string_agg(format('<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>',
							 pg_temp.h(name), pg_temp.h(kind), priority, pg_temp.h(status),
							 coalesce(gpus::text, '-'), coalesce(pg_temp.ts(planned_start), '-'),
							 coalesce(pg_temp.ts(est_finish), '-'), pg_temp.h(coalesce(pending_reason, 'running'))),
					  E'\n') AS rows
	FROM gpualloc.queue_plan
), sim AS (
	SELECT nullif(:'sim', '')::jsonb AS j
), policies AS (
	SELECT e->>'policy' AS policy, (e->>'utilization')::float8 AS util, (e->>'value')::float8 AS value,
		   (e->>'completed_jobs')::int AS completed, (e->>'coverage')::float8 AS coverage,
		   (e->>'unmet_gpu_hours')::float8 AS unmet, (e->>'churn')::int AS churn,
		   (e->>'wait_mean_h')::float8 AS wait, ord
	FROM sim, jsonb_array_elements(sim.j) WITH ORDINALITY AS x(e, ord)
), fifo AS (
	SELECT * FROM policies WHERE policy = 'fifo'
), comparison AS (
	SELECT string_agg(format('<tr%s><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>',
							 CASE WHEN p.policy IN ('fast', 'full') THEN ' class="ours"' ELSE '' END,
							 pg_temp.h(p.policy), pg_temp.pct(p.util),
							 CASE WHEN p.policy = 'fifo' THEN '' ELSE to_char(100 * (p.util - f.util), 'FMS990.0') || ' pts' END,
							 to_char(p.value, 'FM9999990.0'),
							 CASE WHEN p.policy = 'fifo' OR f.value = 0 THEN ''
								  ELSE to_char(100 * (p.value / f.value - 1), 'FMS99990.0') || '%' END,
							 p.completed, pg_temp.pct(p.coverage), to_char(p.unmet, 'FM99990.0'), p.churn),
					  E'\n' ORDER BY p.ord) AS rows
	FROM policies p LEFT JOIN fifo f ON true
)
SELECT concat_ws(E'\n',
'<!DOCTYPE html>',
'<html lang="en"><head><meta charset="utf-8"><title>gpualloc demo report</title>',
'<style>',
'body{font-family:Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1400px}',
'h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}',
'table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}',
'th{background:#f2f2f2}td.job{color:#2b5d8a;font-weight:bold}td.service{color:#3c7a34;font-weight:bold}td.idle{color:#999}',
'tr.ours td{background:#eef6ec}.cols{display:flex;gap:40px;flex-wrap:wrap}.note{color:#555;font-size:13px}',
'.plan{overflow-x:auto;border:1px solid #eee;padding:6px}',
'</style></head><body>',
format('<h1>gpualloc demo report</h1><p class="note">Generated %s UTC on the demo cluster: one pool of 8 A100s, the chat service and four batch jobs.</p>',
	   pg_temp.ts(now())),
'<div class="cols"><div>',
'<h2>Current allocation</h2>',
'<table><tr><th>pool</th><th>node</th><th>slot</th><th>state</th><th>workload</th><th>since</th></tr>',
(SELECT rows FROM alloc),
'</table></div><div>',
'<h2>Queue</h2>',
'<table><tr><th>job</th><th>kind</th><th>priority</th><th>status</th><th>GPUs</th><th>planned start</th><th>estimated finish</th><th>why it waits</th></tr>',
(SELECT rows FROM queue),
'</table>',
(SELECT format('<h2>Plan run</h2><table><tr><th>plan</th><td>%s (%s, %s)</td></tr><tr><th>solve time</th><td>%s ms</td></tr>'
			   '<tr><th>objective</th><td>%s</td></tr><tr><th>bound</th><td>%s</td></tr><tr><th>gap</th><td>%s</td></tr>'
			   '<tr><th>planned jobs</th><td>%s of %s</td></tr></table>',
			   plan_id, pg_temp.h(mode), pg_temp.h(status), to_char(solve_ms, 'FM999990.0'),
			   to_char(objective, 'FM9999990.00'), coalesce(to_char(bound, 'FM9999990.00'), 'none (fast)'),
			   coalesce(pg_temp.pct(gap), ''), planned_jobs, n_jobs)
 FROM latest),
'</div></div>',
'<h2>The plan</h2>',
'<div class="plan">',
(SELECT gpualloc.plan_svg(plan_id) FROM latest),
'</div>',
'<h2>The allocator against fifo on the demo cluster</h2>',
CASE WHEN (SELECT j FROM sim) IS NULL THEN
	'<p class="note">simulator not built: <code>make tools</code> failed, so there is no comparison.</p>'
ELSE concat_ws(E'\n',
	'<p class="note">The simulator replays one day of the demo cluster (<code>demo/scenario/</code>) under each policy, '
	're-planning every 30 minutes from forecasts, the true job durations and demand revealed only as time passes. '
	'fifo and backfill hold a static reservation of the service''s daily peak; fast and full are this allocator.</p>',
	'<table><tr><th>policy</th><th>utilisation</th><th>vs fifo</th><th>value</th><th>vs fifo</th><th>completed jobs</th>'
	'<th>coverage</th><th>unmet GPU-h</th><th>churn</th></tr>',
	(SELECT rows FROM comparison),
	'</table>')
END,
'</body></html>');
