#!/usr/bin/env bash
# serve.sh BUILD PORT: one side of bench/radicale's A/B, Radicale (the copy
# BUILD of build.sh: clean, slow5 or slow10) on 127.0.0.1:PORT, serving a
# fresh copy of the fixed dataset in /dev/shm/radicale-SIDE (SIDE is
# TAILGATE_SIDE: base, head, or run outside tailgate ab; under tailgate ab
# each side has a /dev/shm of its own). On tmpfs, as tailgate's report
# advises for a service that fsyncs (Radicale fsyncs every write); the
# report's reason, a CPU busy 17 % of the time, was the CPU tailgate did
# not see (threadcpu.sh).
set -euo pipefail
build=${1:?usage: serve.sh clean|slow5|slow10 PORT} port=${2:?usage: serve.sh BUILD PORT}
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$(cd "$DIR/../.." && pwd)/bench/out/radicale
[[ -d $OUT/$build/radicale && -d $OUT/seed ]] || { echo "serve.sh: $OUT/$build or the seed missing: run bench/radicale/build.sh" >&2; exit 2; }
data=/dev/shm/radicale-${TAILGATE_SIDE:-run}
rm -rf "$data" && cp -r "$OUT/seed" "$data"
PYTHONPATH=$OUT/$build exec /usr/bin/python3 -m radicale -C "$DIR/radicale.conf" -H "127.0.0.1:$port" \
	--storage-filesystem-folder "$data"
