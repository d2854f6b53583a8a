#!/usr/bin/env bash
# serve-verdaccio.sh PORT: the clean build of bench/verdaccio, as its
# serve.sh starts it, with node --hash-seed=$NODE_HASH_SEED when set.
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../verdaccio" && pwd)
OUT=$(cd "$DIR/../.." && pwd)/bench/out/verdaccio
data=/dev/shm/verdaccio-${TAILGATE_SIDE:-run}
rm -rf "$data" && cp -r "$OUT/seed" "$data" && cp "$DIR/config.yaml" "$data/config.yaml"
seed=()
[[ -z ${NODE_HASH_SEED:-} ]] || seed=(--hash-seed="$NODE_HASH_SEED" --random-seed="$NODE_HASH_SEED")
exec node "${seed[@]}" "$DIR/start.mjs" "$OUT/clean" "$data/config.yaml" "$1"
