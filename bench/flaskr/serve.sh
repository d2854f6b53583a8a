#!/usr/bin/env bash
# serve.sh BUILD PORT: one side of bench/flaskr's A/B, the Flask tutorial's
# blog (flaskr) under Debian's gunicorn with three sync workers on
# 127.0.0.1:PORT. BUILD is clean or slow, the copies run.sh made in
# bench/out/flaskr; the side (TAILGATE_SIDE) serves its own fresh copy of
# it, so each side has its own SQLite database (reset.sh empties it).
set -euo pipefail
build=${1:?usage: serve.sh clean|slow PORT} port=${2:?usage: serve.sh BUILD PORT}
OUT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/bench/out/flaskr
[[ -d $OUT/$build/flaskr ]] || { echo "serve.sh: $OUT/$build missing: run bench/flaskr/run.sh APP_DIR" >&2; exit 2; }
side=$OUT/side-${TAILGATE_SIDE:-run}
rm -rf "$side" && cp -r "$OUT/$build" "$side"
cd "$side" && flask --app flaskr init-db >/dev/null
exec /usr/bin/gunicorn --workers "${GUNICORN_WORKERS:-3}" --bind "127.0.0.1:$port" --log-level warning 'flaskr:create_app()'
