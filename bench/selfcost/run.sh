#!/usr/bin/env bash
# What does tailgate itself hold and spend during an A/B job? (issue 46:
# the runner shares the cores with the sides it measures)
#
#   bench/selfcost/run.sh CONFIG ROUNDS BIN...
#
# Runs `BIN ab -c CONFIG` for each BIN in turn, ROUNDS times, every job
# exactly BLOCKS blocks (default 6) with no noise file, and samples the
# tailgate process alone every 0.2 s: its peak resident memory (VmHWM) and
# its own CPU time (utime+stime, its children's not included). Prints one
# line per job and the median per binary. The CONFIG's environment (e.g.
# PB_HEAD=clean, PB_BENCH_PASSWORD) comes from the caller. Outputs:
# bench/out/selfcost/<time>/.
set -euo pipefail
config=${1:-}
rounds=${2:-}
[[ -f $config && $rounds =~ ^[1-9][0-9]*$ && $# -ge 3 ]] || { echo "usage: $0 CONFIG ROUNDS BIN..." >&2; exit 2; }
shift 2
bins=("$@")
BLOCKS=${BLOCKS:-6}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
OUT=bench/out/selfcost/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
fixed=$(dirname "$config")/.selfcost-$$.yml # beside CONFIG: its relative paths hold
trap 'rm -f "$fixed"' EXIT
sed "s/^ab:\$/ab:\n  min_blocks: $BLOCKS\n  max_blocks: $BLOCKS\n  noise: off/" "$config" >"$fixed"
grep -q "^  min_blocks: $BLOCKS\$" "$fixed" || { echo "selfcost: no top-level ab: in $config" >&2; exit 2; }
ticks=$(getconf CLK_TCK)
for ((r = 1; r <= rounds; r++)); do
	for ((b = 0; b < ${#bins[@]}; b++)); do
		bin=${bins[$b]}
		job=$OUT/bin$b-$r
		XDG_CACHE_HOME="$ROOT/$OUT/cache" "$bin" ab -c "$fixed" >"$job.out" 2>"$job.err" &
		pid=$! # tailgate's own, so that its figures are its own (not a timeout's)
		(sleep 600 && kill -INT "$pid" 2>/dev/null) &
		watchdog=$!
		hwm=0 cpu=0
		while [[ -r /proc/$pid/status ]]; do
			h=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
			c=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || true)
			[[ -z $h ]] || hwm=$h
			[[ -z $c ]] || cpu=$c
			sleep 0.2
		done
		wait "$pid" && code=0 || code=$?
		pkill -P "$watchdog" sleep 2>/dev/null || true # its sleep, which would outlive it
		kill "$watchdog" 2>/dev/null || true
		printf '%s\t%s\t%d\t%.0f\t%.1f\n' "$bin" "$r" "$code" "$((hwm / 1024))" "$(echo "$cpu / $ticks" | bc -l)" | tee -a "$OUT/jobs.tsv"
	done
done
# median COLUMN BIN: the median of a column of BIN's jobs
median() {
	awk -F'\t' -v b="$2" -v c="$1" '$1 == b {print $c}' "$OUT/jobs.tsv" | sort -n |
		awk '{v[NR] = $1} END {if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'
}
printf 'binary\tjobs\tpeak RSS MB (median)\tCPU s (median)\n' | tee "$OUT/summary.txt"
for bin in "${bins[@]}"; do
	printf '%s\t%d\t%s\t%s\n' "$bin" "$rounds" "$(median 4 "$bin")" "$(median 5 "$bin")" | tee -a "$OUT/summary.txt"
done
