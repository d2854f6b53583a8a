# Sourced by the scripts of bench/miniflux: where things are.
set -euo pipefail
MF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$MF_DIR/../.." && pwd)
OUT=${MF_OUT:-$ROOT/bench/out/miniflux}
MF_VERSION=v2.3.5
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_PORT=${PG_PORT:-18432}
PG_DATA=$OUT/pg/data
PG_SOCK=$OUT/pg/sock
PG_LOG=$OUT/pg/postgres.log
# Every client connects over loopback TCP as the cluster's superuser (trust
# on 127.0.0.1 only: the cluster is private to this script set).
export PGHOST=127.0.0.1 PGPORT=$PG_PORT PGUSER=postgres
TEMPLATE=miniflux_tmpl          # the fixed dataset
TEMPLATE_NOIDX=miniflux_tmpl_noidx  # the same, without the feed indexes (the injected regression)

# as_postgres runs a command as the postgres user (initdb and postgres refuse root).
as_postgres() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

psql_q() { psql -X -v ON_ERROR_STOP=1 -Atq "$@"; }
export PGOPTIONS='-c client_min_messages=warning'
