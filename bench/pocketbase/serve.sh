#!/usr/bin/env bash
# serve.sh BUILD PORT: starts one PocketBase benchmark instance on
# 127.0.0.1:PORT from a fresh copy of the golden data dir, in the
# foreground; BUILD is clean, slow5, slow10 or slow30. This is the start command of
# the tailgate configs (PORT is tailgate's {{port}}): the server replaces
# this shell (exec), so the pid tailgate samples is the server's.
#
# Each instance's data dir is bench/out/pocketbase/data/SIDE-PORT, with the
# server's pid in it; a start first removes the dirs of its side's servers
# that have ended, so that the many ports of an A/B campaign do not fill
# the disk.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/bench/out/pocketbase
build=${1:?usage: serve.sh BUILD PORT}
port=${2:?usage: serve.sh BUILD PORT}
bin=$OUT/pocketbase-$build
[[ $port =~ ^[0-9]+$ ]] || { echo "serve.sh: port must be a number, got '$port'" >&2; exit 2; }
[[ -x $bin && -d $OUT/golden ]] || { echo "serve.sh: $bin or $OUT/golden missing: run bench/pocketbase/build.sh" >&2; exit 2; }
"$ROOT/bench/pocketbase/portfree.sh" "$port"
mkdir -p "$OUT/data"
# Under tailgate ab each side runs in PID and mount namespaces of its own
# (sealed sides): a pid written by the other side means nothing here, so a
# side clears only its own ended dirs (one server per side at a time),
# named by TAILGATE_SIDE; elsewhere a dir whose server has ended goes.
side=${TAILGATE_SIDE:-run}
for d in "$OUT"/data/"$side"-*/; do
	[[ -d $d ]] || continue
	owner=$(cat "$d/.pid" 2>/dev/null || true)
	[[ $side == run && -n $owner ]] && kill -0 "$owner" 2>/dev/null && continue
	rm -rf "$d"
done
data=$OUT/data/$side-$port
rm -rf "$data"
mkdir "$data"
echo $$ >"$data/.pid" # first: a concurrent start does not take a dir being filled for ended
cp -a "$OUT/golden/." "$data/"
exec "$bin" serve --http "127.0.0.1:$port" --dir "$data"
