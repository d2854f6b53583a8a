#!/usr/bin/env bash
# What does one sealed environment per side cost? (issue 44)
#
#   bench/seal/sides.sh N
#
# 1. A child's start (BenchmarkChildStart, 40 starts of `sh -c :` per
#    arm): unsealed, sealed as before issue 44 (a fresh TMPDIR per
#    command, no layers) and sealed as a job seals it now (the side's own
#    TMPDIR, a layer over $HOME, /tmp and each writable PATH directory).
# 2. Whole jobs: N A/A jobs of the demo (`tailgate demo --aa`, exactly 3
#    blocks, noise off) with the sides sealed and N unsealed, taking
#    turns. The unsealed build is this tree with its seal check made to
#    fail (as bench/seal/overhead.sh does), in a scratch copy of the
#    source, never committed; the demo's config has ab.unsealed: allow, so it runs.
#    Compared: each job's wall time and the A/A blocks' spread of CPU per
#    iteration (`go run ./bench/decide/summary DIR`).
# Raw outputs: bench/out/seal/sides-<time>/.
set -euo pipefail
n=${1:-}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 N" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
OUT=bench/out/seal/sides-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT/jobs"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

go test ./internal/target -run '^$' -bench BenchmarkChildStart -benchtime 40x -count 3 | tee "$OUT/childstart.txt"

go build -o "$OUT/tailgate-sealed" ./cmd/tailgate
mkdir "$scratch/tree"
cp -r go.mod go.sum cmd internal "$scratch/tree/"
sed -i 's|^\tif !seal.Supported {$|\tif true { // bench/seal/sides.sh: the unsealed arm|' "$scratch/tree/internal/pipeline/seal.go"
grep -q 'the unsealed arm' "$scratch/tree/internal/pipeline/seal.go" || { echo "sides.sh: could not patch checkSeals" >&2; exit 2; }
go build -C "$scratch/tree" -o "$ROOT/$OUT/tailgate-unsealed" ./cmd/tailgate
{
	echo "demo A/A, $n jobs per variant (sealed, unsealed), exactly 3 blocks, noise off"
	echo "tailgate $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- cmd internal || echo '+dirty'), uid $(id -u)"
	echo "started $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT/info.txt"
variants=(sealed unsealed)
for ((i = 1; i <= n; i++)); do
	for ((k = 0; k < 2; k++)); do
		v=${variants[$(((k + i - 1) % 2))]}
		job=$OUT/jobs/$v-aa-$i
		echo "$v" >"$job.design"
		echo 0 >"$job.noisy"
		cut -d' ' -f1 /proc/loadavg >"$job.load0"
		t0=$(date +%s.%N)
		set +e
		timeout 10m "$OUT/tailgate-$v" demo --aa --max-blocks 3 --noise off -q --report "$job.report.json" >"$job.out" 2>"$job.err"
		code=$?
		set -e
		echo "$(date +%s.%N) - $t0" | bc >"$job.time"
		echo "$code" >"$job.code"
		says=unsealed
		grep -q 'the sides were sealed off from each other' "$job.out" && says=sealed
		printf '%s job %d %-8s exit %d %5.1f s, the report says: %s\n' "$(date -u +%T)" "$i" "$v" "$code" "$(cat "$job.time")" "$says" | tee -a "$OUT/jobs.txt"
	done
done
echo "ended $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/info.txt"
go run ./bench/decide/summary "$OUT" | tee "$OUT/summary.txt"
