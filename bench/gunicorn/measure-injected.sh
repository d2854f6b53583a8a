#!/usr/bin/env bash
# The injected regressions of bench/gunicorn as a peer tool sees them,
# without tailgate: the gunicorn workers' CPU per lifecycle of each build,
# with wrk running the lifecycle of ab.yml (lifecycle.lua: create, get,
# update, list, delete, signed in with a session cookie).
#
#   bench/gunicorn/measure-injected.sh [-r ROUNDS] [-c CONNECTIONS] [-d SECONDS]
#
# Each round starts every build afresh (clean, slow10, slow30; each its own
# port and copy of the golden dataset) and loads them all at once for D
# seconds with one wrk each (closed loop, C connections, as ab.yml's
# capacity phase), so that builds measured side by side share the
# machine's state. CPU is the whole gunicorn tree's (master and workers,
# utime+stime from /proc, reaped children included) before and after.
# Prints per build the CPU per lifecycle, median [min–max] over rounds, and
# its ratio to clean within each round; the ratios also go to
# bench/out/gunicorn/effects.tsv. Needs wrk (Debian) and build.sh run.
set -euo pipefail
ROUNDS=3 CONC=6 SECS=10 PORT=18611
while getopts "r:c:d:p:" opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;; c) CONC=$OPTARG ;; d) SECS=$OPTARG ;; p) PORT=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] [-c CONNECTIONS] [-d SECONDS]" >&2; exit 2 ;;
	esac
done
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
source "$DIR/password.sh"
OUT=$ROOT/bench/out/gunicorn/measure-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
BUILDS=(clean slow10 slow30)
TICKS=$(getconf CLK_TCK)
pids=()
cleanup() { ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT

# tree_ticks PID: utime+stime of PID (its reaped children's too) and of its children.
tree_ticks() {
	local t=0 p
	for p in $1 $(pgrep -P "$1"); do
		t=$((t + $(awk '{print $14+$15+$16+$17}' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo $t
}

for ((r = 1; r <= ROUNDS; r++)); do
	declare -A pid=() cookie=() t0=()
	for k in "${!BUILDS[@]}"; do
		b=${BUILDS[$k]} port=$((PORT + k))
		NOTES_SIDE=measure-$b "$DIR/serve.sh" "$b" "$port" >"$OUT/$b-$r.log" 2>&1 &
		pid[$b]=$! pids+=($!)
	done
	for k in "${!BUILDS[@]}"; do
		b=${BUILDS[$k]} port=$((PORT + k))
		for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done
		cookie[$b]=$(curl -sf -D - -o /dev/null -H 'content-type: application/json' \
			-d "{\"email\":\"user1@example.test\",\"password\":\"$NOTES_PASSWORD\"}" "http://127.0.0.1:$port/login" |
			sed -n 's/^[Ss]et-[Cc]ookie: \(session=[^;]*\).*/\1/p')
	done
	sleep 1
	for k in "${!BUILDS[@]}"; do
		b=${BUILDS[$k]}
		t0[$b]=$(tree_ticks "${pid[$b]}")
		NOTES_COOKIE=${cookie[$b]} wrk -t "$CONC" -c "$CONC" -d "${SECS}s" -s "$DIR/lifecycle.lua" \
			"http://127.0.0.1:$((PORT + k))" >"$OUT/$b-$r.wrk" 2>&1 &
	done
	wait $(jobs -p | grep -v -x -F -f <(printf '%s\n' "${pids[@]}")) 2>/dev/null || true
	for b in "${BUILDS[@]}"; do
		t1=$(tree_ticks "${pid[$b]}")
		reqs=$(sed -n 's/^requests \([0-9]*\)/\1/p' "$OUT/$b-$r.wrk")
		non2xx=$(sed -n 's/.*Non-2xx or 3xx responses: \([0-9]*\)/\1/p' "$OUT/$b-$r.wrk")
		echo -e "$r\t$b\t$(echo "scale=4; ($t1-${t0[$b]})*1000/$TICKS/($reqs/5)" | bc)\t$reqs\t${non2xx:-0}"
	done | tee -a "$OUT/rows.tsv"
	kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null || true
	pids=()
done
/usr/bin/python3 - "$OUT/rows.tsv" "$ROOT/bench/out/gunicorn/effects.tsv" <<'PY' | tee "$OUT/summary.txt"
import statistics, sys
cpu = {}
for line in open(sys.argv[1]):
    r, b, ms = line.split("\t")[:3]
    cpu.setdefault(b, {})[r] = float(ms)
with open(sys.argv[2], "w") as eff:
    for b in ("clean", "slow10", "slow30"):
        v = sorted(cpu[b].values())
        ratio = sorted((cpu[b][r] / cpu["clean"][r] - 1) * 100 for r in cpu[b])
        print(f"{b:7} CPU/lifecycle {statistics.median(v):.3f} ms [{v[0]:.3f}–{v[-1]:.3f}]  vs clean "
              f"{statistics.median(ratio):+.1f} % [{ratio[0]:+.1f} … {ratio[-1]:+.1f}]")
        eff.write(f"{b}\t{statistics.median(ratio):+.1f}\t{ratio[0]:+.1f}\t{ratio[-1]:+.1f}\n")
PY
