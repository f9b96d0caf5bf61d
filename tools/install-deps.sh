#!/bin/sh
# Installs what building and testing gpualloc needs on Debian 12, through apt,
# only when something is missing.  With --fuzz: what make fuzz needs instead
# (clang, and the libFuzzer and sanitizer runtimes clang only recommends).
# The high-availability test (make test-ha) needs Patroni, its etcd client
# and PostgreSQL driver, and an etcd server.
set -eu
packages="postgresql-15 postgresql-server-dev-15 postgresql-contrib libpq-dev libglpk-dev libipc-run-perl libxml2-utils make gcc"
packages="$packages patroni python3-etcd python3-psycopg2 etcd-server"
if [ "${1:-}" = "--fuzz" ]; then
	packages="make clang libclang-rt-14-dev"
fi
need=""
for pkg in $packages; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need="$need $pkg"
done
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "missing packages:$need" >&2
	echo "install them as root: apt-get install$need" >&2
	exit 1
fi
echo "installing:$need"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $need >/dev/null
