#!/bin/sh
# check_scenarios.sh — the scenario generator is deterministic: two runs
# into temporary directories give identical files, and both match the
# committed scenarios/ (so nobody benchmarks on stale inputs).
#
# Run by `make scenarios-check`; GEN overrides the generator's path.
set -eu

GEN=${GEN:-build/gen_scenarios}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

"$GEN" --data data/real --out "$tmp/a"
"$GEN" --data data/real --out "$tmp/b"
if ! diff -r "$tmp/a" "$tmp/b" > "$tmp/diff"; then
	echo "check_scenarios: two runs of the generator differ:" >&2
	head -20 "$tmp/diff" >&2
	exit 1
fi
for dir in "$tmp"/a/*/; do
	name=$(basename "$dir")
	if ! diff -r "$dir" "scenarios/$name" > "$tmp/diff" 2>&1; then
		echo "check_scenarios: scenarios/$name differs from the generator's output; run make scenarios" >&2
		head -20 "$tmp/diff" >&2
		exit 1
	fi
done
echo "check_scenarios: $(ls -d "$tmp"/a/*/ | wc -l) scenarios, deterministic and up to date"
