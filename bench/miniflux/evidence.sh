#!/usr/bin/env bash
# evidence.sh N [TAILGATE-AB-ARGS…]: N `tailgate ab` jobs per arm, the arms
# rotated job by job:
#   aa     clean vs clean, both on the fixed dataset (A/A: two processes)
#   n1     clean vs the N+1 build (n1-query.patch)
#   noidx  clean vs clean on the template without enclosures_entry_id_idx
# Each job's report (JSON and text) goes to bench/out/miniflux/evidence-<time>/;
# bench/miniflux/summary turns them into the tables of the README. Arguments after N go
# to every job (default: --max-time 120s). ARMS picks arms (default "aa n1 noidx");
# GATE=time gates only the defaults and the path's CPU (a config derived from
# ab.yml without the counters in gate.metrics: what time alone catches), and
# names the jobs <arm>-time-<i>.
source "$(dirname "$0")/lib.sh"
n=${1:?usage: evidence.sh N [tailgate ab args]}
shift
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--max-time 120s)
TAILGATE=${TAILGATE:-$OUT/bin/tailgate}
(cd "$ROOT" && go build -o "$TAILGATE" ./cmd/tailgate)
dir=$OUT/evidence-$(date -u +%Y%m%dT%H%M%S)
mkdir -p "$dir"
config=bench/miniflux/ab.yml suffix=
if [ "${GATE:-counters}" = time ]; then
	config=$dir/ab-time.yml suffix=-time
	sed "s#file: users.csv#file: $MF_DIR/users.csv#" "$MF_DIR/ab.yml" >"$config"
	echo "gate: {metrics: [iterations_per_s, latency_p95_ms, request_error_pct, lifecycle_success_pct, dropped_pct, cpu_ms_per_iteration, path_cpu_ms_per_iteration]}" >>"$config"
fi
"$MF_DIR/pg.sh" start >/dev/null
echo "evidence in $dir: $n jobs per arm, tailgate ab ${args[*]}"
for i in $(seq 1 "$n"); do
	for arm in ${ARMS:-aa n1 noidx}; do
		case $arm in
		aa) env=() ;;
		n1) env=(MF_HEAD=n1) ;;
		noidx) env=(MF_HEAD_DB=$TEMPLATE_NOIDX) ;;
		esac
		out=$dir/$arm$suffix-$i
		start=$(date +%s)
		set +e
		(cd "$ROOT" && env "${env[@]}" "$TAILGATE" ab -c "$config" -q --report "$out.json" "${args[@]}" >"$out.txt" 2>&1)
		rc=$?
		set -e
		echo "$arm$suffix $i exit=$rc $(($(date +%s) - start))s load=$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$dir/jobs.txt"
	done
done
(cd "$ROOT" && go run ./bench/miniflux/summary "$dir") | tee "$dir/summary.txt"
