#!/usr/bin/env bash
# Does tailgate ab decide within a CI budget on a real service? (issue 19)
#
#   bench/decide/run.sh SERVICE N [TAILGATE_AB_ARGS...]
#
# SERVICE is pocketbase, miniflux, gunicorn, httpbin, radicale, verdaccio or caddy (bench/decide/SERVICE.sh says how to
# build it, which config to run and which head build each arm is). N jobs
# per arm: A/A (clean against clean, two processes), slow10 and slow30
# (a build with about +10 % and +30 % CPU per lifecycle, as a peer tool
# measures it before the series). Every job is `tailgate ab -c CONFIG
# --max-time 150s` and nothing else, so every default holds, the noise
# file among them: XDG_CACHE_HOME points at the series' own cache, which
# starts empty, so the first jobs learn the noise the later ones pool.
# Arms are rotated job by job. NOISY says when a noisy neighbour runs: a
# CPU hog at normal priority (HOGS busy loops, default 1) started before a
# job and stopped after it, for every other round ("half", the default),
# "all" or "none".
#
# TAILGATE_BIN=FILE runs that binary instead of one built from this tree
# (e.g. one built from another checkout), TAILGATE_REV=COMMIT names its
# commit in the info (Go stamps none here: GOFLAGS=-buildvcs=false).
#
# NOISE_FROM=DIR seeds the series' noise file with an earlier series' (a
# series continued, as a CI cache would be restored): DIR/cache is copied.
#
# DESIGNS is retired with --design: a series measures the one A/B rule.
#
# ARMS (default "aa slow10 slow30") picks the arms. BLOCKS=N runs every job
# for exactly N blocks (ab.min_blocks = ab.max_blocks = N, no --max-time,
# ab.noise off: a config copy beside CONFIG, removed at the end), so that
# the summary's spread line can tell a difference between the sides that
# lasts a job from the blocks' own noise (sequential jobs cannot: they
# stop early when their first blocks agree), e.g.
#   ARMS=aa NOISY=all BLOCKS=6 bench/decide/run.sh pocketbase 6
#
# Raw outputs go to bench/out/decide/SERVICE-<time>/: per job its output,
# report, wall time, exit code, load average and whether the hog ran; the
# peer tool's measurement of the injected effects; summary.txt, written by
# `go run ./bench/decide/summary DIR` (also callable on its own).
set -euo pipefail
service=${1:-}
n=${2:-}
[[ -n $service && $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 pocketbase|miniflux|gunicorn|httpbin|radicale|verdaccio|caddy N [TAILGATE_AB_ARGS...]" >&2; exit 2; }
shift 2
extra=("$@")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
driver=bench/decide/$service.sh
[[ -f $driver ]] || { echo "run.sh: no driver $driver" >&2; exit 2; }
NOISY=${NOISY:-half}
[[ -z ${DESIGNS:-} ]] || { echo "run.sh: DESIGNS is retired with --design (one A/B rule)" >&2; exit 2; }
HOGS=${HOGS:-1}
MAX_TIME=${MAX_TIME:-150s}
JOB_TIMEOUT=${JOB_TIMEOUT:-10m}
# shellcheck source=bench/decide/pocketbase.sh
# The defaults a driver may keep: the arm's head build named by the
# variable HEAD_VAR (aa: clean), and the effects measured by EFFECTS_SCRIPT
# -r ROUNDS, which leaves EFFECTS_TSV.
head_env() {
	case $1 in
	aa) echo "$HEAD_VAR=clean" ;;
	*) echo "$HEAD_VAR=$1" ;;
	esac
}
measure_effects() {
	"$EFFECTS_SCRIPT" -r "${EFFECT_ROUNDS:-3}" 2>&1 | tail -6
	cp "$EFFECTS_TSV" "$1/effects.tsv" 2>/dev/null || true
}
source "$driver" # defines: prepare, CONFIG; HEAD_VAR or head_env ARM; EFFECTS_SCRIPT and EFFECTS_TSV or measure_effects OUTDIR
read -r -a arms <<<"${ARMS:-aa slow10 slow30}"
[[ -z ${BLOCKS:-} || $BLOCKS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: BLOCKS must be a number of blocks" >&2; exit 2; }
OUT=bench/out/decide/$service-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT/jobs" "$OUT/cache"
if [[ -n ${NOISE_FROM:-} ]]; then
	cp -r "$NOISE_FROM/cache/." "$OUT/cache/"
	echo "$NOISE_FROM" >"$OUT/noise-from.txt"
fi
if [[ -n ${TAILGATE_BIN:-} ]]; then
	cp "$TAILGATE_BIN" "$OUT/tailgate"
	rev="${TAILGATE_REV:-of an unnamed commit} (TAILGATE_BIN=$TAILGATE_BIN)"
else
	go build -o "$OUT/tailgate" ./cmd/tailgate
	rev="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- cmd internal || echo '+dirty')"
fi
prepare
{
	echo "service $service, $n jobs per arm, arms: ${arms[*]}, NOISY=$NOISY HOGS=$HOGS, $(if [[ -n ${BLOCKS:-} ]]; then echo "exactly $BLOCKS blocks, no noise file"; else echo "--max-time $MAX_TIME"; fi)${extra[*]:+, extra: ${extra[*]}}${NOISE_FROM:+, noise file from $NOISE_FROM}"
	echo "tailgate $rev"
	echo "started $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/info.txt"
if [[ " ${arms[*]} " == *" slow"* ]]; then
	measure_effects "$OUT" | tee "$OUT/effects.txt"
else
	echo "effects not measured: no regression arm" | tee "$OUT/effects.txt"
fi

hog_pids=()
hog_on() {
	for ((h = 0; h < HOGS; h++)); do
		sh -c 'while :; do :; done' &
		hog_pids+=($!)
	done
}
hog_off() {
	((${#hog_pids[@]})) && kill "${hog_pids[@]}" 2>/dev/null || true
	wait "${hog_pids[@]}" 2>/dev/null || true
	hog_pids=()
}
fixed=""
trap 'hog_off; [[ -z $fixed ]] || rm -f "$fixed"' EXIT
budget=(--max-time "$MAX_TIME")
if [[ -n ${BLOCKS:-} ]]; then
	fixed=$(dirname "$CONFIG")/.fixed-$$.yml # beside CONFIG: its relative paths hold
	sed "s/^ab:\$/ab:\n  min_blocks: $BLOCKS\n  max_blocks: $BLOCKS\n  noise: off/" "$CONFIG" >"$fixed"
	grep -q "^  min_blocks: $BLOCKS\$" "$fixed" || { echo "run.sh: no top-level ab: in $CONFIG" >&2; exit 2; }
	CONFIG=$fixed
	budget=()
fi

runs=("${arms[@]}")
for ((i = 1; i <= n; i++)); do
	noisy=0
	case $NOISY in
	all) noisy=1 ;;
	half) noisy=$((i % 2 == 0 ? 1 : 0)) ;;
	esac
	for ((k = 0; k < ${#runs[@]}; k++)); do
		arm=${runs[$(((k + i - 1) % ${#runs[@]}))]}
		job=$OUT/jobs/$arm-$i
		args=()
		((noisy)) && hog_on
		echo "$noisy" >"$job.noisy"
		cut -d' ' -f1 /proc/loadavg >"$job.load0"
		t0=$(date +%s.%N)
		set +e
		env XDG_CACHE_HOME="$ROOT/$OUT/cache" $(head_env "$arm") timeout "$JOB_TIMEOUT" \
			"$OUT/tailgate" ab -c "$CONFIG" "${budget[@]}" --report "$job.report.json" "${args[@]}" "${extra[@]}" >"$job.out" 2>"$job.err"
		code=$?
		set -e
		echo "$(date +%s.%N) - $t0" | bc >"$job.time"
		echo "$code" >"$job.code"
		cut -d' ' -f1 /proc/loadavg >"$job.load1"
		hog_off
		printf '%s job %d %-6s noisy=%d exit %d %5.1f s: %s\n' "$(date -u +%T)" "$i" "$arm" "$noisy" "$code" "$(cat "$job.time")" \
			"$(grep -m1 -E '^tailgate: ' "$job.out" | cut -c1-150 || true)" | tee -a "$OUT/jobs.txt"
	done
done
echo "ended $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/info.txt"
go run ./bench/decide/summary "$OUT" | tee "$OUT/summary.txt"
