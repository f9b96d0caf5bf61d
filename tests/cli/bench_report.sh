#!/bin/sh
# bench_report.sh — the report of make bench checks the coverage target as
# the benchmark states it: 99.5%; 2 points under the oracle's coverage where
# even the oracle cannot serve 99.9%; never below the static reservation's
# (backfill's) where that is under 99.5%; value targets where there is no
# batch value are not applicable; any number of scenarios is reported, and a
# run given twice is reported once with a warning.  Names are read whole and
# every JSON escape decoded; one object (gpualloc-sim run --json) is a list of
# one; a value within a rounding error of 0 is no value.  Results written here
# by hand, in the format of gpualloc-sim compare --json.  Ends with "N passed,
# N failed".
set -u
cd "$(dirname "$0")/../.."
REPORT=${REPORT:-build/bench_report}
. tests/cli/lib/harness.sh

# row SCENARIO POLICY COVERAGE VALUE: one result object
row() {
	printf '{"scenario": "%s", "policy": "%s", "knowledge": "forecast", "utilization": 0.8, "value": %s, "completed_value": %s, "completed_jobs": 3, "stopped_jobs": 0, "dependency_violations": 0, "coverage": %s, "unmet_gpu_hours": 0, "churn": 0, "window_violations": 0, "reservation_start_delay_steps": 0, "jain_index": null, "min_entitlement_share": null, "wait_mean_h": 1, "wait_p95_h": 2, "solve_p50_ms": 1, "solve_p99_ms": 1}' \
		"$1" "$2" "$4" "$4" "$3"
}

# scenario 21: the oracle serves 98.5% (a window closes the pool), backfill
# 86%; fast's 97.5% is within 2 points of the oracle's.  Scenario 22: the
# oracle serves everything, backfill 99%; fast's 99.2% misses 99.5%.
# Scenario 23: the oracle serves 95%, backfill 94%; fast's 93.5% is within
# 2 points of the oracle's but below the reservation's.
{
	echo "["
	for s in "21_window 0.975 0.985 0.86" "22_plain 0.992 1 0.99" "23_bursts 0.935 0.95 0.94"; do
		set -- $s
		row "$1" fast "$2" 100; echo ","
		row "$1" oracle "$3" 200; echo ","
		row "$1" backfill "$4" 90; echo ","
		row "$1" fifo "$4" 80
		[ "$1" = 23_bursts ] || echo ","
	done
	echo "]"
} > "$tmp/results.json"

if make -s "$REPORT" >/dev/null 2>&1 && "$REPORT" "$tmp/results.json" > "$tmp/report.txt" 2>"$tmp/err"; then
	ok "bench_report reads the results"
else
	bad "bench_report reads the results: $(head -n 3 "$tmp/err")"
fi
line() {	# line ALLOC SCENARIO: the targets line of a scenario for one allocator
	sed -n "/^targets, $1 (forecast)/,/^targets/p" "$tmp/report.txt" | grep "^  $2 "
}
check "within 2 points of the oracle where it cannot serve 99.9%" \
	sh -c 'echo "$1" | grep -q "coverage >= 96.50%: met (97.50%)"' sh "$(line fast 21_window)"
check "99.5% where the oracle serves everything" \
	sh -c 'echo "$1" | grep -q "coverage >= 99.50%: MISSED (99.20%)"' sh "$(line fast 22_plain)"
check "never below the static reservation's" \
	sh -c 'echo "$1" | grep -q "coverage >= 94.00%: MISSED (93.50%)"' sh "$(line fast 23_bursts)"

# trow SCENARIO POLICY VALUE UTILISATION JAIN MIN_SHARE: a row of a scenario
# with tenant policies
trow() {
	printf '{"scenario": "%s", "policy": "%s", "knowledge": "forecast", "utilization": %s, "value": %s, "completed_value": %s, "completed_jobs": 3, "stopped_jobs": 0, "dependency_violations": 0, "coverage": 1, "unmet_gpu_hours": 0, "churn": 0, "window_violations": 0, "reservation_start_delay_steps": 0, "jain_index": %s, "min_entitlement_share": %s, "wait_mean_h": 1, "wait_p95_h": 2, "solve_p50_ms": 1, "solve_p99_ms": 1}' \
		"$1" "$2" "$4" "$3" "$3" "$5" "$6"
}

# The flood: fast keeps 90% of its value without quotas (missed), beats
# quota but not fairshare, every tenant gets 91% of its entitlement, Jain
# 0.96.  The idle guarantee: 96% of the value, borrowing adds 12 points.
{
	echo "["
	trow 15_flood fast 900 0.9 0.96 0.91; echo ","
	trow 15_flood fast-no-quotas 1000 0.95 0.9 0.6; echo ","
	trow 15_flood fairshare 950 0.85 0.93 0.7; echo ","
	trow 15_flood quota 800 0.8 0.84 0.5; echo ","
	trow 15_flood fifo 700 0.8 0.64 0.29; echo ","
	trow 15_flood backfill 990 0.86 0.87 0.65; echo ","
	trow 16_idle fast 960 0.85 0.94 0.78; echo ","
	trow 16_idle fast-no-quotas 1000 0.88 0.96 0.69; echo ","
	trow 16_idle fast-no-borrowing 900 0.73 0.97 0.75; echo ","
	trow 16_idle fairshare 950 0.8 0.87 0.44; echo ","
	trow 16_idle quota 800 0.79 0.65 0; echo ","
	trow 16_idle fifo 700 0.7 0.66 0; echo ","
	trow 16_idle backfill 990 0.82 0.77 0.24
	echo "]"
} > "$tmp/tenants.json"
if "$REPORT" "$tmp/tenants.json" > "$tmp/tenants.txt" 2>"$tmp/err"; then
	ok "bench_report reads results with tenant policies"
else
	bad "bench_report reads results with tenant policies: $(head -n 3 "$tmp/err")"
fi
tline() {	# tline SCENARIO: the tenant targets line of a scenario for fast
	sed -n "/^targets, fast (forecast)/,/^targets/p" "$tmp/tenants.txt" | grep "^  $1 *tenants:"
}
check "quotas keep 95% of the value without them" \
	sh -c 'echo "$1" | grep -q "value >= 95% of without quotas: MISSED (90.0%)"' sh "$(tline 15_flood)"
check "value against the fairshare and quota baselines" \
	sh -c 'echo "$1" | grep -q "value >= fairshare and quota: MISSED (-5.3%, +12.5%)"' sh "$(tline 15_flood)"
check "the flood: every tenant's entitlement and Jain's index" \
	sh -c 'echo "$1" | grep -q "every tenant >= 90% of entitlement: met (91.0%; fifo 29.0%, backfill 65.0%); Jain >= 0.95: met (0.960)"' sh "$(tline 15_flood)"
check "the idle guarantee: what borrowing adds to utilisation" \
	sh -c 'echo "$1" | grep -q "value >= 95% of without quotas: met (96.0%).*utilisation >= without borrowing + 10 pp: met (+12.0 pp)"' sh "$(tline 16_idle)"
check "no tenant line for a scenario without tenant policies" \
	sh -c '! grep -q "tenants:" "$1"' sh "$tmp/report.txt"

# results of the allocator alone (compare --policies fast): the baselines'
# target is not measured, the others still are
{ echo "["; row 24_alone fast 0.999 100; echo "]"; } > "$tmp/alone.json"
if "$REPORT" "$tmp/alone.json" > "$tmp/alone.txt" 2>"$tmp/err"; then
	ok "bench_report reads results without baselines"
else
	bad "bench_report reads results without baselines: $(head -n 3 "$tmp/err")"
fi
check "without baselines the value target is not measured" \
	sh -c 'echo "$1" | grep -q "value > fifo and backfill: not measured (no fifo run); coverage >= 99.50%: met (99.90%)"' \
	sh "$(sed -n "/^targets, fast (forecast)/,/^targets/p" "$tmp/alone.txt" | grep "^  24_alone ")"

# a scenario with no batch work (every value 0): the value targets do not
# apply and say so; no ratio of 0 to 0 is printed
{
	echo "["
	for p in fast full oracle backfill fifo; do
		row 25_idle "$p" 1 0
		[ "$p" = fifo ] || echo ","
	done
	echo "]"
} > "$tmp/idle.json"
"$REPORT" "$tmp/idle.json" > "$tmp/idle.txt" 2>"$tmp/err"
check "bench_report reads results of no batch value" test $? -eq 0
check "the value targets of no batch value are not applicable" \
	sh -c 'echo "$1" | grep -q "value > fifo and backfill: n/a (no batch value); coverage >= 99.50%: met (100.00%); >= 95% of oracle: n/a (no batch value)"' \
	sh "$(sed -n "/^targets, fast (forecast)/,/^targets/p" "$tmp/idle.txt" | grep "^  25_idle ")"
check "no nan is printed" sh -c '! grep -qi "nan" "$1"' sh "$tmp/idle.txt"

# 70 scenarios (more than any fixed table would hold) are all reported; the
# first in name order has no allocator run, the targets are still checked
{
	echo "["
	row 00_baselines_only fifo 1 50; echo ","
	for i in $(seq 1 70); do
		row "s$i" fast 0.999 100; echo ","
		row "s$i" fifo 0.999 80; echo ","
	done
	row s70 backfill 0.999 90
	echo "]"
} > "$tmp/many.json"
"$REPORT" "$tmp/many.json" > "$tmp/many.txt" 2>"$tmp/err"
check "bench_report reads 70 scenarios" test $? -eq 0
check "every one of them has its table" test "$(grep -c '^s[0-9]* (forecast)$' "$tmp/many.txt")" -eq 70
check "the targets are checked though the first scenario has no allocator run" \
	grep -q '^  s70 .*value > fifo and backfill: met' "$tmp/many.txt"

# the same run twice (two scenario directories of one name): reported once,
# with a warning naming the scenario
"$REPORT" "$tmp/idle.json" "$tmp/idle.json" > "$tmp/twice.txt" 2>"$tmp/err"
check "bench_report reads a run given twice" test $? -eq 0
check "and warns once, naming the scenario" \
	test "$(grep -c 'scenario "25_idle" has runs of the same policy and knowledge more than once' "$tmp/err")" -eq 1
check "the report is the one of the run alone" cmp -s "$tmp/idle.txt" "$tmp/twice.txt"

# two scenario directories of one name (--dir before each one's runs): two
# scenarios, the second named after its directory, and no warning
"$REPORT" --dir scen/a "$tmp/idle.json" --dir scen/b "$tmp/idle.json" > "$tmp/apart.txt" 2>"$tmp/err"
check "bench_report reads two directories of one scenario name" test $? -eq 0
check "and reports both, the second by its directory" \
	sh -c 'grep -q "^25_idle (forecast)\$" "$1" && grep -q "^25_idle (scen/b) (forecast)\$" "$1"' sh "$tmp/apart.txt"
check "without a warning" test ! -s "$tmp/err"
check "one directory given twice is still one scenario" \
	sh -c '"$1" --dir scen/a "$2" --dir scen/a "$2" 2>/dev/null | grep -c "^25_idle" | grep -qx 1' sh "$REPORT" "$tmp/idle.json"

# the merged file lists every run of one knowledge before the other's, in
# scenario order, with more scenarios than a fixed stride would hold apart
sed 's/"knowledge": "forecast"/"knowledge": "perfect"/g' "$tmp/many.json" > "$tmp/many_perfect.json"
"$REPORT" --json "$tmp/many_merged.json" "$tmp/many.json" "$tmp/many_perfect.json" > /dev/null 2>"$tmp/err"
check "bench_report merges 70 scenarios in both knowledge modes" test $? -eq 0
check "every forecast run comes before every perfect one" \
	sh -c 'grep -o "\"knowledge\": \"[a-z]*\"" "$1" | uniq | tr "\n" " " | grep -qx "\"knowledge\": \"forecast\" \"knowledge\": \"perfect\" "' sh "$tmp/many_merged.json"


# names with JSON escapes: \uXXXX (a surrogate pair too) decoded to UTF-8,
# and two names that differ by a tab and a line feed stay two scenarios,
# written back escaped in the merged file and as character references in
# the SVG (XML 1.0 allows no other control character, even as a reference)
{
	echo "["
	row '01_caf\u00e9 \ud83d\ude00' fast 1 100; echo ","
	row '05 x\ty' fast 1 100; echo ","
	row '05 x\u000ay' fast 1 100; echo ","
	row '05 \b\f\r\u0001' fast 1 100
	echo "]"
} > "$tmp/escapes.json"
"$REPORT" --json "$tmp/escapes_merged.json" --svg "$tmp/escapes.svg" "$tmp/escapes.json" > "$tmp/escapes.txt" 2>"$tmp/err"
check "bench_report decodes u-escapes and a surrogate pair to UTF-8" \
	sh -c '[ "$1" -eq 0 ] && grep -q "^01_caf$(printf "\303\251 \360\237\230\200") (forecast)\$" "$2"' sh $? "$tmp/escapes.txt"
check "names apart by a tab and a line feed stay apart, escaped again" \
	sh -c 'grep -Fq "\"05 x\\u0009y\"" "$1" && grep -Fq "\"05 x\\u000ay\"" "$1"' sh "$tmp/escapes_merged.json"
check "the escapes of backspace, form feed and carriage return are decoded" \
	grep -Fq '"05 \u0008\u000c\u000d\u0001"' "$tmp/escapes_merged.json"
check "the SVG keeps tab and line feed as references, no other control byte" \
	sh -c 'grep -Fq "05 x&#9;y" "$1" && grep -Fq "05 x&#10;y" "$1" &&
		! LC_ALL=C grep -q "$(printf "[\001-\010\013\014\016-\037]")" "$1"' sh "$tmp/escapes.svg"
# a result with 60 further metrics before the usual ones (a later version
# of the simulator): every field is read, the value after the 48th too
{
	printf '[{'
	for i in $(seq 1 60); do printf '"extra_%d": %d, ' "$i" "$i"; done
	row 10_wide fast 1 123.5 | sed 's/^{//'
	echo "]"
} > "$tmp/wide.json"
"$REPORT" --json "$tmp/wide_merged.json" "$tmp/wide.json" > "$tmp/wide.txt" 2>"$tmp/err"
check "a result of 80 fields is read whole: its value and its 60th extra field" \
	sh -c '[ "$1" -eq 0 ] && grep -q "123.5" "$2" && grep -Fq "\"extra_60\": 60" "$3" && grep -Fq "\"value\": 123.5" "$3"' \
	sh $? "$tmp/wide.txt" "$tmp/wide_merged.json"

# a name made by hand in Latin-1 (a byte that is not UTF-8) and one holding
# U+FFFE, which XML excludes: the SVG stays well-formed, each such
# character written as U+FFFD
{
	echo "["
	row "08_caf$(printf '\351')" fast 1 100; echo ","
	row '09_\ufffe' fast 1 100
	echo "]"
} > "$tmp/latin1.json"
"$REPORT" --svg "$tmp/latin1.svg" "$tmp/latin1.json" > /dev/null 2>"$tmp/err"
check "a byte that is not UTF-8 and U+FFFE become U+FFFD in the SVG" \
	sh -c '[ "$1" -eq 0 ] && iconv -f UTF-8 -t UTF-8 "$2" > /dev/null 2>&1 &&
		grep -Fq "08_caf$(printf "\357\277\275")" "$2" && grep -Fq "09_$(printf "\357\277\275")" "$2" &&
		! grep -Fq "$(printf "\357\277\276")" "$2"' sh $? "$tmp/latin1.svg"
{ echo "["; row '07_\ud83d alone' fast 1 100; echo "]"; } > "$tmp/surrogate.json"
"$REPORT" "$tmp/surrogate.json" > /dev/null 2>"$tmp/err"
check "a lone surrogate is an error naming the file" \
	sh -c '[ "$1" -ne 0 ] && grep -q "^$2: lone high surrogate" "$3"' sh $? "$tmp/surrogate.json" "$tmp/err"

# scenario directories of any length: two paths alike in their first 127
# bytes (a two-byte character across byte 127 of the name) stay apart, whole,
# and the merged file and the SVG stay valid UTF-8
long="scen/$(printf 'd%.0s' $(seq 1 111))/$(printf '\303\251')x"
"$REPORT" --json "$tmp/long.json" --svg "$tmp/long.svg" --dir scen/a "$tmp/idle.json" \
	--dir "$long/one" "$tmp/idle.json" --dir "$long/two" "$tmp/idle.json" > "$tmp/long.txt" 2>"$tmp/err"
check "two long directory names alike up to byte 127 stay apart and whole" \
	sh -c '[ "$1" -eq 0 ] && grep -Fqx "25_idle ($3/one) (forecast)" "$2" && grep -Fqx "25_idle ($3/two) (forecast)" "$2"' \
	sh $? "$tmp/long.txt" "$long"
check "the merged file and the SVG are valid UTF-8" \
	sh -c 'iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1 && iconv -f UTF-8 -t UTF-8 "$2" > /dev/null 2>&1' \
	sh "$tmp/long.json" "$tmp/long.svg"

# an oracle whose LP leaves 1.36e-12 of value where no policy earns any:
# no batch value, not a target missed
{
	echo "["
	for p in fast backfill fifo; do
		row 07_over "$p" 0.3447 0; echo ","
	done
	row 07_over oracle 0.3447 1.364242053e-12
	echo "]"
} > "$tmp/over.json"
"$REPORT" "$tmp/over.json" > "$tmp/over.txt" 2>"$tmp/err"
check "an oracle value within a rounding error of 0 is no batch value" \
	grep -q '^  07_over .*>= 95% of oracle: n/a (no batch value)$' "$tmp/over.txt"

# the flood without baseline runs: their entitlement shares are n/a
{
	echo "["
	trow 15_flood fast 900 0.9 0.96 0.91; echo ","
	trow 15_flood fast-no-quotas 1000 0.95 0.9 0.6
	echo "]"
} > "$tmp/flood_alone.json"
"$REPORT" "$tmp/flood_alone.json" > "$tmp/flood_alone.txt" 2>"$tmp/err"
check "the flood without fifo and backfill runs prints n/a, no nan" \
	sh -c 'grep -q "(91.0%; fifo n/a, backfill n/a)" "$1" && ! grep -q "nan%" "$1"' sh "$tmp/flood_alone.txt"

# the table's policy column fits fast-no-borrowing: every line of the
# table (header and rows) is as long as the others
check "the policy column fits the longest policy name" \
	sh -c 'awk "/^16_idle \\(forecast\\)\$/ { on = 1; next } on && /^  [a-z]+:/ { exit } on { print length(\$0) }" "$1" |
		sort -u | wc -l | grep -qx 1' sh "$tmp/tenants.txt"

# gpualloc-sim run --json writes one object, not a list: a list of one
row 24_alone fast 0.999 100 > "$tmp/one.json"
"$REPORT" "$tmp/one.json" > "$tmp/one.txt" 2>"$tmp/err"
check "bench_report reads one object as a list of one" test $? -eq 0
check "and reports its run" grep -q "^  24_alone .*coverage >= 99.50%: met (99.90%)" "$tmp/one.txt"

finish
