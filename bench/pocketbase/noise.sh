#!/usr/bin/env bash
# The noise structure of tailgate's measurements of PocketBase on this
# machine, for the gate's design. Three parts, each short:
#
#   bench/pocketbase/noise.sh knee [VUS...]     # closed-model VU ladder on clean (default 1 2 4 8 16),
#                                               # then clean/slow10/slow30 A/B at the last level: does
#                                               # iterations/s move under the regressions?
#   bench/pocketbase/noise.sh cv [JOBS] [RUNS]  # JOBS jobs of RUNS runs, open model and closed (KNEE_VUS):
#                                               # run-to-run CV inside a job, and the spread of job medians
#   bench/pocketbase/noise.sh aa [LONG] [PAIRS] [SHORT] [SHORT_PAIRS]
#                                               # A/A of two processes of one build: LONG ab jobs of PAIRS
#                                               # pairs (default 3 × 8), then SHORT jobs of SHORT_PAIRS pairs
#                                               # (default 8 × 2: both processes restarted every 2 pairs)
#
# KNEE_VUS (default 8) is the closed model's concurrency for cv and for the
# A/B part of knee. Raw outputs go to bench/out/pocketbase/noise-<part>-<time>/;
# bench/pocketbase/noisestat does the arithmetic.
set -euo pipefail
part=${1:-}
shift || true
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
PB=bench/pocketbase
KNEE_VUS=${KNEE_VUS:-8}
case $part in knee | cv | aa) ;; *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;; esac
for a in "$@" "$KNEE_VUS"; do
	[[ $a =~ ^[1-9][0-9]*$ ]] || { echo "noise.sh: arguments must be positive integers, got '$a'" >&2; exit 2; }
done
OUT=bench/out/pocketbase/noise-$part-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
[[ -x bench/out/pocketbase/pocketbase-clean && -d bench/out/pocketbase/golden ]] || "$PB/build.sh"
TG=$OUT/tailgate
go build -o "$TG" ./cmd/tailgate
go build -o "$OUT/noisestat" ./bench/pocketbase/noisestat
echo "started $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/info.txt"

# closed SRC VUS DST: SRC with its open load (rate 30/s) replaced by VUS
# closed-loop users; tailgate has no flag that overrides the load model.
closed() {
	sed -e 's/^  model: open$/  model: closed/' -e "s|^  rate: 30/s$|  vus: $2|" "$1" >"$3"
	grep -q "^  vus: $2$" "$3" || { echo "noise.sh: could not derive a closed config from $1" >&2; exit 3; }
}

# aa_jobs NAME JOBS PAIRS: JOBS separate A/A ab jobs (each starts both
# processes afresh) of PAIRS pairs; exit 1 (a false alarm) is data, not a failure.
aa_jobs() {
	local j code
	for j in $(seq "$2"); do
		code=0
		PB_HEAD=clean "$TG" ab -c "$PB/ab.yml" --runs "$3" >"$OUT/$1-$j.txt" 2>"$OUT/$1-$j.err" || code=$?
		((code <= 1)) || { echo "noise.sh: ab job $1-$j failed (exit $code); see $OUT/$1-$j.err" >&2; exit 3; }
	done
}

case $part in
knee)
	levels=("$@")
	((${#levels[@]})) || levels=(1 2 4 8 16)
	"$PB/portfree.sh" 18191 18192 18193
	for v in "${levels[@]}"; do
		closed "$PB/check.yml" "$v" "$OUT/closed-$v.yml"
		PB_BUILD=clean "$TG" run -c "$OUT/closed-$v.yml" --runs 2 -q -o "$OUT/knee-$v.json" >/dev/null 2>"$OUT/knee-$v.err"
		jq -r --arg v "$v" '[.runs[].metrics] | "vus \($v): iterations/s \(map(.iterations_per_s) | map(. * 10 | round / 10) | join(" ")), CPU/iteration ms \(map(.cpu_ms_per_iteration) | map(. * 100 | round / 100) | join(" ")), p95 ms \(map(.latency_p95_ms) | map(. * 100 | round / 100) | join(" "))"' "$OUT/knee-$v.json" | tee -a "$OUT/summary.txt"
	done
	top=${levels[${#levels[@]} - 1]}
	closed "$PB/ab.yml" "$top" "$OUT/ab-closed.yml"
	for head in clean slow10 slow30; do
		code=0
		PB_HEAD=$head "$TG" ab -c "$OUT/ab-closed.yml" --runs 4 --report "$OUT/ab-$head.json" >"$OUT/ab-$head.txt" 2>"$OUT/ab-$head.err" || code=$?
		((code <= 1)) || { echo "noise.sh: ab $head failed (exit $code); see $OUT/ab-$head.err" >&2; exit 3; }
		jq -r --arg h "$head" --arg v "$top" '.metrics | map(select(.key == "iterations_per_s" or .key == "cpu_ms_per_iteration" or .key == "latency_p95_ms")) |
			"closed \($v) vus, clean base vs \($h) head, 4 pairs: " + (map("\(.key) \(.change * 10 | round / 10) % (\(.verdict))") | join(", "))' "$OUT/ab-$head.json" | tee -a "$OUT/summary.txt"
	done
	;;
cv)
	jobs=${1:-3} runs=${2:-8}
	"$PB/portfree.sh" 18191
	closed "$PB/check.yml" "$KNEE_VUS" "$OUT/closed.yml"
	for j in $(seq "$jobs"); do
		PB_BUILD=clean "$TG" run -c "$PB/check.yml" --runs "$runs" -q -o "$OUT/open-$j.json" >/dev/null 2>"$OUT/open-$j.err"
		PB_BUILD=clean "$TG" run -c "$OUT/closed.yml" --runs "$runs" -q -o "$OUT/closed-$j.json" >/dev/null 2>"$OUT/closed-$j.err"
	done
	{
		echo "open model, 30 lifecycles/s, $jobs jobs × $runs runs:"
		"$OUT/noisestat" runs "$OUT"/open-*.json
		echo "closed model, $KNEE_VUS vus, $jobs jobs × $runs runs:"
		"$OUT/noisestat" runs "$OUT"/closed-*.json
	} | tee "$OUT/summary.txt"
	;;
aa)
	long=${1:-3} pairs=${2:-8} short=${3:-8} spairs=${4:-2}
	"$PB/portfree.sh" 18192 18193
	aa_jobs long "$long" "$pairs"
	aa_jobs short "$short" "$spairs"
	{
		echo "A/A, two processes of the clean build, open model: $long jobs × $pairs pairs (processes kept for the whole job):"
		"$OUT/noisestat" pairs "$OUT"/long-*.txt
		echo "A/A, $short jobs × $spairs pairs (both processes restarted every $spairs pairs):"
		"$OUT/noisestat" pairs "$OUT"/short-*.txt
	} | tee "$OUT/summary.txt"
	;;
esac
echo "ended $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/info.txt"
echo "raw: $OUT"
