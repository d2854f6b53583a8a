#!/usr/bin/env bash
# How much of a block's noise is the process's own, and does a fixed
# address layout or hash seed remove it? (issue 46)
#
#   bench/procnoise/probe.sh radicale|verdaccio [-r ROUNDS] [-p PROCS] [-s SLICES] [-d SECONDS]
#
# A round starts PROCS processes of the clean build at once, all under one
# start mode (rotated round by round): "random" (as started today),
# "noaslr" (setarch -R: no address-space randomisation) and "fixed"
# (noaslr and a fixed hash seed: PYTHONHASHSEED=0, node --hash-seed=1).
# Each is warmed up 3 s, then wrk loads them in turn in SECONDS-long
# slices (order rotated slice by slice), SLICES each; per process and
# slice its CPU per lifecycle from /proc/PID/stat. slices.tsv in
# bench/out/procnoise-SERVICE-<time>/; analyze.py prints, per mode, the
# spread between processes of one round beyond what their slices' own
# spread explains.
set -euo pipefail
service=${1:?usage: probe.sh radicale|verdaccio [-r R] [-p P] [-s S] [-d SEC]}
shift
rounds=9 procs=4 slices=3 dur=2 conns=4
while getopts r:p:s:d: o; do case $o in r) rounds=$OPTARG ;; p) procs=$OPTARG ;; s) slices=$OPTARG ;; d) dur=$OPTARG ;; *) exit 2 ;; esac; done
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
SVC=$ROOT/bench/$service
OUT=$ROOT/bench/out/procnoise-$service-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
tck=$(getconf CLK_TCK)
modes=(random noaslr fixed)
declare -A pid=() tokens=()
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
stop() { for k in "${!pid[@]}"; do kill "${pid[$k]}" 2>/dev/null || true; wait "${pid[$k]}" 2>/dev/null || true; done; pid=(); }
trap stop EXIT
port() { echo $((18270 + $1)); }
case $service in
radicale) per=5 ;;
verdaccio) per=7 ;;
*) echo "probe.sh: radicale or verdaccio" >&2; exit 2 ;;
esac
start() { # MODE K
	local pre=() env=(TAILGATE_SIDE="probe-$2")
	[[ $1 == random ]] || pre=(setarch -R)
	if [[ $1 == fixed ]]; then env+=(PYTHONHASHSEED=0 NODE_HASH_SEED=1); fi
	env "${env[@]}" "${pre[@]}" "$DIR/serve-$service.sh" "$(port "$2")" >/dev/null 2>&1 &
	pid[$2]=$!
}
ready() { # K
	local p ok=0 u
	p=$(port "$1")
	for _ in $(seq 200); do
		case $service in
		radicale) curl -fs -o /dev/null -u tg:tg "http://127.0.0.1:$p/tg/team/" && { ok=1; break; } ;;
		verdaccio) curl -fs -o /dev/null "http://127.0.0.1:$p/-/ping" && { ok=1; break; } ;;
		esac
		sleep 0.1
	done
	((ok)) || { echo "probe: process $1 did not start" >&2; exit 3; }
	if [[ $service == verdaccio ]]; then
		tokens[$1]=$(for ((u = 0; u < conns; u++)); do
			curl -fsS -X PUT -u "tg$u:tailgate" -H 'Content-Type: application/json' -d "{\"name\":\"tg$u\",\"password\":\"tailgate\"}" \
				"http://127.0.0.1:$p/-/user/org.couchdb.user:tg$u" | sed -n 's/.*"token": *"\([^"]*\)".*/\1/p'
		done | tr '\n' ' ')
	fi
}
lifecycles() { # K TAG SECONDS
	local out
	# shellcheck disable=SC2086
	out=$(wrk -t"$conns" -c"$conns" -d"$3s" -s "$SVC/lifecycle.lua" "http://127.0.0.1:$(port "$1")" -- "$2" ${tokens[$1]:-})
	! grep -q 'Non-2xx' <<<"$out" || { echo "probe: $1: $(grep Non-2xx <<<"$out")" >&2; exit 3; }
	awk '/requests in/ {print $1}' <<<"$out"
}
echo -e "round\tmode\tload\tproc\tslice\tms" >"$OUT/slices.tsv"
for ((r = 0; r < rounds; r++)); do
	mode=${modes[$((r % 3))]}
	load=$(cut -d' ' -f1 /proc/loadavg)
	for ((k = 0; k < procs; k++)); do start "$mode" "$k"; done
	for ((k = 0; k < procs; k++)); do ready "$k"; lifecycles "$k" "w$r" 3 >/dev/null; done
	for ((s = 0; s < slices; s++)); do
		for ((i = 0; i < procs; i++)); do
			k=$(((i + s + r) % procs))
			c0=$(cpu "${pid[$k]}")
			n=$(lifecycles "$k" "r${r}s$s" "$dur")
			c1=$(cpu "${pid[$k]}")
			printf '%d\t%s\t%s\t%d\t%d\t%s\n' "$r" "$mode" "$load" "$k" "$s" \
				"$(echo "scale=6; ($c1 - $c0) * 1000 * $per / $tck / $n" | bc)" >>"$OUT/slices.tsv"
		done
	done
	stop
	echo "round $r ($mode) done" >&2
done
python3 "$DIR/analyze.py" "$OUT/slices.tsv" | tee "$OUT/summary.txt"
