#!/usr/bin/env bash
# The A/B designs against each other on the demo (issue 19): per round, one
# job of every arm in a rotated order, so that the machine's drift hits all
# arms alike. An arm is DESIGN:WINDOWS:NOISE (pairs, or interleaved with
# WINDOWS windows a side per phase; NOISE "noise" keeps a noise file that
# the earlier jobs of that design filled, A/A and slowed alike: the spread,
# not the mean, is kept) × effect (A/A, 10 %, 30 %). Each line: exit code,
# wall time, units, verdict, gated changes. ARMS overrides the designs.
# NOISY=1 runs a CPU hog at normal priority (one busy loop per core) beside
# every job. Usage: bench/ab-design.sh [ROUNDS]   (output in bench/out/)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
out=bench/out/ab-design-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
bin=$out/tailgate
go build -o "$bin" ./cmd/tailgate
noise=$out/noise.json
hog() { # a noisy neighbour: one busy loop per core, for as long as the job
	[[ ${NOISY:-0} == 1 ]] || return 0
	for _ in $(seq "$(nproc)"); do (while :; do :; done) & done
}
read -r -a designs <<<"${ARMS:-pairs:1:none interleaved:3:noise interleaved:2:noise interleaved:2:none}"
arms=()
for d in "${designs[@]}"; do for e in 0% 10% 30%; do arms+=("$d $e"); done; done
go build -o "$out/verdicts" ./bench/verdicts
for r in $(seq "$rounds"); do
	n=${#arms[@]}
	for k in $(seq 0 $((n - 1))); do
		arm=${arms[$(((k + r) % n))]}
		IFS=: read -r design windows keep <<<"${arm% *}"
		slow=${arm#* }
		args=(demo --design "$design")
		[[ $design == interleaved ]] && args+=(--windows "$windows")
		[[ $slow == 0% ]] && args+=(--aa) || args+=(--slowdown "$slow")
		[[ $keep == noise ]] && args+=(--noise "$noise")
		hog
		"$out/verdicts" -bin "$bin" -n 1 -- "${args[@]}" >"$out/last.txt" 2>&1 || true
		[[ ${NOISY:-0} == 1 ]] && { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; }
		name=${arm// /-}
		echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) ${arm}: $(head -1 "$out/last.txt")" | tee -a "$out/${name//:/-}.txt"
	done
done
echo "figures in $out"
