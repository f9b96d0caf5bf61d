#!/bin/sh
# sh tools/run-tests.sh (or make test): installs what is missing through apt,
# then runs every test suite — core unit tests (plain and under ASan and
# UBSan), the simulator's command line, pg_regress, isolation, TAP — and
# ends with the line "N passed, N failed".  Exit status 0 only when all pass.
#
# PostgreSQL refuses to run as root, so when started as root the database
# suites run as the postgres user on a copy of the tree that user owns.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# on a bare machine: make, gcc, PostgreSQL 15 and the rest through apt
sh tools/install-deps.sh || exit 1
passed=0
failed=0

count() {	# count SUITE PASSED FAILED
	echo "== $1: $2 passed, $3 failed"
	passed=$((passed + $2))
	failed=$((failed + $3))
}

# A suite that prints "ok   name" lines and ends with "N passed, N failed":
# show what is not ok, and count the last line.
count_summary() {	# count_summary SUITE OUTPUT
	echo "$2" | grep -v '^ok ' | sed '$d'
	last=$(echo "$2" | tail -n 1)
	p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	f=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	count "$1" "${p:-0}" "${f:-1}"
}

run_unit() {
	if ! make -s build/unit_tests; then
		count unit 0 1
		return
	fi
	count_summary unit "$(./build/unit_tests)"
}

# The same unit tests built with AddressSanitizer (LeakSanitizer included)
# and UndefinedBehaviorSanitizer, every report fatal: a report stops the
# binary with a non-zero status (a leak report comes at exit, after the
# summary line), so the suite passes only when the binary exits 0 and its
# stderr holds no sanitizer report.  The report is shown; the tests that
# passed count as passed, failed tests as failed, the report as one more.
run_unit_san() {
	if ! make -s build/unit_tests_san; then
		count unit-san 0 1
		return
	fi
	san_err=$(mktemp)
	out=$(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		./build/unit_tests_san 2>"$san_err")
	rc=$?
	last=$(echo "$out" | tail -n 1)
	if grep -qE 'Sanitizer|runtime error:' "$san_err" ||
		! echo "$last" | grep -qE '^[0-9]+ passed, [0-9]+ failed$' ||
		{ [ "$rc" -ne 0 ] && echo "$last" | grep -q ' 0 failed$'; }; then
		echo "$out" | grep -v '^ok '
		cat "$san_err"
		count unit-san "$(echo "$out" | grep -c '^ok ')" $(($(echo "$out" | grep -c '^FAIL ') + 1))
	else
		count_summary unit-san "$out"
	fi
	rm -f "$san_err"
}

# The simulator from the command line (tests/cli).
run_cli() {
	if ! make -s tools >/dev/null; then
		count cli 0 1
		return
	fi
	for t in tests/cli/*.sh; do
		count_summary "cli $(basename "$t" .sh)" "$(sh "$t")"
	done
}

# pg_regress and pg_isolation_regress print "All N tests passed." or
# "M of N tests failed."
count_regress() {	# count_regress SUITE LOGFILE
	all=$(sed -n 's/^ *All \([0-9]*\) tests passed\. *$/\1/p' "$2")
	some=$(sed -n 's/^ *\([0-9]*\) of \([0-9]*\) tests failed\. *$/\1 \2/p' "$2")
	if [ -n "$all" ]; then
		count "$1" "$all" 0
	elif [ -n "$some" ]; then
		set -- "$1" $some
		count "$1" $(($3 - $2)) "$2"
	else
		count "$1" 0 1
	fi
}

# prove prints "Files=F, Tests=N" and "Failed X/Y subtests" per failing file.
count_tap() {	# count_tap LOGFILE
	total=$(sed -n 's/^Files=[0-9]*, Tests=\([0-9]*\),.*/\1/p' "$1")
	bad=$(sed -n 's/.*Failed \([0-9]*\)\/[0-9]* subtests.*/\1/p' "$1" | awk '{s += $1} END {print s + 0}')
	if [ -z "$total" ]; then
		count tap 0 1
	elif grep -q '^Result: PASS' "$1"; then
		count tap "$total" 0
	else
		[ "$bad" -gt 0 ] || bad=1
		count tap $((total - bad)) "$bad"
	fi
}

run_pg_suites() {
	make -s >/dev/null && make -s install >/dev/null || { count build 0 1; return; }
	# the TAP suite runs the command-line client (t/006_cli.pl); the copy
	# below takes the built binary along.  A client that does not build
	# fails that test, not the other suites.
	make -s tools/gpualloc >/dev/null || echo "tools/gpualloc did not build: t/006_cli.pl will fail"
	work=$ROOT
	as=""
	if [ "$(id -u)" = 0 ]; then
		work=$(mktemp -d /tmp/gpualloc-test.XXXXXX)
		tar --exclude=.git -cf - . | tar -xf - -C "$work"
		chown -R postgres "$work"
		as="runuser -u postgres --"
	fi
	logs=$work/test-logs
	$as mkdir -p "$logs"

	$as make -C "$work" installcheck ISOLATION= TAP_TESTS= >"$logs/regress.log" 2>&1
	cat "$logs/regress.log" | grep -E '^(test| +[0-9]+ of| +All)' || true
	[ -f "$work/regression.diffs" ] && cat "$work/regression.diffs"
	count_regress regress "$logs/regress.log"

	if ls specs/*.spec >/dev/null 2>&1; then
		$as make -C "$work" installcheck REGRESS= TAP_TESTS= >"$logs/isolation.log" 2>&1
		grep -E '^(test|permutation| +[0-9]+ of| +All)' "$logs/isolation.log" || true
		[ -f "$work/output_iso/regression.diffs" ] && cat "$work/output_iso/regression.diffs"
		count_regress isolation "$logs/isolation.log"
	fi

	if ls t/*.pl >/dev/null 2>&1; then
		$as make -C "$work" installcheck REGRESS= ISOLATION= >"$logs/tap.log" 2>&1
		grep -E '^(t/|Files=|Result:|not ok|#)' "$logs/tap.log" | head -n 200 || true
		if ! grep -q '^Result: PASS' "$logs/tap.log"; then
			for f in "$work"/tmp_check/log/regress_log_*; do
				[ -f "$f" ] && tail -n 40 "$f"
			done
		fi
		count_tap "$logs/tap.log"
	fi
	[ "$work" != "$ROOT" ] && rm -rf "$work"
}

run_unit
run_unit_san
run_cli
run_pg_suites
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
