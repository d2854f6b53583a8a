#!/usr/bin/env bash
# The demo's verdict counts on this machine, with wall time and pairs: N
# default demos (sequential A/B, clean against clean) and N with a 30 %
# slowdown (issue: at most 1 false alarm in 20, at least 19 regressions in
# 20); and the stored-baseline demo: a baseline recorded here, then N clean
# checks and N with a 30 % slowdown; ab10: N default demos with a 10 %
# slowdown (the effect the gate claims to see). Load averages before and
# after each series go to load.txt. Usage: bench/demo-evidence.sh [ab|ab10|check|all] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
n=${2:-20}
out=bench/out/demo-evidence-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
bin=$out/tailgate
go build -o "$bin" ./cmd/tailgate
bl=$out/demo-baseline.json
# The A/B demos keep the noise they learn in the user's cache by default:
# the series' own cache starts empty, so its first jobs learn what the later
# ones pool, as a fresh CI cache would.
export XDG_CACHE_HOME=$PWD/$out/cache
verdicts() {
	echo "$(date -u +%T) before $*: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"
	go run ./bench/verdicts -bin "$bin" -n "$n" -- "$@"
	echo "$(date -u +%T) after $*: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"
}
if [[ $what == ab || $what == all ]]; then
	verdicts demo | tee "$out/ab-clean.txt"
	verdicts demo --slowdown 30% | tee "$out/ab-slow30.txt"
fi
if [[ $what == ab10 ]]; then
	verdicts demo --slowdown 10% | tee "$out/ab-slow10.txt"
fi
if [[ $what == check || $what == all ]]; then
	"$bin" demo --mode check --baseline "$bl" -q > "$out/record.txt" 2>&1
	verdicts demo --mode check --baseline "$bl" | tee "$out/check-clean.txt"
	verdicts demo --mode check --baseline "$bl" --slowdown 30% | tee "$out/check-slow30.txt"
fi
echo "figures in $out"
