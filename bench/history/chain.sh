#!/usr/bin/env bash
# The history of main in both views, on a service we did not write:
# json-server 0.17.4 (node), run as a module with a reset route, in a
# throw-away git repository whose main gets COMMITS commits. Each commit sets
# the CPU work an injected middleware does per request (SHA-256 rounds, in
# burn.js; CHANGES numbers the commits), and for each commit, as the Action's
# `mode: record` with `chain: true` does on a push:
#
#   1. tailgate ab --base-ref <previous commit> --history …  (the link: this
#      commit judged against its parent, side by side)
#   2. tailgate baseline record                               (the absolute job)
#   3. a commit of baselines/ (the baseline and the history beside it)
#
# Then one A/B of the last commit against the first (the whole change,
# which the chain's product should come to), appended to the history as a
# span, `tailgate history --since v0 --html` (history-links.txt is the
# report of the links alone), and screenshots of the page in headless
# Chromium at 1280 and 390 px.
#
#   MODE=step  bench/history/chain.sh   # 12 commits, +STEP (10 %) of CPU from commit STEP_AT (6) on
#   MODE=creep bench/history/chain.sh   # 11 commits: 10 of +1.5 % each
#   MODE=lean  bench/history/chain.sh   # 2 commits of the same work: where links lean
#
# MODE=lean asks why unchanged links lean: LEAN_JOBS (10) rounds of three
# A/B jobs on two commits that do the same work, each job's CPU/iteration
# change in lean.txt and a mean per kind in lean-summary.txt:
#   chain        --base-ref HEAD~1: the base a worktree, the head the
#                checkout (a link's topology)
#   aa-worktree  --base-ref HEAD~1 --aa: both sides the base's worktree
#   aa-checkout  --aa: both sides the checkout
#
# BURN_BASE is the rounds of commit 1; UNIT the rounds that add 1 % of CPU per
# lifecycle (measured first with CALIBRATE=1: two `tailgate run`s, 0 and 100
# rounds). Output in bench/out/history-MODE/: history.txt (the report and the
# exit code), ab-N.txt and record-N.txt (each job's output and wall time),
# items.history.jsonl, trend.html, trend-{1280,390}.png, history-links.txt.
#
# Load goes only to json-server on 127.0.0.1 (free ports); each job is
# bounded (the A/B by ab.max_blocks and ab.max_time, a record by RUNS runs of
# two short phases) and runs under nice. Needs node and npm (installs
# json-server 0.17.4 into bench/out/history-node/).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
mode=${MODE:-step}
out=${OUT:-$root/bench/out/history-$mode}
commits=${COMMITS:-12} step_at=${STEP_AT:-6} step=${STEP:-10}
[ "$mode" = creep ] && commits=${COMMITS:-11}
unit=${UNIT:-40} burn_base=${BURN_BASE:-0}
runs=${RUNS:-3} duration=${DURATION:-2s}
chromium=${CHROMIUM:-/usr/bin/chromium}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

node_dir=$root/bench/out/history-node
[ -d "$node_dir/node_modules/json-server" ] || npm install --prefix "$node_dir" --no-save --no-audit --no-fund json-server@0.17.4 >/dev/null
(cd "$root" && go build -o "$work/tailgate" ./cmd/tailgate)
tg=$work/tailgate

repo=$work/repo
git init -q -b main "$repo"
git -C "$repo" config user.name bench
git -C "$repo" config user.email bench@example.invalid
ln -s "$node_dir/node_modules" "$repo/node_modules" # committed: the base's worktree finds json-server too
cp "$root/bench/json-server/seed.json" "$repo/seed.json"
cat >"$repo/server.js" <<'EOF'
// json-server as a module with a reset route, and the injected work of
// burn.js: that many SHA-256 rounds per request.
const fs = require('fs');
const crypto = require('crypto');
const jsonServer = require('json-server');
const rounds = require('./burn.js');
const seed = () => JSON.parse(fs.readFileSync(__dirname + '/seed.json', 'utf8'));
const port = Number(process.argv[2]);
const db = __dirname + '/db-' + port + '.json';
fs.writeFileSync(db, JSON.stringify(seed()));
const server = jsonServer.create();
const router = jsonServer.router(db);
server.use(jsonServer.defaults({ logger: false }));
server.use((req, res, next) => {
  let h = Buffer.from(req.url);
  for (let i = 0; i < rounds; i++) h = crypto.createHash('sha256').update(h).digest();
  next();
});
server.post('/__reset', (req, res) => { router.db.setState(seed()).write(); res.sendStatus(204); });
server.get('/__count', (req, res) => res.json({ count: router.db.get('items').size().value() }));
server.use(router);
server.listen(port, '127.0.0.1');
EOF
cat >"$repo/tailgate.yml" <<EOF
name: items
seed: 1
target:
  url: http://127.0.0.1:{{port}}
  start: {command: [node, server.js, "{{port}}"]}
  ready: {path: /items, timeout: 20s, interval: 50ms}
build: {command: [node, --check, server.js]}
dataset:
  reset: {request: {method: POST, path: /__reset, status: 204}}
  verify: {request: {path: /__count}, expect: {count: 3}}
load:
  warmup: 500ms
  duration: $duration
  runs: $runs
  phases:
    - {name: capacity, model: closed, vus: 2}
    - {name: latency, model: open, rate: 40/s, max_inflight: 64}
scenarios:
  - name: lifecycle
    steps:
      - {name: create, method: POST, path: /items, json: {title: "t {{seq}}"}, status: 201, save: {id: id}}
      - {name: read, path: "/items/{{.id}}"}
      - {name: delete, method: DELETE, path: "/items/{{.id}}"}
ab: {max_blocks: ${MAX_PAIRS:-12}, max_time: ${MAX_TIME:-4m}}
gate:
  metrics: [iterations_per_s, latency_p95_ms, request_error_pct, cpu_ms_per_iteration]
  min_effect: {cpu_ms_per_iteration: 5, iterations_per_s: 5}
EOF
printf 'db-*.json\nbaselines/*.tmp*\n' >"$repo/.gitignore"

if [ "${CALIBRATE:-0}" = 1 ]; then
	for r in ${CAL_ROUNDS:-0 100}; do
		echo "module.exports = $r;" >"$repo/burn.js"
		(cd "$repo" && nice -n 15 "$tg" run -c tailgate.yml -q --runs 3 -o "$work/cal-$r.json")
		python3 -c "import json; f=json.load(open('$work/cal-$r.json')); print('rounds $r:', json.dumps(f['runs'][0])[:1500])"
	done
	exit 0
fi

if [ "$mode" = lean ]; then
	echo "module.exports = $burn_base;" >"$repo/burn.js"
	for c in 1 2; do
		echo "commit $c" >"$repo/CHANGES"
		git -C "$repo" add -A
		git -C "$repo" commit -q -m "commit $c: $burn_base rounds"
	done
	# tailgate-aa.yml: both sides named with the target's start and no ref,
	# so that both are started from the checkout (an A/A needs a base
	# build; --aa alone would ask for a ref).
	side='{url: "http://127.0.0.1:{{port}}", start: {command: [node, server.js, "{{port}}"]}, ready: {path: /items, timeout: 20s, interval: 50ms}}'
	sed "s|^ab: {\(.*\)}\$|ab: {\1, base: $side, head: $side}|" "$repo/tailgate.yml" >"$repo/tailgate-aa.yml"
	grep -q "head: {url" "$repo/tailgate-aa.yml" || { echo "chain.sh: no ab: line to extend in tailgate.yml" >&2; exit 1; }
	: >"$out/lean.txt"
	for i in $(seq 1 "${LEAN_JOBS:-10}"); do
		for kind in chain aa-worktree aa-checkout; do
			case $kind in
			chain) args=(--base-ref HEAD~1) ;;
			aa-worktree) args=(--base-ref HEAD~1 --aa) ;;
			aa-checkout) args=(-c tailgate-aa.yml) ;; # both sides started from the checkout: no ref
			esac
			(cd "$repo" && nice -n 15 "$tg" ab -c tailgate.yml -q "${args[@]}" >"$out/lean-$kind-$i.txt" 2>&1) || true
			printf '%s\t%s\t%s\n' "$kind" "$i" "$(grep -m1 -E '^CPU/iteration ' "$out/lean-$kind-$i.txt" | tr -s ' ')" | tee -a "$out/lean.txt"
		done
	done
	python3 - "$out/lean.txt" <<'PY' | tee "$out/lean-summary.txt"
import re, statistics, sys
by = {}
for line in open(sys.argv[1]):
    kind, _, cpu = line.rstrip("\n").split("\t")
    m = re.search(r"ms ([+−-][0-9.]+|±0\.0) %", cpu.replace("±0.0", "+0.0"))
    if m:
        by.setdefault(kind, []).append(float(m.group(1).replace("−", "-")))
for kind, v in by.items():
    se = statistics.stdev(v) / len(v) ** 0.5 if len(v) > 1 else float("nan")
    print(f"{kind:12} {len(v):2} jobs  mean CPU/iteration change {statistics.mean(v):+.2f} % (SE {se:.2f})  [{min(v):+.1f} … {max(v):+.1f}]")
PY
	exit 0
fi

# burn is the rounds of commit $1: in step mode BURN_BASE, and +STEP % from
# STEP_AT on; in creep mode +1.5 % more each commit after the first.
burn() {
	if [ "$mode" = creep ]; then
		python3 -c "print(round($burn_base + $unit * 100 * (1.015 ** ($1 - 1) - 1)))"
	elif [ "$1" -ge "$step_at" ]; then
		python3 -c "print(round($burn_base + $unit * $step))"
	else
		echo "$burn_base"
	fi
}

prev=""
for c in $(seq 1 "$commits"); do
	echo "module.exports = $(burn "$c");" >"$repo/burn.js"
	echo "commit $c" >"$repo/CHANGES" # a commit even where the work does not change
	git -C "$repo" add -A
	git -C "$repo" commit -q -m "commit $c: $(burn "$c") rounds"
	sha=$(git -C "$repo" rev-parse HEAD)
	[ "$c" = 1 ] && git -C "$repo" tag v0
	if [ -n "$prev" ]; then
		start=$(date +%s)
		abcode=0
		(cd "$repo" && nice -n 15 "$tg" ab -c tailgate.yml -q --base-ref "$prev" --history baselines/items.history.jsonl \
			--commit "$sha" --ref refs/heads/main --job "c$c" >"$out/ab-$c.txt" 2>&1) || abcode=$?
		# 1 is the A/B's verdict (a regression): recorded all the same.
		[ "$abcode" -le 1 ] || { cat "$out/ab-$c.txt" >&2; exit 1; }
		echo "exit $abcode, wall $(($(date +%s) - start)) s" >>"$out/ab-$c.txt"
	fi
	start=$(date +%s)
	(cd "$repo" && nice -n 15 "$tg" baseline record -c tailgate.yml -q --commit "$sha" --ref refs/heads/main --job "c$c" >"$out/record-$c.txt" 2>&1) ||
		{ cat "$out/record-$c.txt" >&2; exit 1; }
	echo "wall: $(($(date +%s) - start)) s" >>"$out/record-$c.txt"
	git -C "$repo" add baselines
	git -C "$repo" commit -q -m "tailgate: record baseline for $sha [skip ci]"
	echo "commit $c ($(burn "$c") rounds, ${sha:0:7}): $(grep -h 'appended the A/B\|A/B stopped' "$out/ab-$c.txt" 2>/dev/null | tr '\n' ' ')" >&2
	prev=$sha
done

code=0
(cd "$repo" && "$tg" history --since v0) >"$out/history-links.txt" 2>&1 || code=$?
echo "exit code $code" >>"$out/history-links.txt"

# The whole change in one A/B, the last commit against the first, appended
# to the history as a span (as the Action's creep_since input does on a
# push): the history then reads the creep since v0 from it, beside the
# links' product (history-links.txt is the report before it). WHOLE=0
# skips it.
if [ "${WHOLE:-1}" = 1 ]; then
	start=$(date +%s) wcode=0
	(cd "$repo" && nice -n 15 "$tg" ab -c tailgate.yml -q --base-ref v0 --history baselines/items.history.jsonl \
		--commit "$prev" --ref refs/heads/main --job whole >"$out/ab-whole.txt" 2>&1) || wcode=$?
	echo "exit $wcode, wall $(($(date +%s) - start)) s" >>"$out/ab-whole.txt"
	echo "one A/B of commit $commits against commit 1 (v0): $(grep -m1 -E '^CPU/iteration ' "$out/ab-whole.txt" | tr -s ' ')" | tee "$out/whole.txt"
fi
code=0
(cd "$repo" && "$tg" history --since v0 --html "$out/trend.html") >"$out/history.txt" 2>&1 || code=$?
echo "exit code $code" >>"$out/history.txt"
[ ! -f "$out/whole.txt" ] || cat "$out/whole.txt" >>"$out/history.txt"
cp "$repo/baselines/items.history.jsonl" "$out/"
git -C "$repo" log --format='%h %s' main >"$out/git-log.txt"
cat "$out/history.txt"

if [ -x "$chromium" ]; then
	for w in 1280 390; do
		"$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
			--disable-sync --no-first-run --user-data-dir="$(mktemp -d -p "$work")" --hide-scrollbars \
			--window-size="$w,3600" --screenshot="$out/trend-$w.png" "file://$out/trend.html" >/dev/null 2>&1
	done
fi
