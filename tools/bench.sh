#!/bin/sh
# bench.sh — the side-by-side simulator benchmark: every policy on every
# scenario, once with forecasts and once with perfect knowledge, merged into
# bench/results/sim.json, printed as tables and drawn as bench/results/sim.svg.
#
# Run by `make bench`.  Settings from the environment:
#   SIM        the simulator (tools/gpualloc-sim)
#   REPORT     the report program (build/bench_report)
#   OUT        the results directory (bench/results)
#   FULL_MS    passed as --full-ms to the simulator when set
#   FAST_MS    passed as --fast-ms when set: a safety cap on fast's wall
#              time per re-plan (the simulator's default is 10 s).  Fast
#              ends by its work budget, never by the clock, so two runs
#              give the same results whatever the machine's load.  Solve
#              times are reported as measured.
#   SCENARIOS  the scenario directories (scenarios/*/)
#
# Scenarios run one at a time, never in parallel, so the solve times are not
# inflated by contention for the CPU.  When the simulator fails one policy
# it still prints the others' results and exits non-zero: those results are
# kept, the failure is reported, and the benchmark exits non-zero at the end.
set -eu

SIM=${SIM:-tools/gpualloc-sim}
REPORT=${REPORT:-build/bench_report}
OUT=${OUT:-bench/results}
FULL_MS=${FULL_MS:-}
FAST_MS=${FAST_MS:-}
SCENARIOS=${SCENARIOS:-$(ls -d scenarios/*/)}

if [ ! -x "$SIM" ]; then
	echo "bench.sh: $SIM not found; run make tools" >&2
	exit 1
fi
if [ ! -x "$REPORT" ]; then
	echo "bench.sh: $REPORT not found; run make $REPORT" >&2
	exit 1
fi

mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

full_opt=""
if [ -n "$FAST_MS" ]; then
	full_opt="--fast-ms $FAST_MS"
fi
if [ -n "$FULL_MS" ]; then
	full_opt="$full_opt --full-ms $FULL_MS"
fi

n=0
failed=0
for dir in $SCENARIOS; do
	n=$((n + 1))
	for knowledge in forecast perfect; do
		opt=""
		if [ "$knowledge" = perfect ]; then
			opt="--perfect-knowledge"
		fi
		out="$tmp/$n-$knowledge.json"
		started=$(date +%s)
		# shellcheck disable=SC2086 # the options are meant to split
		if ! "$SIM" compare "$dir" --json $opt $full_opt > "$out"; then
			echo "bench: $dir ($knowledge): the simulator reported a failure (above)" >&2
			failed=1
		fi
		if [ ! -s "$out" ]; then
			rm -f "$out"
		fi
		echo "bench: $dir ($knowledge) $(($(date +%s) - started)) s" >&2
		# with tenant policies: the allocator also without them and without
		# borrowing (rows fast-no-quotas, fast-no-borrowing, ...), what the
		# quotas cost in value and what borrowing gives in utilisation
		if [ -f "$dir/tenants.csv" ]; then
			for quotas in off no-borrowing; do
				out="$tmp/$n-$knowledge-$quotas.json"
				# shellcheck disable=SC2086 # the options are meant to split
				if ! "$SIM" compare "$dir" --json $opt $full_opt --policies fast,full --quotas "$quotas" > "$out"; then
					echo "bench: $dir ($knowledge, quotas $quotas): the simulator reported a failure (above)" >&2
					failed=1
				fi
				if [ ! -s "$out" ]; then
					rm -f "$out"
				fi
			done
		fi
	done
done

# each directory's runs after --dir, so two directories that share a
# scenario name are reported apart; in the scenarios' order
set --
n=0
for dir in $SCENARIOS; do
	n=$((n + 1))
	set -- "$@" --dir "${dir%/}"
	for f in "$tmp/$n"-*.json; do
		if [ -f "$f" ]; then
			set -- "$@" "$f"
		fi
	done
done
"$REPORT" --json "$OUT/sim.json" --svg "$OUT/sim.svg" "$@"

if command -v xmllint > /dev/null 2>&1; then
	xmllint --noout "$OUT/sim.svg"
fi
echo "bench: wrote $OUT/sim.json and $OUT/sim.svg" >&2
exit $failed
