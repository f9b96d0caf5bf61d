#!/bin/sh
# sh tools/demo.sh (or make demo): install what is missing through apt, build and install gpualloc, start a throwaway PostgreSQL in a
# temporary directory with the extension preloaded, load the sample cluster,
# plan it and show what the extension holds.  It ends by writing the plan's
# SVG and a one-page HTML report (with the simulator's comparison against
# fifo on the same cluster, demo/scenario/) into demo-output/.  The server
# and its directory are removed on exit.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=$ROOT/demo-output
sh tools/install-deps.sh
make -s >/dev/null
make -s install >/dev/null

# the demo plans explicitly: the background planner stays idle, so the plan
# shown, drawn and reported is one and the same
TEMPDB_CONF="gpualloc.enabled = off"
. "$ROOT/tools/tempdb.sh"
tempdb_start demo
cd "$ROOT"
echo "PostgreSQL started in $TMP (port $PORT)"
$PSQL -f "$ROOT/demo/sample_cluster.sql" >/dev/null
$PSQL -f "$ROOT/demo/show.sql"

mkdir -p "$OUT"
PLAN=$($PSQL -At -c "SELECT max(plan_id) FROM gpualloc.plan_runs WHERE status IN ('succeeded', 'fallback')")
$PSQL -At -c "SELECT gpualloc.plan_svg($PLAN)" >"$OUT/plan.svg"
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$OUT/plan.svg"
fi

# The allocator against fifo on the demo cluster, when the simulator builds.
SIM=""
if make -s tools >/dev/null 2>&1 && [ -x tools/gpualloc-sim ]; then
	echo
	echo "== Simulating one day of the demo cluster (demo/scenario): fifo, backfill, fast, full"
	SIM=$(tools/gpualloc-sim compare demo/scenario --json --policies fifo,backfill,fast,full --full-ms 200)
else
	echo
	echo "== simulator not built (make tools failed): the report has no comparison"
fi
$PSQL -v sim="$SIM" -f "$ROOT/demo/report.sql" >"$OUT/report.html"
# the comparison in short (psql substitutes :'sim' only in scripts, not in -c)
$PSQL -At -F ' ' -v sim="$SIM" <<'SQL'
SELECT rpad(e->>'policy', 9), 'utilisation', to_char(100 * (e->>'utilization')::float8, 'FM990.0') || '%',
	   ' value', e->>'value', ' completed jobs', e->>'completed_jobs',
	   ' coverage', to_char(100 * (e->>'coverage')::float8, 'FM990.0') || '%'
FROM jsonb_array_elements(coalesce(nullif(:'sim', ''), '[]')::jsonb) e;
SQL

echo
echo "Plan $PLAN as SVG: $OUT/plan.svg"
echo "Report:          $OUT/report.html"
