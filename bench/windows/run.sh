#!/usr/bin/env bash
# Dump every window of a bench/blockshape probe's jobs (issue 46: where a
# block's noise lies), then read them with windows.py.
#
#   bench/windows/run.sh NAME CONFIG JOBS SHAPE...
#
# Builds tailgate from this tree with dump.patch applied (in a temporary
# worktree, removed at the end), runs bench/blockshape/probe.sh CONFIG JOBS
# SHAPE... with it (HOG and BLOCKS as there), each job writing its windows
# to bench/out/windows/NAME-<time>.jsonl, while sampler.py records the
# machine's and a CPU hog's jiffies to bench/out/windows/samp-NAME.txt.
# Then prints windows.py's reading of this run's dumps, e.g.
#   CADDY_HEAD=clean HOG=1 bench/windows/run.sh caddy-hog bench/caddy/ab.yml 4 duration=8s
set -euo pipefail
name=${1:-}
[[ $name =~ ^[a-z0-9-]+$ && $# -ge 4 ]] || { echo "usage: $0 NAME CONFIG JOBS SHAPE..." >&2; exit 2; }
shift
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
out=$ROOT/bench/out/windows
mkdir -p "$out"
tree=$(mktemp -d)
sampler=""
cleanup() {
	[[ -z $sampler ]] || kill "$sampler" 2>/dev/null || true
	git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
}
trap cleanup EXIT
git worktree add --detach -q "$tree" HEAD
git -C "$tree" apply "$ROOT/bench/windows/dump.patch"
(cd "$tree" && GOFLAGS=-buildvcs=false go build -o "$out/tailgate-dump" ./cmd/tailgate)
wrapper=$out/tailgate-dump.sh
printf '#!/bin/sh\nTG_DIAG_WINDOWS=%s/%s-$(date +%%s%%N).jsonl exec %s/tailgate-dump "$@"\n' "$out" "$name" "$out" >"$wrapper"
chmod +x "$wrapper"
since=$(date +%s)
python3 bench/windows/sampler.py "$out/samp-$name.txt" 7200 &
sampler=$!
TAILGATE_BIN=$wrapper bench/blockshape/probe.sh "$@"
mapfile -t dumps < <(find "$out" -name "$name-*.jsonl" -newermt "@$since" | sort)
((${#dumps[@]})) || { echo "run.sh: no job wrote its windows" >&2; exit 1; }
python3 bench/windows/windows.py "${dumps[@]}" --sampler "$out/samp-$name.txt"
