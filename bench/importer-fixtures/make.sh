#!/usr/bin/env bash
# Regenerates the importers' test files that are real output of real tools:
# ab, hey, Artillery (2.x, and 1.x installed into a temporary folder with
# npm), vegeta, wrk and bombardier, each run against
# bench/importer-fixtures/target on loopback. Every run is bounded by a
# request count or a duration.
#
#   bench/importer-fixtures/make.sh          # writes into internal/importer/*/testdata
#
# Needs: go, ab (apache2-utils), hey v0.1.5, vegeta v12 and bombardier v1.2.6
# (go install), wrk, artillery 2 and npm. A tool that is missing is skipped with a message.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
imp=$root/internal/importer
port=18091
url=http://127.0.0.1:$port
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

have() { command -v "$1" >/dev/null 2>&1 || { echo "make.sh: $1 not found, skipping its files" >&2; return 1; }; }
PATH=$PATH:$HOME/go/bin

go build -o "$work/target" ./bench/importer-fixtures/target
start_target() { # start_target PORT [-close]
	"$work/target" -addr "127.0.0.1:$1" "${@:2}" &
	pids+=($!)
	for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done
	echo "make.sh: target on port $1 did not start" >&2; exit 1
}
start_target $port
down=http://127.0.0.1:$((port + 1)) # closes every connection
start_target $((port + 1)) -close
hang=http://127.0.0.1:$((port + 3)) # never answers
start_target $((port + 3)) -hold
mkdir -p "$imp"/{ab,hey,artillery,vegeta,wrk}/testdata

if have ab; then
	# One run in all three of ab's forms: the text report, -e and -g.
	ab -n 400 -c 4 -e "$imp/ab/testdata/percentiles.csv" -g "$imp/ab/testdata/gnuplot.tsv" "$url/mixed" >"$imp/ab/testdata/ab.txt"
	# A log of two runs, as a sweep script leaves it.
	{
		for c in 1 4; do
			echo "\$ ab -n 200 -c $c $url/ok"
			ab -n 200 -c "$c" "$url/ok" 2>&1
		done
	} >"$imp/ab/testdata/sweep.txt"
	ab -n 10 -c 1 "http://127.0.0.1:$((port + 2))/" >"$imp/ab/testdata/refused.txt" 2>&1 || true
	# Edge runs: 3 requests (ab -e then writes garbage in its top rows),
	# every response a 404, every connection reset (-r keeps going), and
	# a report cut in the middle.
	ab -n 3 -c 1 -e "$imp/ab/testdata/percentiles-n3.csv" "$url/ok" >"$imp/ab/testdata/n3.txt"
	ab -n 50 -c 2 "$url/nope" >"$imp/ab/testdata/notfound.txt"
	ab -r -n 20 -c 2 "$down/" >"$imp/ab/testdata/resets.txt" 2>&1
	ab -n 200 -c 4 "$url/mixed" | head -c 700 >"$imp/ab/testdata/cut.txt"
fi

if have hey; then
	hey -n 400 -c 4 "$url/mixed" >"$imp/hey/testdata/hey.txt"
	hey -n 400 -c 4 -o csv "$url/mixed" >"$imp/hey/testdata/hey.csv"
	hey -n 20 -c 2 "http://127.0.0.1:$((port + 2))/" >"$imp/hey/testdata/refused.txt" || true
	hey -n 50 -c 2 "$url/nope" >"$imp/hey/testdata/notfound.txt"
	hey -n 20 -c 2 -t 1 "$hang/" >"$imp/hey/testdata/timeout.txt"
	hey -n 20 -c 2 -t 1 -o csv "$hang/" >"$imp/hey/testdata/timeout.csv"
fi

if have vegeta; then
	echo "GET $url/mixed" | vegeta attack -rate 100 -duration 4s -name mixed >"$work/results.bin"
	vegeta encode -to csv <"$work/results.bin" >"$imp/vegeta/testdata/results.csv"
	vegeta report -type='hist[0,5ms,10ms,20ms]' <"$work/results.bin" >"$imp/vegeta/testdata/report.hist"
	echo "GET $hang/" | vegeta attack -rate 5 -duration 1s -timeout 1s >"$work/timeout.bin"
	vegeta report <"$work/timeout.bin" >"$imp/vegeta/testdata/report-timeout.txt"
	vegeta report -type=json <"$work/timeout.bin" >"$imp/vegeta/testdata/report-timeout.json"
	echo "GET $down/" | vegeta attack -rate 20 -duration 1s | vegeta report >"$imp/vegeta/testdata/report-reset.txt"
fi

if have wrk; then
	{
		for c in 2 8; do
			echo "\$ wrk -t2 -c$c -d2s --latency $url/ok"
			wrk -t2 -c"$c" -d2s --latency "$url/ok"
		done
	} >"$imp/wrk/testdata/sweep.txt"
	wrk -t1 -c2 -d2s --latency "$down/" >"$imp/wrk/testdata/refused.txt"
	wrk -t1 -c2 -d1s "$url/nope" >"$imp/wrk/testdata/notfound.txt"
	wrk -t1 -c2 -d3s --timeout 1s --latency "$hang/" >"$imp/wrk/testdata/silent.txt"
	cat >"$work/done.lua" <<'LUA'
done = function(summary, latency, requests)
  io.write(string.format('{"requests":%d,"errors":{"status":%d,"timeout":%d},"latency":{"mean":%f,"max":%d,"p99":%d}}\n',
    summary.requests, summary.errors.status, summary.errors.timeout, latency.mean, latency.max, latency:percentile(99)))
end
LUA
	wrk -t1 -c2 -d1s -s "$work/done.lua" "$url/mixed" >"$imp/wrk/testdata/lua-done.txt"
fi

if have bombardier; then
	b=$imp/bombardier/testdata
	mkdir -p "$b"
	bombardier -c 4 -n 400 -l -p i,r "$url/mixed" >"$b/mixed.txt"
	bombardier -c 4 -n 400 -l -p r -o json "$url/mixed" >"$b/mixed.json"
	bombardier -c 4 -n 300 -l "$url/mixed" >"$b/default.txt" 2>/dev/null
	bombardier -c 4 -n 400 -p r "$url/mixed" >"$b/mixed-nolat.txt"
	bombardier -c 2 -n 20 -l -p i,r "$down/" >"$b/reset.txt"
	bombardier -c 2 -n 20 -l -p r -o json "$down/" >"$b/reset.json"
	bombardier -c 4 -d 2s -l -p i,r "$url/ok" >"$b/duration.txt"
	bombardier -c 4 -d 2s -l -p r -o json "$url/ok" >"$b/duration.json"
fi

export ARTILLERY_DISABLE_TELEMETRY=true
cat >"$work/artillery.yml" <<YML
config:
  target: "$url"
  phases:
    - duration: 4
      arrivalRate: 10
  ensure:
    p95: 200
    maxErrorRate: 1
scenarios:
  - flow:
      - get:
          url: "/mixed"
      - get:
          url: "/ok"
YML
if have artillery; then
	(cd "$work" && artillery run --output "$imp/artillery/testdata/v2.json" artillery.yml >/dev/null) || true
fi
# A service that resets every connection: no request gets a response.
cat >"$work/artillery-down.yml" <<YML
config:
  target: "$down"
  phases:
    - duration: 2
      arrivalRate: 10
scenarios:
  - flow:
      - get:
          url: "/mixed"
YML
if have artillery; then
	(cd "$work" && artillery run --output "$imp/artillery/testdata/v2-reset.json" artillery-down.yml >/dev/null) || true
fi
if have npm; then
	mkdir -p "$work/artillery1"
	if (cd "$work/artillery1" && npm install --no-audit --no-fund --loglevel=error artillery@1.7.9 >/dev/null); then
		(cd "$work" && artillery1/node_modules/.bin/artillery run --output "$imp/artillery/testdata/v1.json" artillery.yml >/dev/null) || true
		(cd "$work" && artillery1/node_modules/.bin/artillery run --output "$imp/artillery/testdata/v1-reset.json" artillery-down.yml >/dev/null) || true
	fi
fi
echo "make.sh: test files written under $imp/*/testdata" >&2
