# tempdb.sh — sourced by tools/demo.sh and tools/bench-submit.sh: start a
# throwaway PostgreSQL in a temporary directory with gpualloc preloaded, and
# remove it on exit.  PostgreSQL refuses root, so as root the server runs as
# the postgres user.  After tempdb_start: $TMP, $PORT, $PSQL, $BINDIR, $AS.
# Extra postgresql.conf lines may be passed in $TEMPDB_CONF.

BINDIR=$(pg_config --bindir)

tempdb_stop() {
	cd /
	$AS "$BINDIR/pg_ctl" -D "$TMP/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$TMP"
}

tempdb_start() {
	TMP=$(mktemp -d /tmp/gpualloc-${1:-db}.XXXXXX)
	AS=""
	if [ "$(id -u)" = 0 ]; then
		chown postgres "$TMP"
		AS="runuser -u postgres --"
	fi
	PORT=$((20000 + $$ % 20000))
	trap tempdb_stop EXIT INT TERM
	# the postgres user may not enter the caller's directory (/root/...)
	cd "$TMP"
	# UTF8 whatever the environment (with LANG unset initdb picks SQL_ASCII)
	$AS "$BINDIR/initdb" -D "$TMP/data" -A trust -U postgres -E UTF8 --no-locale >/dev/null
	cat >>"$TMP/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$TMP'
port = $PORT
shared_preload_libraries = 'gpualloc'
gpualloc.database = 'postgres'
${TEMPDB_CONF:-}
CONF
	$AS "$BINDIR/pg_ctl" -D "$TMP/data" -l "$TMP/server.log" -w start >/dev/null
	PSQL="$BINDIR/psql -X -q -h $TMP -p $PORT -U postgres -d postgres"
}
