#!/bin/sh
# make demo: build and install gpualloc, start a throwaway PostgreSQL in a
# temporary directory with the extension preloaded, load the sample cluster
# and show what the extension holds.  The server and its directory are
# removed on exit.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BINDIR=$(pg_config --bindir)

make -s >/dev/null
make -s install >/dev/null

TMP=$(mktemp -d /tmp/gpualloc-demo.XXXXXX)
as=""
if [ "$(id -u)" = 0 ]; then
	chown postgres "$TMP"
	as="runuser -u postgres --"
fi
PORT=$((20000 + $$ % 20000))
cleanup() {
	$as "$BINDIR/pg_ctl" -D "$TMP/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

$as "$BINDIR/initdb" -D "$TMP/data" -A trust -U postgres >/dev/null
cat >>"$TMP/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$TMP'
port = $PORT
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
CONF
$as "$BINDIR/pg_ctl" -D "$TMP/data" -l "$TMP/server.log" -w start >/dev/null
echo "PostgreSQL started in $TMP (port $PORT)"

PSQL="$BINDIR/psql -X -q -h $TMP -p $PORT -U postgres -d postgres"
$PSQL -f "$ROOT/demo/sample_cluster.sql" >/dev/null
$PSQL -f "$ROOT/demo/show.sql"
