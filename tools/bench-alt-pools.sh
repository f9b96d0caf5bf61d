#!/bin/sh
# make bench-alt-pools: what jobs of several pools gain in the simulator.
# On scenarios/13_two_pools (SCENARIO), with forecasts and with perfect
# knowledge, every policy is run twice: with each job's alt_pools, and with
# --first-pool-only (each job planned on its first pool only).  Prints the
# value of each policy both ways and writes bench/results/alt_pools.json
# (OUT): per knowledge and pool setting, the simulator's JSON results.
#
#   SIM      the simulator (tools/gpualloc-sim)
#   FULL_MS  full's time limit per re-plan (300, as make bench)
set -eu
cd "$(dirname "$0")/.."
SIM=${SIM:-tools/gpualloc-sim}
SCENARIO=${SCENARIO:-scenarios/13_two_pools}
OUT=${OUT:-bench/results}
FULL_MS=${FULL_MS:-300}

if [ ! -x "$SIM" ]; then
	echo "bench-alt-pools.sh: $SIM not found; run make tools" >&2
	exit 1
fi
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

for knowledge in forecast perfect; do
	opt=""
	if [ "$knowledge" = perfect ]; then
		opt="--perfect-knowledge"
	fi
	for pools in all first; do
		flag=""
		if [ "$pools" = first ]; then
			flag="--first-pool-only"
		fi
		# shellcheck disable=SC2086 # the options are meant to split
		"$SIM" compare "$SCENARIO" --json --policies fifo,backfill,fast,full \
			--full-ms "$FULL_MS" $opt $flag > "$tmp/$knowledge-$pools.json"
	done
done

# value of POLICY in a results file (one object per line)
value_of() {
	sed -n "s/.*\"policy\": \"$2\".*\"value\": \([-0-9.e+]*\),.*/\1/p" "$1"
}

printf '\n| knowledge | policy | value, all pools | value, first pool only |\n|---|---|---:|---:|\n'
for knowledge in forecast perfect; do
	for policy in fifo backfill fast full; do
		printf '| %s | %s | %s | %s |\n' "$knowledge" "$policy" \
			"$(value_of "$tmp/$knowledge-all.json" "$policy")" \
			"$(value_of "$tmp/$knowledge-first.json" "$policy")"
	done
done

{
	printf '{"scenario": "%s", "full_ms": %s, "runs": [\n' "$(basename "$SCENARIO")" "$FULL_MS"
	sep=""
	for knowledge in forecast perfect; do
		for pools in all first; do
			printf '%s{"knowledge": "%s", "pools": "%s", "results": ' "$sep" "$knowledge" "$pools"
			cat "$tmp/$knowledge-$pools.json"
			printf '}'
			sep=",
"
		done
	done
	printf '\n]}\n'
} > "$OUT/alt_pools.json"
echo "bench-alt-pools: wrote $OUT/alt_pools.json" >&2
