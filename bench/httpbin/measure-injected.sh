#!/usr/bin/env bash
# The effect of the injected builds as a peer tool sees it: wrk (CONNS
# connections, by default ab.yml's 4 closed users: the effect of a fixed
# burn depends on the load; the lifecycle of lifecycle.lua) against each
# build in the rounds of bench/lib/peer-rounds.sh: clean, slow5 and slow10
# running side by side, wrk alternating between them in slices, per build
# the server's CPU per lifecycle (4 requests) over its slices. One process
# per build per round started, measured for 5 s and stopped spread its
# rounds by −11 … +37 % (2026-12-07): slices alternating between running
# builds let the machine's changing load fall on all three alike.
#   bench/httpbin/measure-injected.sh [-r ROUNDS] [-s SLICES] [-d SLICE_SECONDS] [-c CONNS]
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib/peer-rounds.sh
source "$DIR/../lib/peer-rounds.sh"
peer_options "$@"
OUT=$DIR/../out/httpbin
declare -A port=([clean]=18231 [slow5]=18237 [slow10]=18238)
per=4
start() { "$OUT/httpbin-$1" "127.0.0.1:${port[$1]}" 2>/dev/null & pid[$1]=$!; }
ready() { await "$1" "http://127.0.0.1:${port[$1]}/status/200"; }
lifecycles() { # BUILD TAG SECONDS: runs wrk, prints its requests
	wrk -t"$((conns < 2 ? conns : 2))" -c"$conns" -d"$3s" -s "$DIR/lifecycle.lua" "http://127.0.0.1:${port[$1]}" | awk '/requests in/ {print $1}'
}
peer_rounds
