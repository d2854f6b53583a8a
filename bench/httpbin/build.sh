#!/usr/bin/env bash
# Builds go-httpbin v2.26.0 (bench/httpbin/app, its own Go module) three
# times from one source, differing only in the SHA-256 rounds its wrapper
# burns per request: bench/out/httpbin/httpbin-{clean,slow5,slow10}.
# HB_BURN5 and HB_BURN10 add +5.2 and +10.3 % to the clean lifecycle's
# CPU as the gate reads it (0.126 ms, the median of the clean side's 92
# blocks in this machine's series of 2026-12-07): 23 and 47 rounds cost
# 1.65 and 3.26 µs a request (cd app && go test -bench Burn), four
# requests a lifecycle. The old 10 and 20 rounds were +2.1 and +4.3 %:
# wrk's rounds, which sized them, spread wider than the effect.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/bench/out/httpbin
mkdir -p "$OUT"
for b in "clean 0" "slow5 ${HB_BURN5:-23}" "slow10 ${HB_BURN10:-47}"; do
	read -r name rounds <<<"$b"
	(cd "$ROOT/bench/httpbin/app" && go build -trimpath -ldflags "-X main.burnRounds=$rounds" -o "$OUT/httpbin-$name" .)
	echo "$name: $rounds rounds"
done
