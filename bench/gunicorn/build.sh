#!/usr/bin/env bash
# build.sh [--pg]: the golden SQLite dataset of bench/gunicorn
# (bench/out/gunicorn/golden.db: 16 users, 500 notes) and a check that
# Debian's gunicorn and Flask are installed (apt-get install gunicorn
# python3-flask). With --pg also the same dataset as the template database
# gnotes_tmpl on bench/miniflux's private PostgreSQL cluster (started with
# bench/miniflux/pg.sh start; python3-psycopg2 needed).
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
source "$DIR/password.sh"
[[ -x /usr/bin/gunicorn ]] || { echo "build.sh: /usr/bin/gunicorn missing: apt-get install gunicorn python3-flask" >&2; exit 2; }
out=$ROOT/bench/out/gunicorn
mkdir -p "$out"
rm -f "$out/golden.db" "$out/golden.db-wal" "$out/golden.db-shm"
/usr/bin/python3 "$DIR/seed.py" "$out/golden.db"
/usr/bin/python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); print('golden.db:', c.execute('select count(*) from notes').fetchone()[0], 'notes')" "$out/golden.db"
if [[ ${1:-} == --pg ]]; then
	source "$ROOT/bench/miniflux/lib.sh"
	psql_q -d postgres -c "DROP DATABASE IF EXISTS gnotes_tmpl" -c "CREATE DATABASE gnotes_tmpl"
	/usr/bin/python3 "$DIR/seed.py" --pg "host=$PGHOST port=$PGPORT user=$PGUSER dbname=gnotes_tmpl"
	psql_q -d gnotes_tmpl -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
	echo "gnotes_tmpl: $(psql_q -d gnotes_tmpl -c 'SELECT count(*) FROM notes') notes"
fi
