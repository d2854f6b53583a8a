#!/usr/bin/env bash
# pg.sh start|stop|status: the private PostgreSQL 15 cluster on 127.0.0.1:$PG_PORT.
source "$(dirname "$0")/lib.sh"
case "${1:-}" in
start)
	if as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then
		echo "postgres already running on port $PG_PORT"
		exit 0
	fi
	as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 60 \
		-o "-p $PG_PORT -k $PG_SOCK -c listen_addresses=127.0.0.1" start
	;;
stop) as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w stop ;;
status) as_postgres "$PG_BIN/pg_ctl" -D "$PG_DATA" status ;;
*)
	echo "usage: pg.sh start|stop|status" >&2
	exit 2
	;;
esac
