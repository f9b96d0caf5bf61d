#!/bin/sh
# make bench-ops: the soak of t/004_soak.pl at a larger scale, on a throwaway
# server.  64 GPUs over 8 nodes with one reference executor per node, a
# service with demand, the background planner every 2 s; BENCH_SUBMITTERS
# psql sessions submit BENCH_JOBS short jobs (`sleep 0.N`, one in ten `exit 1`)
# while a canceller cancels now and then and GPUs go down and come back.
# Then the load stops, the run drains (bounded), and the script prints a table
# and writes bench/results/ops.json:
#
#   runs, runs_failed            plan runs, and those that failed
#   integrity_violations         rows of check_integrity()
#   double_booked                GPUs with two open rows, plus overlapping row pairs
#   lost                         jobs not terminal after the drain, and booked jobs
#                                whose booking ended without a start, re-plan or cancel
#   started_twice                jobs the executors started more often than once per requeue
#   submit_to_start_p50/p99_ms   submitted_at -> started_at (jobs never requeued)
#   notify_to_start_p50/p99_ms   the executor's receipt of the NOTIFY of the change set
#                                that booked a job -> its job_started call (from its log)
#   notify_to_confirm_p50/p99_ms the same -> job_started's answer, when the command runs
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
JOBS=${BENCH_JOBS:-3000}
SUBMITTERS=${BENCH_SUBMITTERS:-4}
NODES=8
DRAIN_SECONDS=${BENCH_DRAIN_SECONDS:-300}
make -s >/dev/null
make -s install >/dev/null
make -s tools/gpualloc-executor

TEMPDB_CONF="gpualloc.replan_interval = '2s'
gpualloc.replan_debounce = '1s'
gpualloc.solver_time_limit = '500ms'
gpualloc.booking_timeout = '60s'
gpualloc.on_gpu_failure = 'requeue'"
. "$ROOT/tools/tempdb.sh"
tempdb_start ops
cd "$ROOT"
PIDS=""
stop_executors() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || true; done
}
trap 'stop_executors; tempdb_stop' EXIT INT TERM

$PSQL -v ON_ERROR_STOP=1 >/dev/null <<SQL
CREATE EXTENSION gpualloc CASCADE;
SELECT gpualloc.add_tenant('postgres');
CREATE ROLE bench_exec LOGIN IN ROLE gpualloc_executor;
SELECT gpualloc.add_pool('a100', 'A100-80GB', 80, 312);
SELECT gpualloc.add_node('a100', n) FROM generate_series(0, $NODES - 1) n;
SELECT gpualloc.add_service('chat', 'a100', 100, 8, churn_limit => 2);
INSERT INTO gpualloc.demand_staging
SELECT 'chat', h, 500 FROM generate_series(date_trunc('hour', now()) - interval '7 days',
										   date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h;
SELECT gpualloc.load_demand();
CREATE TABLE bench_errors (who text, sqlstate text, message text);
SQL

# one executor per node; the jobs they run are the bench's own `sleep`s
for n in $(seq 0 $((NODES - 1))); do
	tools/gpualloc-executor -h "$TMP" -p "$PORT" -U bench_exec -d postgres --node "$n" \
		--poll-seconds 2 --grace-seconds 2 </dev/null 2>"$TMP/executor-$n.log" &
	PIDS="$PIDS $!"
done

# A bounded DO loop per actor, committing after every call; errors other than
# a race with the job's own end (SQLSTATE 55000) are recorded.
actor() {	# actor WHO MAX_ITERATIONS PAUSE_SQL BODY
	cat <<SQL
DO \$\$
DECLARE
	i integer := 0;
	sz integer;
	id bigint;
	g record;
	down_node integer;
	down_slot integer;
BEGIN
	WHILE i < $2 AND NOT EXISTS (SELECT 1 FROM bench_stop) LOOP
		i := i + 1;
		BEGIN
			$4
		EXCEPTION WHEN others THEN
			IF SQLSTATE <> '55000' THEN
				INSERT INTO bench_errors VALUES ('$1', SQLSTATE, SQLERRM);
			END IF;
		END;
		COMMIT;
		PERFORM pg_sleep($3);
	END LOOP;
END
\$\$;
SQL
}
$PSQL -c "CREATE TABLE bench_stop (x integer)"

per=$(( (JOBS + SUBMITTERS - 1) / SUBMITTERS ))
LOADS=""
start=$(date +%s)
for s in $(seq 1 "$SUBMITTERS"); do
	actor "s$s" "$per" "random() * 0.2" "
			sz := (ARRAY[1, 1, 1, 2, 2, 4, 8])[1 + floor(random() * 7)::integer];
			PERFORM gpualloc.submit_job('s$s-' || i, 'training', 'a100', sz, sz,
				priority => 1 + floor(random() * 3), work_gpu_hours => sz / 60.0,
				command => CASE WHEN random() < 0.1 THEN 'exit 1'
								ELSE 'sleep 0.' || (1 + floor(random() * 9))::integer END);" \
		>"$TMP/s$s.sql"
	$PSQL -f "$TMP/s$s.sql" 2>"$TMP/s$s.err" &
	LOADS="$LOADS $!"
done
actor cancel 100000 "0.5 + random()" "
			SELECT job_id INTO id FROM gpualloc.jobs
			WHERE status IN ('queued', 'booked', 'running') ORDER BY random() LIMIT 1;
			IF id IS NOT NULL THEN PERFORM gpualloc.cancel_job(id, 'bench'); END IF;" >"$TMP/cancel.sql"
actor chaos 100000 "2 + random() * 3" "
			IF down_node IS NULL THEN
				SELECT n AS node, s AS slot INTO g
				FROM generate_series(0, $NODES - 1) n, generate_series(0, 7) s ORDER BY random() LIMIT 1;
				PERFORM gpualloc.set_gpu_state('a100', g.node, g.slot, 'down');
				down_node := g.node; down_slot := g.slot;
			ELSE
				PERFORM gpualloc.set_gpu_state('a100', down_node, down_slot, 'up');
				down_node := NULL;
			END IF;" >"$TMP/chaos.sql"
$PSQL -f "$TMP/cancel.sql" 2>"$TMP/cancel.err" &
CANCEL=$!
$PSQL -f "$TMP/chaos.sql" 2>"$TMP/chaos.err" &
CHAOS=$!
for p in $LOADS; do wait "$p"; done
submit_seconds=$(($(date +%s) - start))
$PSQL -c "INSERT INTO bench_stop VALUES (1)"
wait "$CANCEL" "$CHAOS"
$PSQL -At -c "SELECT gpualloc.set_gpu_state('a100', node, slot, 'up') FROM gpualloc.gpus WHERE state <> 'up'" >/dev/null

# the drain: what is queued, booked or running gets to finish (bounded)
active="SELECT count(*) FROM gpualloc.jobs WHERE status IN ('queued', 'booked', 'running')"
deadline=$(($(date +%s) + DRAIN_SECONDS))
while [ "$($PSQL -At -c "$active")" -gt 0 ] && [ "$(date +%s)" -lt "$deadline" ]; do
	sleep 1
done
total_seconds=$(($(date +%s) - start))
sleep 1

clean=0
for p in $PIDS; do
	kill -TERM "$p" 2>/dev/null || true	# one that already exited is counted below
	if wait "$p"; then clean=$((clean + 1)); fi
done
PIDS=""

q() { $PSQL -At -c "$1"; }
jobs=$(q "SELECT count(*) FROM gpualloc.jobs")
by_status=$(q "SELECT string_agg(status || ' ' || n, ', ' ORDER BY status) FROM (SELECT status, count(*) n FROM gpualloc.jobs GROUP BY status) s")
runs=$(q "SELECT count(*) FROM gpualloc.plan_runs")
runs_failed=$(q "SELECT count(*) FROM gpualloc.plan_runs WHERE status = 'failed'")
integrity=$(q "SELECT count(*) FROM gpualloc.check_integrity()")
double_booked=$(q "SELECT (SELECT count(*) FROM (SELECT gpu_id FROM gpualloc.allocations WHERE end_seq IS NULL
		GROUP BY gpu_id HAVING count(*) > 1) x)
	+ (SELECT count(*) FROM gpualloc.allocations a JOIN gpualloc.allocations b
		ON a.gpu_id = b.gpu_id AND a.allocation_id < b.allocation_id AND a.during && b.during)")
# a job whose booking ended and that was never booked again stays queued, so
# every job not terminal after the drain counts as lost
lost=$(q "SELECT count(*) FROM gpualloc.jobs j WHERE j.status IN ('queued', 'booked', 'running')")
submit_errors=$(q "SELECT count(*) FROM bench_errors WHERE who LIKE 's%'")
other_errors=$(q "SELECT coalesce(string_agg(DISTINCT who || ': ' || left(message, 90), '; '), '') FROM bench_errors WHERE who NOT LIKE 's%'")
other_error_count=$(q "SELECT count(*) FROM bench_errors WHERE who NOT LIKE 's%'")
lat=$(q "SELECT round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1) || ' ' ||
		round((percentile_cont(0.99) WITHIN GROUP (ORDER BY ms))::numeric, 1) || ' ' || count(*)
	FROM (SELECT 1000 * extract(epoch FROM started_at - submitted_at) AS ms FROM gpualloc.jobs
		  WHERE started_at IS NOT NULL AND requeues = 0) x")
set -- ${lat:-null null 0}
s2s_p50=$1 s2s_p99=$2 s2s_n=$3

# from the executors' logs: starts per job, and notify -> job_started times
cat "$TMP"/executor-*.log >"$TMP/executors.log"
# kept for a look after the run (build/ is not committed)
mkdir -p build/bench-ops
cp "$TMP"/executor-*.log "$TMP/server.log" build/bench-ops/
q "SELECT job_id, requeues FROM gpualloc.jobs" | tr '|' ' ' >"$TMP/requeues"
started_twice=$(awk 'NR == FNR { rq[$1] = $2; next }
	/ started job / { for (i = 1; i <= NF; i++) if ($i == "job") { n[$(i + 1)]++; break } }
	END { c = 0; for (j in n) if (n[j] > rq[j] + 1) c++; print c }' "$TMP/requeues" "$TMP/executors.log")
starts=$(grep -c ' started job ' "$TMP/executors.log" || true)
sed -n 's/.* started job .*notify_to_start_ms=\([0-9.]*\) .*/\1/p' "$TMP/executors.log" | sort -n >"$TMP/n2s"
before_notify=$(grep -c 'notify_to_start_ms=before_notify' "$TMP/executors.log" || true)
n2s_n=$(wc -l <"$TMP/n2s")
pct() { [ "$n2s_n" -gt 0 ] && sed -n "$(( ($1 * n2s_n + 99) / 100 ))p" "$TMP/n2s" || echo null; }
n2s_p50=$(pct 50)
n2s_p99=$(pct 99)
# to the answer of job_started, when the command is let run
sed -n 's/.* notify_to_confirm_ms=\([0-9.]*\).*/\1/p' "$TMP/executors.log" | sort -n >"$TMP/n2s"
n2c_p50=$(pct 50)
n2c_p99=$(pct 99)

row() { printf '| %-34s | %12s | %-8s |\n' "$1" "$2" "$3"; }
echo
echo "bench-ops: $JOBS jobs from $SUBMITTERS submitters over $submit_seconds s, drained at $total_seconds s; 64 GPUs, 8 nodes, 8 executors"
echo "jobs: $jobs ($by_status); executor starts $starts; executors that exited cleanly: $clean of $NODES"
echo
row metric value target
echo "|------------------------------------|-------------:|----------|"
row runs "$runs" ""
row runs_failed "$runs_failed" "0"
row integrity_violations "$integrity" "0"
row double_booked "$double_booked" "0"
row lost "$lost" "0"
row started_twice "$started_twice" "0"
row submit_to_start_p50_ms "$s2s_p50" ""
row submit_to_start_p99_ms "$s2s_p99" ""
row notify_to_start_p50_ms "$n2s_p50" "< 50"
row notify_to_start_p99_ms "$n2s_p99" ""
row notify_to_confirm_p50_ms "$n2c_p50" ""
row notify_to_confirm_p99_ms "$n2c_p99" ""
row "starts timed / before their NOTIFY" "$n2s_n / $before_notify" ""
row submit_errors "$submit_errors" "0"
row "cancel/GPU-state errors" "$other_error_count" ""
[ -n "$other_errors" ] && echo "errors: $other_errors"

mkdir -p bench/results
cat >bench/results/ops.json <<JSON
{"runs": $runs, "runs_failed": $runs_failed, "integrity_violations": $integrity, "double_booked": $double_booked, "lost": $lost, "started_twice": $started_twice, "submit_to_start_p50_ms": ${s2s_p50:-null}, "submit_to_start_p99_ms": ${s2s_p99:-null}, "notify_to_start_p50_ms": $n2s_p50, "notify_to_start_p99_ms": $n2s_p99, "notify_to_confirm_p50_ms": $n2c_p50, "notify_to_confirm_p99_ms": $n2c_p99, "jobs": $jobs, "executor_starts": $starts, "submit_to_start_samples": $s2s_n, "notify_to_start_samples": $n2s_n, "started_before_notify": $before_notify, "submit_errors": $submit_errors, "other_errors": $other_error_count, "executors_clean_exit": $clean, "gpus": 64, "nodes": $NODES, "submit_seconds": $submit_seconds, "total_seconds": $total_seconds}
JSON
echo "wrote bench/results/ops.json"
[ "$runs_failed" -eq 0 ] && [ "$integrity" -eq 0 ] && [ "$double_booked" -eq 0 ] && [ "$lost" -eq 0 ] &&
	[ "$started_twice" -eq 0 ] && [ "$clean" -eq "$NODES" ]
