#!/bin/sh
# make bench-scale: the extension end to end at cluster scale.  For each size
# (GPUs, queued jobs) — 1,024/1,000, 4,096/10,000, 10,000/50,000, or the
# pairs given in BENCH_SCALE_SIZES ("gpus:queued ...") — in a fresh database
# of a throwaway server: replan('fast'), then replan('full', time_limit =>
# BENCH_SCALE_FULL, 10 s by default), each in a new session, timed end to
# end from the client, with the backend's peak resident memory (VmHWM of
# /proc/PID/status) and the core solver's own time (plan_runs.solve_ms);
# then submit_job latency p50/p99 from BENCH_SCALE_CLIENTS (4) pgbench
# clients making BENCH_SCALE_SUBMITS (1,000) submissions each while that
# queue waits, beside a one-row INSERT from as many clients (the commit floor
# of the machine at that moment).  Each connection's first submissions cost
# more (catalog caches, statement plans): with 1,000 a client they are well
# under 1% of the sample, so the p99 is a connection's steady state.  Prints a table and writes
# bench/results/scale.json.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SIZES=${BENCH_SCALE_SIZES:-"1024:1000 4096:10000 10000:50000"}
FULL_LIMIT=${BENCH_SCALE_FULL:-10 s}
CLIENTS=${BENCH_SCALE_CLIENTS:-4}
SUBMITS=${BENCH_SCALE_SUBMITS:-1000}
make -s >/dev/null
make -s install >/dev/null

TEMPDB_CONF="gpualloc.enabled = off
max_wal_size = 4GB"
. "$ROOT/tools/tempdb.sh"
tempdb_start bench-scale
cp "$ROOT/bench/scale/setup.sql" "$ROOT/bench/scale/submit.sql" "$TMP/"
echo "INSERT INTO commit_floor VALUES (1);" >"$TMP/floor.sql"
chmod a+r "$TMP/setup.sql" "$TMP/submit.sql" "$TMP/floor.sql"
cd "$ROOT"

# replan DB MODE LIMIT: one run in a new session; sets $replan_ms $peak_mb $solve_ms $status
replan() {
	limit=NULL
	[ -z "$3" ] || limit="'$3'"
	out=$($PSQL -d "$1" -At -F ' ' <<SQL
\\timing on
SELECT status FROM gpualloc.replan('$2', $limit);
\\timing off
SELECT coalesce(solve_ms, 0) FROM gpualloc.plan_runs ORDER BY plan_id DESC LIMIT 1;
SELECT substring(pg_read_file('/proc/' || pg_backend_pid() || '/status') FROM 'VmHWM:\\s*([0-9]+) kB');
SQL
)
	status=$(echo "$out" | sed -n 1p)
	replan_ms=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
	solve_ms=$(echo "$out" | sed -n 3p | awk '{printf "%.1f", $1}')
	peak_mb=$(echo "$out" | sed -n 4p | awk '{printf "%.1f", $1 / 1024}')
}

# latency DB SCRIPT: sets $p50 $p99 (ms) from pgbench's per-transaction log
latency() {
	rm -f "$TMP"/lat.*
	(cd "$TMP" && $AS "$BINDIR/pgbench" -n -h "$TMP" -p "$PORT" -U postgres -c "$CLIENTS" -j 2 \
		-t "$SUBMITS" -f "$2" -l --log-prefix=lat "$1") >"$TMP/pgbench.out" 2>&1 \
		|| { cat "$TMP/pgbench.out"; exit 1; }
	cat "$TMP"/lat.* | awk '{print $3}' | sort -n >"$TMP/latencies"
	n=$(wc -l <"$TMP/latencies")
	p50=$(sed -n "$(( (50 * n + 99) / 100 ))p" "$TMP/latencies" | awk '{printf "%.3f", $1 / 1000}')
	p99=$(sed -n "$(( (99 * n + 99) / 100 ))p" "$TMP/latencies" | awk '{printf "%.3f", $1 / 1000}')
}

json="["
sep=""
echo "| GPUs | queued | mode | status | replan ms | core solve ms | pg side ms | peak MB | submit p50 ms | submit p99 ms | INSERT p99 ms |"
echo "|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"
for size in $SIZES; do
	gpus=${size%%:*}
	queued=${size##*:}
	db=scale_${gpus}_${queued}
	$PSQL -c "CREATE DATABASE $db"
	$PSQL -d "$db" -v gpus="$gpus" -v queued="$queued" -f "$TMP/setup.sql" >/dev/null
	rows=""
	for mode in fast full; do
		lim=""
		[ "$mode" = full ] && lim=$FULL_LIMIT
		replan "$db" "$mode" "$lim"
		rows="$rows$mode $status $replan_ms $solve_ms $peak_mb
"
	done
	$PSQL -d "$db" -c "CREATE TABLE commit_floor (x integer)"
	latency "$db" floor.sql
	floor_p99=$p99
	latency "$db" submit.sql
	echo "$rows" | while read -r mode status ms solve peak; do
		[ -n "$mode" ] || continue
		pg=$(awk -v a="$ms" -v b="$solve" 'BEGIN {printf "%.1f", a - b}')
		echo "| $gpus | $queued | $mode | $status | $ms | $solve | $pg | $peak | $p50 | $p99 | $floor_p99 |"
	done
	for mode in fast full; do
		set -- $(echo "$rows" | grep "^$mode ")
		json="$json$sep{\"gpus\": $gpus, \"queued\": $queued, \"mode\": \"$mode\", \"replan_ms\": $3, \"peak_mb\": $5, \"submit_p50_ms\": $p50, \"submit_p99_ms\": $p99, \"insert_p99_ms\": $floor_p99, \"solve_ms\": $4, \"status\": \"$2\"}"
		sep=", "
	done
	$PSQL -c "DROP DATABASE $db"
done
mkdir -p bench/results
echo "$json]" >bench/results/scale.json
echo "wrote bench/results/scale.json"
