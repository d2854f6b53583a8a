#!/usr/bin/env bash
# The effect of the injected builds as a peer tool sees it: wrk (CONNS
# connections, by default ab.yml's 4 closed users; the lifecycle of
# lifecycle.lua) against clean, slow5 and slow10 running side by side, in
# the alternating rounds of bench/lib/peer-rounds.sh, per build the
# server's CPU per lifecycle (4 requests) over its slices.
#   bench/caddy/measure-injected.sh [-r ROUNDS] [-s SLICES] [-d SLICE_SECONDS] [-c CONNS]
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
# shellcheck source=bench/lib/peer-rounds.sh
source "$DIR/../lib/peer-rounds.sh"
peer_options "$@"
OUT=$DIR/../out/caddy
declare -A port=([clean]=18331 [slow5]=18337 [slow10]=18338)
per=4
start() { (cd "$ROOT" && PORT=${port[$1]} exec "$OUT/caddy-$1" run --config bench/caddy/Caddyfile --adapter caddyfile) >/dev/null 2>&1 & pid[$1]=$!; }
ready() { await "$1" "http://127.0.0.1:${port[$1]}/data.json"; }
lifecycles() { # BUILD TAG SECONDS: runs wrk, prints its requests
	wrk -t"$((conns < 2 ? conns : 2))" -c"$conns" -d"$3s" -s "$DIR/lifecycle.lua" "http://127.0.0.1:${port[$1]}" | awk '/requests in/ {print $1}'
}
peer_rounds
