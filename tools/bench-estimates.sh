#!/bin/sh
# make bench-estimates: what the duration estimators cost as the history of
# finished jobs grows.  For each history size in BENCH_HISTORY (0, 1,000,
# 10,000, 50,000 finished training jobs with features) on a throwaway
# server: the background planner's re-estimate of BENCH_QUEUED (2,000)
# queued training jobs with features (gpualloc_internal.refresh_estimates(),
# one statement, as every planner run does), and single-client latency of
# estimate_job and of submit_job with features (BENCH_CALLS, 500 each;
# p50/p99), and the first estimate after one more job finished (a refit, in
# a new session).  Prints a table and writes bench/results/estimates.json.
#
# The estimators learn from at most the 5,000 most recent finished jobs of a
# kind; a session keeps the fit until a job finishes, and one statement
# uses one fit: the re-estimate costs about the queue plus that history,
# a refit about that history, and any other estimate neither, however long
# the cluster has run.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
HISTORY=${BENCH_HISTORY:-0 1000 10000 50000}
QUEUED=${BENCH_QUEUED:-2000}
CALLS=${BENCH_CALLS:-500}
make -s >/dev/null
make -s install >/dev/null

TEMPDB_CONF="gpualloc.enabled = off"
. "$ROOT/tools/tempdb.sh"
tempdb_start bench-estimates
cd "$ROOT"
$PSQL >/dev/null <<'SQL'
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION gpualloc CASCADE;
SELECT gpualloc.add_tenant('postgres');
SELECT gpualloc.add_pool('h100', 'H100-SXM', 80, 989);
SELECT gpualloc.add_node('h100', n) FROM generate_series(0, 7) n;
SQL

# features of job i: a spread of model and data sizes
FEATURES="pg_catalog.jsonb_build_object('variant', (ARRAY['lora_sft', 'full_sft', 'full_cpt'])[1 + i % 3],
	'params_b', (ARRAY[1, 8, 13, 70])[1 + i % 4], 'tokens_m', 10 + (i * 37) % 500)"

# add_history N: finished training jobs up to N in all (written directly, as
# executors' reports would leave them: started, succeeded, on a block)
add_history() {
	$PSQL >/dev/null <<SQL
\set ON_ERROR_STOP on
INSERT INTO gpualloc.jobs (name, kind, tenant, pool_id, priority, gpus_min, gpus_max, features,
						   status, started_at, finished_at, block_first, block_size)
SELECT 'done-' || i, 'training', 'postgres', p.pool_id, 1, 8, 8, $FEATURES,
	   'succeeded', now() - interval '30 days' + i * interval '10 seconds',
	   now() - interval '30 days' + i * interval '10 seconds' + (1 + i % 7) * interval '1 hour', 0, 8
FROM gpualloc.pools p, generate_series((SELECT count(*) FROM gpualloc.jobs WHERE status = 'succeeded') + 1, $1) i
WHERE p.name = 'h100';
ANALYZE gpualloc.jobs;
SQL
}

# ms STATEMENT: wall time of one statement, in milliseconds
ms() {
	$PSQL -At <<SQL
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
\o /dev/null
$1;
\o
SELECT round((extract(epoch FROM clock_timestamp()) - :t0) * 1000, 1);
SQL
}

# latency LABEL SQL: p50 and p99 of CALLS runs of SQL from one pgbench client
latency() {
	printf '%s\n' "$2" >"$TMP/call.sql"
	chmod a+r "$TMP/call.sql"
	rm -f "$TMP"/lat.*
	(cd "$TMP" && $AS "$BINDIR/pgbench" -n -h "$TMP" -p "$PORT" -U postgres -c 1 -t "$CALLS" \
		-f call.sql -l --log-prefix=lat postgres) >"$TMP/pgbench.out" 2>&1 || { cat "$TMP/pgbench.out"; exit 1; }
	grep -q '^number of failed transactions: 0 ' "$TMP/pgbench.out" || { cat "$TMP/pgbench.out"; exit 1; }
	cat "$TMP"/lat.* | awk '{print $3}' | sort -n >"$TMP/latencies"
	n=$(wc -l <"$TMP/latencies")
	sed -n "$(( (50 * n + 99) / 100 ))p;$(( (99 * n + 99) / 100 ))p" "$TMP/latencies" |
		awk '{printf "%s%.2f", (NR > 1 ? " " : ""), $1 / 1000}'
}

$PSQL -c "CREATE SEQUENCE bench_seq" >/dev/null
echo "| finished jobs | re-estimate of $QUEUED queued (ms) | first estimate after a job finishes (ms) | estimate_job p50 / p99 (ms) | submit_job with features p50 / p99 (ms) |"
echo "|---:|---:|---:|---:|---:|"
rows=""
for h in $HISTORY; do
	add_history "$h"
	$PSQL >/dev/null <<SQL
\set ON_ERROR_STOP on
DELETE FROM gpualloc.jobs WHERE status = 'queued';
SELECT gpualloc.submit_job('queued-' || i, 'training', 'h100', 8, 8, features => $FEATURES)
FROM generate_series(1, $QUEUED) i;
SQL
	refresh_ms=$(ms "SELECT gpualloc_internal.refresh_estimates()")
	# one more finished job: the next estimate refits on the history
	add_history "$((h + 1))"
	refit_ms=$(ms "SELECT * FROM gpualloc.estimate_job('training', '{\"variant\": \"lora_sft\", \"params_b\": 8, \"tokens_m\": 50}', 8, 'h100')")
	est=$(latency estimate "SELECT * FROM gpualloc.estimate_job('training', '{\"variant\": \"lora_sft\", \"params_b\": 8, \"tokens_m\": 50}', 8, 'h100');")
	sub=$(latency submit "SELECT gpualloc.submit_job('b-' || nextval('bench_seq'), 'training', 'h100', 8, 8, features => '{\"variant\": \"lora_sft\", \"params_b\": 8, \"tokens_m\": 50}');")
	set -- $est $sub
	echo "| $h | $refresh_ms | $refit_ms | $1 / $2 | $3 / $4 |"
	rows="$rows${rows:+, }{\"finished_jobs\": $h, \"queued\": $QUEUED, \"refresh_ms\": $refresh_ms, \"refit_ms\": $refit_ms, \"estimate_p50_ms\": $1, \"estimate_p99_ms\": $2, \"submit_p50_ms\": $3, \"submit_p99_ms\": $4}"
	$PSQL -c "DELETE FROM gpualloc.jobs WHERE name LIKE 'b-%'" >/dev/null
done
mkdir -p bench/results
echo "{\"calls\": $CALLS, \"rows\": [$rows]}" >bench/results/estimates.json
echo "wrote bench/results/estimates.json"
