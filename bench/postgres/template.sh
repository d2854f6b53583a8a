#!/bin/sh
# template.sh MIGRATIONS_DIR [SEED.sql...]: builds this tree's dataset
# template, ${APP_DB:-app}_tpl_<side>, from this tree's migrations (every
# *.sql of MIGRATIONS_DIR, in name order) and the seed files. Run it from
# the build command, which tailgate runs in each side's tree with
# TAILGATE_SIDE set: each side's template then has its own tree's schema,
# so a migration that drops an index shows in the head's measurements.
# psql finds the server through PGHOST, PGPORT, PGUSER (pass_env them).
set -eu
dir=${1:?usage: template.sh MIGRATIONS_DIR [SEED.sql...]}
shift
tpl="${APP_DB:-app}_tpl_${TAILGATE_SIDE:-run}"
sql() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
sql -d postgres -c "DROP DATABASE IF EXISTS $tpl WITH (FORCE)" -c "CREATE DATABASE $tpl"
for f in "$dir"/*.sql; do
	[ -e "$f" ] || continue
	sql -d "$tpl" -f "$f"
done
for f in "$@"; do
	sql -d "$tpl" -f "$f"
done
sql -d "$tpl" -c "VACUUM ANALYZE"
# No connection may be open to a template while it is cloned.
sql -d postgres -c "ALTER DATABASE $tpl ALLOW_CONNECTIONS false"
