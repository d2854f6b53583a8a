#!/bin/sh
# template.sh -c 'MIGRATE COMMAND' [SEED.sql...]
# template.sh MIGRATIONS_DIR [SEED.sql...]
#
# Builds this tree's dataset template, ${APP_DB:-app}_tpl_<side>, then
# applies the seed files and closes it to connections. Run it from the
# build command, which tailgate runs in each side's tree with
# TAILGATE_SIDE set: each side's template has its own tree's schema, so a
# migration that drops an index shows in the head's measurements.
#
# -c runs the service's own migrate command (sh -c) with PGDATABASE and
# DATABASE_URL naming the template: migrations apply as in production,
# whatever the tool.
#
# MIGRATIONS_DIR applies the up part of each migration file, in the order
# of the number its name starts with:
#   goose           NNN_name.sql: the lines after -- +goose Up, to -- +goose Down
#   dbmate          NNN_name.sql: the lines after -- migrate:up, to -- migrate:down
#   golang-migrate  NNN_name.up.sql whole; NNN_name.down.sql skipped
#   plain SQL       NNN_name.sql whole (or one file of any name)
# It fails, naming the file, on what it cannot apply as its tool would: a
# goose migration in Go (NNN_name.go), goose's ENVSUB, a down part without
# an up part, or, among several, a .sql file whose name has no number.
#
# psql finds the server through PGHOST, PGPORT, PGUSER (pass_env them).
set -eu
usage='usage: template.sh -c MIGRATE_COMMAND | MIGRATIONS_DIR [SEED.sql...]'
migrate= dir=
if [ "${1:-}" = -c ]; then
	migrate=${2:?$usage}
	shift 2
else
	dir=${1:?$usage}
	shift
fi
tpl="${APP_DB:-app}_tpl_${TAILGATE_SIDE:-run}"
fail() { echo "template.sh: $*" >&2; exit 1; }
sql() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
sql -d postgres -c "DROP DATABASE IF EXISTS $tpl WITH (FORCE)" -c "CREATE DATABASE $tpl"
if [ -n "$migrate" ]; then
	PGDATABASE=$tpl DATABASE_URL="postgres://${PGUSER:-$(id -un)}@/$tpl?host=${PGHOST:-/var/run/postgresql}&port=${PGPORT:-5432}&sslmode=${PGSSLMODE:-disable}" \
		sh -c "$migrate" || fail "the migrate command failed ($migrate) on $tpl"
else
	[ -d "$dir" ] || fail "no migrations directory $dir"
	for f in "$dir"/[0-9]*.go; do
		[ ! -e "$f" ] || fail "$f: a goose migration in Go, which only goose can run: build the template with -c and the service's migrate command"
	done
	n=$(find "$dir" -maxdepth 1 -name '*.sql' | wc -l)
	find "$dir" -maxdepth 1 -name '*.sql' ! -name '[0-9]*' | while read -r f; do
		[ "$n" -eq 1 ] || fail "$f: its name has no number to order it among the migrations by"
	done
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' EXIT
	# Version order: the leading number, then the name (sort -n's last resort).
	ls "$dir" | grep '\.sql$' | grep -v '\.down\.sql$' | sort -n | while read -r name; do
		f=$dir/$name
		# The up part; other lines blank, so psql's line numbers are the file's.
		code=0
		awk '{ l = tolower($0); text[NR] = $0; on[NR] = marked ? state : 2 }
			l ~ /^--[ \t]*\+goose[ \t]+envsub[ \t]+on/ { bad = 3; exit }
			l ~ /^--[ \t]*(\+goose[ \t]+up|migrate:up)([ \t]|$)/ { marked = up = state = 1; on[NR] = 0 }
			l ~ /^--[ \t]*(\+goose[ \t]+down|migrate:down)([ \t]|$)/ { marked = down = 1; state = on[NR] = 0 }
			END {
				if (bad) exit bad
				if (down && !up) exit 4
				for (i = 1; i <= NR; i++) print (on[i] == 1 || (on[i] == 2 && !marked)) ? text[i] : ""
			}' "$f" >"$tmp" || code=$?
		case $code in
		0) sql -d "$tpl" -f "$tmp" || fail "$f: its up part failed at the line psql names above" ;;
		3) fail "$f: goose's ENVSUB substitutes what only goose knows: build the template with -c and the service's migrate command" ;;
		4) fail "$f: a down part (-- +goose Down, -- migrate:down) and no up part" ;;
		*) fail "$f: not read" ;;
		esac
	done
fi
for f in "$@"; do
	sql -d "$tpl" -f "$f"
done
sql -d "$tpl" -c "VACUUM ANALYZE"
# No connection may be open to a template while it is cloned.
sql -d postgres -c "ALTER DATABASE $tpl ALLOW_CONNECTIONS false"
