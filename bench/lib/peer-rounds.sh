# shellcheck shell=bash
# The rounds of a peer tool's measurement of injected builds, sourced by a
# service's measure-injected.sh (bench/radicale, bench/verdaccio). A round
# starts clean, slow5 and slow10 side by side, waits for each and warms it
# up, then alternates wrk between them in DUR-second slices, in the order
# ABC CBA ABC … (rotated round by round), SLICES per build, so that a busy
# machine's changing load falls on all three alike. Per build the server's
# CPU per lifecycle over its slices, from /proc/PID/stat (utime+stime of
# all its threads, ended ones included), and per round each slow build's
# change against that round's clean; effects.tsv in OUT.
#
# The caller sets OUT, per (requests per lifecycle) and port[BUILD], reads
# its flags with peer_options "$@" (or sets rounds, slices, dur, conns),
# and defines start BUILD (in the background, setting pid[BUILD]), ready
# BUILD (returns once the build answers, else exits 3: await helps) and
# lifecycles BUILD TAG SECONDS (runs wrk, prints its requests).
tck=$(getconf CLK_TCK)
builds=(clean slow5 slow10)
declare -A pid=()
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
stop() { for b in "${!pid[@]}"; do kill "${pid[$b]}" 2>/dev/null || true; wait "${pid[$b]}" 2>/dev/null || true; done; pid=(); }
trap stop EXIT
# peer_options "$@": the flags of every measure-injected.sh,
# [-r ROUNDS] [-s SLICES] [-d SLICE_SECONDS] [-c CONNS].
peer_options() {
	rounds=5 slices=4 dur=2 conns=4
	local o OPTIND=1
	while getopts r:s:d:c: o; do case $o in r) rounds=$OPTARG ;; s) slices=$OPTARG ;; d) dur=$OPTARG ;; c) conns=$OPTARG ;; *) exit 2 ;; esac; done
}
# await BUILD URL [CURL_ARGS...]: returns once URL answers 2xx, else (15 s) exits 3.
await() {
	local b=$1 url=$2
	shift 2
	for _ in $(seq 150); do curl -fs -o /dev/null "$@" "$url" && return; sleep 0.1; done
	echo "measure-injected: $b did not start" >&2
	exit 3
}
median() { sort -g | awk '{a[NR]=$1} END {m = NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "median %+.1f %% [%+.1f … %+.1f] over %d rounds", m, a[1], a[NR], NR}'; }

peer_round() { # ROUND: one round's line of effects.tsv
	local r=$1 load b s k n c0 c1 order
	load=$(cut -d' ' -f1 /proc/loadavg)
	declare -A ticks=() reqs=() v=()
	for b in "${builds[@]}"; do start "$b"; ticks[$b]=0 reqs[$b]=0; done
	for b in "${builds[@]}"; do ready "$b"; lifecycles "$b" warm 1 >/dev/null; done
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
	for b in "${builds[@]}"; do v[$b]=$(echo "scale=6; ${ticks[$b]} * 1000 * $per / $tck / ${reqs[$b]}" | bc); done
	printf '%d\t%s\t%s\t%s\t%s\t%+.1f\t%+.1f\n' "$r" "$load" "${v[clean]}" "${v[slow5]}" "${v[slow10]}" \
		"$(echo "100*(${v[slow5]}/${v[clean]}-1)" | bc -l)" "$(echo "100*(${v[slow10]}/${v[clean]}-1)" | bc -l)"
}

peer_rounds() {
	echo -e "round\tload\tclean_ms\tslow5_ms\tslow10_ms\tslow5_pct\tslow10_pct" | tee "$OUT/effects.tsv"
	for ((r = 1; r <= rounds; r++)); do
		peer_round "$r" >>"$OUT/effects.tsv" # no pipe: its builds' pids stay this shell's
		tail -n 1 "$OUT/effects.tsv"
	done
	echo "slow5: $(tail -n +2 "$OUT/effects.tsv" | cut -f6 | median)"
	echo "slow10: $(tail -n +2 "$OUT/effects.tsv" | cut -f7 | median)"
}
