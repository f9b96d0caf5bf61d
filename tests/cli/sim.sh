#!/bin/sh
# sim.sh — tools/gpualloc-sim from the command line: a scenario written here
# (with a column the format does not define, which readers must tolerate),
# the JSON of run and compare, the oracle's bound against every policy,
# clear errors for bad flags and a bad scenario, and valid JSON from names
# of any bytes.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
SIM=${SIM:-tools/gpualloc-sim}
. tests/cli/lib/harness.sh

dir=$tmp/tiny
mkdir -p "$dir"
cat > "$dir/scenario.csv" <<'CSV'
key,value
name,tiny
description,two days on 4 GPUs
start,2026-03-02 00:00
end,2026-03-04 00:00
step_minutes,30
horizon_hours,24
replan_minutes,30
penalty,8
half_life_hours,12
CSV
printf 'pool,node,gpus\na100,n1,4\n' > "$dir/gpus.csv"
printf 'service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus,owner\nchat,a100,4,100,2,0,4,team-a\n' > "$dir/services.csv"
{
	echo "service,ts,traffic"
	for d in 23 24 25 26 27 28; do
		for h in 00 06 12 18; do
			echo "chat,2026-02-$d $h:00,$([ "$h" = 12 ] && echo 180 || echo 60)"
		done
	done
	for d in 02 03; do
		for h in 00 06 12 18; do
			echo "chat,2026-03-$d $h:00,$([ "$h" = 12 ] && echo 180 || echo 60)"
		done
	done
} > "$dir/demand.csv"
cat > "$dir/jobs.csv" <<'CSV'
job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features
j1,training,a100,3,2026-03-02 00:00,2,2,60,strategy=lora;params_b=8;tokens_m=50
j2,training,a100,1,2026-03-02 01:00,1,4,80,strategy=lora;params_b=7;tokens_m=30
j3,batch_inference,a100,5,2026-03-02 09:00,1,2,16,params_b=8;requests_k=20
j4,training,a100,2,2026-03-02 12:00,4,4,90,strategy=full;params_b=8;tokens_m=100
CSV

out=$("$SIM" run "$dir" --policy fast --json 2>"$tmp/err")
rc=$?
check "run --json succeeds on a scenario with an extra column" test "$rc" -eq 0
for key in scenario policy knowledge utilization value completed_jobs coverage churn solve_p50_ms solve_p99_ms; do
	check "run --json has \"$key\"" sh -c "echo '$out' | grep -q '\"$key\":'"
done

"$SIM" compare "$dir" --perfect-knowledge --json > "$tmp/cmp.json" 2>"$tmp/err"
check "compare --json succeeds" test $? -eq 0
check "compare runs all seven policies" test "$(grep -o '"policy": "[a-z]*"' "$tmp/cmp.json" | sort -u | wc -l)" -eq 7
check "the scenario is contended: fifo's utilisation is below the oracle's" \
	awk -v f="$(sed -n 's/.*"policy": "fifo"[^}]*"utilization": \([0-9.e+-]*\).*/\1/p' "$tmp/cmp.json")" \
		-v o="$(sed -n 's/.*"policy": "oracle"[^}]*"utilization": \([0-9.e+-]*\).*/\1/p' "$tmp/cmp.json")" \
		'BEGIN { exit !(f != "" && o != "" && f < o) }'

# The oracle's value bound holds for every run that reaches its coverage floor.
value_of() { sed -n "s/.*\"policy\": \"$1\"[^}]*\"value\": \\([0-9.e+-]*\\).*/\\1/p" "$tmp/cmp.json"; }
coverage_of() { sed -n "s/.*\"policy\": \"$1\"[^}]*\"coverage\": \\([0-9.e+-]*\\).*/\\1/p" "$tmp/cmp.json"; }
oracle=$(value_of oracle)
for p in fifo backfill fast full quota fairshare; do
	v=$(value_of $p)
	c=$(coverage_of $p)
	check "$p value $v <= oracle $oracle (coverage $c)" \
		awk -v v="$v" -v o="$oracle" -v c="$c" 'BEGIN { exit !(v != "" && o != "" && (c < 0.995 || v <= o + 1e-6)) }'
done

expect_error() {	# expect_error NAME PATTERN ARGS...: exit 2 and PATTERN on stderr
	name=$1
	pattern=$2
	shift 2
	"$SIM" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q -- "$pattern" "$tmp/err"; then
		ok "$name"
	else
		bad "$name (exit $rc: $(head -n 1 "$tmp/err"))"
	fi
}
expect_error "unknown policy is named" 'unknown policy "lifo"' run "$dir" --policy lifo
expect_error "--quantile out of range names the rule" '--quantile needs a quantile from 0.5 to 0.999' run "$dir" --policy fast --quantile 2
expect_error "--protect-quantile out of range names the rule" '--protect-quantile needs a quantile from 0.5 to 0.999' run "$dir" --policy fast --protect-quantile 0.3
expect_error "--headroom out of range names the rule" '--headroom needs a share from 0 to 1' run "$dir" --policy fast --headroom 1.5
expect_error "--need-quantile out of range names the rule" '--need-quantile needs a quantile from 0 to 1' run "$dir" --policy fast --need-quantile 1.5
expect_error "--need-lookback out of range names the rule" '--need-lookback needs hours from 0.5 to 720' run "$dir" --policy fast --need-lookback 0
expect_error "--need-profile takes daily or flat" 'unknown or incomplete option "--need-profile"' run "$dir" --policy fast --need-profile weekly
expect_error "--overrun-margin out of range names the rule" '--overrun-margin needs a share from 0 to 10' run "$dir" --policy fast --overrun-margin -1
expect_error "--overrun-spread out of range names the rule" '--overrun-spread needs a share from 0 to 10' run "$dir" --policy fast --overrun-spread 11
expect_error "--headroom-min out of range names the rule" '--headroom-min needs a whole number of GPUs from 0 to 100000' run "$dir" --policy fast --headroom-min -1
expect_error "--headroom-min takes whole GPUs" '--headroom-min needs a whole number of GPUs from 0 to 100000, got "0.5"' run "$dir" --policy fast --headroom-min 0.5
check "the protect settings are taken" sh -c '"$1" run "$2" --policy fast --protect-quantile 0.999 --headroom 0.5 --headroom-min 2 --overrun-margin 0 --overrun-spread 0.5 --json > /dev/null' sh "$SIM" "$dir"
expect_error "--oracle-coverage out of range names the rule" '--oracle-coverage needs a coverage share from 0 to 1' run "$dir" --policy oracle --oracle-coverage -1
expect_error "--fast-ms must be positive" '--fast-ms needs a positive number' run "$dir" --policy fast --fast-ms 0
expect_error "a missing directory is an error" "$tmp/nowhere" run "$tmp/nowhere" --policy fifo

# an inch mark in a column the reader ignores is text: the rows between two
# of them are still jobs, so the run is the one without the column
cp -r "$dir" "$tmp/inch"
sed -i '1s/$/,note/; 2s/$/,24" screen/; 3s/$/,ok/; 4s/$/,the 8" one/; 5s/$/,/' "$tmp/inch/jobs.csv"
plain=$("$SIM" run "$dir" --policy fifo --perfect-knowledge --json 2>/dev/null | sed 's/"solve_[^,]*,//g')
inch=$("$SIM" run "$tmp/inch" --policy fifo --perfect-knowledge --json 2>/dev/null | sed 's/"solve_[^,]*,//g')
check "a quote inside an unquoted field is text, not the start of a quoted one" test -n "$inch" -a "$inch" = "$plain"

# a cap above the pool is lowered to it, however large it is written
cp -r "$dir" "$tmp/bigcap"
sed -i 's/^chat,a100,4,100,2,0,4,/chat,a100,4,100,2,0,1e10,/' "$tmp/bigcap/services.csv"
bigcap=$("$SIM" run "$tmp/bigcap" --policy fifo --perfect-knowledge --json 2>/dev/null | sed 's/"solve_[^,]*,//g')
check "max_gpus 1e10 reads as the pool's size" test -n "$bigcap" -a "$bigcap" = "$plain"
cp -r "$dir" "$tmp/range"
printf 'pool,node,gpus\na100,n1,2e9\n' > "$tmp/range/gpus.csv"
expect_error "a whole number beyond 1e9 is out of range, not fractional" \
	'gpus.csv: line 2, column "gpus": "2e9" is out of range' run "$tmp/range" --policy fifo
cp -r "$dir" "$tmp/longname"
sed -i "s/^j2,/j$(printf 'x%.0s' $(seq 63)),/" "$tmp/longname/jobs.csv"
expect_error "a name too long says the limit" 'column "job": "jx*" is longer than 63 bytes' run "$tmp/longname" --policy fifo

cp -r "$dir" "$tmp/cr"
tr '\n' '\r' < "$dir/gpus.csv" > "$tmp/cr/gpus.csv"
expect_error "lines ended by CR alone are named as such" \
	'gpus.csv: line 1: a carriage return inside a line' run "$tmp/cr" --policy fifo

# a time limit shorter than a step is a step, never none: j1 is stopped
cp -r "$dir" "$tmp/limit"
sed -i '1s/$/,time_limit_hours/; 2s/$/,1e-10/; 3,$s/$/,/' "$tmp/limit/jobs.csv"
stopped=$("$SIM" run "$tmp/limit" --policy fifo --perfect-knowledge --json 2>/dev/null | sed -n 's/.*"stopped_jobs": \([0-9]*\),.*/\1/p')
check "a time limit of 1e-10 hours stops the job after its first step" test "${stopped:-0}" -eq 1

# a window the plans cannot see coming (a day-long step: the horizon is one
# step) takes the service's GPUs at once, more than its churn limit of 1
# moves: the GPUs lost are not churn, so every planner still has a legal plan
cp -r "$dir" "$tmp/sudden"
sed -i 's/^step_minutes,.*/step_minutes,1440/' "$tmp/sudden/scenario.csv"
sed -i 's/^chat,a100,4,100,2,/chat,a100,4,100,1,/' "$tmp/sudden/services.csv"
printf 'pool,first_gpu,gpus,start,end\na100,0,4,2026-03-03 08:00,2026-03-03 10:00\n' > "$tmp/sudden/windows.csv"
"$SIM" compare "$tmp/sudden" --policies fast,full --full-ms 200 --json > "$tmp/sudden.json" 2> "$tmp/err"
check "a window that takes more held GPUs than the churn limit leaves a legal plan" test $? -eq 0
check "both planners ran the sudden window" test "$(grep -c '"policy": "f' "$tmp/sudden.json")" -eq 2

cp -r "$dir" "$tmp/broken"
sed -i 's/^j2,training,a100,1,/j2,training,a100,-1,/' "$tmp/broken/jobs.csv"
expect_error "a bad job row names file and column" 'jobs.csv' run "$tmp/broken" --policy fifo
check "the bad job row's message names the priority" grep -q 'priority' "$tmp/err"

# jobs of two pools: the second pool, twice as fast, is used unless
# --first-pool-only keeps every job on its first pool
cp -r "$dir" "$tmp/pools"
printf 'pool,node,gpus\na100,n1,4\nh100,n2,4\n' > "$tmp/pools/gpus.csv"
cat > "$tmp/pools/jobs.csv" <<'CSV'
job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features,alt_pools
p1,training,a100,3,2026-03-02 00:00,2,2,60,strategy=lora;params_b=8;tokens_m=50,h100:0.5
p2,training,a100,3,2026-03-02 00:00,2,2,60,strategy=lora;params_b=8;tokens_m=50,h100:0.5
p3,training,a100,3,2026-03-02 00:00,2,2,60,strategy=lora;params_b=8;tokens_m=50,h100:0.5
CSV
both=$("$SIM" run "$tmp/pools" --policy fast --perfect-knowledge --json 2>/dev/null)
first=$("$SIM" run "$tmp/pools" --policy fast --perfect-knowledge --json --first-pool-only 2>/dev/null)
done_both=$(echo "$both" | sed -n 's/.*"completed_jobs": \([0-9]*\),.*/\1/p')
done_first=$(echo "$first" | sed -n 's/.*"completed_jobs": \([0-9]*\),.*/\1/p')
check "a second pool completes more jobs than the first pool alone" [ "${done_both:-0}" -gt "${done_first:-0}" ]
# a pool whose name holds a colon is named in alt_pools: the factor
# follows the entry's last colon
cp -r "$tmp/pools" "$tmp/colon"
sed -i 's/h100/gpu:h100/' "$tmp/colon/gpus.csv" "$tmp/colon/jobs.csv"
colon=$("$SIM" run "$tmp/colon" --policy fast --perfect-knowledge --json 2>"$tmp/err")
check "alt_pools names a pool called gpu:h100" test "$(echo "$colon" | sed 's/"solve_[^,]*,//g')" = "$(echo "$both" | sed 's/"solve_[^,]*,//g')"
sed -i 's/h100:0.5$/v100:0.5/' "$tmp/pools/jobs.csv"
expect_error "an unknown pool in alt_pools is named as such" 'not in gpus.csv' run "$tmp/pools" --policy fast
check "the message names the alt_pools column" grep -q 'column "alt_pools"' "$tmp/err"

# tenant quotas: the tiny scenario's jobs of two tenants, tenants.csv
# limiting one; every policy reports the fairness metrics, run prints the
# per-tenant table, and a scenario without tenants.csv reports null
cp -r "$dir" "$tmp/tenants"
sed -i '1s/$/,tenant/; 2,$s/$/,red/; 3s/,red$/,blue/' "$tmp/tenants/jobs.csv"
printf 'tenant,pool,guarantee,limit,borrow,weight,cohort\nred,a100,2,2,0,1,\nblue,a100,2,,0,1,\n' > "$tmp/tenants/tenants.csv"
"$SIM" compare "$tmp/tenants" --perfect-knowledge --json --policies fifo,backfill,fast,quota,fairshare > "$tmp/tenants.json" 2>"$tmp/err"
check "compare with tenants.csv succeeds" test $? -eq 0
check "every policy reports jain_index" test "$(grep -o '"jain_index": [0-9.e+-]*' "$tmp/tenants.json" | wc -l)" -eq 5
check "every policy reports min_entitlement_share" test "$(grep -o '"min_entitlement_share": [0-9.e+-]*' "$tmp/tenants.json" | wc -l)" -eq 5
"$SIM" run "$tmp/tenants" --policy quota --perfect-knowledge > "$tmp/tenants.txt" 2>"$tmp/err"
check "the per-tenant table shows demand" grep -q "^| tenant | jobs | demand GPU-h | GPU-h | entitled GPU-h |" "$tmp/tenants.txt"
check "run prints the per-tenant table" grep -q '^| red | ' "$tmp/tenants.txt"
check "run prints Jain's index" grep -q "^Jain's index" "$tmp/tenants.txt"
"$SIM" run "$tmp/tenants" --policy quota --perfect-knowledge --json > "$tmp/tenant_run.json" 2>"$tmp/err"
# tenant_json EXPR: evaluates a Perl expression over the run's JSON ($d),
# true when it is
tenant_json() {
	perl -MJSON::PP -e '
		local $/; my $d = decode_json(<STDIN>); my @t = @{$d->{tenants} || []};
		exit((eval $ARGV[0]) ? 0 : 1);' "$1" < "$tmp/tenant_run.json"
}
check "run --json lists both tenants' figures" \
	tenant_json 'join(",", sort map { $_->{tenant} } @t) eq "blue,red"'
check "each tenant's JSON has every figure of the table" tenant_json '
	my @k = qw(jobs demand_gpu_hours gpu_hours entitled_gpu_hours received_over_entitled value wait_p50_h wait_p95_h);
	@t && !grep { my $r = $_; grep { !exists $r->{$_} } @k } @t'
check "the smallest received / entitled of the tenants is min_entitlement_share" tenant_json '
	my @x = map { $_->{received_over_entitled} } grep { $_->{entitled_gpu_hours} > 0 } @t;
	my ($m) = sort { $a <=> $b } @x; @x && abs($m - $d->{min_entitlement_share}) < 1e-9'
red_text=$(awk -F'|' '$2 == " red " {gsub(/ /, "", $5); print $5}' "$tmp/tenants.txt")
check "the JSON's GPU-hours of red are the table's ($red_text)" \
	tenant_json "my (\$r) = grep { \$_->{tenant} eq 'red' } @t; sprintf('%.1f', \$r->{gpu_hours}) eq '$red_text'"
check "compare --json leaves the tenants out" sh -c '! grep -q "\"tenants\"" "$1"' sh "$tmp/tenants.json"
"$SIM" run "$tmp/tenants" --policy fast --need-quantile 1 --need-lookback 6 --need-profile flat > "$tmp/needs.txt" 2>"$tmp/err"
check "fast runs with forecast needs set on the command line" grep -q "^Jain's index" "$tmp/needs.txt"
"$SIM" compare "$tmp/tenants" --perfect-knowledge --json --policies fast --quotas off > "$tmp/noquota.json" 2>"$tmp/err"
check "--quotas off labels the run fast-no-quotas" grep -q '"policy": "fast-no-quotas"' "$tmp/noquota.json"
"$SIM" run "$tmp/tenants" --policy fast --perfect-knowledge --quotas no-borrowing > "$tmp/noborrow.txt" 2>"$tmp/err"
check "--quotas no-borrowing labels the table row" grep -q '^| fast-no-borrowing |' "$tmp/noborrow.txt"
expect_error "--quotas takes on, off or no-borrowing" 'unknown or incomplete option "--quotas"' run "$tmp/tenants" --policy fast --quotas maybe
check "without tenants.csv jain_index is null" grep -q '"jain_index": null' "$tmp/cmp.json"
printf 'tenant,pool,guarantee,limit,borrow,weight,cohort\nred,a100,2,1,0,1,\n' > "$tmp/tenants/tenants.csv"
expect_error "a bad tenants.csv row names file, line, column and rule" 'tenants.csv: line 2, column "limit"' run "$tmp/tenants" --policy fast
check "the message says the rule" grep -q 'at least the guarantee' "$tmp/err"

# names as text: a name longer than 63 bytes is cut before the character
# the cut would split (here 2-byte characters, the 32nd across the cut),
# and bytes that are not UTF-8 (a Latin-1 tenant name) come out as U+FFFD,
# so the JSON stays valid whatever bytes the files hold
cp -r "$tmp/tenants" "$tmp/names"
printf 'tenant,pool,guarantee,limit,borrow,weight,cohort\nred,a100,2,2,0,1,\nblue,a100,2,,0,1,\n' > "$tmp/names/tenants.csv"
long=$(printf 'é%.0s' $(seq 1 40))
sed -i "s/^name,tiny\$/name,$long/" "$tmp/names/scenario.csv"
sed -i 's/,blue$/,bl\xe9/' "$tmp/names/jobs.csv"
printf 'bl\xe9,a100,0,,0,1,\n' >> "$tmp/names/tenants.csv"
"$SIM" run "$tmp/names" --policy fifo --perfect-knowledge --json > "$tmp/names.json" 2>"$tmp/err"
check "a long multibyte name and a Latin-1 name run" test $? -eq 0
check "and give valid JSON" perl -MJSON::PP -e 'local $/; decode_json(<STDIN>)' < "$tmp/names.json"
check "the name is cut to 31 whole characters (62 bytes)" perl -MJSON::PP -e '
	local $/; my $d = decode_json(<STDIN>);
	exit($d->{scenario} eq ("\x{e9}" x 31) ? 0 : 1)' < "$tmp/names.json"
check "the Latin-1 byte is U+FFFD" grep -q '"tenant": "bl\\ufffd"' "$tmp/names.json"

finish
