#!/usr/bin/env bash
# The effect of the injected builds as a peer tool sees it: wrk (CONNS threads,
# a connection each, by default ab.yml's 4 closed users, as the effect of a fixed
# burn depends on the load: Radicale's own cost per lifecycle grows with its
# threads' contention for the GIL; the lifecycle of lifecycle.lua) against
# each build, each on a fresh copy of the dataset (serve.sh), in the rounds
# of bench/lib/peer-rounds.sh: CPU per lifecycle (5 requests) with Radicale's
# threads, one per connection, ended ones included. A non-2xx answer fails
# the round.
#   bench/radicale/measure-injected.sh [-r ROUNDS] [-s SLICES] [-d SLICE_SECONDS] [-c CONNS]
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib/peer-rounds.sh
source "$DIR/../lib/peer-rounds.sh"
peer_options "$@"
OUT=$DIR/../out/radicale
declare -A port=([clean]=18232 [slow5]=18233 [slow10]=18234)
per=5
start() { TAILGATE_SIDE=measure-$1 "$DIR/serve.sh" "$1" "${port[$1]}" 2>/dev/null & pid[$1]=$!; }
ready() { await "$1" "http://127.0.0.1:${port[$1]}/tg/team/" -u tg:tg; }
lifecycles() { # BUILD TAG SECONDS: runs wrk, prints its requests
	local out
	out=$(wrk -t"$conns" -c"$conns" -d"$3s" -s "$DIR/lifecycle.lua" "http://127.0.0.1:${port[$1]}" -- "$2")
	! grep -q 'Non-2xx' <<<"$out" || { echo "measure-injected: $1: $(grep Non-2xx <<<"$out")" >&2; exit 3; }
	awk '/requests in/ {print $1}' <<<"$out"
}
peer_rounds
