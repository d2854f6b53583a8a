#!/usr/bin/env bash
# Does the window shape move what the A/B gate reads on PocketBase? Runs
# `tailgate ab` on bench/pocketbase/ab.yml with PB_HEAD (default slow10)
# ROUNDS times (default 3) in each of two shapes, alternating: the default
# (8 windows of 500 ms a side for the 4 s phase) and 2 windows of 2 s
# (`--window 2s --windows 2`, the same measured time), each job at most
# 4 blocks with no noise file. Prints each job's CPU per iteration line;
# reports and outputs go to bench/out/pocketbase/windowshape-<time>/.
#
#   TAILGATE=/tmp/tailgate bench/pocketbase/windowshape.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
# shellcheck source=bench/pocketbase/password.sh
source bench/pocketbase/password.sh
TAILGATE=${TAILGATE:-tailgate}
ROUNDS=${ROUNDS:-3}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "windowshape.sh: ROUNDS must be a positive integer" >&2; exit 2; }
[[ -x bench/out/pocketbase/pocketbase-clean ]] || bench/pocketbase/build.sh
OUT=bench/out/pocketbase/windowshape-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
export XDG_CACHE_HOME=$OUT/cache
for ((r = 1; r <= ROUNDS; r++)); do
	for shape in short long; do
		args=()
		[[ $shape == long ]] && args=(--window 2s --windows 2)
		code=0
		PB_HEAD=${PB_HEAD:-slow10} "$TAILGATE" ab -c bench/pocketbase/ab.yml --max-blocks 4 --noise off \
			--report "$OUT/$shape-$r.json" "${args[@]}" >"$OUT/$shape-$r.out" 2>"$OUT/$shape-$r.err" || code=$?
		echo "$shape $r exit $code $(grep -E '^CPU/iteration' "$OUT/$shape-$r.out" | tr -s ' ')"
	done
done
