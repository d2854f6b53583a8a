#!/usr/bin/env bash
# The injected builds measured by a peer tool on the gate's own workload:
# Locust runs ab.yml's lifecycle (lifecycle.py: sign in, then create, get,
# assign, resolve, search, 8 users looping as the capacity phase) against
# each build in turn, a fresh server from the golden data dir for every
# turn, the order reversed every other round; per turn the server's CPU
# per lifecycle over PEER_SPAN seconds after every user started and
# PEER_WARM more (lifecycle.py measures it).
#
#   bench/pocketbase/peer/peer.sh [-r ROUNDS] [-b "clean slow5 slow10"] [-u USERS] [-o EFFECTS]
#
# Prints per round each build's CPU per lifecycle and, at the end, per
# build its change against clean: the geometric mean of the rounds'
# ratios with its standard error, the median and range, and the CPU it
# adds per lifecycle. Rows go to bench/out/pocketbase/peer-<time>/rows.tsv,
# the rounds' changes to effects.tsv there (the columns bench/decide's
# summary reads: round, load, BUILD_ms, BUILD_pct) and to EFFECTS if given.
# A turn that measured no lifecycle, or any that failed, stops the run.
# Needs Debian's python3-locust and build.sh run.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
rounds=10 builds="clean slow5 slow10" users=8 port=18331 effects=
while getopts r:b:u:o: o; do case $o in r) rounds=$OPTARG ;; b) builds=$OPTARG ;; u) users=$OPTARG ;; o) effects=$OPTARG ;; *) exit 2 ;; esac; done
read -r -a list <<<"$builds"
[[ ${list[0]} == clean ]] || { echo "peer.sh: the first build must be clean (ratios are to it)" >&2; exit 2; }
command -v locust >/dev/null || { echo "peer.sh: locust not found (apt-get install python3-locust)" >&2; exit 2; }
# shellcheck source=bench/pocketbase/password.sh
source "$ROOT/bench/pocketbase/password.sh"
OUT=$ROOT/bench/out/pocketbase/peer-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; true' EXIT
trap 'exit 130' INT TERM
printf 'round\tbuild\tcpu_ms_per_lifecycle\tlifecycles\tseconds\tfailed\n' >"$OUT/rows.tsv"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds, $users users, builds taking turns" | tee "$OUT/load.txt"

turn() { # turn ROUND BUILD
	"$ROOT/bench/pocketbase/serve.sh" "$2" "$port" >"$OUT/server-$1-$2.log" 2>&1 &
	pid=$!
	local up=0
	for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/api/health" && { up=1; break; }; sleep 0.1; done
	((up)) || { echo "peer.sh: $2 did not start on port $port; see $OUT/server-$1-$2.log" >&2; exit 3; }
	PEER_PID=$pid PEER_OUT=$OUT/turn-$1-$2.json PEER_USERS=$ROOT/bench/pocketbase/users.csv \
		timeout 60 locust -f "$ROOT/bench/pocketbase/peer/lifecycle.py" --headless -u "$users" -r "$users" -t 40s \
		--host "http://127.0.0.1:$port" --only-summary >"$OUT/locust-$1-$2.log" 2>&1 || true
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=
	jq -e '.lifecycles > 0 and .failed == 0' "$OUT/turn-$1-$2.json" >/dev/null 2>&1 ||
		{ echo "peer.sh: round $1 $2 measured no lifecycle, or some failed; see $OUT/locust-$1-$2.log" >&2; exit 3; }
	jq -r --arg r "$1" --arg b "$2" '[$r, $b, .cpu_ms_per_lifecycle, .lifecycles, .seconds, .failed] | @tsv' "$OUT/turn-$1-$2.json" >>"$OUT/rows.tsv"
}

for ((r = 1; r <= rounds; r++)); do
	order=("${list[@]}")
	((r % 2 == 0)) && for ((i = 0; i < ${#list[@]}; i++)); do order[i]=${list[-1 - i]}; done
	for b in "${order[@]}"; do turn "$r" "$b"; done
	awk -F'\t' -v r="$r" '$1 == r {printf "round %d %-7s %.3f ms a lifecycle (%d lifecycles)\n", r, $2, $3, $4}' "$OUT/rows.tsv"
	echo "$r $(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/loads.txt"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/load.txt"
python3 - "$OUT" "${list[@]}" <<'PY' | tee "$OUT/summary.txt"
import csv, math, statistics as st, sys
out, builds = sys.argv[1], sys.argv[2:]
rows = list(csv.DictReader(open(out + "/rows.tsv"), delimiter="\t"))
cpu = {(r["build"], r["round"]): float(r["cpu_ms_per_lifecycle"]) for r in rows}
rounds = sorted({r["round"] for r in rows}, key=int)
load = dict(line.split() for line in open(out + "/loads.txt"))
with open(out + "/effects.tsv", "w") as f:
    print("\t".join(["round", "load"] + [b + "_ms" for b in builds] + [b + "_pct" for b in builds[1:]]), file=f)
    for r in rounds:
        print("\t".join([r, load[r]] + [f"{cpu[b, r]:.3f}" for b in builds] +
                        [f"{100 * (cpu[b, r] / cpu['clean', r] - 1):+.1f}" for b in builds[1:]]), file=f)
print(f"CPU per lifecycle over {len(rounds)} rounds (clean {st.median(cpu['clean', r] for r in rounds):.3f} ms median):")
for b in builds[1:]:
    logs = [math.log(cpu[b, r] / cpu["clean", r]) for r in rounds]
    pct = sorted(100 * (math.exp(x) - 1) for x in logs)
    se = st.stdev(logs) / math.sqrt(len(logs)) if len(logs) > 1 else float("nan")
    print(f"  {b:7s} {100 * (math.exp(st.mean(logs)) - 1):+.1f} % (SE {100 * se:.1f}), median {st.median(pct):+.1f} [{pct[0]:+.1f} … {pct[-1]:+.1f}] %,"
          f" adds {st.median(cpu[b, r] - cpu['clean', r] for r in rounds):.3f} ms a lifecycle")
PY
[[ -z $effects ]] || cp "$OUT/effects.tsv" "$effects"
