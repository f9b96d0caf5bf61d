#!/bin/sh
# gen_scenarios.sh — the scenario generator on real traces that cannot give
# scenarios 8-10 what they take (a series of no demand, a trace of no jobs,
# series too short for the window) and on bad --seed-shift values or
# directories too long: each is
# refused with the file (or the flag) and the rule, and nothing is written
# from a series that cannot be scaled.  Copies of data/real, altered here.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
GEN=${GEN:-build/gen_scenarios}
. tests/cli/lib/harness.sh

genai=genai_inference_requests_hourly.csv
venus=venus_gpu_requests_hourly.csv

# data NAME: a copy of data/real to alter, $tmp/NAME
data() {
	cp -r data/real "$tmp/$1"
}

# gen NAME: the generator on $tmp/NAME into $tmp/out_NAME, stderr in
# $tmp/err_NAME; its exit status in $rc
gen() {
	"$GEN" --data "$tmp/$1" --out "$tmp/out_$1" > /dev/null 2> "$tmp/err_$1"
	rc=$?
}

if make -s "$GEN" > /dev/null 2>&1; then
	ok "gen_scenarios builds"
else
	bad "gen_scenarios builds"
fi

# the data as committed: every scenario, as in scenarios/
data real
gen real
check "the data as committed writes scenarios/ again" \
	sh -c '[ "$1" -eq 0 ] && for d in "$2"/*/; do diff -r "$d" "scenarios/$(basename "$d")" || exit 1; done' \
	sh "$rc" "$tmp/out_real"

# a GenAI series of no demand: scaling its busiest hour to 16 GPUs is 0 / 0
data zero
awk -F, 'BEGIN { OFS = "," } NR > 1 { $2 = 0; $3 = 0 } { print }' data/real/$genai > "$tmp/zero/$genai"
gen zero
check "a GenAI series with no positive value is refused, naming the file and the rule" \
	sh -c '[ "$1" -ne 0 ] && grep -q "^$2: sum_exec_seconds has no positive value before 2024-12-08 00:00" "$3"' \
	sh "$rc" "$tmp/zero/$genai" "$tmp/err_zero"
check "and no nan is written" sh -c '! grep -rqE "(^|,)-?nan(,|\$)" "$1"' sh "$tmp/out_zero"

# a GenAI series that ends before the window 2024-12-01 to 2024-12-07
data early
head -n 101 data/real/$genai > "$tmp/early/$genai"
gen early
check "a GenAI series that misses the window is refused with the hours it needs" \
	sh -c '[ "$1" -ne 0 ] && grep -q "^$2: covers 0 of the 168 hours from 2024-12-01 00:00 to 2024-12-08 00:00" "$3"' \
	sh "$rc" "$tmp/early/$genai" "$tmp/err_early"

# a Philly trace with a header and no jobs
data nojobs
head -n 1 data/real/philly_jobs/11cb48_jobs.csv > "$tmp/nojobs/philly_jobs/11cb48_jobs.csv"
gen nojobs
check "a Philly trace of no jobs is refused, naming the file" \
	sh -c '[ "$1" -ne 0 ] && grep -q "^$2: has no jobs" "$3"' \
	sh "$rc" "$tmp/nojobs/philly_jobs/11cb48_jobs.csv" "$tmp/err_nojobs"

# a Venus series of 100 hours: no week with four weeks before it
data short
head -n 101 data/real/$venus > "$tmp/short/$venus"
gen short
check "a Venus series too short for its window is refused with the rows it needs" \
	sh -c '[ "$1" -ne 0 ] && grep -q "^$2: has 100 hourly rows .*needs 840 rows at least" "$3"' \
	sh "$rc" "$tmp/short/$venus" "$tmp/err_short"

# --seed-shift: a whole number, nothing after it, within a long
for k in 5x 99999999999999999999; do
	"$GEN" --seed-shift "$k" --out "$tmp/shift" > /dev/null 2> "$tmp/err_shift"
	check "--seed-shift $k is a usage error" \
		sh -c '[ "$1" -eq 2 ] && grep -q "seed-shift needs a whole number from 1 to" "$2"' sh $? "$tmp/err_shift"
done
check "and nothing is written" test ! -e "$tmp/shift"

# a directory too long for the paths built under it: refused, not cut
long=$tmp/$(printf '%0950d' 0)
"$GEN" --out "$long" > /dev/null 2> "$tmp/err_long"
check "--out longer than 900 bytes is a usage error" \
	sh -c '[ "$1" -eq 2 ] && grep -q -- "--out takes a directory path of at most 900 bytes" "$2"' sh $? "$tmp/err_long"
"$GEN" --data "$long" --out "$tmp/long_data" > /dev/null 2> "$tmp/err_long"
check "--data longer than 900 bytes is a usage error, and nothing is written" \
	sh -c '[ "$1" -eq 2 ] && grep -q -- "--data takes a directory path of at most 900 bytes" "$2" && [ ! -e "$3" ]' \
	sh $? "$tmp/err_long" "$tmp/long_data"

finish
