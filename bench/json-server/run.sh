#!/usr/bin/env bash
# Two dataset resets for json-server under writes (docs/config.md, "A reset
# that holds under writes"): a reset route in json-server run as a module,
# and copying the db file under `json-server --watch`. Each runs 2 runs of
# a create → read → delete lifecycle (4 users, then 50/s).
#
#   bench/json-server/run.sh        # needs node and npm; installs json-server 0.17.4 here
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
tailgate=${TAILGATE:-$here/tailgate}
[ -x "$tailgate" ] || (cd ../.. && go build -o "$here/tailgate" ./cmd/tailgate)
[ -d node_modules/json-server ] || npm install --no-save --no-audit --no-fund json-server@0.17.4 >/dev/null
export PATH=$here/node_modules/.bin:$PATH

echo "== reset route (POST /__reset restores the seed in memory)"
"$tailgate" run -c reset-route.yml --runs 2 -o reset-route.json -q
python3 -c 'import json; f = json.load(open("reset-route.json")); print("iterations", [r["iterations"] for r in f["runs"]], "requests", [r["requests"] for r in f["runs"]])'

echo "== cp seed.json dbw.json under json-server --watch"
set +e
"$tailgate" run -c watch.yml --runs 2 -o watch.json -q
echo "exit $?"
