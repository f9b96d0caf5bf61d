#!/bin/sh
# make bench-submit: pgbench on loopback submits jobs from 4 clients against
# 64 GPUs and 200 queued jobs while replans run every second; then checks by
# query that no job was lost and no GPU double-booked.  Prints throughput and
# latency p50/p99 and writes bench/results/submit.json.
#
# A submission commits, so its latency includes the WAL flush of the machine's
# storage.  To show what the submission itself costs, the same load also runs
# with synchronous_commit = off, next to a one-row INSERT as the commit floor
# (from 1 client; from 4 like the submissions; and from 4 while the same
# replans run, the floor under the submissions' very load, which the ratio
# p99_over_insert_p99 compares with), and next to the job's row
# inserted into gpualloc.jobs as it is (4 clients): the table's constraints,
# foreign keys and indexes, without the checks and the fast path.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_TO_RUN=${BENCH_SECONDS:-30}
make -s >/dev/null
make -s install >/dev/null

TEMPDB_CONF="gpualloc.enabled = off"
. "$ROOT/tools/tempdb.sh"
tempdb_start bench
cd "$ROOT"
$PSQL -f "$ROOT/bench/submit/setup.sql" >/dev/null
$PSQL -c "CREATE TABLE commit_floor (x integer)"
cp "$ROOT/bench/submit/submit.sql" "$TMP/submit.sql"
echo "INSERT INTO commit_floor VALUES (1);" >"$TMP/floor.sql"
# the row a submission writes, inserted as it is: what the jobs table's
# constraints, keys and indexes cost without any check or search
pool_id=$($PSQL -At -c "SELECT pool_id FROM gpualloc.pools WHERE name = 'h100'")
tenant_id=$($PSQL -At -c "SELECT tenant FROM gpualloc.tenants LIMIT 1")
cat >"$TMP/jobs_row.sql" <<SQL
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max,
						   est_gpus, est_hours_p10, est_hours_p50, est_hours_p90, est_work_gpu_hours, est_method)
VALUES ('floor-' || nextval('bench_job_seq'), 'batch_inference', '$tenant_id', $pool_id, 3, 2, 2,
		2, 1.5, 1.5, 1.5, 3, 'submitted');
SQL
chmod a+r "$TMP/submit.sql" "$TMP/floor.sql" "$TMP/jobs_row.sql"

# pgbench LABEL SCRIPT CLIENTS PGOPTIONS: one row of the table; sets $processed
run_pgbench() {
	rm -f "$TMP"/lat.*
	(cd "$TMP" && PGOPTIONS="$4" $AS env PGOPTIONS="$4" "$BINDIR/pgbench" -n -h "$TMP" -p "$PORT" -U postgres \
		-c "$3" -j 2 -T "$SECONDS_TO_RUN" -f "$2" -l --log-prefix=lat postgres) \
		>"$TMP/pgbench.out" 2>&1 || { cat "$TMP/pgbench.out"; exit 1; }
	tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$TMP/pgbench.out" | head -n 1)
	processed=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$TMP/pgbench.out")
	failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$TMP/pgbench.out")
	# per-transaction log: client, transaction, latency in microseconds, ...
	cat "$TMP"/lat.* | awk '{print $3}' | sort -n >"$TMP/latencies"
	n=$(wc -l <"$TMP/latencies")
	p50=$(sed -n "$(( (50 * n + 99) / 100 ))p" "$TMP/latencies" | awk '{printf "%.3f", $1 / 1000}')
	p99=$(sed -n "$(( (99 * n + 99) / 100 ))p" "$TMP/latencies" | awk '{printf "%.3f", $1 / 1000}')
	echo "| $1 | $3 | $processed | ${failed:-0} | $tps | $p50 | $p99 |"
}

# replans alongside the submissions, as the background planner runs them:
# one session that keeps its connection (and its cached query plans), a
# fast re-plan, a second's pause, until the time is up
replan_loop() {
	end=$(($(date +%s) + $1))
	i=0
	while [ "$i" -lt "$1" ]; do
		printf '%s\n' "SELECT extract(epoch FROM clock_timestamp()) < $end AS go \\gset" '\if :go' \
			"SELECT status FROM gpualloc.replan('fast');" 'SELECT pg_catalog.pg_sleep(1);' '\endif'
		i=$((i + 1))
	done | $PSQL -v ON_ERROR_STOP=1 >/dev/null 2>"$TMP/replan.err" ||
		{ echo "replan failed:" >&2; head -n 3 "$TMP/replan.err" >&2; }
}

echo "| run | clients | transactions | failed | tps | p50 ms | p99 ms |"
echo "|---|---:|---:|---:|---:|---:|---:|"
run_pgbench "commit floor: one-row INSERT" floor.sql 1 ""
# the floor under the submissions' concurrency: what a durable commit costs
# when 4 clients commit at once
run_pgbench "commit floor: one-row INSERT" floor.sql 4 ""
f4_p50=$p50 f4_p99=$p99
run_pgbench "the job's row alone: INSERT INTO gpualloc.jobs" jobs_row.sql 4 ""
row_p50=$p50 row_p99=$p99
# out of the queue again, so every run below plans the same queue; and the
# dead rows vacuumed now, so cleaning up the benchmark's own rows does not
# fall inside a measured run
$PSQL -c "DELETE FROM gpualloc.jobs WHERE name LIKE 'floor-%'" >/dev/null
$PSQL -c "VACUUM (ANALYZE) gpualloc.jobs" >/dev/null
replan_loop "$SECONDS_TO_RUN" &
run_pgbench "submit_job, durable commit" submit.sql 4 ""
wait
d_tps=$tps d_p50=$p50 d_p99=$p99 total=$processed
replan_loop "$SECONDS_TO_RUN" &
run_pgbench "submit_job, synchronous_commit off" submit.sql 4 "-c synchronous_commit=off"
wait
a_p50=$p50 a_p99=$p99
total=$((total + processed))
# the floor again under the same replans, after the submissions so that it
# cannot change what they meet
replan_loop "$SECONDS_TO_RUN" &
run_pgbench "commit floor: one-row INSERT, replans running" floor.sql 4 ""
wait
fr_p50=$p50 fr_p99=$p99

submitted=$($PSQL -At -c "SELECT count(*) FROM gpualloc.jobs WHERE name LIKE 'bench-%'")
lost=$((total - submitted))
double_booked=$($PSQL -At -c "SELECT count(*) FROM gpualloc.allocations a JOIN gpualloc.allocations b
	ON a.gpu_id = b.gpu_id AND a.allocation_id < b.allocation_id AND a.during && b.during")
replans=$($PSQL -At -c "SELECT count(*) FROM gpualloc.plan_runs WHERE status IN ('succeeded', 'fallback')")
echo
echo "submitted $total, in the jobs table $submitted: lost $lost; double-booked GPU pairs $double_booked; replans $replans"
mkdir -p bench/results
printf '{"tps": %s, "p50_ms": %s, "p99_ms": %s, "lost": %s, "double_booked": %s, "submitted": %s, "replans": %s, "async_commit_p50_ms": %s, "async_commit_p99_ms": %s, "insert_4_clients_p50_ms": %s, "insert_4_clients_p99_ms": %s, "insert_4_clients_replans_p50_ms": %s, "insert_4_clients_replans_p99_ms": %s, "jobs_row_4_clients_p50_ms": %s, "jobs_row_4_clients_p99_ms": %s, "p99_over_insert_p99": %s, "p99_over_quiet_insert_p99": %s}\n' \
	"$d_tps" "$d_p50" "$d_p99" "$lost" "$double_booked" "$total" "$replans" "$a_p50" "$a_p99" "$f4_p50" "$f4_p99" \
	"$fr_p50" "$fr_p99" "$row_p50" "$row_p99" \
	"$(awk -v a="$d_p99" -v b="$fr_p99" 'BEGIN {printf "%.2f", a / b}')" \
	"$(awk -v a="$d_p99" -v b="$f4_p99" 'BEGIN {printf "%.2f", a / b}')" >bench/results/submit.json
echo "wrote bench/results/submit.json"
[ "$lost" -eq 0 ] && [ "$double_booked" -eq 0 ]
