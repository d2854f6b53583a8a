#!/usr/bin/env bash
# serve.sh SIDE BUILD PORT: one Miniflux instance on 127.0.0.1:PORT, in the
# foreground (exec: the pid tailgate samples is Miniflux's), on the side's
# own database miniflux_SIDE (SIDE: base, head, or run outside A/B; any
# other name works too, cloned from MF_DB: measure-injected.sh uses mclean,
# mslow10, mslow30), which it clones from its template first (reset.sh).
# BUILD: clean, n1, slow10 or slow30 (build.sh).
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
# Its connection pool keeps DATABASE_MIN_CONNS idle connections (Miniflux's
# default: 1). Under ab.yml's 4 VUs that default opens a new PostgreSQL
# connection (a forked backend) for about every iteration, measured: half
# the throughput, and CPU per iteration 11 % apart block to block in A/A.
# 4 idle connections, one per VU, keep the pool warm as a deployment sized
# for its load would (MF_DB_MIN_CONNS=1 measures Miniflux as shipped).
export DATABASE_MIN_CONNS=${MF_DB_MIN_CONNS:-4}
exec "$bin"
