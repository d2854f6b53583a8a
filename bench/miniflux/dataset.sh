#!/usr/bin/env bash
# dataset.sh: makes the private cluster (initdb, if absent), starts it, and
# builds the template databases every run is cloned from:
#   miniflux_tmpl        Miniflux's schema (its own migrations) and the fixed
#                        dataset, inserted by SQL (no feed is fetched)
#   miniflux_tmpl_noidx  the same without the indexes on entries.feed_id
#                        (the injected "dropped index" regression)
source "$(dirname "$0")/lib.sh"
# 4 users, 25 feeds each, 80 entries a feed, 6 enclosures an entry:
# verify.sh checks exactly these counts.
USERS=4 FEEDS=25 ENTRIES=80 ENCLOSURES=6

if [ ! -f "$PG_DATA/PG_VERSION" ]; then
	mkdir -p "$OUT/pg" "$PG_SOCK"
	chown -R postgres "$OUT/pg" 2>/dev/null || true
	as_postgres "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
	cat >>"$PG_DATA/postgresql.conf" <<CONF
# bench/miniflux: counters for the gate, and a cluster that starts fast.
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
track_io_timing = off
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 100
CONF
fi
"$MF_DIR/pg.sh" start

for db in "$TEMPLATE" "$TEMPLATE_NOIDX"; do
	psql_q -d postgres -c "UPDATE pg_database SET datistemplate = false WHERE datname = '$db'" \
		-c "DROP DATABASE IF EXISTS $db WITH (FORCE)"
done
psql_q -d postgres -c "CREATE DATABASE $TEMPLATE"
DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/$TEMPLATE?sslmode=disable" \
	LOG_LEVEL=error "$OUT/bin/miniflux-clean" -migrate

psql_q -d "$TEMPLATE" -c "CREATE EXTENSION pg_stat_statements"
# ab.yml's pg_stat_statements source reads the statistics from the postgres
# database (its own read then counts in no side's database).
psql_q -d postgres -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
psql_q -d "$TEMPLATE" -v users="$USERS" -v feeds="$FEEDS" -v entries="$ENTRIES" -v enclosures="$ENCLOSURES" -f "$MF_DIR/dataset.sql"
psql_q -d postgres -c "CREATE DATABASE $TEMPLATE_NOIDX TEMPLATE $TEMPLATE"
psql_q -d "$TEMPLATE_NOIDX" -f "$MF_DIR/drop-index.sql"
for db in "$TEMPLATE" "$TEMPLATE_NOIDX"; do
	psql_q -d "$db" -c "VACUUM ANALYZE"
	psql_q -d postgres -c "UPDATE pg_database SET datistemplate = true WHERE datname = '$db'"
done
echo "template $TEMPLATE: $(psql_q -d "$TEMPLATE" -c "SELECT json_build_object('users', (SELECT count(*) FROM users), 'feeds', (SELECT count(*) FROM feeds), 'entries', (SELECT count(*) FROM entries), 'enclosures', (SELECT count(*) FROM enclosures))")"
