#!/usr/bin/env bash
# fsync.sh [ROUNDS]: what keeping Radicale's data on a disk instead of a
# RAM disk costs (issue 46: under tailgate ab the sides' own /dev/shm was a
# directory on /var/tmp, ext4, until the seal made it a RAM disk): the
# clean build of bench/radicale on a copy of the seed in /var/tmp and in
# /dev/shm side by side, wrk (2 connections, lifecycle.lua) alternating
# between them in 4 s slices, per slice the lifecycles/s and the server's
# CPU per lifecycle from /proc/PID/stat.
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../radicale" && pwd)
OUT=$DIR/../out/radicale
declare -A data=([disk]=/var/tmp/lean-fsync [ram]=/dev/shm/lean-fsync) port=([disk]=18251 [ram]=18252) pid=()
trap 'for p in "${pid[@]}"; do kill $p 2>/dev/null || true; done; rm -rf "${data[disk]}" "${data[ram]}"' EXIT
for k in disk ram; do
	rm -rf "${data[$k]}" && cp -r "$OUT/seed" "${data[$k]}"
	PYTHONPATH=$OUT/clean /usr/bin/python3 -m radicale -C "$DIR/radicale.conf" -H "127.0.0.1:${port[$k]}" \
		--storage-filesystem-folder "${data[$k]}" 2>/dev/null &
	pid[$k]=$!
	for _ in $(seq 150); do curl -fs -o /dev/null -u tg:tg "http://127.0.0.1:${port[$k]}/tg/team/" && break; sleep 0.1; done
done
echo -e "round\tdata\tlifecycles/s\tcpu_ms/lifecycle"
for ((r = 1; r <= ${1:-3}; r++)); do
	order=(disk ram); ((r % 2)) || order=(ram disk)
	for k in "${order[@]}"; do
		c0=$(awk '{print $14+$15}' "/proc/${pid[$k]}/stat")
		n=$(wrk -t2 -c2 -d4s -s "$DIR/lifecycle.lua" "http://127.0.0.1:${port[$k]}" -- "f$r$k" | awk '/requests in/ {print $1}')
		c1=$(awk '{print $14+$15}' "/proc/${pid[$k]}/stat")
		echo -e "$r\t$k\t$(echo "scale=2; $n / 5 / 4" | bc)\t$(echo "scale=1; ($c1 - $c0) * 10 * 5 / $n" | bc)"
	done
done
