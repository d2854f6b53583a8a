#!/usr/bin/env bash
# Builds Caddy v2.11.9 (bench/caddy/app, its own Go module) three times
# from one source, differing only in the SHA-256 rounds its burn handler
# does per request: bench/out/caddy/caddy-{clean,slow5,slow10}; and lays
# out the site of bench/caddy/Caddyfile in bench/out/caddy/site (the
# template of bench/caddy/site, the Markdown and JSON it generates, and 60
# files for the directory listing).
# CADDY_BURN5 and CADDY_BURN10 add about +5 and +10 % to the clean
# lifecycle's CPU as the gate reads it (5.69 ms, the median of the clean
# side's 381 blocks in this machine's series of 2026-12-07): a round costs
# about 75 ns (cd app && go test -bench Burn), four requests a lifecycle.
# That series ran 820 and 1650 rounds, sized on one job's 4.94 ms: +4.3
# and +9.0 %.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/bench/out/caddy
mkdir -p "$OUT/site/files"
cp "$ROOT"/bench/caddy/site/* "$OUT/site/"
# the Markdown the page renders and the JSON served gzipped, generated
# (a fixed seed: the same bytes at every build)
python3 - "$OUT/site" <<'PY'
import json, random, sys
random.seed(1)
lines = ["# Notes", ""]
for i in range(40):
    lines += [f"## Change {i}", "",
              f"A *change* to the **module {i}**, see [issue {i}](https://example.invalid/{i}) and `code_{i}()`.", "",
              f"- first point of {i}\n- second point of {i}\n- third point with `x = {i}`", ""]
open(sys.argv[1] + "/notes.md", "w").write("\n".join(lines) + "\n")
items = [{"id": i, "name": f"item-{i}", "tags": ["a", "b", "c"][: i % 3 + 1], "price": round(random.random() * 100, 2)} for i in range(300)]
open(sys.argv[1] + "/data.json", "w").write(json.dumps({"items": items}, indent=1) + "\n")
PY
for i in $(seq -w 0 59); do
	for _ in $(seq 0 "$((10#$i))"); do echo "report $i"; done >"$OUT/site/files/report-$i.txt"
done
for b in "clean 0" "slow5 ${CADDY_BURN5:-950}" "slow10 ${CADDY_BURN10:-1900}"; do
	read -r name rounds <<<"$b"
	(cd "$ROOT/bench/caddy/app" && go build -trimpath -ldflags "-X main.burnRounds=$rounds" -o "$OUT/caddy-$name" .)
	echo "$name: $rounds rounds"
done
