#!/usr/bin/env bash
# threadcpu.sh [SECONDS]: the CPU of a thread-per-connection server, two
# ways, over one wrk run of the lifecycle (2 connections) against the clean
# build: /proc/PID/stat's utime+stime (every thread the process ran, ended
# ones included) and the sum of /proc/PID/task/*/schedstat (the threads
# alive at each read: what tailgate's exact CPU reading sums). Radicale,
# like Python's ThreadingHTTPServer, answers HTTP/1.0 and closes each
# connection, so every request runs in a thread that ends before the next
# read, and the second figure misses it.
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
port=18235
TAILGATE_SIDE=threadcpu "$DIR/serve.sh" clean "$port" 2>/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 150); do curl -fs -o /dev/null -u tg:tg "http://127.0.0.1:$port/tg/team/" && break; sleep 0.1; done
read_ms() { # stat ms, live-thread schedstat ms, live threads
	echo "$(awk '{print ($14+$15)*10}' "/proc/$pid/stat") $(cat "/proc/$pid"/task/*/schedstat | awk '{s+=$1} END {printf "%.0f", s/1e6}') $(ls "/proc/$pid/task" | wc -l)"
}
read -r s0 t0 _ <<<"$(read_ms)"
n=$(wrk -t2 -c2 -d"${1:-5}s" -s "$DIR/lifecycle.lua" "http://127.0.0.1:$port" -- threadcpu | awk '/requests in/ {print $1}')
read -r s1 t1 k <<<"$(read_ms)"
echo "$n requests: /proc/PID/stat $((s1 - s0)) ms of CPU ($(((s1 - s0) * 5 / n)) ms per lifecycle); live threads' schedstat $((t1 - t0)) ms ($(((t1 - t0) * 5 / n)) ms per lifecycle); $k thread(s) alive at the end"
