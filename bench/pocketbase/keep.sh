#!/usr/bin/env bash
# keep.sh ARGS...: the -bin of bench/verdicts for evidence.sh. Runs
# "$TG_BIN ARGS..." and keeps, under $TG_KEEP/$TG_TAG.*, what bench/verdicts
# throws away: the JSON report, the terminal output and the wall time.
# Exits with tailgate's exit code.
set -uo pipefail
: "${TG_BIN:?} ${TG_KEEP:?} ${TG_TAG:?}"
report="" prev=""
for a in "$@"; do
	[[ $prev == --report || $prev == -report ]] && report=$a
	prev=$a
done
t0=$(date +%s.%N)
"$TG_BIN" "$@" >"$TG_KEEP/$TG_TAG.out" 2> >(tee "$TG_KEEP/$TG_TAG.err" >&2)
code=$?
t1=$(date +%s.%N)
echo "$t1 - $t0" | bc >"$TG_KEEP/$TG_TAG.time"
echo "$code" >"$TG_KEEP/$TG_TAG.code"
[[ -n $report && -f $report ]] && cp "$report" "$TG_KEEP/$TG_TAG.report.json"
exit "$code"
