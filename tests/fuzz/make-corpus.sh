#!/bin/sh
# Writes the seed corpora of tests/fuzz/corpus/ from scenarios/01_training_heavy
# and a few typical feature strings.  The seeds are committed; run this again
# only to change them (libFuzzer keeps what it finds in build/fuzz/corpus/).
set -eu
cd "$(dirname "$0")/../.."
SRC=scenarios/01_training_heavy
OUT=tests/fuzz/corpus
FILES="scenario.csv gpus.csv services.csv demand.csv jobs.csv history.csv"
rm -rf "$OUT"
mkdir -p "$OUT/fuzz_scenario" "$OUT/fuzz_sim" "$OUT/fuzz_csv" "$OUT/fuzz_features"

# fuzz_scenario: a selector byte, then the files split by NUL bytes
# (selector < 0x80) or one file with the others fixed (selector >= 0x80).
split_seed() {	# split_seed NAME LINES FILE...  (LINES: rows kept per file, 0 = all)
	name=$1 lines=$2
	shift 2
	{
		printf '\000'
		first=1
		for f in "$@"; do
			[ "$first" = 1 ] || printf '\000'
			first=0
			if [ "$lines" = 0 ]; then cat "$SRC/$f"; else head -n "$lines" "$SRC/$f"; fi
		done
	} >"$OUT/fuzz_scenario/$name"
}
split_seed full_01 0 $FILES
split_seed small_01 6 $FILES
split_seed no_history_01 6 scenario.csv gpus.csv services.csv demand.csv jobs.csv
k=0
for f in $FILES; do
	{
		printf "\\$(printf '%03o' $((128 + k)))"
		head -n 12 "$SRC/$f"
	} >"$OUT/fuzz_scenario/one_$f"
	k=$((k + 1))
done

# Inputs at the reader's bounds, each once a bug (tests/unit/test_fuzz_found.c).
printf '\201pool,node,gpus\na100,n,1000000000\na100,n,1000000000\na100,n,1000000000\n' \
	>"$OUT/fuzz_scenario/bound_gpus"
printf '\200key,value\nstart,1970-01-01 00:00\nend,9999-12-31 23:00\nstep_minutes,1\nhorizon_hours,1000000000\n' \
	>"$OUT/fuzz_scenario/bound_window"
printf '\203service,ts,traffic\nchat,2026-03-02 00:00,1e300\n' >"$OUT/fuzz_scenario/bound_demand"

# fuzz_sim: scenarios small enough to simulate (fuzz_sim.c: at most 48 steps):
# the first twelve hours of 01 with its first jobs and history, and the
# single-file seeds whose fixed files hold the window.
{
	printf '\000'
	sed -e 's/^end,.*/end,2026-03-02 12:00/' "$SRC/scenario.csv"
	for f in gpus.csv services.csv; do printf '\000'; cat "$SRC/$f"; done
	printf '\000'; head -n 30 "$SRC/demand.csv"
	printf '\000'; head -n 12 "$SRC/jobs.csv"
	printf '\000'; head -n 20 "$SRC/history.csv"
} >"$OUT/fuzz_sim/small_01"
for f in gpus.csv services.csv demand.csv jobs.csv history.csv; do
	cp "$OUT/fuzz_scenario/one_$f" "$OUT/fuzz_sim/one_$f"
done

# fuzz_csv: the scenario's files, and one with the columns the target asks for.
for f in $FILES; do
	head -n 8 "$SRC/$f" >"$OUT/fuzz_csv/$f"
done
printf 'name,gpus,ts,value,extra\r\n"a, ""b""",8.0,2026-03-02T00:00Z,-1.5e3,x\r\n\r\n  c  ,16,2026-03-02 01:00:00,0,"multi\nline"\nd,,,\n' \
	>"$OUT/fuzz_csv/typed.csv"

# fuzz_features: the job's features on the first line, history after it.
seed() { printf '%s' "$2" >"$OUT/fuzz_features/$1"; }
seed lora_dpo 'strategy=lora;technique=dpo;params_b=8;tokens_m=200'
seed full_sft 'variant=full_sft;params_b=70;dataset_k=50;seq_len=4096;gpu_model=h100;precision=fp8;grad_checkpointing=true;zero_stage=3;num_nodes=2'
seed rlhf ' strategy = full ; technique = rlhf ; params_b = 7 ; tokens_m = 20 ; rollouts = 4 ; gen_tokens = 512 ; reward_params_b = 7 ; ref_model = yes ; offload = off ;'
seed inference 'params_b=70;tokens_m=500;precision=int4;gpu_model=l40s;seq_len=8192;batch_size=32'
seed requests 'params_b=8;requests=100000;avg_tokens=700;precision=fp8;gpu_model=a100'
seed quant 'params_b=8;algorithm=awq;bits=4;calib_samples=256;seq_len=2048;gpu_model=b200'
seed validate 'n=0.5;x=3;t=text;b=on;gpu_model=mi300x'
seed overflow_rlhf 'strategy=full;technique=rlhf;params_b=1e-300;reward_params_b=1e5;tokens_m=1'
seed empty_key 'n=0.5;gpu_mo=2;=mi300x'
printf 'params_b=8;tokens_m=100\n_gpus=1;_hours=4e-324;params_b=8;tokens_m=100\n_gpus=1;_hours=3e-323;strategy=full;technique=sft;params_b=7;tokens_m=211\n' \
	>"$OUT/fuzz_features/overflow_history"
{
	printf 'strategy=lora;technique=dpo;params_b=8;tokens_m=200\n'
	tail -n +2 "$SRC/history.csv" | head -n 12 |
		awk -F, '{ printf "_gpus=%s;_hours=%s;%s\n", $4, $6, $5 }'
	printf '_gpus=1;_hours=2.5;params_b=8;tokens_m=100\n'
	printf '_gpus=2;_hours=1.2;params_b=8;algorithm=gptq\n'
} >"$OUT/fuzz_features/with_history"

# fuzz_serial: a selector byte for the problem, then edits of three bytes
# (offset high, offset low, value) and an optional cut byte.
mkdir -p "$OUT/fuzz_serial"
printf '\000' >"$OUT/fuzz_serial/empty_problem"
printf '\377\000\004\001' >"$OUT/fuzz_serial/edit_steps"
