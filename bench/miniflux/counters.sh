#!/usr/bin/env bash
# counters.sh: the work counters of the side's database, as one JSON object
# (target.counters of the configs), read by tailgate before and after each
# measured window:
#   calls    statements executed (pg_stat_statements)
#   rows     rows they returned or changed
#   blocks   shared buffer blocks they touched (hit + read): the work of
#            finding the rows, which an index that is missing multiplies
#   exec_ms  their execution time (a time, not a count: as noisy as CPU)
# pg_stat_statements counts a statement when it ends, at once; the
# cumulative statistics (pg_stat_database) are flushed up to 1 s late, so
# they are not used here. This query itself is one call a read.
source "$(dirname "$0")/lib.sh"
psql_q -d "miniflux_${TAILGATE_SIDE:-run}" -c "SELECT json_build_object(
	'calls', coalesce(sum(calls), 0),
	'rows', coalesce(sum(rows), 0),
	'blocks', coalesce(sum(shared_blks_hit + shared_blks_read), 0),
	'exec_ms', coalesce(sum(total_exec_time), 0))
FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
