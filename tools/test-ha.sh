#!/bin/sh
# sh tools/test-ha.sh (or make test-ha): the high-availability test alone,
# t/020_ha.pl — a three-member Patroni cluster with etcd on loopback, the
# leader (its Patroni and its postmaster) killed under load — with its
# failover figures written to bench/results/ha.json.  Installs what is missing through apt, builds and
# installs the extension, then runs the test.  When started as root, the
# test (and so etcd, Patroni and PostgreSQL) runs as the postgres user on a
# copy of the tree that user owns.  Exit status 0 only when every check
# passes; the test removes its servers and directories on exit.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
sh tools/install-deps.sh || exit 1
make -s >/dev/null && make -s install >/dev/null || { echo "build or install failed" >&2; exit 1; }

work=$ROOT
as=""
if [ "$(id -u)" = 0 ]; then
	work=$(mktemp -d /tmp/gpualloc-ha.XXXXXX)
	trap 'rm -rf "$work"' EXIT INT TERM
	tar --exclude=.git -cf - . | tar -xf - -C "$work"
	chown -R postgres "$work"
	as="runuser -u postgres --"
fi
$as mkdir -p "$work/bench/results"
$as env GPUALLOC_HA_JSON="$work/bench/results/ha.json" \
	make -C "$work" installcheck REGRESS= ISOLATION= PROVE_TESTS=t/020_ha.pl PROVE_FLAGS=--verbose
rc=$?
if [ "$rc" -ne 0 ]; then
	for f in "$work"/tmp_check/log/regress_log_020_ha; do
		[ -f "$f" ] && tail -n 60 "$f"
	done
fi
# the figures of a passing run only
if [ "$rc" -eq 0 ] && [ -f "$work/bench/results/ha.json" ]; then
	[ "$work" != "$ROOT" ] && cp "$work/bench/results/ha.json" bench/results/ha.json
	echo "wrote bench/results/ha.json"
fi
exit "$rc"
