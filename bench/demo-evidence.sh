#!/usr/bin/env bash
# The demo's verdict counts on this machine: a baseline recorded here, then
# N clean checks and N checks with a 30 % slowdown (issue: at most 1 false
# alarm in 20, at least 19 regressions in 20); and N same-job A/B runs,
# clean and with a 10 % slowdown. Usage: bench/demo-evidence.sh [check|ab|all] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
n=${2:-20}
out=bench/out/demo-evidence-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
bin=$out/tailgate
go build -o "$bin" ./cmd/tailgate
bl=$out/demo-baseline.json
verdicts() { go run ./bench/verdicts -bin "$bin" -n "$n" -- "$@"; }
if [[ $what == check || $what == all ]]; then
	"$bin" demo --baseline "$bl" -q > "$out/record.txt" 2>&1
	verdicts demo --baseline "$bl" | tee "$out/check-clean.txt"
	verdicts demo --baseline "$bl" --slowdown 30% | tee "$out/check-slow30.txt"
fi
if [[ $what == ab || $what == all ]]; then
	verdicts demo --ab | tee "$out/ab-clean.txt"
	verdicts demo --ab --slowdown 10% | tee "$out/ab-slow10.txt"
fi
echo "figures in $out"
