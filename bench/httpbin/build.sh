#!/usr/bin/env bash
# Builds go-httpbin v2.26.0 (bench/httpbin/app, its own Go module) three
# times from one source, differing only in the SHA-256 rounds its wrapper
# burns per request: bench/out/httpbin/httpbin-{clean,slow5,slow10}.
# HB_BURN5 and HB_BURN10 are calibrated with measure-injected.sh (about
# +5 % and +10 % CPU per lifecycle as wrk sees it).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/bench/out/httpbin
mkdir -p "$OUT"
for b in "clean 0" "slow5 ${HB_BURN5:-10}" "slow10 ${HB_BURN10:-20}"; do
	read -r name rounds <<<"$b"
	(cd "$ROOT/bench/httpbin/app" && go build -trimpath -ldflags "-X main.burnRounds=$rounds" -o "$OUT/httpbin-$name" .)
	echo "$name: $rounds rounds"
done
