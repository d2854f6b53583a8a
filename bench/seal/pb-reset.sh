#!/usr/bin/env bash
# pb-reset.sh: the dataset reset of pb.yml: restores the golden database
# into the running server's data dir under $TMPDIR, which the side's start
# wrote (SQLite's backup API, sqlite3 .restore). With PB_TIMES set,
# appends "reset <epoch>" to that file first.
set -euo pipefail
OUT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/bench/out/seal
[[ -n ${PB_TIMES:-} ]] && echo "reset $(date +%s.%N)" >>"$PB_TIMES"
db=${TMPDIR:-/tmp}/pb/${TAILGATE_TARGET_URL##*:}/data.db
[[ -f $db ]] || { echo "pb-reset.sh: no database at $db" >&2; exit 3; }
sqlite3 "$db" ".timeout 10000" ".restore '$OUT/golden/data.db'"
