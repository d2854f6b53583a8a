#!/usr/bin/env bash
# The effect of the injected builds as a peer tool sees it: wrk (CONNECTIONS
# threads of one connection each, default 4 as ab.yml's closed phase has
# users, the lifecycle of lifecycle.lua) against each build in turn. A
# round starts clean, slow5 and slow10 side by side (each on a fresh copy
# of the seed, serve.sh), logs CONNECTIONS users in to each (curl, npm
# login's request: a bcrypt check, kept out of the measured slices), warms
# each up, then alternates wrk between them in SLICE-second slices, in the
# order ABC CBA ABC … (rotated round by round), SLICES per build, so that a
# busy machine's changing load falls on all three alike. Per build the
# server's CPU per lifecycle (7 requests) over its slices, from
# /proc/PID/stat (utime+stime of the Node process, all its threads), and
# per round each slow build's change against that round's clean. A non-2xx
# answer fails the round.
#   bench/verdaccio/measure-injected.sh [-r ROUNDS] [-s SLICES] [-d SLICE_SECONDS] [-c CONNECTIONS]
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$DIR/../out/verdaccio
rounds=5 slices=4 dur=2 conns=4
while getopts r:s:d:c: o; do case $o in r) rounds=$OPTARG ;; s) slices=$OPTARG ;; d) dur=$OPTARG ;; c) conns=$OPTARG ;; *) exit 2 ;; esac; done
((conns >= 1 && conns <= 16)) || { echo "measure-injected: -c takes 1 to 16 (the seed's users)" >&2; exit 2; }
tck=$(getconf CLK_TCK)
builds=(clean slow5 slow10)
declare -A port=([clean]=18262 [slow5]=18263 [slow10]=18264) pid=() tokens=()
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
stop() { for b in "${!pid[@]}"; do kill "${pid[$b]}" 2>/dev/null || true; wait "${pid[$b]}" 2>/dev/null || true; done; pid=(); }
trap stop EXIT
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
median() { sort -g | awk '{a[NR]=$1} END {m = NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "median %+.1f %% [%+.1f … %+.1f] over %d rounds", m, a[1], a[NR], NR}'; }
echo -e "round\tload\tclean_ms\tslow5_ms\tslow10_ms\tslow5_pct\tslow10_pct" | tee "$OUT/effects.tsv"
for ((r = 1; r <= rounds; r++)); do
	load=$(cut -d' ' -f1 /proc/loadavg)
	declare -A ticks=() reqs=()
	for b in "${builds[@]}"; do
		TAILGATE_SIDE=measure-$b "$DIR/serve.sh" "$b" "${port[$b]}" >/dev/null 2>&1 &
		pid[$b]=$!
		ticks[$b]=0 reqs[$b]=0
	done
	for b in "${builds[@]}"; do
		ok=0
		for _ in $(seq 150); do curl -fs -o /dev/null "http://127.0.0.1:${port[$b]}/-/ping" && { ok=1; break; }; sleep 0.1; done
		((ok)) || { echo "measure-injected: $b did not start" >&2; exit 3; }
		tokens[$b]=$(login "$b")
		[[ $(wc -w <<<"${tokens[$b]}") == "$conns" ]] || { echo "measure-injected: $b: a login failed" >&2; exit 3; }
		lifecycles "$b" warm 1 >/dev/null
	done
	for ((s = 0; s < slices; s++)); do
		order=()
		for ((k = 0; k < 3; k++)); do order+=("${builds[$(((k + r) % 3))]}"); done
		((s % 2)) && order=("${order[2]}" "${order[1]}" "${order[0]}")
		for b in "${order[@]}"; do
			c0=$(cpu "${pid[$b]}")
			n=$(lifecycles "$b" "s$s" "$dur")
			c1=$(cpu "${pid[$b]}")
			ticks[$b]=$((ticks[$b] + c1 - c0)) reqs[$b]=$((reqs[$b] + n))
		done
	done
	stop
	declare -A v=()
	for b in "${builds[@]}"; do v[$b]=$(echo "scale=3; ${ticks[$b]} * 1000 * 7 / $tck / ${reqs[$b]}" | bc); done
	printf '%d\t%s\t%s\t%s\t%s\t%+.1f\t%+.1f\n' "$r" "$load" "${v[clean]}" "${v[slow5]}" "${v[slow10]}" \
		"$(echo "100*(${v[slow5]}/${v[clean]}-1)" | bc -l)" "$(echo "100*(${v[slow10]}/${v[clean]}-1)" | bc -l)" | tee -a "$OUT/effects.tsv"
done
rm -rf /dev/shm/verdaccio-measure-*
echo "slow5: $(tail -n +2 "$OUT/effects.tsv" | cut -f6 | median)"
echo "slow10: $(tail -n +2 "$OUT/effects.tsv" | cut -f7 | median)"
