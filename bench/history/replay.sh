#!/usr/bin/env bash
# The docs' history CLI form (docs/history.md) replayed push by push on a
# repository whose benchmark file names ab.base.ref (issue 45): a throw-away
# git repository of the embedded demo service gets COMMITS commits (13),
# the first tagged release (the file's ab.base.ref); from commit STEP_AT (7)
# on, the service does STEP (100 %) more CPU work per request. Each commit
# after the first runs, as a push to main would:
#
#   tailgate ab --base-ref HEAD~1 --history main.history.jsonl
#
# then `tailgate history` names the culprit. The script checks that every
# link's parent is the commit its job built (HEAD~1, not the file's
# release) and that the culprit named is commit STEP_AT alone.
#
#   bench/history/replay.sh          # about 5 minutes on a loaded 2-core machine
#
# Output in bench/out/history-replay/: push-N.txt (each job's output, exit
# code and wall time), main.history.jsonl, history.txt, summary.txt.
# Load goes only to the demo service on 127.0.0.1 (free ports); each job
# is bounded by ab.max_blocks and ab.max_time and runs under nice.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/bench/out/history-replay}
commits=${COMMITS:-13} step_at=${STEP_AT:-7} step=${STEP:-100%}
rm -rf "$out" && mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
(cd "$root" && go build -o "$work/bin/tailgate" ./cmd/tailgate)
# On PATH: the sealed sides see /tmp as a layer of their own, and
# resolve programs as at the job's start.
export PATH=$work/bin:$PATH
tg=$work/bin/tailgate repo=$work/repo hist=$out/main.history.jsonl
git init -q -b main "$repo"
git -C "$repo" config user.name bench
git -C "$repo" config user.email bench@example.invalid
cat >"$repo/tailgate.yml" <<YML
name: replay
seed: 1
target:
  url: http://127.0.0.1:{{port}}
  start: {command: 'exec tailgate demo-serve --addr 127.0.0.1:{{port}} --work 2000 --slowdown "\$(cat out/slowdown)"'}
  ready: {path: /health, timeout: 20s, interval: 20ms}
build: {command: mkdir -p out && cp slowdown out/slowdown}
ab: {base: {ref: release}, min_blocks: 3, max_blocks: 8, max_time: 60s}
load: {model: closed, vus: 2, warmup: 200ms, duration: 1s}
scenarios: [{steps: [{path: /count}]}]
gate:
  metrics: [cpu_ms_per_iteration]
  min_effect: {cpu_ms_per_iteration: 20}
YML
echo "out/" >"$repo/.gitignore"
mkdir "$work/runner"
export XDG_CACHE_HOME=$work/cache RUNNER_TEMP=$work/runner
declare -a sha
: >"$out/summary.txt"
for i in $(seq 0 $((commits - 1))); do
	slow=0%
	[ "$i" -ge "$step_at" ] && slow=$step
	echo "$slow" >"$repo/slowdown"
	echo "commit $i: slowdown $slow" >"$repo/CHANGES"
	git -C "$repo" add -A && git -C "$repo" commit -q -m "commit $i: slowdown $slow"
	sha[i]=$(git -C "$repo" rev-parse HEAD)
	if [ "$i" -eq 0 ]; then
		git -C "$repo" tag release
		continue
	fi
	start=$(date +%s) code=0
	(cd "$repo" && nice -n 10 "$tg" ab -c tailgate.yml -q --base-ref HEAD~1 --history "$hist" --job "push-$i") >"$out/push-$i.txt" 2>&1 || code=$?
	echo "exit $code, $(($(date +%s) - start)) s" >>"$out/push-$i.txt"
	built=$(grep -o 'base: built from HEAD~1 at [0-9a-f]*' "$out/push-$i.txt" | awk '{print $NF}' || true)
	verdict=pass
	[ "$code" -eq 1 ] && verdict=regression
	[ "$code" -gt 1 ] && verdict="error $code"
	ok=yes
	[ "$built" = "${sha[i - 1]:0:12}" ] || ok=NO
	printf 'push %2d %.12s slowdown %-4s: %-10s built %s (HEAD~1 %.12s: %s)\n' "$i" "${sha[i]}" "$slow" "$verdict" "$built" "${sha[i - 1]}" "$ok" | tee -a "$out/summary.txt"
done
code=0
"$tg" history --history "$hist" >"$out/history.txt" 2>&1 || code=$?
echo "exit $code" >>"$out/history.txt"
python3 - "$hist" "${sha[@]}" <<'PY' | tee -a "$out/summary.txt"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
shas = sys.argv[2:]
bad = [j["commit"][:12] for j in lines if shas.index(j["ab"]["parent"]) != shas.index(j["commit"]) - 1]
print(f"{len(lines)} links; parent is not the commit before: {bad or 'none'}")
PY
{ grep "regressed by" "$out/history.txt" || echo "no culprit named"; } | tee -a "$out/summary.txt"
echo "expected culprit: commit $step_at ${sha[step_at]:0:12}" | tee -a "$out/summary.txt"
