#!/usr/bin/env bash
# pg-reset.sh: the dataset reset of ab-pg.yml, run by tailgate before each
# side first starts and before every phase: the side's own database
# (gnotes_$TAILGATE_SIDE) dropped, its connections terminated first, and
# cloned afresh from gnotes_tmpl (build.sh --pg makes it) on bench/miniflux's
# private PostgreSQL 15 cluster (bench/miniflux/pg.sh start).
source "$(dirname "$0")/../miniflux/lib.sh"
db=gnotes_${TAILGATE_SIDE:-run}
psql_q -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db TEMPLATE gnotes_tmpl"
