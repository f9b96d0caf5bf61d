#!/bin/sh
# make bench-pools: wall time of gpualloc.replan() on four equal, independent
# pools, solved by the planner alone (gpualloc.max_parallel_pools = 1) and
# by the default setting (-1: a process per pool, up to the online CPUs,
# the planner counting as one).  Prints a table and writes
# bench/results/pools.json.
#
# The cluster: BENCH_POOLS (4) pools of BENCH_POOL_GPUS (4096) GPUs, each
# with a service and BENCH_JOBS (2000) queued jobs of 1 to 64 GPUs: pools
# large enough that solving them is most of a re-plan, as parallel solving
# is meant for (with 1,024 GPUs and 200 jobs a pool solves in milliseconds
# and the process starts cost as much as they save).  BENCH_MODE (fast)
# with a time limit long enough for every pool's improvement to end by its
# own work limits, so both settings do the same work and commit the same
# plan (checked: same objective); a time-limited solve (full) would only
# show that both stop at the limit.  In one session, as the background
# planner re-plans, after one warm-up re-plan the two settings alternate
# BENCH_REPEATS (11) times; the table shows medians of
# the re-plan's wall time (build, solve, store, commit) and of its solve
# time alone (the part solved in parallel), and the median of the speed-ups
# of each pair of neighbouring re-plans.  On a shared machine whose speed
# drifts by a fifth within seconds, the neighbours of a pair ran at about
# the same speed; 11 pairs, because with 5 the ratio of the medians moved
# from 1.27x to 1.68x between two runs a minute apart.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
POOLS=${BENCH_POOLS:-4}
POOL_GPUS=${BENCH_POOL_GPUS:-4096}
JOBS=${BENCH_JOBS:-2000}
REPEATS=${BENCH_REPEATS:-11}
LIMIT=${BENCH_LIMIT:-10 minutes}
MODE=${BENCH_MODE:-fast}
make -s >/dev/null
make -s install >/dev/null

TEMPDB_CONF="gpualloc.enabled = off
max_worker_processes = 16"
. "$ROOT/tools/tempdb.sh"
tempdb_start bench-pools
cd "$ROOT"
NODES=$((POOL_GPUS / 8))
$PSQL >/dev/null <<SQL
CREATE EXTENSION gpualloc CASCADE;
SELECT gpualloc.add_tenant('postgres', 100);
SELECT gpualloc.add_pool('p' || q, 'A100-80GB', 80, 312) FROM generate_series(1, $POOLS) q;
SELECT gpualloc.add_node('p' || q, n) FROM generate_series(1, $POOLS) q, generate_series(0, $NODES - 1) n;
SELECT gpualloc.add_service('svc' || q, 'p' || q, 100, $POOL_GPUS / 4, churn_limit => 16)
FROM generate_series(1, $POOLS) q;
INSERT INTO gpualloc.demand_staging
SELECT 'svc' || q, h, 100 * $POOL_GPUS / 16 * (1.5 + sin(extract(hour FROM h) / 24.0 * 2 * pi()))
FROM generate_series(1, $POOLS) q,
	 generate_series(date_trunc('hour', now()) - interval '7 days',
					 date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand();
-- the same queue in every pool, so the pools are equal
SELECT gpualloc.submit_job('j' || q || '-' || i, 'training', 'p' || q,
						   1 << (i % 7), 1 << (i % 7),
						   priority => 1 + (i * 7) % 5,
						   work_gpu_hours => 2 + (i * 13) % 60)
FROM generate_series(1, $POOLS) q, generate_series(1, $JOBS) i;
SQL

# one_replan SETTING [HOUSEKEEPING]: the SQL of one re-plan, printing
# "setting wall_ms solve_ms objective status"
one_replan() {
	if [ "${2:-yes}" = yes ]; then
		# the background planner's housekeeping before each run: fair-share
		# usage rolled up at most hourly (not timed, as it is not part of a
		# re-plan)
		echo 'SELECT gpualloc_internal.roll_up_usage() \gset'
	fi
	cat <<SQL
SET gpualloc.max_parallel_pools = $1;
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
SELECT solve_ms, objective, status FROM gpualloc.replan('$MODE', '$LIMIT') \gset
SELECT '$1', round((extract(epoch FROM clock_timestamp()) - :t0) * 1000, 1), round(:solve_ms::numeric, 1),
	   round(:objective::numeric, 3), :'status';
SQL
}

median() {
	sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# Every re-plan in one session, as the background planner runs them (its
# cached query plans warm): one warm-up re-plan, then the two settings
# alternating.  The warm-up books the queue onto the empty cluster; the
# usage is rolled up after it, as in a cluster in service, whose hourly
# rollup follows the allocation it has (each re-plan then reads the
# allocation rows changed since, not every GPU's).
{
	one_replan 1 no
	r=1
	while [ "$r" -le "$REPEATS" ]; do
		for setting in 1 -1; do
			one_replan "$setting"
		done
		r=$((r + 1))
	done
} >"$TMP/replans.sql"
chmod a+r "$TMP/replans.sql"
$PSQL -At -F ' ' -f "$TMP/replans.sql" | tail -n +2 >"$TMP/runs"
bad=$(awk '$5 != "succeeded"' "$TMP/runs" | wc -l)
objectives=$(awk '{print $4}' "$TMP/runs" | sort -u | wc -l)
w1=$(awk '$1 == 1 {print $2}' "$TMP/runs" | median)
s1=$(awk '$1 == 1 {print $3}' "$TMP/runs" | median)
wn=$(awk '$1 == -1 {print $2}' "$TMP/runs" | median)
sn=$(awk '$1 == -1 {print $3}' "$TMP/runs" | median)
speed_wall=$(awk -v a="$w1" -v b="$wn" 'BEGIN {printf "%.2f", a / b}')
# each parallel re-plan against the serial one just before it
paired_wall=$(awk '$1 == 1 {s = $2} $1 == -1 {print s / $2}' "$TMP/runs" | median | awk '{printf "%.2f", $1}')
speed_solve=$(awk -v a="$s1" -v b="$sn" 'BEGIN {printf "%.2f", a / b}')
cores=$(nproc)
# the default setting's processes: one per pool, up to the online CPUs
processes=$((POOLS < cores ? POOLS : cores))
load=$(cut -d ' ' -f 1 /proc/loadavg)

echo "$POOLS pools x $POOL_GPUS GPUs, $JOBS queued jobs and a service per pool; $MODE mode, limit '$LIMIT'; $cores cores, load average $load"
echo "| max_parallel_pools | re-plan wall ms (median of $REPEATS) | solve ms (median) |"
echo "|---:|---:|---:|"
echo "| 1 | $w1 | $s1 |"
echo "| -1 (default: $processes processes) | $wn | $sn |"
echo "| speedup | ${speed_wall}x | ${speed_solve}x |"
echo "| speedup, median of the $REPEATS pairs | ${paired_wall}x | |"
echo
echo "runs (setting wall_ms solve_ms objective status):"
cat "$TMP/runs"
same=true
[ "$objectives" -eq 1 ] || same=false
mkdir -p bench/results
printf '{"pools": %s, "gpus_per_pool": %s, "jobs_per_pool": %s, "mode": "%s", "time_limit": "%s", "repeats": %s, "cores": %s, "load_average": %s, "serial": {"replan_wall_ms": %s, "solve_ms": %s}, "parallel": {"setting": -1, "processes": %s, "replan_wall_ms": %s, "solve_ms": %s}, "speedup_replan_wall": %s, "speedup_replan_wall_paired": %s, "speedup_solve": %s, "same_objective": %s, "failed_runs": %s}\n' \
	"$POOLS" "$POOL_GPUS" "$JOBS" "$MODE" "$LIMIT" "$REPEATS" "$cores" "$load" "$w1" "$s1" "$processes" "$wn" "$sn" \
	"$speed_wall" "$paired_wall" "$speed_solve" "$same" "$bad" >bench/results/pools.json
echo "wrote bench/results/pools.json"
[ "$bad" -eq 0 ] && [ "$same" = true ]
