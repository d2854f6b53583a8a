#!/usr/bin/env bash
# serve.sh BUILD PORT: one side of bench/gunicorn's A/B, gunicorn (Debian's
# package) with GUNICORN_WORKERS sync workers (default 3) serving app.py on
# 127.0.0.1:PORT. BUILD picks the injected regression: clean, slow10 or
# slow30 (NOTES_BURN rounds from burn.env, calibrated by
# measure-injected.sh). The side's SQLite file is a fresh copy of the golden
# one, bench/out/gunicorn/data/SIDE-PORT.db (SIDE is TAILGATE_SIDE: base,
# head, or run outside tailgate ab; NOTES_SIDE overrides it); a start
# removes its side's earlier files (one server per side at a time: an
# earlier server still running keeps its unlinked file). With NOTES_PG set
# the app uses that PostgreSQL database instead.
set -euo pipefail
build=${1:?usage: serve.sh clean|slow10|slow30 PORT}
port=${2:?usage: serve.sh BUILD PORT}
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
# shellcheck source=bench/gunicorn/burn.env
source "$DIR/burn.env"
case $build in
clean) burn=0 ;;
slow10) burn=$BURN10 ;;
slow30) burn=$BURN30 ;;
*) echo "serve.sh: unknown build '$build' (clean, slow10, slow30)" >&2; exit 2 ;;
esac
golden=$ROOT/bench/out/gunicorn/golden.db
[[ -f $golden ]] || { echo "serve.sh: $golden missing: run bench/gunicorn/build.sh" >&2; exit 2; }
if [[ -z ${NOTES_PG:-} ]]; then
	side=${NOTES_SIDE:-${TAILGATE_SIDE:-run}}
	mkdir -p "$ROOT/bench/out/gunicorn/data"
	rm -f "$ROOT/bench/out/gunicorn/data/$side"-*.db*
	export NOTES_DB=$ROOT/bench/out/gunicorn/data/$side-$port.db
	cp "$golden" "$NOTES_DB"
fi
export NOTES_BURN=$burn
exec /usr/bin/gunicorn --chdir "$DIR" --workers "${GUNICORN_WORKERS:-3}" --bind "127.0.0.1:$port" \
	--log-level warning app:app
