#!/usr/bin/env bash
# serve.sh BUILD PORT: one side of bench/verdaccio's A/B, Verdaccio 6.10.4
# (the copy BUILD of build.sh: clean, slow5 or slow10) on 127.0.0.1:PORT,
# serving a fresh copy of the seed (storage and htpasswd) in
# /dev/shm/verdaccio-SIDE (SIDE is TAILGATE_SIDE: base, head, or run outside
# tailgate ab), so that every start begins from the same 200 packages.
set -euo pipefail
build=${1:?usage: serve.sh clean|slow5|slow10 PORT} port=${2:?usage: serve.sh BUILD PORT}
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$(cd "$DIR/../.." && pwd)/bench/out/verdaccio
[[ -d $OUT/$build/node_modules/verdaccio && -d $OUT/seed/storage ]] || { echo "serve.sh: $OUT/$build or the seed missing: run bench/verdaccio/build.sh" >&2; exit 2; }
data=/dev/shm/verdaccio-${TAILGATE_SIDE:-run}
rm -rf "$data" && cp -r "$OUT/seed" "$data" && cp "$DIR/config.yaml" "$data/config.yaml"
exec node "$DIR/start.mjs" "$OUT/$build" "$data/config.yaml" "$port"
