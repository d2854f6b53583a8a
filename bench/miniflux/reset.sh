#!/usr/bin/env bash
# reset.sh: the dataset reset of bench/miniflux's configs, run by tailgate
# before every phase. The side's own database (miniflux_$TAILGATE_SIDE:
# miniflux_base, miniflux_head; miniflux_run outside A/B; any other side,
# e.g. measure-injected.sh's miniflux_mclean, from MF_DB) is dropped —
# its connections terminated first (WITH (FORCE)) — and cloned afresh from
# its template: miniflux_tmpl, or MF_BASE_DB / MF_HEAD_DB (e.g.
# miniflux_tmpl_noidx). CREATE DATABASE … TEMPLATE copies the files: exact,
# and 0.9–2 s for this dataset (31 MB) at load 25–35. Miniflux's pooled connection to the old
# database is now dead: its next use fails once (the readiness probe,
# /healthcheck, polled again after a reset, takes that failure).
source "$(dirname "$0")/lib.sh"
side=${TAILGATE_SIDE:-run}
db=miniflux_$side
case "$side" in
base) tmpl=${MF_BASE_DB:-$TEMPLATE} ;;
head) tmpl=${MF_HEAD_DB:-$TEMPLATE} ;;
*) tmpl=${MF_DB:-$TEMPLATE} ;;
esac
psql_q -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db TEMPLATE $tmpl"
