#!/usr/bin/env bash
# The injected regression of server.js as a peer tool sees it on warm
# processes: clean and slow side by side (two ports), each warmed with hey
# for WARM (default 20s, well past V8's tiering), then ROUNDS rounds
# (default 3) of hey -z MEASURE (default 8s) on GET /todos per build, 4
# connections shared by the first USERS users of users.csv (default 4: a
# hey with one connection for each, as ab.yml's 4 virtual users each take
# their own row, and every user's todos carry other tags, so the scan the
# slow build makes is as long as in the benchmark; USERS=1: one hey with 4
# connections, all user-0's; Node's CPU per request differs between the
# two by more than the rounds do),
# in alternating order, each build's CPU (utime+stime from /proc) per
# request over its round. Prints each round's CPU per request and the
# effect (slow against clean), and the effects' range.
#
# AT_ONCE=1 adds to every round one more of both builds loaded at the same
# time (two hey processes), the way a block would load a closed phase at
# once: its effect and range are printed apart ("at once").
#
#   bench/jit/peer.sh            # from the repository root; needs node and hey
set -euo pipefail
cd "$(dirname "$0")/../.."
WARM=${WARM:-20s} MEASURE=${MEASURE:-8s} ROUNDS=${ROUNDS:-3} USERS=${USERS:-4}
[[ $USERS =~ ^(1|2|4)$ ]] || { echo "peer.sh: USERS must be 1, 2 or 4 (4 connections shared alike)" >&2; exit 2; }
command -v hey >/dev/null || PATH=$PATH:$(go env GOPATH)/bin
tick=$(getconf CLK_TCK)
pids=()
tmp=$(mktemp -d)
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
declare -A port token pid
port[clean]=18391 port[slow]=18392
for b in clean slow; do
	JIT_MODE=$b node bench/jit/server.js "${port[$b]}" &
	pid[$b]=$!
	pids+=($!)
done
for b in clean slow; do
	for _ in $(seq 50); do curl -fs "http://127.0.0.1:${port[$b]}/health" >/dev/null && break; sleep 0.1; done
	for ((u = 0; u < USERS; u++)); do
		token[$b/$u]=$(curl -fs -X POST -d "{\"user\":\"user-$u\"}" "http://127.0.0.1:${port[$b]}/login" | sed 's/.*"token":"\([0-9a-f]*\)".*/\1/')
	done
done
cpu() { awk -v t="$tick" '{print ($14 + $15) * 1000 / t}' "/proc/$1/stat"; }
# load BUILD DURATION prints how many requests the users' connections made
# (in a subshell of its own: its wait is for its hey processes, not for
# the servers).
load() (
	for ((u = 0; u < USERS; u++)); do
		hey -z "$2" -c $((4 / USERS)) -H "Authorization: Bearer ${token[$1/$u]}" "http://127.0.0.1:${port[$1]}/todos" | awk '/\[200\]/ {print $2}' >"$tmp/$1-$u" &
	done
	wait
	cat "$tmp/$1"-* | awk '{n += $1} END {print n}'
)
for b in clean slow; do load "$b" "$WARM" >/dev/null; done
echo "warmed each for $WARM; rounds of $MEASURE, 4 connections for $USERS users; load average $(cut -d' ' -f1-3 /proc/loadavg)"
effects=() together=()
for r in $(seq "$ROUNDS"); do
	order=(clean slow)
	((r % 2 == 0)) && order=(slow clean)
	declare -A per
	for b in "${order[@]}"; do
		c0=$(cpu "${pid[$b]}")
		n=$(load "$b" "$MEASURE")
		c1=$(cpu "${pid[$b]}")
		per[$b]=$(awk -v a="$c0" -v b="$c1" -v n="$n" 'BEGIN {printf "%.4f", (b - a) / n}')
	done
	e=$(awk -v c="${per[clean]}" -v s="${per[slow]}" 'BEGIN {printf "%+.1f", 100 * (s / c - 1)}')
	effects+=("$e")
	echo "round $r: CPU per request clean ${per[clean]} ms, slow ${per[slow]} ms: $e %"
	[[ -n ${AT_ONCE:-} ]] || continue
	declare -A c0
	for b in clean slow; do c0[$b]=$(cpu "${pid[$b]}"); done
	loading=()
	for b in clean slow; do
		load "$b" "$MEASURE" >"$tmp/n-$b" &
		loading+=($!)
	done
	wait "${loading[@]}" # not the servers
	for b in clean slow; do
		per[$b]=$(awk -v a="${c0[$b]}" -v b="$(cpu "${pid[$b]}")" -v n="$(cat "$tmp/n-$b")" 'BEGIN {printf "%.4f", (b - a) / n}')
	done
	e=$(awk -v c="${per[clean]}" -v s="${per[slow]}" 'BEGIN {printf "%+.1f", 100 * (s / c - 1)}')
	together+=("$e")
	echo "round $r at once: CPU per request clean ${per[clean]} ms, slow ${per[slow]} ms: $e %"
done
range() { sort -g | awk -v what="$1" '{a[NR] = $1} END {printf "effect of slow%s: %+.1f … %+.1f %% (median %+.1f %%) over %d rounds\n", what, a[1], a[NR], a[int((NR + 1) / 2)], NR}'; }
printf '%s\n' "${effects[@]}" | range ""
((${#together[@]} == 0)) || printf '%s\n' "${together[@]}" | range " at once"
