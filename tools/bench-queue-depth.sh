#!/bin/sh
# make bench-queue-depth: what gpualloc.queue_depth costs a plan and saves a
# re-plan on a queue far deeper than its pool.  On a throwaway server: one
# pool of 64 GPUs with a real-time service (bench/submit/setup.sql) and, for
# each seed in BENCH_SEEDS (two), BENCH_QUEUED (60,000) queued jobs of 1 to 8
# GPUs (half may also run at twice their size), priorities 1 to 5 and 1 to
# BENCH_MAX_WORK (400) GPU-hours, skewed to short; then for each depth in
# BENCH_DEPTHS, replan('fast') in a new session: the plan's objective, the
# jobs it considered, the core solve time and the whole re-plan's time from
# the client.  Depth 0 considers every job.  Prints a table and writes
# bench/results/queue_depth.json.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SEEDS=${BENCH_SEEDS:-0.3 0.7}
QUEUED=${BENCH_QUEUED:-60000}
MAX_WORK=${BENCH_MAX_WORK:-400}
DEPTHS=${BENCH_DEPTHS:-0 1 2 4 8}
make -s >/dev/null
make -s install >/dev/null

TEMPDB_CONF="gpualloc.enabled = off"
. "$ROOT/tools/tempdb.sh"
tempdb_start bench-queue-depth
cd "$ROOT"
$PSQL -f "$ROOT/bench/submit/setup.sql" >/dev/null

echo "| seed | queue_depth | jobs considered | objective | objective / depth 0 | solve ms | re-plan ms |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
: >"$TMP/rows"
for seed in $SEEDS; do
	$PSQL >/dev/null <<SQL
\set ON_ERROR_STOP on
DELETE FROM gpualloc.jobs WHERE name LIKE 'deep-%';
SELECT pg_catalog.setseed($seed);
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max,
						   est_gpus, est_hours_p10, est_hours_p50, est_hours_p90, est_work_gpu_hours, est_method)
SELECT 'deep-' || i, 'batch_inference', (SELECT tenant FROM gpualloc.tenants LIMIT 1),
	   (SELECT pool_id FROM gpualloc.pools WHERE name = 'h100'), 1 + floor(random() * 5),
	   1 << s, 1 << (s + i % 2), 1 << s, w / (1 << s), w / (1 << s), w / (1 << s), w, 'submitted'
FROM generate_series(1, $QUEUED) i,
	 LATERAL (SELECT floor(random() * 4)::integer AS s,
					 round((1 + random() * random() * ($MAX_WORK - 1))::numeric, 1)::float8 AS w OFFSET 0) x;
ANALYZE gpualloc.jobs;
SQL
	base=""
	for depth in $DEPTHS; do
		row=$($PSQL -At -F ' ' <<SQL
SET gpualloc.queue_depth = $depth;
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
SELECT plan_id, objective, solve_ms FROM gpualloc.replan('fast') \gset
SELECT (SELECT n_jobs FROM gpualloc.plan_runs WHERE plan_id = :plan_id), round(:objective::numeric, 3),
	   round(:solve_ms::numeric, 1), round((extract(epoch FROM clock_timestamp()) - :t0) * 1000, 1);
SQL
)
		set -- $row
		[ -n "$base" ] || base=$2
		ratio=$(awk -v a="$2" -v b="$base" 'BEGIN {printf "%.4f", a / b}')
		echo "| $seed | $depth | $1 | $2 | $ratio | $3 | $4 |"
		echo "$seed $depth $1 $2 $ratio $3 $4" >>"$TMP/rows"
	done
done
mkdir -p bench/results
awk -v q="$QUEUED" 'BEGIN {printf "["} NR > 1 {printf ", "}
	{printf "{\"seed\": %s, \"queued\": %s, \"queue_depth\": %s, \"jobs_considered\": %s, \"objective\": %s, \"objective_ratio\": %s, \"solve_ms\": %s, \"replan_ms\": %s}", $1, q, $2, $3, $4, $5, $6, $7}
	END {print "]"}' "$TMP/rows" >bench/results/queue_depth.json
echo "wrote bench/results/queue_depth.json"
