#!/usr/bin/env bash
# The injected regressions as a peer tool sees them, without tailgate: the
# server CPU per lifecycle of each PocketBase build, measured with hey.
#
# Each round starts every build afresh (its own port, its own copy of the
# golden data dir) and measures them side by side: for each of the
# lifecycle's five requests (create, get, assign, resolve, search) it resets
# every dataset, then sends N requests of that kind with one hey per build,
# all at once (closed-loop at a fixed concurrency, as the benchmark's
# capacity phase runs, or with -q at a fixed rate), and reads each server's CPU time before and
# after (the sum of its threads' schedstat run time, and utime+stime from
# /proc/<pid>/stat as a cross-check). Builds measured at the same moment
# share the machine's state: on a shared machine the CPU cost of the same
# work drifts by more than the effects measured here. Processes are new in
# every round, so a difference between two processes of one build shows up
# as spread between rounds rather than as a fixed bias.
#
# CPU per lifecycle = the sum over the five kinds of CPU per request. As in
# the tailgate lifecycle every request is a signed-in user's: hey sends the
# token of a login made once per server start (users.csv's first user,
# password PB_BENCH_PASSWORD, see password.sh), and creates complaints in
# that user's name. get, assign and resolve act on one record created for
# them; search lists that record's agent's resolved complaints.
#
#   bench/pocketbase/measure-injected.sh                # 5 rounds, 1600 requests per kind, 8 connections per build
#   bench/pocketbase/measure-injected.sh -q 100 -n 500  # at a fixed rate instead: 500 requests per kind at 100/s
#   bench/pocketbase/measure-injected.sh -r 3 -n 800
#   bench/pocketbase/measure-injected.sh -a -r 10       # builds one after another, the order reversed every round
#
# The default is closed-loop at the concurrency of the benchmark's capacity
# phase (8), whose CPU per lifecycle the gate judges: the CPU a request
# costs falls as concurrency rises (a fixed cost is a larger share of a
# cheaper lifecycle), so the injected effect is measured where it is gated.
#
# With -a the builds take turns instead of running at once: for each kind
# one build is loaded while the others idle, in the order of -b, reversed
# every other round (so that neither build always comes first). Each build
# then has the machine to itself, as an A/B whose sides alternate; a Go
# server with idle cores costs more CPU per request than one sharing them
# (its scheduler spins), so the two modes need not agree.
#
# Prints per build the CPU per lifecycle, median [min–max] over the rounds,
# and its ratio to clean within each round. Raw rows and hey outputs go to
# bench/out/pocketbase/measure-<time>/; the ratios also to
# bench/out/pocketbase/effects.tsv, which evidence.sh prints. Needs hey
# (go install github.com/rakyll/hey@v0.1.5), jq, curl, and build.sh run.
set -euo pipefail

usage() {
	echo "usage: $0 [-a] [-r ROUNDS] [-n REQUESTS_PER_KIND] [-q RATE_PER_S | -c CONNECTIONS] [-p FIRST_PORT] [-b \"clean slow10 slow30\"]" >&2
	exit 2
}
ROUNDS=5 N=1600 RATE=0 CONC=8 PORT=18194 BUILDS="clean slow10 slow30" SETTLE=3.5 TURNS=0
while getopts "ar:n:q:c:p:b:h" opt; do
	case $opt in
	a) TURNS=1 ;;
	r) ROUNDS=$OPTARG ;;
	n) N=$OPTARG ;;
	q) RATE=$OPTARG CONC=0 ;;
	c) CONC=$OPTARG RATE=0 ;;
	p) PORT=$OPTARG ;;
	b) BUILDS=$OPTARG ;;
	*) usage ;;
	esac
done
for v in ROUNDS N PORT; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "measure-injected.sh: ${v} must be a positive integer, got '${!v}'" >&2; exit 2; }
done
for v in RATE CONC; do
	[[ ${!v} =~ ^[0-9]+$ ]] || { echo "measure-injected.sh: ${v} must be a positive integer, got '${!v}'" >&2; exit 2; }
done
((RATE > 0 || CONC > 0)) || { echo "measure-injected.sh: -q and -c must be positive" >&2; exit 2; }
((CONC == 0 || N % CONC == 0)) || { echo "measure-injected.sh: -n must be a multiple of -c (hey sends n/c per connection)" >&2; exit 2; }
((RATE % 2 == 0)) || { echo "measure-injected.sh: -q must be even (two hey workers share it)" >&2; exit 2; }
read -r -a BUILD_LIST <<<"$BUILDS"
[[ ${BUILD_LIST[0]} == clean ]] || { echo "measure-injected.sh: the first build must be clean (ratios are to it)" >&2; exit 2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BENCH=$ROOT/bench
# shellcheck source=bench/pocketbase/password.sh
source "$ROOT/bench/pocketbase/password.sh"
USER_EMAIL=$(sed -n 2p "$ROOT/bench/pocketbase/users.csv" | cut -d, -f1)
HEY=$(command -v hey || echo "$(go env GOPATH)/bin/hey")
[[ -x $HEY ]] || { echo "measure-injected.sh: hey not found (go install github.com/rakyll/hey@v0.1.5)" >&2; exit 2; }
OUT=$ROOT/bench/out/pocketbase/measure-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
TICKS=$(getconf CLK_TCK)
declare -A PID PORT_OF TOKEN UID_OF
i=0
for b in "${BUILD_LIST[@]}"; do
	PORT_OF[$b]=$((PORT + i))
	i=$((i + 1))
done

stop_servers() {
	local b
	for b in "${!PID[@]}"; do
		if kill -0 "${PID[$b]}" 2>/dev/null; then
			kill -TERM "${PID[$b]}" 2>/dev/null || true
			wait "${PID[$b]}" 2>/dev/null || true
		fi
		unset "PID[$b]"
	done
}
trap stop_servers EXIT
trap 'exit 130' INT TERM

url() { echo "http://127.0.0.1:${PORT_OF[$1]}"; }
rec() { echo "$(url "$1")/api/collections/complaints/records"; }

start_server() { # start_server BUILD ROUND
	"$ROOT/bench/pocketbase/serve.sh" "$1" "${PORT_OF[$1]}" >"$OUT/server-r$2-$1.log" 2>&1 &
	PID[$1]=$!
	for _ in $(seq 100); do
		if curl -fs -o /dev/null "$(url "$1")/api/health"; then
			login "$1"
			(($2 == 1)) && curl -fsS "$(url "$1")/bench/info" | jq -r '"\(.build)\tburn_rounds=\(.burn_rounds)"' >>"$OUT/builds.txt"
			return 0
		fi
		kill -0 "${PID[$1]}" 2>/dev/null || break
		sleep 0.1
	done
	echo "measure-injected.sh: $1 did not start on port ${PORT_OF[$1]}; see $OUT/server-r$2-$1.log" >&2
	exit 3
}

# cpu_ns PID: the run time of the process's live threads, in ns (%.0f: mawk's %d stops at 2^31).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f", s}'; }
# cpu_ticks PID: utime + stime in clock ticks.
cpu_ticks() { sed 's/^.*) //' /proc/"$1"/stat | awk '{print $12 + $13}'; }

# login BUILD: signs the first user in on BUILD's server; keeps the token.
login() {
	local r
	r=$(jq -n --arg u "$USER_EMAIL" --arg p "$PB_BENCH_PASSWORD" '{identity: $u, password: $p}' |
		curl -fsS -H 'Content-Type: application/json' -d @- "$(url "$1")/api/collections/users/auth-with-password") ||
		{ echo "measure-injected.sh: $1: login as $USER_EMAIL failed (PB_BENCH_PASSWORD not the golden dir's? run build.sh)" >&2; exit 3; }
	TOKEN[$1]=$(jq -r .token <<<"$r")
	UID_OF[$1]=$(jq -r .record.id <<<"$r")
}

# api BUILD CURL_ARGS...: a JSON request as BUILD's signed-in user.
api() {
	local b=$1
	shift
	curl -fsS -H 'Content-Type: application/json' -H "Authorization: Bearer ${TOKEN[$b]}" "$@"
}

# setup BUILD KIND: puts BUILD's dataset into its golden state plus what
# KIND acts on; prints the record id, if any.
setup() {
	api "$1" -X POST "$(url "$1")/bench/reset" >/dev/null
	case $2 in
	create) ;;
	*)
		local id
		id=$(api "$1" -X POST -d '{"title":"measured","body":"peer tool","state":"open","reporter":"'"${UID_OF[$1]}"'"}' "$(rec "$1")" | jq -r .id)
		if [[ $2 == search ]]; then
			api "$1" -X PATCH -d '{"state":"resolved","assignee":"agent-hey"}' "$(rec "$1")/$id" >/dev/null
		fi
		echo "$id"
		;;
	esac
}

# load BUILD KIND ID FILE: N requests of KIND at RATE/s with hey.
load() {
	local r
	r=$(rec "$1")
	local -a args=(-n "$N" -T application/json -H "Authorization: Bearer ${TOKEN[$1]}")
	if ((CONC > 0)); then args+=(-c "$CONC"); else args+=(-c 2 -q $((RATE / 2))); fi
	case $2 in
	create) args+=(-m POST -d '{"title":"peer complaint","body":"the printer jams","state":"open","reporter":"'"${UID_OF[$1]}"'"}' "$r") ;;
	get) args+=("$r/$3") ;;
	assign) args+=(-m PATCH -d '{"state":"assigned","assignee":"agent-hey"}' "$r/$3") ;;
	resolve) args+=(-m PATCH -d '{"state":"resolved"}' "$r/$3") ;;
	search) args+=("$r?filter=(assignee%3D%27agent-hey%27%26%26state%3D%27resolved%27)&sort=-updated&perPage=10") ;;
	esac
	"$HEY" "${args[@]}" >"$4"
}

# ok_count FILE: the 2xx responses hey reports.
ok_count() { awk '/^ *\[2[0-9][0-9]\]/ {s += $2} END {print s + 0}' "$1"; }

# measure ROUND KIND BUILD...: one kind on the builds named, at once.
measure() {
	local r=$1 kind=$2 b
	shift 2
	declare -A id c0 t0 hp
	for b in "$@"; do id[$b]=$(setup "$b" "$kind"); done
	for b in "$@"; do c0[$b]=$(cpu_ns "${PID[$b]}") t0[$b]=$(cpu_ticks "${PID[$b]}"); done
	for b in "$@"; do
		load "$b" "$kind" "${id[$b]}" "$OUT/hey-r$r-$b-$kind.txt" &
		hp[$b]=$!
	done
	for b in "$@"; do wait "${hp[$b]}"; done
	sleep "$SETTLE" # PocketBase writes its request log in batches, at the latest 3 s after the last request
	for b in "$@"; do
		local c1 t1 ok h=$OUT/hey-r$r-$b-$kind.txt
		c1=$(cpu_ns "${PID[$b]}") t1=$(cpu_ticks "${PID[$b]}")
		ok=$(ok_count "$h")
		if [[ $ok != "$N" ]]; then
			echo "measure-injected.sh: $b $kind: $ok of $N requests answered 2xx; see $h" >&2
			exit 3
		fi
		awk -v r="$r" -v b="$b" -v k="$kind" -v n="$N" -v c="$((c1 - c0[$b]))" -v t="$((t1 - t0[$b]))" -v hz="$TICKS" \
			'BEGIN {printf "%d\t%s\t%s\t%d\t%.2f\t%.0f\t%.1f\n", r, b, k, n, c / 1e6, t * 1000 / hz, c / 1e3 / n}' >>"$ROWS"
	done
}

"$ROOT/bench/pocketbase/portfree.sh" "${PORT_OF[@]}"
ROWS=$OUT/rows.tsv
printf 'round\tbuild\tkind\trequests\tcpu_ms\tcpu_ms_ticks\tus_per_req\n' >"$ROWS"
if ((CONC > 0)); then how="closed, $CONC connections per build"; else how="$RATE/s per build"; fi
((TURNS)) && how+=", builds taking turns" || how+=", builds at once"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds, $N requests per kind, $how" | tee "$OUT/load.txt"
KINDS=(create get assign resolve search)
for ((r = 1; r <= ROUNDS; r++)); do
	for b in "${BUILD_LIST[@]}"; do start_server "$b" "$r"; done
	# warm-up, not measured: one short burst of every kind on every build
	for kind in "${KINDS[@]}"; do
		for b in "${BUILD_LIST[@]}"; do
			id=$(setup "$b" "$kind")
			N=50 load "$b" "$kind" "$id" /dev/null
		done
	done
	sleep "$SETTLE"
	order=("${BUILD_LIST[@]}")
	if ((TURNS && r % 2 == 0)); then for ((i = 0; i < ${#BUILD_LIST[@]}; i++)); do order[i]=${BUILD_LIST[-1 - i]}; done; fi
	for kind in "${KINDS[@]}"; do
		if ((TURNS)); then
			for b in "${order[@]}"; do measure "$r" "$kind" "$b"; done
		else
			measure "$r" "$kind" "${BUILD_LIST[@]}"
		fi
	done
	stop_servers
	"$BENCH/effects-summary.sh" round "$ROWS" "$r"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/load.txt"

# Summary: per build, CPU per lifecycle (ms) and its ratio to clean of the
# same round, median [min–max] over the rounds.
"$BENCH/effects-summary.sh" total "$ROWS" "$BUILDS" "$OUT/effects.tsv" "CPU per lifecycle (5 requests)" | tee "$OUT/summary.txt"
echo "builds: $(tr '\t\n' '  ' <"$OUT/builds.txt")" | tee -a "$OUT/summary.txt"
cp "$OUT/effects.tsv" "$ROOT/bench/out/pocketbase/effects.tsv"
echo "raw rows: $ROWS"
