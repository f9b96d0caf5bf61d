#!/bin/sh
# bench_forecast.sh — the demand backtest reads whatever series a data
# directory holds in the formats of data/real/README.md: every Philly trace
# under philly_jobs/ (any names), and any <name>_hourly.csv with hour_start
# and gpus (columns in any order, quoted fields, CRLF); a series too short
# for one origin is reported and left out; a directory with nothing to
# score, a missing one and a bad row (off the hour, out of order, negative,
# a series over five years, a Philly job of 0 GPUs or submitted past five
# years, a name over 63 characters, two series of one name, a directory
# named as a series file, a Philly trace past 1e9 GPUs in an hour, a
# hexadecimal number, a file named by its suffix alone, a NUL byte, a day
# its month lacks, a results file that cannot be written) are refused with
# a message naming the cause; a number below the smallest normal double is
# read as 0; a series with no hour to score is reported; any number of
# series is backtested; a series of no demand and a name with a quote
# still give valid JSON; a series that starts idle is forecast within
# reason; a tuning run completes (run with BENCH set to a sanitizer build
# too).
# Series written here by a script.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
BENCH=${BENCH:-build/bench_forecast}
. tests/cli/lib/harness.sh

if ! make -s "$BENCH" >/dev/null 2>&1; then
	bad "$BENCH builds"
	finish
	exit 1
fi

# 12 days of an hourly cluster series: a daily wave, CRLF line ends, a
# column the benchmark does not read (quoted, with a comma), timestamps with
# a T; and two days of another, too short for an origin
mkdir -p "$tmp/data/philly_jobs"
awk 'BEGIN {
	printf "note,\"gpus\",hour_start\r\n";
	for (h = 0; h < 12 * 24; h++)
		printf "\"a, b\",%d,2026-03-%02dT%02d:00\r\n", 20 + 10 * sin(h * 3.14159 / 12), 2 + int(h / 24), h % 24;
}' > "$tmp/data/lab_hourly.csv"
awk 'BEGIN {
	print "hour_start,gpus";
	for (h = 0; h < 48; h++)
		printf "2026-03-%02d %02d:00,%d\n", 2 + int(h / 24), h % 24, 5;
}' > "$tmp/data/brief_hourly.csv"
# a Philly-format trace of 10 days: a 4-GPU job every 2 hours, each 5 hours long
awk 'BEGIN {
	print "job_id,submit_s,gpus,duration_s_v100,duration_exact,job_type";
	for (j = 0; j < 120; j++)
		printf "%d,%d,4,18000,1,ResNet-18 (batch size 64)\n", j, j * 7200;
}' > "$tmp/data/philly_jobs/vc9_jobs.csv"

if "$BENCH" --data "$tmp/data" --out "$tmp/out.json" > "$tmp/out.txt" 2> "$tmp/err"; then
	ok "a directory of other series is backtested"
else
	bad "a directory of other series is backtested: $(head -n 3 "$tmp/err")"
fi
for s in lab philly_vc9; do
	check "series $s is scored on every method" \
		sh -c 'test "$(grep -c "\"series\": \"$1\", \"split\": \"test\"" "$2")" -eq 6' sh "$s" "$tmp/out.json"
	check "series $s has its target line" grep -q "^- $s: p50 WAPE" "$tmp/out.txt"
done
check "a series too short for an origin is reported" \
	grep -q "brief: 48 hours, fewer than the 192 one origin needs; left out" "$tmp/err"
check "and left out of the results" sh -c '! grep -q "\"series\": \"brief\"" "$1"' sh "$tmp/out.json"
check "no tuning split without the tuning series" sh -c '! grep -q "\"split\": \"tune\"" "$1"' sh "$tmp/out.json"

# refused: nothing to score, no directory, a bad row
mkdir -p "$tmp/empty"
check "an empty directory is refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "no series to score in $2" "$4"' \
	sh "$BENCH" "$tmp/empty" "$tmp/x.json" "$tmp/err"
check "a missing directory is refused" \
	sh -c '! "$1" --data "$2/none" --out "$3" 2> "$4" && grep -q "none: No such file or directory" "$4"' \
	sh "$BENCH" "$tmp" "$tmp/x.json" "$tmp/err"
printf 'hour_start,gpus\n2026-03-02 00:00,lots\n' > "$tmp/empty/bad_hourly.csv"
check "a bad row is refused with its file, line and column" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "bad_hourly.csv.*line 2.*gpus" "$4"' \
	sh "$BENCH" "$tmp/empty" "$tmp/x.json" "$tmp/err"
printf 'hour_start,gpus\n2026-03-02 01:00,3\n2026-03-02 00:00,2\n' > "$tmp/empty/bad_hourly.csv"
check "rows out of time order are refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "line 3, column \"hour_start\".*is not after the row before" "$4"' \
	sh "$BENCH" "$tmp/empty" "$tmp/x.json" "$tmp/err"
printf 'hour_start,gpus\n2026-03-02 00:30,3\n' > "$tmp/empty/bad_hourly.csv"
check "a time off the hour is refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "line 2, column \"hour_start\".*is not on a whole hour" "$4"' \
	sh "$BENCH" "$tmp/empty" "$tmp/x.json" "$tmp/err"
printf 'hour_start,gpus\n2026-03-02 00:00,-1\n' > "$tmp/empty/bad_hourly.csv"
check "a negative value is refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "line 2, column \"gpus\".*must be >= 0" "$4"' \
	sh "$BENCH" "$tmp/empty" "$tmp/x.json" "$tmp/err"
printf 'hour_start,gpus\n2026-03-02 00:00,3\n2032-03-03 00:00,2\n' > "$tmp/empty/bad_hourly.csv"
check "a series longer than five years is refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "line 3, column \"hour_start\".*more than five years after the first row" "$4"' \
	sh "$BENCH" "$tmp/empty" "$tmp/x.json" "$tmp/err"
rm "$tmp/empty/bad_hourly.csv"
mkdir -p "$tmp/empty/philly_jobs"
printf 'job_id,submit_s,gpus,duration_s_v100\n0,0,0,3600\n' > "$tmp/empty/philly_jobs/v_jobs.csv"
check "a Philly job of 0 GPUs is refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "v_jobs.csv: line 2, column \"gpus\".*must be from 1 to 1e9" "$4"' \
	sh "$BENCH" "$tmp/empty" "$tmp/x.json" "$tmp/err"
printf 'job_id,submit_s,gpus,duration_s_v100\n0,1e300,1,3600\n' > "$tmp/empty/philly_jobs/v_jobs.csv"
check "a Philly submission past five years is refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "column \"submit_s\".*must be from 0 to five years of seconds" "$4"' \
	sh "$BENCH" "$tmp/empty" "$tmp/x.json" "$tmp/err"
check "tuning needs a tuning series" \
	sh -c '! "$1" --data "$2" --tune > /dev/null 2> "$3" && grep -q "no tuning series" "$3"' \
	sh "$BENCH" "$tmp/data" "$tmp/err"

# a series of no demand has no WAPE (0 / 0): null in the JSON, a dash in the
# table, "not defined" in its target line, and the JSON stays valid; a name
# with a quote is escaped; one too long to tell apart is refused
mkdir -p "$tmp/odd"
awk 'BEGIN {
	print "hour_start,gpus";
	for (h = 0; h < 12 * 24; h++)
		printf "2026-03-%02d %02d:00,0\n", 2 + int(h / 24), h % 24;
}' > "$tmp/odd/idle_hourly.csv"
cp "$tmp/data/lab_hourly.csv" "$tmp/odd/la\"b_hourly.csv"
check "series of no demand and an odd name are backtested" \
	sh -c '"$1" --data "$2" --out "$3" > "$4" 2> "$5"' sh "$BENCH" "$tmp/odd" "$tmp/odd.json" "$tmp/odd.txt" "$tmp/err"
check "the WAPE of no demand is null in the JSON" \
	test "$(grep -c '"series": "idle", .*"wape": null' "$tmp/odd.json")" -eq 6
check "and a dash in the table" grep -q '^| idle | gpualloc | [0-9]* | — |' "$tmp/odd.txt"
check "its target line says the WAPE is not defined" \
	grep -q '^- idle: p50 WAPE not defined (no demand in the hours scored); coverage' "$tmp/odd.txt"
check "no nan is printed" sh -c '! grep -qi "nan" "$1" "$2"' sh "$tmp/odd.json" "$tmp/odd.txt"
check "a quote in a series name is escaped in the JSON" grep -q '"series": "la\\"b"' "$tmp/odd.json"
check "the JSON is valid" perl -MJSON::PP -e 'local $/; decode_json(<STDIN>)' < "$tmp/odd.json"
long=$(printf 'n%.0s' $(seq 1 64))
cp "$tmp/data/lab_hourly.csv" "$tmp/odd/${long}_hourly.csv"
check "a series name over 63 characters is refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "the series name \"$5\" is longer than 63 characters" "$4"' \
	sh "$BENCH" "$tmp/odd" "$tmp/x.json" "$tmp/err" "$long"

# more refusals, each naming the file and the rule: two series of one name,
# a directory where a series file is expected, a Philly trace whose running
# jobs add up past what an hourly series may hold, a hexadecimal number
mkdir -p "$tmp/twice/philly_jobs"
cp "$tmp/data/philly_jobs/vc9_jobs.csv" "$tmp/twice/philly_jobs/"
cp "$tmp/data/lab_hourly.csv" "$tmp/twice/philly_vc9_hourly.csv"
check "two series of one name are refused, naming both files" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "philly_vc9_hourly.csv: its series is named \"philly_vc9\", as the series of philly_jobs/vc9_jobs.csv is" "$4"' \
	sh "$BENCH" "$tmp/twice" "$tmp/x.json" "$tmp/err"
mkdir -p "$tmp/dir/odd_hourly.csv"
check "a directory named as a series file is refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "odd_hourly.csv: cannot read: Is a directory" "$4"' \
	sh "$BENCH" "$tmp/dir" "$tmp/x.json" "$tmp/err"
mkdir -p "$tmp/huge/philly_jobs"
printf 'job_id,submit_s,gpus,duration_s_v100\n0,0,1e9,864000\n1,0,1e9,864000\n' > "$tmp/huge/philly_jobs/h_jobs.csv"
check "a Philly trace holding more than 1e9 GPUs in an hour is refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "h_jobs.csv: the jobs running in hour 0 of the trace hold 2e+09 GPUs, more than the 1e9" "$4"' \
	sh "$BENCH" "$tmp/huge" "$tmp/x.json" "$tmp/err"
mkdir -p "$tmp/hex"
printf 'hour_start,gpus\n2026-03-02 00:00,0x10\n' > "$tmp/hex/x_hourly.csv"
check "a hexadecimal number is refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "line 2, column \"gpus\": \"0x10\" is not a finite number" "$4"' \
	sh "$BENCH" "$tmp/hex" "$tmp/x.json" "$tmp/err"

# a series whose hours never have both the day and the week before (a row
# every other day) is scored nowhere: reported, and with nothing else to
# score the run stops instead of writing empty tables
mkdir -p "$tmp/gaps"
awk 'BEGIN {
	print "hour_start,gpus";
	for (d = 0; d < 30; d += 2)
		for (h = 0; h < 24; h++)
			printf "2026-03-%02d %02d:00,%d\n", 1 + d, h, 10 + h;
}' > "$tmp/gaps/alt_hourly.csv"
check "a series with no hour to score is reported and the run stops" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "alt: no hour could be scored" "$4" && grep -q "no hour of any series in $2 could be scored" "$4"' \
	sh "$BENCH" "$tmp/gaps" "$tmp/x.json" "$tmp/err"
cp "$tmp/data/lab_hourly.csv" "$tmp/gaps/"
check "beside a series that scores, it is left out" \
	sh -c '"$1" --data "$2" --out "$3" > /dev/null 2> "$4" && grep -q "alt: no hour could be scored.*left out" "$4" && ! grep -q "\"series\": \"alt\"" "$3"' \
	sh "$BENCH" "$tmp/gaps" "$tmp/x.json" "$tmp/err"

# many series: the results grow with them (there is no fixed number)
mkdir -p "$tmp/many"
awk -v dir="$tmp/many" 'BEGIN {
	for (k = 0; k < 400; k++) {
		f = sprintf("%s/s%03d_hourly.csv", dir, k);
		print "hour_start,gpus" > f;
		for (h = 0; h < 8 * 24; h++)
			printf "2026-03-%02d %02d:00,%d\n", 2 + int(h / 24), h % 24, 1 + (h + k) % 5 > f;
		close(f);
	}
}'
check "400 series are all backtested" \
	sh -c '"$1" --data "$2" --out "$3" > /dev/null 2> "$4" && test "$(grep -c "\"method\": \"gpualloc\"," "$3")" -eq 400' \
	sh "$BENCH" "$tmp/many" "$tmp/x.json" "$tmp/err"

# venus_days DAYS FILE: a Venus-format series of DAYS days from 2020-04-01
venus_days() {
	awk -v days="$1" 'BEGIN {
		print "hour_start,gpus_requested,gpu_jobs_submitted";
		for (h = 0; h < days * 24; h++)
			printf "2020-04-%02d %02d:00,%d,1\n", 1 + int(h / 24), h % 24, 50 + h % 24;
	}' > "$2"
}

# a tuning series too short to have a first half to tune on
mkdir -p "$tmp/shorttune"
venus_days 10 "$tmp/shorttune/venus_gpu_requests_hourly.csv"
check "tuning on a series with no first half to tune on is refused, not NaN" \
	sh -c '! "$1" --data "$2" --tune > "$3" 2> "$4" && grep -q "venus: its first half holds no hour that could be scored" "$4" && ! grep -qi nan "$3"' \
	sh "$BENCH" "$tmp/shorttune" "$tmp/x.txt" "$tmp/err"

# the GenAI file's rows before the hour the series starts from are not
# scored, but they are still held to time order
mkdir -p "$tmp/early"
printf 'hour_start,requests,sum_exec_seconds\n2024-11-18 02:00,1,3600\n2024-11-18 01:00,1,3600\n' \
	> "$tmp/early/genai_inference_requests_hourly.csv"
check "GenAI rows out of order before its first scored day are refused" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "line 3, column \"hour_start\".*is not after the row before" "$4"' \
	sh "$BENCH" "$tmp/early" "$tmp/x.json" "$tmp/err"
# a Philly trace with no job holds no hour
printf 'job_id,submit_s,gpus,duration_s_v100\n' > "$tmp/huge/philly_jobs/h_jobs.csv"
check "a Philly trace with no job is reported with 0 hours" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "philly_h: 0 hours, fewer than" "$4"' \
	sh "$BENCH" "$tmp/huge" "$tmp/x.json" "$tmp/err"

# a series idle for its first 11 days, then a daily wave of some 20 GPUs:
# the first hours of demand are forecast from nothing, and the upper curve
# that follows stays near the demand (it asked for some 1e11 GPUs)
mkdir -p "$tmp/idle_start"
awk 'BEGIN {
	print "hour_start,gpus";
	for (h = 0; h < 21 * 24; h++)
		printf "2026-03-%02d %02d:00,%s\n", 2 + int(h / 24), h % 24,
			h < 11 * 24 ? "0" : sprintf("%.2f", 20 + 10 * sin(h * 3.14159 / 12) + (int(h / 24) % 7 < 5 ? 5 : 0));
}' > "$tmp/idle_start/wake_hourly.csv"
check "a series that starts idle is forecast within reason once demand comes" \
	sh -c '"$1" --data "$2" --out "$3" > /dev/null 2>&1 && awk -F "\"held_gpu_hours\": " "
		/\"series\": \"wake\", \"split\": \"test\", \"method\": \"gpualloc\"/ { held = \$2 + 0; n++ }
		END { exit !(n == 1 && held > 0 && held < 336 * 100) }" "$3"' \
	sh "$BENCH" "$tmp/idle_start" "$tmp/x.json"

# the results file is checked once written: a full disk is an error, not a
# run that succeeds with no results
if [ -w /dev/full ]; then
	check "a results file that cannot be written is refused" \
		sh -c '! "$1" --data "$2" --out /dev/full > /dev/null 2> "$3" && grep -q "/dev/full: cannot write the results: No space left on device" "$3"' \
		sh "$BENCH" "$tmp/data" "$tmp/err"
fi

# a number too small for a normal double is finite: read as 0, not refused
mkdir -p "$tmp/small"
sed '5s/,[0-9]*,/,1e-400,/; 6s/,[0-9]*,/,4e-320,/' "$tmp/data/lab_hourly.csv" > "$tmp/small/lab_hourly.csv"
check "numbers below the smallest double are read" \
	sh -c '"$1" --data "$2" --out "$3" > /dev/null 2> "$4" && grep -q "\"series\": \"lab\"" "$3"' \
	sh "$BENCH" "$tmp/small" "$tmp/x.json" "$tmp/err"

# a tuning run that completes frees what it read (run this suite with
# BENCH set to a sanitizer build: a leak there fails the run)
mkdir -p "$tmp/tune"
venus_days 16 "$tmp/tune/venus_gpu_requests_hourly.csv"
check "a tuning run prints the constants chosen and exits 0" \
	sh -c '"$1" --data "$2" --tune > "$3" 2> "$4" && grep -q "^chosen: blend_hours=" "$3"' \
	sh "$BENCH" "$tmp/tune" "$tmp/x.txt" "$tmp/err"

# a file named by its suffix alone gives its series no name: refused,
# rather than skipped while the others are scored
mkdir -p "$tmp/noname/philly_jobs"
cp "$tmp/data/lab_hourly.csv" "$tmp/noname/"
cp "$tmp/data/lab_hourly.csv" "$tmp/noname/_hourly.csv"
check "a file named _hourly.csv is refused, naming it" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "_hourly.csv: the file.s name gives its series no name (expected <name>_hourly.csv)" "$4"' \
	sh "$BENCH" "$tmp/noname" "$tmp/x.json" "$tmp/err"
rm "$tmp/noname/_hourly.csv"
cp "$tmp/data/philly_jobs/vc9_jobs.csv" "$tmp/noname/philly_jobs/_jobs.csv"
check "a Philly trace named _jobs.csv is refused, naming it" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "philly_jobs/_jobs.csv: the file.s name gives its series no name (expected philly_jobs/<vc>_jobs.csv)" "$4"' \
	sh "$BENCH" "$tmp/noname" "$tmp/x.json" "$tmp/err"

# a NUL byte (a file saved as UTF-16 has one in every other byte) is
# refused with its line: it used to end its field, "5<NUL>7" read as 5
mkdir -p "$tmp/nul"
printf 'hour_start,gpus\n2026-03-02 00:00,5\0007\n' > "$tmp/nul/n_hourly.csv"
check "a NUL byte is refused with its file and line" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "n_hourly.csv: line 2: holds a NUL byte" "$4"' \
	sh "$BENCH" "$tmp/nul" "$tmp/x.json" "$tmp/err"

# a day its month does not have is refused where it stands (it was read as
# a day of the next month, and the row after it blamed for the order)
mkdir -p "$tmp/feb30"
printf 'hour_start,gpus\n2026-02-28 23:00,1\n2026-02-29 00:00,1\n2026-03-01 01:00,1\n' > "$tmp/feb30/f_hourly.csv"
check "a day past its month's end is refused with its line" \
	sh -c '! "$1" --data "$2" --out "$3" 2> "$4" && grep -q "f_hourly.csv: line 3, column \"hour_start\": \"2026-02-29 00:00\" is not a day of its month" "$4"' \
	sh "$BENCH" "$tmp/feb30" "$tmp/x.json" "$tmp/err"

finish
