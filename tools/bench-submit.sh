#!/bin/sh
# make bench-submit: pgbench on loopback submits jobs from 4 clients against
# 64 GPUs and 200 queued jobs while replans run every second; then checks by
# query that no job was lost and no GPU double-booked.  Prints throughput and
# latency p50/p99 and writes bench/results/submit.json.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_TO_RUN=${BENCH_SECONDS:-30}
make -s >/dev/null
make -s install >/dev/null

TEMPDB_CONF="gpualloc.enabled = off"
. "$ROOT/tools/tempdb.sh"
tempdb_start bench
$PSQL -f "$ROOT/bench/submit/setup.sql" >/dev/null
cp "$ROOT/bench/submit/submit.sql" "$TMP/submit.sql"
chmod a+r "$TMP/submit.sql"

# replans alongside the submissions, as the background planner would run them
(
	end=$(($(date +%s) + SECONDS_TO_RUN))
	while [ "$(date +%s)" -lt "$end" ]; do
		$PSQL -c "SELECT status FROM gpualloc.replan('fast')" >/dev/null 2>&1 || echo "replan failed" >&2
		sleep 1
	done
) &
replans=$!

cd "$TMP"
$AS "$BINDIR/pgbench" -n -h "$TMP" -p "$PORT" -U postgres -c 4 -j 2 -T "$SECONDS_TO_RUN" \
	-f submit.sql -l --log-prefix=lat postgres >"$TMP/pgbench.out" 2>&1 || { cat "$TMP/pgbench.out"; exit 1; }
wait "$replans"
cd "$ROOT"

tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$TMP/pgbench.out" | head -n 1)
processed=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$TMP/pgbench.out")
failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$TMP/pgbench.out")
# per-transaction log: client, transaction, latency in microseconds, ...
cat "$TMP"/lat.* | awk '{print $3}' | sort -n >"$TMP/latencies"
n=$(wc -l <"$TMP/latencies")
pct() { sed -n "$(( ($1 * n + 99) / 100 ))p" "$TMP/latencies" | awk '{printf "%.3f", $1 / 1000}'; }
p50=$(pct 50)
p99=$(pct 99)
submitted=$($PSQL -At -c "SELECT count(*) FROM gpualloc.jobs WHERE name LIKE 'bench-%'")
lost=$((processed - submitted))
double_booked=$($PSQL -At -c "SELECT count(*) FROM gpualloc.allocations a JOIN gpualloc.allocations b
	ON a.gpu_id = b.gpu_id AND a.allocation_id < b.allocation_id AND a.during && b.during")
replans_done=$($PSQL -At -c "SELECT count(*) FROM gpualloc.plan_runs WHERE status IN ('succeeded', 'fallback')")
fast_path=$($PSQL -At -c "SELECT count(DISTINCT job_id) FROM gpualloc.allocations a JOIN gpualloc.jobs j USING (job_id)
	WHERE j.name LIKE 'bench-%' AND a.plan_id IS NULL")

echo "| clients | seconds | submitted | failed | tps | p50 ms | p99 ms | replans | booked on submit | lost | double-booked |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
echo "| 4 | $SECONDS_TO_RUN | $processed | ${failed:-0} | $tps | $p50 | $p99 | $replans_done | $fast_path | $lost | $double_booked |"
mkdir -p bench/results
printf '{"tps": %s, "p50_ms": %s, "p99_ms": %s, "lost": %s, "double_booked": %s, "submitted": %s, "replans": %s, "booked_on_submit": %s}\n' \
	"$tps" "$p50" "$p99" "$lost" "$double_booked" "$processed" "$replans_done" "$fast_path" >bench/results/submit.json
echo "wrote bench/results/submit.json"
[ "$lost" -eq 0 ] && [ "$double_booked" -eq 0 ]
