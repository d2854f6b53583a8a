#!/usr/bin/env bash
# The A/B designs against each other on the demo (issue 19): per round, one
# job of every arm in a rotated order, so that the machine's drift hits all
# arms alike. Arms: design (interleaved, pairs) × effect (clean, 10 %, 30 %);
# the interleaved design also with a noise file that the earlier rounds'
# jobs filled (its A/A and slowed jobs alike: the spread, not the mean, is
# kept). Each line: exit code, wall time, units, verdict, gated changes.
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
arms=("pairs 0%" "interleaved 0%" "interleaved+noise 0%" "pairs 10%" "interleaved 10%" "interleaved+noise 10%" "pairs 30%" "interleaved 30%" "interleaved+noise 30%")
for r in $(seq "$rounds"); do
	n=${#arms[@]}
	for k in $(seq 0 $((n - 1))); do
		arm=${arms[$(((k + r) % n))]}
		design=${arm% *}
		slow=${arm#* }
		args=(demo --design "${design%+noise}")
		[[ $slow == 0% ]] && args+=(--aa) || args+=(--slowdown "$slow")
		[[ $design == *+noise ]] && args+=(--noise "$noise")
		hog
		line=$(go run ./bench/verdicts -bin "$bin" -n 1 -- "${args[@]}" | head -1)
		[[ ${NOISY:-0} == 1 ]] && { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; }
		echo "$(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg) ${arm}: $line" | tee -a "$out/${design}-${slow}.txt"
	done
done
echo "figures in $out"
