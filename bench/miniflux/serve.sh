#!/usr/bin/env bash
# serve.sh SIDE BUILD PORT: one Miniflux instance on 127.0.0.1:PORT, in the
# foreground (exec: the pid tailgate samples is Miniflux's), on the side's
# own database miniflux_SIDE (SIDE: base, head, or run outside A/B), which
# it clones from its template first (reset.sh). BUILD: clean or n1.
source "$(dirname "$0")/lib.sh"
side=${1:?usage: serve.sh SIDE BUILD PORT}
build=${2:?usage: serve.sh SIDE BUILD PORT}
port=${3:?usage: serve.sh SIDE BUILD PORT}
bin=$OUT/bin/miniflux-$build
[[ $port =~ ^[0-9]+$ ]] || { echo "serve.sh: port must be a number, got '$port'" >&2; exit 2; }
[[ -x $bin ]] || { echo "serve.sh: $bin missing: run bench/miniflux/build.sh" >&2; exit 2; }
TAILGATE_SIDE=$side "$MF_DIR/reset.sh"
export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/miniflux_$side?sslmode=disable"
export LISTEN_ADDR=127.0.0.1:$port BASE_URL=http://127.0.0.1:$port
# No feed is ever fetched: the scheduler (feed refresh, cleanup) is off.
export DISABLE_SCHEDULER_SERVICE=1 RUN_MIGRATIONS=0 LOG_LEVEL=warning
# Its Prometheus endpoint, for go_memstats_mallocs_total; its own gauges
# (which query the database) refresh once an hour, not during a window.
export METRICS_COLLECTOR=1 METRICS_ALLOWED_NETWORKS=127.0.0.1/32 METRICS_REFRESH_INTERVAL=3600
exec "$bin"
