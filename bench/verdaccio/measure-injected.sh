#!/usr/bin/env bash
# The effect of the injected builds as a peer tool sees it: wrk (CONNECTIONS
# threads of one connection each, default 4 as ab.yml's closed phase has
# users, the lifecycle of lifecycle.lua) against each build, each on a fresh
# copy of the seed (serve.sh), in the rounds of bench/lib/peer-rounds.sh:
# CPU per lifecycle (7 requests) of the Node process. Before its slices each
# build logs CONNECTIONS users in (curl, npm login's request: a bcrypt
# check, kept out of the measured slices). A non-2xx answer fails the round.
#   bench/verdaccio/measure-injected.sh [-r ROUNDS] [-s SLICES] [-d SLICE_SECONDS] [-c CONNECTIONS]
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib/peer-rounds.sh
source "$DIR/../lib/peer-rounds.sh"
peer_options "$@"
OUT=$DIR/../out/verdaccio
((conns >= 1 && conns <= 16)) || { echo "measure-injected: -c takes 1 to 16 (the seed's users)" >&2; exit 2; }
declare -A port=([clean]=18262 [slow5]=18263 [slow10]=18264) tokens=()
per=7
start() { TAILGATE_SIDE=measure-$1 "$DIR/serve.sh" "$1" "${port[$1]}" >/dev/null 2>&1 & pid[$1]=$!; }
ready() {
	await "$1" "http://127.0.0.1:${port[$1]}/-/ping"
	tokens[$1]=$(login "$1")
	[[ $(wc -w <<<"${tokens[$1]}") == "$conns" ]] || { echo "measure-injected: $1: a login failed" >&2; exit 3; }
}
login() { # BUILD: prints the tokens of users tg0 … tg(CONNECTIONS-1)
	local u
	for ((u = 0; u < conns; u++)); do
		curl -fsS -X PUT -u "tg$u:tailgate" -H 'Content-Type: application/json' -d "{\"name\":\"tg$u\",\"password\":\"tailgate\"}" \
			"http://127.0.0.1:${port[$1]}/-/user/org.couchdb.user:tg$u" | sed -n 's/.*"token": *"\([^"]*\)".*/\1/p'
	done | tr '\n' ' '
}
lifecycles() { # BUILD TAG SECONDS: runs wrk, prints its requests
	local out
	# shellcheck disable=SC2086 # the tokens are words
	out=$(wrk -t"$conns" -c"$conns" -d"$3s" -s "$DIR/lifecycle.lua" "http://127.0.0.1:${port[$1]}" -- "$2" ${tokens[$1]})
	! grep -q 'Non-2xx' <<<"$out" || { echo "measure-injected: $1: $(grep Non-2xx <<<"$out")" >&2; exit 3; }
	awk '/requests in/ {print $1}' <<<"$out"
}
peer_rounds
rm -rf /dev/shm/verdaccio-measure-*
