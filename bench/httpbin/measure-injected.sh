#!/usr/bin/env bash
# The effect of the injected builds as a peer tool sees it: wrk (CONNS
# connections, by default ab.yml's 4 closed users: the effect of a fixed burn
# depends on the load; the lifecycle of lifecycle.lua) against each build in turn,
# the builds alternating clean, slow5, slow10 and rotated round by round;
# per build the server's CPU (utime+stime from /proc) per request, and per
# round each slow build's change against that round's clean.
#   bench/httpbin/measure-injected.sh [-r ROUNDS] [-d SECONDS] [-c CONNS]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/bench/out/httpbin
rounds=5 dur=5 conns=4
while getopts r:d:c: o; do case $o in r) rounds=$OPTARG ;; d) dur=$OPTARG ;; c) conns=$OPTARG ;; *) exit 2 ;; esac; done
tck=$(getconf CLK_TCK)
port=18231
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
one() { # one BUILD: prints CPU µs per request
	"$OUT/httpbin-$1" "127.0.0.1:$port" 2>/dev/null &
	local pid=$! ok=0
	for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$port/status/200" && { ok=1; break; }; sleep 0.1; done
	((ok)) || { kill "$pid"; echo "measure-injected: $1 did not start" >&2; exit 3; }
	wrk -t1 -c"$conns" -d1s -s "$ROOT/bench/httpbin/lifecycle.lua" "http://127.0.0.1:$port" >/dev/null # warm-up
	local c0 c1 n
	c0=$(cpu "$pid")
	n=$(wrk -t1 -c"$conns" -d"${dur}s" -s "$ROOT/bench/httpbin/lifecycle.lua" "http://127.0.0.1:$port" | awk '/requests in/ {print $1}')
	c1=$(cpu "$pid")
	kill "$pid"; wait "$pid" 2>/dev/null || true
	echo "scale=3; ($c1 - $c0) * 1000000 / $tck / $n" | bc
}
builds=(clean slow5 slow10)
echo -e "round\tclean_us\tslow5_us\tslow10_us\tslow5_pct\tslow10_pct" | tee "$OUT/effects.tsv"
for ((r = 1; r <= rounds; r++)); do
	declare -A v=()
	for ((k = 0; k < 3; k++)); do
		b=${builds[$(((k + r) % 3))]}
		v[$b]=$(one "$b")
	done
	printf '%d\t%s\t%s\t%s\t%+.1f\t%+.1f\n' "$r" "${v[clean]}" "${v[slow5]}" "${v[slow10]}" \
		"$(echo "100*(${v[slow5]}/${v[clean]}-1)" | bc -l)" "$(echo "100*(${v[slow10]}/${v[clean]}-1)" | bc -l)" | tee -a "$OUT/effects.tsv"
done
