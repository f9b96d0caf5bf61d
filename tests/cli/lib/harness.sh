# harness.sh — sourced by the command-line suites of tests/cli: a scratch
# directory $tmp removed on exit, and the counts each suite ends with
# ("N passed, N failed", printed by finish).
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

ok() { echo "ok   $1"; passed=$((passed + 1)); }
bad() { echo "FAIL $1"; failed=$((failed + 1)); }
check() {	# check NAME COMMAND...: passes when the command succeeds
	name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
