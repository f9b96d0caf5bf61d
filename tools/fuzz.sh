#!/bin/sh
# Runs each libFuzzer target named on the command line (built by make fuzz
# into build/fuzz/) for FUZZ_SECONDS seconds (60), one after the other.
#
# A target starts from its committed seeds, tests/fuzz/corpus/TARGET, plus
# what earlier runs found, build/fuzz/corpus/TARGET, where new inputs go; it
# uses tests/fuzz/TARGET.dict when there is one.  A crash, a sanitizer
# report (leaks included), a timeout of one input (10 s) or running out of
# memory stops the target with a non-zero status; the input that did it is
# written to build/fuzz/artifacts/TARGET/ (crash-*, leak-*, timeout-*,
# oom-*), and this script names it with the command that replays it.
# Ends with one summary line per target; exits non-zero if any failed.
set -u
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
failed=0
summary=""
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

for t in "$@"; do
	bin=build/fuzz/$t
	corpus=build/fuzz/corpus/$t
	artifacts=build/fuzz/artifacts/$t
	log=build/fuzz/$t.log
	mkdir -p "$corpus" "$artifacts"
	set -- -max_total_time="$seconds" -error_exitcode=77 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/"
	[ -f "tests/fuzz/$t.dict" ] && set -- "$@" -dict="tests/fuzz/$t.dict"
	echo "== $t: ${seconds} s"
	"$bin" "$@" "$corpus" "tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	# The last status line: "#RUNS DONE cov: N ft: N corp: N/Nb ... exec/s: N ..."
	done_line=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ "$rc" -eq 0 ]; then
		line="$t: ok, ${execs:-?} runs in ${seconds} s; $done_line"
	else
		failed=$((failed + 1))
		# libFuzzer's own report: the sanitizer's or the check's message and stack.
		grep -E -A40 '^(==[0-9]+==ERROR|SUMMARY|fuzz_[a-z]+: |.*runtime error:|==[0-9]+== ERROR: libFuzzer)' "$log" | head -n 80
		art=$(sed -n "s/.*Test unit written to \(.*\)$/\1/p" "$log" | tail -n 1)
		line="$t: FAILED (status $rc) after ${execs:-?} runs; input: ${art:-none, see $log}"
		[ -n "$art" ] && line="$line; replay: $bin $art"
	fi
	echo "$line"
	summary="$summary$line
"
done
echo "== fuzz summary"
printf '%s' "$summary"
[ "$failed" -eq 0 ]
