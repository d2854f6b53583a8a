#!/usr/bin/env bash
# The injected CPU regression as a peer tool sees it, without tailgate:
# Miniflux's CPU per lifecycle of each build (clean, slow10, slow30:
# cpu-burn.patch), measured with hey.
#
# Each round starts every build afresh, one after the other (serve.sh: its
# own port, its own database miniflux_m<build>, cloned from the template
# first), and measures them side by side: for each of the four requests of
# one iteration of ab.yml (me, unread, read, counters) it sends N requests
# of that kind to every build at once — per build 4 hey processes of one
# connection each, closed loop, one per user of users.csv with that user's
# X-Auth-Token, as ab.yml's 4 VUs — and reads each server's CPU time before
# and after (the sum of its threads' schedstat run time, and utime+stime
# from /proc/<pid>/stat as a cross-check). Builds measured at the same
# moment share the machine's state: on a shared machine the CPU cost of the
# same work drifts by more than the effects measured here. Processes are
# new in every round, so a difference between two processes of one build
# shows up as spread between rounds rather than as a fixed bias.
#
# The dataset is not reset between the kinds: the requests only read, but
# for the API key's last_used_at and the user's last_login_at, which every
# request stamps (as in ab.yml's runs); a reset would also kill each
# server's pooled database connection.
#
# CPU per lifecycle = the sum over the four kinds of CPU per request.
# Miniflux's own CPU only: the PostgreSQL server's CPU (its backends) is
# not measured here, as the injected regression is not in it.
#
#   bench/miniflux/measure-injected.sh                  # 5 rounds, 800 requests per kind and build
#   bench/miniflux/measure-injected.sh -r 3 -n 400
#   bench/miniflux/measure-injected.sh -b "clean slow30"
#
# Prints per build the CPU per lifecycle, median [min–max] over the rounds,
# and its ratio to clean within each round. Raw rows and hey outputs go to
# bench/out/miniflux/measure-<time>/; the ratios also to
# bench/out/miniflux/effects.tsv. Needs hey (go install
# github.com/rakyll/hey@v0.1.5), jq, curl, and build.sh run; starts the
# cluster if it is not running (pg.sh start) and leaves it running.
source "$(dirname "$0")/lib.sh"
BENCH=$ROOT/bench

usage() {
	echo "usage: $0 [-r ROUNDS] [-n REQUESTS_PER_KIND] [-p FIRST_PORT] [-b \"clean slow10 slow30\"]" >&2
	exit 2
}
ROUNDS=5 N=800 PORT=18284 BUILDS="clean slow10 slow30" SETTLE=0.5
while getopts "r:n:p:b:h" opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	n) N=$OPTARG ;;
	p) PORT=$OPTARG ;;
	b) BUILDS=$OPTARG ;;
	*) usage ;;
	esac
done
for v in ROUNDS N PORT; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "measure-injected.sh: ${v} must be a positive integer, got '${!v}'" >&2; exit 2; }
done
# 4 connections per build, one per user (ab.yml's 4 VUs); hey sends n per connection.
mapfile -t USERS < <(sed 1d "$MF_DIR/users.csv")
CONNS=${#USERS[@]}
((CONNS == 4)) || { echo "measure-injected.sh: users.csv has $CONNS users, want 4" >&2; exit 2; }
((N % CONNS == 0)) || { echo "measure-injected.sh: -n must be a multiple of $CONNS (one hey per user)" >&2; exit 2; }
read -r -a BUILD_LIST <<<"$BUILDS"
[[ ${BUILD_LIST[0]} == clean ]] || { echo "measure-injected.sh: the first build must be clean (ratios are to it)" >&2; exit 2; }
for b in "${BUILD_LIST[@]}"; do
	[[ $b =~ ^[a-z0-9]+$ ]] || { echo "measure-injected.sh: build names are [a-z0-9]+ (they name databases), got '$b'" >&2; exit 2; }
	[[ -x $OUT/bin/miniflux-$b ]] || { echo "measure-injected.sh: $OUT/bin/miniflux-$b missing: run bench/miniflux/build.sh" >&2; exit 2; }
done

HEY=$(command -v hey || echo "$(go env GOPATH)/bin/hey")
[[ -x $HEY ]] || { echo "measure-injected.sh: hey not found (go install github.com/rakyll/hey@v0.1.5)" >&2; exit 2; }
DIR=$OUT/measure-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$DIR"
TICKS=$(getconf CLK_TCK)
# The four requests of one iteration of ab.yml, in its order.
KINDS=(me unread read counters)
declare -A PATH_OF=(
	[me]=/v1/me
	[unread]='/v1/entries?status=unread&limit=20&order=published_at&direction=desc'
	[read]='/v1/entries?status=read&limit=10&offset=100&order=published_at&direction=desc'
	[counters]=/v1/feeds/counters
)
declare -A PID PORT_OF
i=0
for b in "${BUILD_LIST[@]}"; do
	PORT_OF[$b]=$((PORT + i))
	i=$((i + 1))
done

# stop_servers: TERM, then KILL after 10 s; only the servers this script started.
stop_servers() {
	local b
	for b in "${!PID[@]}"; do
		kill -TERM "${PID[$b]}" 2>/dev/null || true
		for _ in $(seq 100); do
			kill -0 "${PID[$b]}" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "${PID[$b]}" 2>/dev/null || true
		wait "${PID[$b]}" 2>/dev/null || true
		unset "PID[$b]"
	done
}
# drop_dbs: the sides' databases, 31 MB each, are not kept.
drop_dbs() {
	local b
	for b in "${BUILD_LIST[@]}"; do
		psql_q -d postgres -c "DROP DATABASE IF EXISTS miniflux_m$b WITH (FORCE)" >/dev/null 2>&1 || true
	done
}
trap 'stop_servers; drop_dbs' EXIT
trap 'exit 130' INT TERM

url() { echo "http://127.0.0.1:${PORT_OF[$1]}"; }

start_server() { # start_server BUILD ROUND
	"$MF_DIR/serve.sh" "m$1" "$1" "${PORT_OF[$1]}" >"$DIR/server-r$2-$1.log" 2>&1 &
	PID[$1]=$! # serve.sh execs Miniflux: this is Miniflux's pid
	for _ in $(seq 300); do
		if curl -fs -o /dev/null "$(url "$1")/healthcheck"; then
			TAILGATE_SIDE=m$1 "$MF_DIR/verify.sh" >/dev/null
			return 0
		fi
		kill -0 "${PID[$1]}" 2>/dev/null || break
		sleep 0.1
	done
	echo "measure-injected.sh: $1 did not start on port ${PORT_OF[$1]}; see $DIR/server-r$2-$1.log" >&2
	exit 3
}

# check BUILD KIND: one request of KIND as the first user, with what ab.yml expects of it.
check() {
	local user=${USERS[0]%%,*} token=${USERS[0]#*,} body want got
	body=$(curl -fsS -H "X-Auth-Token: $token" "$(url "$1")${PATH_OF[$2]}")
	case $2 in
	me) want=$user got=$(jq -r .username <<<"$body") ;;
	unread | read) want=1000 got=$(jq -r .total <<<"$body") ;;
	counters) want=object got=$(jq -r '.unreads | type' <<<"$body") ;;
	esac
	[[ $got == "$want" ]] || { echo "measure-injected.sh: $1 ${PATH_OF[$2]}: got '$got', want '$want'" >&2; exit 3; }
}

# cpu_ns PID: the run time of the process's live threads, in ns (%.0f: mawk's %d stops at 2^31).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f", s}'; }
# cpu_ticks PID: utime + stime in clock ticks.
cpu_ticks() { sed 's/^.*) //' /proc/"$1"/stat | awk '{print $12 + $13}'; }

# load BUILD KIND TOTAL [PREFIX]: TOTAL requests of KIND, one hey (one
# connection) per user, all at once; hey's outputs to PREFIX-u<i>.txt
# (without PREFIX: discarded).
load() {
	local u out pids=()
	for u in "${!USERS[@]}"; do
		out=/dev/null
		[[ -n ${4:-} ]] && out=$4-u$u.txt
		"$HEY" -n $(($3 / CONNS)) -c 1 -H "X-Auth-Token: ${USERS[$u]#*,}" "$(url "$1")${PATH_OF[$2]}" >"$out" &
		pids+=($!)
	done
	for u in "${pids[@]}"; do wait "$u"; done
}

# ok_count FILE...: the 2xx responses hey reports.
ok_count() { cat "$@" | awk '/^ *\[2[0-9][0-9]\]/ {s += $2} END {print s + 0}'; }

# measure ROUND KIND: one kind on every build at once.
measure() {
	local r=$1 kind=$2 b
	declare -A c0 t0 lp
	for b in "${BUILD_LIST[@]}"; do c0[$b]=$(cpu_ns "${PID[$b]}") t0[$b]=$(cpu_ticks "${PID[$b]}"); done
	for b in "${BUILD_LIST[@]}"; do
		load "$b" "$kind" "$N" "$DIR/hey-r$r-$b-$kind" &
		lp[$b]=$!
	done
	for b in "${BUILD_LIST[@]}"; do wait "${lp[$b]}"; done
	sleep "$SETTLE" # every response is out; what the server still does after it (GC) is in
	for b in "${BUILD_LIST[@]}"; do
		local c1 t1 ok
		c1=$(cpu_ns "${PID[$b]}") t1=$(cpu_ticks "${PID[$b]}")
		ok=$(ok_count "$DIR/hey-r$r-$b-$kind"-u*.txt)
		if [[ $ok != "$N" ]]; then
			echo "measure-injected.sh: $b $kind: $ok of $N requests answered 2xx; see $DIR/hey-r$r-$b-$kind-u*.txt" >&2
			exit 3
		fi
		awk -v r="$r" -v b="$b" -v k="$kind" -v n="$N" -v c="$((c1 - c0[$b]))" -v t="$((t1 - t0[$b]))" -v hz="$TICKS" \
			'BEGIN {printf "%d\t%s\t%s\t%d\t%.2f\t%.0f\t%.1f\n", r, b, k, n, c / 1e6, t * 1000 / hz, c / 1e3 / n}' >>"$ROWS"
	done
}

"$MF_DIR/pg.sh" start >/dev/null
"$ROOT/bench/pocketbase/portfree.sh" "${PORT_OF[@]}"
for b in "${BUILD_LIST[@]}"; do
	rounds=$(cat "$OUT/bin/miniflux-$b.burn" 2>/dev/null || echo "0 (unpatched)")
	printf '%s\tburn_rounds=%s\tsha256=%.12s\n' "$b" "$rounds" "$(sha256sum "$OUT/bin/miniflux-$b" | cut -d' ' -f1)"
done >"$DIR/builds.txt"
ROWS=$DIR/rows.tsv
printf 'round\tbuild\tkind\trequests\tcpu_ms\tcpu_ms_ticks\tus_per_req\n' >"$ROWS"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds, $N requests per kind, closed, $CONNS connections per build (one per user)" | tee "$DIR/load.txt"
for ((r = 1; r <= ROUNDS; r++)); do
	for b in "${BUILD_LIST[@]}"; do start_server "$b" "$r"; done
	# warm-up, not measured: every kind checked, then a short burst of it, on every build
	for kind in "${KINDS[@]}"; do
		for b in "${BUILD_LIST[@]}"; do
			check "$b" "$kind"
			load "$b" "$kind" $((CONNS * 10))
		done
	done
	sleep "$SETTLE"
	for kind in "${KINDS[@]}"; do measure "$r" "$kind"; done
	stop_servers
	"$BENCH/effects-summary.sh" round "$ROWS" "$r"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$DIR/load.txt"

# Summary: per build, CPU per lifecycle (ms) and its ratio to clean of the
# same round, median [min–max] over the rounds.
"$BENCH/effects-summary.sh" total "$ROWS" "$BUILDS" "$DIR/effects.tsv" "Miniflux CPU per lifecycle (4 requests)" | tee "$DIR/summary.txt"
echo "builds: $(tr '\t\n' '  ' <"$DIR/builds.txt")" | tee -a "$DIR/summary.txt"
[[ -f $DIR/effects.tsv ]] && cp "$DIR/effects.tsv" "$OUT/effects.tsv"
echo "raw rows: $ROWS"
