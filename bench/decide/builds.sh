#!/usr/bin/env bash
# Two tailgate binaries on one service, A/A jobs of exactly BLOCKS blocks,
# the binaries alternating job by job, so that a change of the A/B design
# shows in the blocks' own spread (issue 46: the first block's probe).
#
#   bench/decide/builds.sh SERVICE N BIN_A BIN_B [TAILGATE_AB_ARGS...]
#
# SERVICE as in run.sh (its ab.yml, after bench/SERVICE/build.sh); BLOCKS
# (default 4) is both ab.min_blocks and ab.max_blocks, with no noise
# file (a config copy beside the service's ab.yml, removed at the end).
# Per job its report and output in bench/out/builds-SERVICE-<time>/; then
# per binary the blocks' SD of the head-to-base log ratios of CPU per
# iteration and iterations/s, each job's first block, and a block's time.
set -euo pipefail
service=${1:?usage: builds.sh SERVICE N BIN_A BIN_B [ARGS...]} n=${2:?} bin_a=${3:?} bin_b=${4:?}
shift 4
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BLOCKS=${BLOCKS:-4}
config=bench/$service/ab.yml
fixed=bench/$service/ab-builds-$$.yml
sed "s/^ab:\$/ab:\n  min_blocks: $BLOCKS\n  max_blocks: $BLOCKS\n  noise: off/" "$config" >"$fixed"
trap 'rm -f "$fixed"' EXIT
grep -q "^  min_blocks: $BLOCKS\$" "$fixed" || { echo "builds.sh: no top-level ab: in $config" >&2; exit 2; }
OUT=bench/out/builds-$service-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
for ((i = 1; i <= n; i++)); do
	for b in a b; do
		bin=$bin_a
		[[ $b == b ]] && bin=$bin_b
		start=$(date +%s.%N)
		"$bin" ab -q -c "$fixed" --report "$OUT/$b-$i.json" "$@" >"$OUT/$b-$i.out" 2>&1 || true
		printf '%s\t%d\t%.1f\t%s\n' "$b" "$i" "$(echo "$(date +%s.%N) - $start" | bc)" "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$OUT/jobs.tsv"
	done
done
python3 "$ROOT/bench/decide/builds.py" "$OUT" | tee "$OUT/summary.txt"
