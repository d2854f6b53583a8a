#!/usr/bin/env bash
# What does sealing the sides cost an A/B job? (issue 35)
#
#   bench/seal/overhead.sh N
#
# N A/A jobs of PocketBase v0.36.8 (bench/decide/pocketbase.sh: two
# processes of the clean build) with the sides sealed, and N with them
# unsealed, taking turns job by job, each of exactly BLOCKS blocks
# (default 5; ab.min_blocks = ab.max_blocks, ab.noise off), no hog. The
# unsealed build is this tree with one change, made in a scratch worktree
# and never committed: its seal check fails, so ab.unsealed: allow (set in
# both arms' config copy, where it changes nothing while sealing works)
# runs the sides unsealed. Both binaries are otherwise the same code.
#
# Compared: each job's wall time, and the A/A blocks' spread of CPU per
# iteration (the noise a verdict has to see through), in summary.txt
# (`go run ./bench/decide/summary DIR`, one table per variant).
# Raw outputs: bench/out/seal/pocketbase-<time>/.
set -euo pipefail
n=${1:-}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 N" >&2; exit 2; }
BLOCKS=${BLOCKS:-5}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
# shellcheck source=bench/decide/pocketbase.sh
source bench/decide/pocketbase.sh
OUT=bench/out/seal/pocketbase-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT/jobs"
scratch=$(mktemp -d)
config=$(dirname "$CONFIG")/.overhead-$$.yml # beside CONFIG: its relative paths hold
cleanup() {
	rm -f "$config"
	git worktree remove --force "$scratch/tree" 2>/dev/null || true
	rm -rf "$scratch"
}
trap cleanup EXIT

go build -o "$OUT/tailgate-sealed" ./cmd/tailgate
git worktree add -q --detach "$scratch/tree" HEAD
git diff HEAD -- cmd internal | git -C "$scratch/tree" apply --allow-empty
sed -i 's|^\tif !seal.Supported {$|\tif true { // bench/seal/overhead.sh: the unsealed arm|' "$scratch/tree/internal/pipeline/seal.go"
grep -q 'the unsealed arm' "$scratch/tree/internal/pipeline/seal.go" || { echo "overhead.sh: could not patch checkSeals" >&2; exit 2; }
go build -C "$scratch/tree" -o "$ROOT/$OUT/tailgate-unsealed" ./cmd/tailgate
sed "s/^ab:\$/ab:\n  unsealed: allow\n  min_blocks: $BLOCKS\n  max_blocks: $BLOCKS\n  noise: off/" "$CONFIG" >"$config"
grep -q "^  min_blocks: $BLOCKS\$" "$config" || { echo "overhead.sh: no top-level ab: in $CONFIG" >&2; exit 2; }
prepare
{
	echo "PocketBase A/A, $n jobs per variant (sealed, unsealed), exactly $BLOCKS blocks, no hog"
	echo "tailgate $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- cmd internal || echo '+dirty')"
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
		env XDG_CACHE_HOME="$ROOT/$OUT/cache" $(head_env aa) timeout 10m \
			"$OUT/tailgate-$v" ab -c "$config" --report "$job.report.json" >"$job.out" 2>"$job.err"
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
