#!/bin/sh
# make demo: build and install gpualloc, start a throwaway PostgreSQL in a
# temporary directory with the extension preloaded, load the sample cluster,
# plan it and show what the extension holds.  The server and its directory
# are removed on exit.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
make -s >/dev/null
make -s install >/dev/null

# the demo plans explicitly, so the background planner waits its interval
TEMPDB_CONF="gpualloc.replan_interval = '1h'"
. "$ROOT/tools/tempdb.sh"
tempdb_start demo
echo "PostgreSQL started in $TMP (port $PORT)"
$PSQL -f "$ROOT/demo/sample_cluster.sql" >/dev/null
$PSQL -f "$ROOT/demo/show.sql"
