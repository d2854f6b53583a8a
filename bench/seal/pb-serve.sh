#!/usr/bin/env bash
# pb-serve.sh BUILD PORT: stock PocketBase (bench/out/seal/pb-BUILD) on
# 127.0.0.1:PORT, its data dir a fresh copy of the golden one at
# $TMPDIR/pb/PORT, where the dataset reset (pb-reset.sh) finds it. With
# PB_TIMES set, appends "start <epoch>" to that file first.
set -euo pipefail
OUT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/bench/out/seal
[[ -n ${PB_TIMES:-} ]] && echo "start $(date +%s.%N)" >>"$PB_TIMES"
data=${TMPDIR:-/tmp}/pb/$2
rm -rf "$data"
mkdir -p "$data"
cp -a "$OUT/golden/." "$data/"
exec "$OUT/pb-$1" serve --http "127.0.0.1:$2" --dir "$data"
