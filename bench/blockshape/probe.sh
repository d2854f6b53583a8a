#!/usr/bin/env bash
# Which block shape buys the most per measured second? (issue 46: less
# noise per block)
#
#   bench/blockshape/probe.sh CONFIG JOBS [SHAPE...]
#
# Runs JOBS A/A jobs of CONFIG (an ab benchmark whose head is the clean
# build, e.g. CADDY_HEAD=clean) in each SHAPE, rotating the shapes job by
# job, every job exactly BLOCKS blocks (default 6) with no noise file. A
# SHAPE is window=LENGTH (ab.window: the phase's load.duration filled with
# windows that long), duration=LENGTH (load.duration: the time each side
# is measured per block) or warmup=LENGTH (load.warmup: a block's warm-up,
# the first block's at least); default window=250ms window=500ms window=1s.
# HOG=1 (the default) runs one busy loop beside every job, HOG=0 none.
# Prints, per shape, the blocks' SD of the head-to-base log ratio of CPU
# per iteration and of iterations/s (pooled over the jobs, each job's own
# mean removed), the measured and the wall seconds a block took, and the
# variance times each: the lower, the more a second buys. Equal SDs at
# half the measured time say the noise is the block's (its processes'),
# not the moment's. Raw outputs: bench/out/blockshape/<time>/.
set -euo pipefail
config=${1:-}
jobs=${2:-}
[[ -f $config && $jobs =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 CONFIG JOBS [window=|duration=|warmup=LENGTH...]" >&2; exit 2; }
shift 2
shapes=("$@")
((${#shapes[@]})) || shapes=(window=250ms window=500ms window=1s)
BLOCKS=${BLOCKS:-6}
HOG=${HOG:-1}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
bin=${TAILGATE_BIN:-}
OUT=bench/out/blockshape/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
if [[ -z $bin ]]; then
	bin=$OUT/tailgate
	go build -o "$bin" ./cmd/tailgate
fi
copies=()
hog=""
cleanup() {
	[[ -z $hog ]] || kill "$hog" 2>/dev/null || true
	((${#copies[@]})) && rm -f "${copies[@]}"
	return 0
}
trap cleanup EXIT
for shape in "${shapes[@]}"; do
	key=${shape%%=*} value=${shape#*=}
	[[ $shape == *=* && $value =~ ^[0-9.]+(ms|s)$ ]] || { echo "probe.sh: shape $shape: want window=, duration= or warmup=LENGTH, e.g. window=500ms" >&2; exit 2; }
	copy=$(dirname "$config")/.shape-$shape-$$.yml # beside CONFIG: its relative paths hold
	copies+=("$copy")
	edit="s/^ab:\$/ab:\n  min_blocks: $BLOCKS\n  max_blocks: $BLOCKS\n  noise: off/"
	case $key in
	window) edit+=";s/^ab:\$/ab:\n  window: $value/" ;;
	duration | warmup) edit+=";s/^  $key: .*/  $key: $value/" ;;
	*) echo "probe.sh: shape $shape: window, duration or warmup, not $key" >&2; exit 2 ;;
	esac
	sed "$edit" "$config" >"$copy"
	grep -q "^  $key: $value\$" "$copy" && grep -q "^  min_blocks: $BLOCKS\$" "$copy" ||
		{ echo "probe.sh: $config has no top-level ab: or no load's $key: line for $shape" >&2; exit 2; }
done
echo "config $config, $jobs jobs per shape (${shapes[*]}), $BLOCKS blocks, HOG=$HOG, started $(date -u +%FT%TZ)" | tee "$OUT/info.txt"
((HOG)) && { sh -c 'while :; do :; done' & hog=$!; }
for ((i = 1; i <= jobs; i++)); do
	for ((k = 0; k < ${#shapes[@]}; k++)); do
		idx=$(((k + i - 1) % ${#shapes[@]}))
		shape=${shapes[$idx]}
		job=$OUT/$shape-$i
		set +e
		env XDG_CACHE_HOME="$ROOT/$OUT/cache" timeout 10m "$bin" ab -c "${copies[$idx]}" --report "$job.report.json" >"$job.out" 2>"$job.err"
		code=$?
		set -e
		printf '%s job %d %-15s exit %d: %s\n' "$(date -u +%T)" "$i" "$shape" "$code" "$(grep -m1 -E 'blocks of at most' "$job.out" | sed 's/^ *- //' | cut -c1-120 || true)" | tee -a "$OUT/jobs.txt"
	done
done
python3 bench/blockshape/spread.py "$OUT" | tee "$OUT/summary.txt"
