#!/usr/bin/env bash
# The history of main on real data.
#
# Builds tailgate, makes a throw-away git repository in a temporary directory
# with a benchmark of the embedded demo service (started by tailgate on a free
# loopback port, as the demo does), and records JOBS jobs on its main branch
# the way the record workflow does: one commit per job, `tailgate baseline
# record`, then a commit of baselines/ (the baseline and the history beside
# it). Two steps are injected: from job STEP1 on the service does SLOW1 more
# work per request, from STEP2 on SLOW2 (the demo's --slowdown); each step is
# a commit that changes the service's start command, which is not part of the
# benchmark definition, so it reads as a code change. Then it runs
# `tailgate history --html` and screenshots the trend page in headless
# Chromium at 1280 px and 390 px wide, in the light and the dark theme.
#
#   bench/history/run.sh                 # 30 jobs, about 25 minutes on a loaded 2-core machine
#   JOBS=12 STEP1=5 STEP2=9 SLOW1=10% SLOW2=25% DURATION=1s RUNS=3 bench/history/run.sh
#
# Output in bench/out/history/: history.txt (the terminal report and exit
# code), trend.html, trend-{1280,390}[-dark].png, and api.history.jsonl.
#
# Load goes only to the demo service on 127.0.0.1; each job is bounded (RUNS
# runs of two DURATION phases after a 300 ms warm-up) and runs under nice.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/bench/out/history}
jobs=${JOBS:-30}
step1=${STEP1:-11} slow1=${SLOW1:-50%}
step2=${STEP2:-21} slow2=${SLOW2:-150%}
duration=${DURATION:-2s} runs=${RUNS:-5}
chromium=${CHROMIUM:-/usr/bin/chromium}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building tailgate" >&2
(cd "$root" && go build -o "$work/tailgate" ./cmd/tailgate)
tg=$work/tailgate

repo=$work/repo
git init -q -b main "$repo"
git -C "$repo" config user.name bench
git -C "$repo" config user.email bench@example.invalid

# config SLOWDOWN writes the benchmark; only the start command changes.
config() {
	cat >"$repo/tailgate.yml" <<EOF
name: api
seed: 1
target:
  url: http://127.0.0.1:{{port}}
  start:
    command: ["$tg", demo-serve, --addr, "127.0.0.1:{{port}}", --slowdown, "$1"]
  ready: {path: /health, timeout: 20s, interval: 20ms}
dataset:
  reset: {request: {method: POST, path: /reset}}
  verify: {request: {path: /count}, expect: {count: 3}}
drain:
  probe: {path: /stats}
  until: {pending: 0}
  quiet: 200ms
  timeout: 20s
load:
  warmup: 300ms
  duration: $duration
  runs: $runs
  phases:
    - {name: capacity, model: closed, vus: 2}
    - {name: latency, model: open, rate: 10/s, max_inflight: 64}
scenarios:
  - name: lifecycle
    steps:
      - {name: create, method: POST, path: /complaints, json: {title: "complaint {{seq}}", body: "{{randString 32}}"}, status: 201, save: {id: id}}
      - {name: assign, method: POST, path: "/complaints/{{.id}}/assign", json: {assignee: "agent-{{randInt 1 9}}"}}
      - {name: resolve, method: POST, path: "/complaints/{{.id}}/resolve", expect: {state: RESOLVED}}
      - {name: search, path: "/complaints/search?q=complaint"}
gate:
  metrics: [iterations_per_s, latency_p95_ms, request_error_pct, lifecycle_success_pct, cpu_ms_per_iteration]
  min_effect: {cpu_ms_per_iteration: 3, iterations_per_s: 3}
EOF
}

for j in $(seq 1 "$jobs"); do
	slow=0%
	[ "$j" -ge "$step1" ] && slow=$slow1
	[ "$j" -ge "$step2" ] && slow=$slow2
	config "$slow"
	echo "job $j of $jobs: service --slowdown $slow" >"$repo/CHANGES"
	git -C "$repo" add -A
	git -C "$repo" commit -q -m "job $j: slowdown $slow"
	sha=$(git -C "$repo" rev-parse HEAD)
	(cd "$repo" && nice -n 15 "$tg" baseline record -c tailgate.yml -q --commit "$sha" --ref refs/heads/main --job "job-$j" >"$work/record.log" 2>&1) ||
		{ cat "$work/record.log" >&2; exit 1; }
	git -C "$repo" add baselines
	git -C "$repo" commit -q -m "tailgate: record baseline for $sha [skip ci]"
	echo "  job $j (slowdown $slow): $(tail -1 "$work/record.log")" >&2
done

code=0
(cd "$repo" && "$tg" history -c tailgate.yml --html "$out/trend.html") >"$out/history.txt" 2>&1 || code=$?
echo "exit code $code" >>"$out/history.txt"
cp "$repo/baselines/api.history.jsonl" "$out/"
cat "$out/history.txt"

shot() {
	local png=$1 width=$2
	shift 2
	"$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$(mktemp -d -p "$work")" \
		--hide-scrollbars --window-size="$width,3000" "$@" --screenshot="$png" "file://$out/trend.html" >/dev/null 2>&1
	echo "  $png" >&2
}
if [ -x "$chromium" ]; then
	for w in 1280 390; do
		shot "$out/trend-$w.png" "$w"
		shot "$out/trend-$w-dark.png" "$w" --force-dark-mode --blink-settings=preferredColorScheme=0
	done
fi
