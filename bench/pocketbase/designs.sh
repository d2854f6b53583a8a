#!/usr/bin/env bash
# The A/B designs against each other on PocketBase (issue 19): ROUNDS
# rounds, each one evidence.sh gate per arm (clean, slow10, slow30) for
# every design of DESIGNS, the designs' order rotated round by round so
# that the machine's drift hits them alike. Every job gets ab.max_time
# 150s and a noise file per design that its earlier jobs filled. A design
# is NAME[:WINDOWS] (pairs, interleaved:2, …). The evidence directories
# and a summary.txt (one line per job: design, arm, exit, wall time,
# units, verdict, CPU/iteration change) go to bench/out/pocketbase/designs-<time>/.
# Usage: bench/pocketbase/designs.sh [ROUNDS]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
rounds=${1:-3}
read -r -a designs <<<"${DESIGNS:-pairs interleaved:2}"
out=bench/out/pocketbase/designs-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
for r in $(seq "$rounds"); do
	n=${#designs[@]}
	for k in $(seq 0 $((n - 1))); do
		d=${designs[$(((k + r) % n))]}
		IFS=: read -r name windows <<<"$d"
		args=(--max-time 150s --design "$name" --noise "$ROOT/$out/noise-${d//:/-}.json")
		[[ -n $windows ]] && args+=(--windows "$windows")
		log=$out/round$r-${d//:/-}.log
		bench/pocketbase/evidence.sh ab 1 "${args[@]}" >"$log" 2>&1 || true
		for f in $(ls -d bench/out/pocketbase/evidence-ab-*/ | tail -1)gates/*.out; do
			arm=$(basename "$f" .out)
			line=$(grep -m1 -E "^tailgate: pocketbase-ab: " "$f" || true)
			units=$(grep -m1 -oE "Sequential A/B: [0-9]+ (blocks|pairs|block|pair)" "$f" || true)
			cpu=$(grep -m1 -E "^CPU/iteration " "$f" | awk '{print $6, $7}' || true)
			wall=$(cat "${f%.out}.time" 2>/dev/null || true)
			echo "$(date -u +%T) round $r $d $arm: ${line#tailgate: pocketbase-ab: } | ${units#Sequential A/B: } | wall ${wall}s | CPU ${cpu}" | tee -a "$out/summary.txt"
		done
	done
done
echo "summary in $out/summary.txt"
