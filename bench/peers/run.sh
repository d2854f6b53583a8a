#!/usr/bin/env bash
# Peer benchmark of tailgate's load generator: tailgate, bombardier, wrk, hey
# and vegeta against the same "ok" handler (bench/echo), closed loop, 64
# connections, server pinned to CPU 0 and generator to CPU 1, tools alternated
# within each round so they share the machine's drift. Prints per round and in
# summary the max req/s and the generator's CPU µs per request, and
# tailgate's ratios: per round, then median [min–max] over the rounds.
#
#   bench/peers/run.sh                 # 3 rounds × 10 s per tool
#   bench/peers/run.sh -r 1 -d 3       # quick check
#   bench/peers/run.sh -t "tailgate tailgate-nethttp nethttp wrk"   # tailgate's two clients vs bare net/http
#
# Raw output of every run goes to bench/out/peers-<time>/.
set -euo pipefail

usage() {
	cat <<EOF
usage: $0 [-r ROUNDS] [-d SECONDS] [-c CONNS] [-p PORT] [-t "TOOLS"]
  -r  rounds, each runs every tool once (default 3)
  -d  seconds each tool runs (default 10)
  -c  connections / virtual users (default 64)
  -p  loopback port of the echo server (default 18088)
  -t  tools, space separated, from: tailgate bombardier wrk hey vegeta
      tailgate-nethttp nethttp (default "tailgate bombardier wrk hey vegeta";
      tailgate-nethttp is tailgate with load.client: nethttp, nethttp the bare
      net/http floor)
EOF
	exit 2
}

ROUNDS=3 DURATION=10 CONNS=64 PORT=18088 TOOLS="tailgate bombardier wrk hey vegeta"
while getopts "r:d:c:p:t:h" opt; do
	case $opt in
	r) ROUNDS=$OPTARG ;;
	d) DURATION=$OPTARG ;;
	c) CONNS=$OPTARG ;;
	p) PORT=$OPTARG ;;
	t) TOOLS=$OPTARG ;;
	*) usage ;;
	esac
done
for v in r:ROUNDS d:DURATION c:CONNS p:PORT; do
	name=${v#*:}
	[[ ${!name} =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -${v%%:*} must be a positive integer, got '${!name}'" >&2; exit 2; }
done
for t in $TOOLS; do
	case $t in tailgate | bombardier | wrk | hey | vegeta | tailgate-nethttp | nethttp) ;; *) echo "run.sh: unknown tool '$t' (want tailgate, bombardier, wrk, hey, vegeta, tailgate-nethttp, nethttp)" >&2; exit 2 ;; esac
done
read -r -a TOOL_LIST <<<"$TOOLS"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GOBIN_DIR=$(go env GOPATH)/bin
URL=http://127.0.0.1:$PORT/
TICKS=$(getconf CLK_TCK)
OUT=$ROOT/bench/out/peers-$(date -u +%Y%m%dT%H%M%SZ)
WORK=$(mktemp -d)
ECHO_PID=

cleanup() {
	if [[ -n $ECHO_PID ]] && kill -0 "$ECHO_PID" 2>/dev/null; then
		kill "$ECHO_PID" 2>/dev/null || true
		wait "$ECHO_PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log() { echo "$*" >&2; }

# --- installing what is missing -------------------------------------------

as_root() {
	if [[ $(id -u) -eq 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		log "run.sh: need root (or sudo) to run: $*"
		exit 3
	fi
}

install_missing() {
	local pkgs=()
	command -v wrk >/dev/null || pkgs+=(wrk)
	command -v jq >/dev/null || pkgs+=(jq)
	command -v curl >/dev/null || pkgs+=(curl)
	command -v column >/dev/null || pkgs+=(bsdextrautils)
	command -v taskset >/dev/null || pkgs+=(util-linux)
	[[ -x /usr/bin/time ]] || pkgs+=(time)
	if ((${#pkgs[@]})); then
		log "installing ${pkgs[*]} with apt-get"
		as_root timeout 300 apt-get update -qq
		as_root timeout 300 apt-get install -y -qq "${pkgs[@]}" >/dev/null
	fi
	if [[ ! -x $GOBIN_DIR/hey ]]; then
		log "installing hey v0.1.5"
		(cd "$WORK" && timeout 300 go install github.com/rakyll/hey@v0.1.5)
	fi
	if [[ ! -x $GOBIN_DIR/bombardier ]]; then
		log "installing bombardier v1.2.6"
		(cd "$WORK" && timeout 300 go install github.com/codesenberg/bombardier@v1.2.6)
	fi
	if [[ ! -x $GOBIN_DIR/vegeta ]]; then
		log "installing vegeta v12.13.0 (about 1.5 min)"
		(cd "$WORK" && timeout 600 go install github.com/tsenart/vegeta/v12@v12.13.0)
	fi
}

# --- the target -------------------------------------------------------------

# served prints how many requests the echo server has answered so far.
served() {
	curl -fsS --max-time 5 "http://127.0.0.1:$PORT/__echo/count"
}

# cpu_ticks prints utime+stime of a process in clock ticks.
cpu_ticks() {
	awk '{print $14 + $15}' "/proc/$1/stat"
}

start_echo() {
	if curl -s --max-time 1 -o /dev/null "http://127.0.0.1:$PORT/"; then
		log "run.sh: port $PORT already answers; pick another with -p"
		exit 3
	fi
	taskset -c 0 "$WORK/echo" -addr "127.0.0.1:$PORT" 2>"$OUT/echo.log" &
	ECHO_PID=$!
	local i
	for i in $(seq 50); do
		served >/dev/null 2>&1 && return 0
		kill -0 "$ECHO_PID" 2>/dev/null || break
		sleep 0.1
	done
	log "run.sh: echo server did not come up on port $PORT:"
	cat "$OUT/echo.log" >&2
	exit 3
}

# --- one run of one tool ----------------------------------------------------

# timed runs a generator pinned to CPU 1 under /usr/bin/time, bounded in
# time; its CPU seconds (user sys wall) land in $base.time.
timed() {
	local base=$1
	shift
	taskset -c 1 /usr/bin/time -o "$base.time" -f "%U %S %e" \
		timeout -k 5 $((DURATION + 30)) "$@"
}

# Each run_<tool> writes raw output under $base and prints
# "<req/s> <requests the tool counted> <errors the tool counted>".

run_wrk() {
	local base=$1
	timed "$base" wrk -t1 -c"$CONNS" -d"${DURATION}s" "$URL" >"$base.out" 2>&1 || return 1
	local rps reqs errs
	rps=$(awk '/^Requests\/sec:/ {print $2}' "$base.out")
	reqs=$(awk '/ requests in / {print $1}' "$base.out")
	errs=$(awk '/Non-2xx or 3xx responses:/ {n += $NF} /Socket errors:/ {gsub(",", ""); n += $4 + $6 + $8 + $10} END {print n + 0}' "$base.out")
	echo "$rps $reqs $errs"
}

run_hey() {
	local base=$1
	# keep-alive is hey's default (-disable-keepalive turns it off)
	timed "$base" "$GOBIN_DIR/hey" -c "$CONNS" -z "${DURATION}s" -cpus 1 "$URL" >"$base.out" 2>&1 || return 1
	local rps
	rps=$(awk '/Requests\/sec:/ {print $2}' "$base.out")
	# "[200] N responses" under "Status code distribution", one line per
	# error message under "Error distribution"
	awk -v rps="$rps" '
		/^Status code distribution:/ {sec = "status"; next}
		/^Error distribution:/ {sec = "error"; next}
		/^[^ ]/ {sec = ""}
		sec == "status" && $1 == "[200]" {ok += $2; next}
		sec == "status" && $1 ~ /^\[[0-9]+\]$/ {bad += $2; next}
		sec == "error" && $1 ~ /^\[[0-9]+\]$/ {gsub(/[][]/, "", $1); bad += $1}
		END {print rps, ok + 0, bad + 0}' "$base.out"
}

run_bombardier() {
	local base=$1
	# fasthttp is bombardier's default client; -t is its request timeout
	timed "$base" "$GOBIN_DIR/bombardier" -c "$CONNS" -d "${DURATION}s" -t 10s -p r -o j "$URL" >"$base.json" 2>"$base.err" || return 1
	jq -r '.result | "\((.req2xx) / .timeTakenSeconds) \(.req2xx) \(.req1xx + .req3xx + .req4xx + .req5xx + .others)"' "$base.json"
}

run_vegeta() {
	local base=$1
	# the attack alone is timed; the report is built afterwards, off the clock
	echo "GET $URL" | timed "$base" "$GOBIN_DIR/vegeta" attack -rate=0 \
		-workers="$CONNS" -max-workers="$CONNS" -duration="${DURATION}s" >"$base.bin" 2>"$base.err" || return 1
	"$GOBIN_DIR/vegeta" report -type=json "$base.bin" >"$base.json"
	"$GOBIN_DIR/vegeta" report "$base.bin" >"$base.out"
	rm -f "$base.bin"
	jq -r '"\(.throughput) \(.status_codes["200"] // 0) \(.requests - (.status_codes["200"] // 0))"' "$base.json"
}

run_nethttp() {
	local base=$1
	timed "$base" "$WORK/nethttp" -url "$URL" -c "$CONNS" -d "${DURATION}s" >"$base.out" 2>&1 || return 1
	awk '$1 == "requests" {n = $2} $1 == "failed" {f = $2} $1 == "req/s" {r = $2} END {print r, n, f}' "$base.out"
}

# run_tailgate runs tailgate with the config of its client ($2: fast by
# default, or nethttp).
run_tailgate() {
	local base=$1 cfg=$WORK/tailgate${2:+-$2}.yml
	timed "$base" "$WORK/tailgate" run -c "$cfg" -o "$base.json" >"$base.out" 2>&1 || return 1
	jq -r '.runs[0] | "\(.metrics.requests_per_s) \(.requests.total - .requests.failed) \(.requests.failed)"' "$base.json"
}

run_tailgate-nethttp() { run_tailgate "$1" nethttp; }

# write_tailgate_config writes tailgate.yml (the default client) and
# tailgate-nethttp.yml (load.client: nethttp).
write_tailgate_config() {
	tailgate_config >"$WORK/tailgate.yml"
	tailgate_config "  client: nethttp" >"$WORK/tailgate-nethttp.yml"
}

tailgate_config() {
	cat <<EOF
name: peers
target:
  url: http://127.0.0.1:$PORT
load:
  model: closed
  vus: $CONNS
  warmup: 1s
  duration: ${DURATION}s
  runs: 1
${1:-}
scenarios:
  - name: get
    steps:
      - path: /
EOF
}

# measure runs one tool and appends a row to $OUT/rows.tsv:
# round tool req/s tool_reqs errors served gen_cpu_s wall_s cpu_us_per_req
# gen_cpu% srv_cpu% srv_us_per_req
measure() {
	local round=$1 tool=$2 base=$OUT/r$1-$2
	local before srv0 after srv1 figures
	before=$(served)
	srv0=$(cpu_ticks "$ECHO_PID")
	if ! figures=$("run_$tool" "$base"); then
		log "run.sh: $tool failed in round $round; raw output in $base.*"
		tail -5 "$base.out" "$base.err" 2>/dev/null >&2 || true
		exit 3
	fi
	srv1=$(cpu_ticks "$ECHO_PID")
	after=$(served)
	local rps reqs errs user sys wall
	read -r rps reqs errs <<<"$figures"
	if ! [[ $rps =~ ^[0-9.e+]+$ && $reqs =~ ^[0-9]+$ && $errs =~ ^[0-9]+$ ]]; then
		log "run.sh: could not read $tool's figures (got '$figures'); raw output in $base.*"
		exit 3
	fi
	read -r user sys wall <"$base.time"
	awk -v r="$round" -v t="$tool" -v rps="$rps" -v reqs="$reqs" -v errs="$errs" \
		-v n=$((after - before)) -v u="$user" -v s="$sys" -v w="$wall" \
		-v srv=$((srv1 - srv0)) -v hz="$TICKS" 'BEGIN {
		cpu = u + s
		printf "%s\t%s\t%.0f\t%d\t%d\t%d\t%.2f\t%.2f\t%.1f\t%.0f\t%.0f\t%.1f\n", r, t, rps, reqs, errs, n, cpu, w,
			(n > 0 ? cpu * 1e6 / n : 0), 100 * cpu / w, 100 * srv / hz / w, (n > 0 ? srv / hz * 1e6 / n : 0)
	}' >>"$OUT/rows.tsv"
	sleep 1 # let the closed sockets settle before the next tool
}

# --- reporting ----------------------------------------------------------------

HEADER="tool\treq/s\ttool_reqs\terrors\tserved\tgen_cpu_s\twall_s\tcpu_us/req\tgen_cpu%\tsrv_cpu%\tsrv_us/req"

print_round() {
	echo
	echo "round $1 (order: $2)"
	{
		echo -e "$HEADER"
		awk -F'\t' -v r="$1" '$1 == r {print $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\t" $8 "\t" $9 "\t" $10 "\t" $11 "\t" $12}' "$OUT/rows.tsv"
	} | column -t -s $'\t'
	has_tailgate || return 0
	local t line=""
	for t in $(peers); do
		line+="  tailgate/$t $(round_ratio "$1" "$t" 9)"
	done
	echo "cpu / req ratios this round:$line"
}

has_tailgate() { [[ " ${TOOL_LIST[*]} " == *" tailgate "* ]]; }

# peers lists the tools tailgate is compared with, bombardier and wrk first.
peers() {
	local t
	for t in bombardier wrk "${TOOL_LIST[@]}"; do
		[[ $t == tailgate || " ${TOOL_LIST[*]} " != *" $t "* ]] && continue
		echo "$t"
	done | awk '!seen[$0]++'
}

# stats prints "median min max" of column $2 of tool $1's rows.
stats() {
	awk -F'\t' -v t="$1" -v c="$2" '$2 == t {print $c}' "$OUT/rows.tsv" | median_range
}

# median_range reads numbers, one a line, and prints "median min max".
median_range() {
	sort -g | awk '{v[NR] = $1} END {
		if (NR == 0) { print "- - -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1], v[NR]
	}'
}

# round_ratio prints tailgate's column-$3 value divided by tool $2's in
# round $1.
round_ratio() {
	awk -F'\t' -v r="$1" -v t="$2" -v c="$3" '$1 == r && $2 == "tailgate" {a = $c} $1 == r && $2 == t {b = $c}
		END {if (a != "" && b > 0) printf "%.2f\n", a / b; else print "-"}' "$OUT/rows.tsv"
}

# round_ratios prints tailgate's column-$2 value divided by tool $1's, per
# round, then their median [min–max] over the rounds.
round_ratios() {
	local r per=()
	for ((r = 1; r <= ROUNDS; r++)); do per+=("$(round_ratio "$r" "$1" "$2")"); done
	local m lo hi
	read -r m lo hi <<<"$(printf '%s\n' "${per[@]}" | grep -v '^-$' | median_range)"
	if [[ $m == - ]]; then
		echo "-"
	else
		printf "%.2f [%.2f–%.2f]   (rounds: %s)\n" "$m" "$lo" "$hi" "${per[*]}"
	fi
}

print_summary() {
	echo
	echo "summary over $ROUNDS round(s) of ${DURATION}s, $CONNS connections: median [min–max]"
	{
		echo -e "tool\treq/s\tcpu_us/req\tgen_cpu%\tsrv_cpu%\tsrv_us/req"
		local t
		for t in "${TOOL_LIST[@]}"; do
			local q1 q2 q3 c1 c2 c3 g1 s1 u1
			read -r q1 q2 q3 <<<"$(stats "$t" 3)"
			read -r c1 c2 c3 <<<"$(stats "$t" 9)"
			read -r g1 _ _ <<<"$(stats "$t" 10)"
			read -r s1 _ _ <<<"$(stats "$t" 11)"
			read -r u1 _ _ <<<"$(stats "$t" 12)"
			printf "%s\t%.0f [%.0f–%.0f]\t%.1f [%.1f–%.1f]\t%.0f\t%.0f\t%.1f\n" "$t" "$q1" "$q2" "$q3" "$c1" "$c2" "$c3" "$g1" "$s1" "$u1"
		done
	} | column -t -s $'\t'
	has_tailgate || return 0
	echo
	echo "tailgate's ratios within each round: median [min–max] over rounds (rounds: per round)"
	local t
	for t in $(peers); do
		echo "  cpu / req  tailgate / $t: $(round_ratios "$t" 9)"
	done
	for t in $(peers); do
		echo "  max rate   tailgate / $t: $(round_ratios "$t" 3)"
	done
	echo "  targets: cpu / req ≤ 1.00 vs bombardier and ≤ 2.00 vs wrk; max rate ≥ 1.00 vs hey and vegeta"
}

# --- main ---------------------------------------------------------------------

mkdir -p "$OUT"
install_missing
log "building echo and tailgate"
(cd "$ROOT" && go build -o "$WORK/echo" ./bench/echo && go build -o "$WORK/tailgate" ./cmd/tailgate &&
	go build -o "$WORK/nethttp" ./bench/peers/nethttp)
write_tailgate_config
cp "$WORK/tailgate.yml" "$WORK/tailgate-nethttp.yml" "$OUT/"
start_echo
{
	echo "date: $(date -u +%FT%TZ)  host cores: $(nproc --all)  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "wrk: $(wrk -v 2>&1 | head -1)"
	go version -m "$GOBIN_DIR/hey" | awk 'NR <= 2'
	go version -m "$GOBIN_DIR/vegeta" | awk '$1 == "mod"'
	go version -m "$GOBIN_DIR/bombardier" | awk '$1 == "mod" || $2 == "github.com/valyala/fasthttp"'
} >"$OUT/versions.txt"
log "results in $OUT"
: >"$OUT/rows.tsv"
n=${#TOOL_LIST[@]}
for ((round = 1; round <= ROUNDS; round++)); do
	order=()
	for ((i = 0; i < n; i++)); do order+=("${TOOL_LIST[$(((round - 1 + i) % n))]}"); done
	for tool in "${order[@]}"; do
		log "round $round/$ROUNDS: $tool"
		measure "$round" "$tool"
	done
	print_round "$round" "${order[*]}" | tee -a "$OUT/summary.txt"
done
print_summary | tee -a "$OUT/summary.txt"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/summary.txt"
