#!/usr/bin/env bash
# Verdict counts of tailgate on PocketBase v0.36.8 (bench/pocketbase/app)
# with injected regressions: N gates per arm (clean, slow10, slow30), the
# arms rotated gate by gate so that the machine's drift hits all of them
# alike. Usage, from anywhere:
#
#   bench/pocketbase/evidence.sh check N [ARGS...]  # calibrate on clean, then N checks per arm against that baseline
#   bench/pocketbase/evidence.sh ab N [ARGS...]     # N `tailgate ab` per arm: clean base vs the arm's build as head
#
# ARGS are added to every gate's tailgate command (e.g. --max-blocks 8 for
# ab, --runs 3 for check). check: the baseline is recorded and calibrated by
# `tailgate calibrate` on the clean build (CAL_JOBS jobs, CAL_PAUSE apart;
# defaults 10 and 30s), then every check is judged against it. ab: base and
# head are separate processes, each on a free port ({{port}}) and started
# afresh for every pair; the clean arm is an A/A of two processes of one
# build. The seeded users' password is PB_BENCH_PASSWORD (password.sh).
# GATE_TIMEOUT (default 40m) bounds one gate.
#
# Each gate runs through bench/verdicts (with keep.sh as its binary, which
# keeps the report, output and wall time). Prints per arm: false regressions
# (clean) or regressions caught, the wall time per verdict, and each
# report's "detects ≥ X %" beside the injected effect measured by
# measure-injected.sh (bench/out/pocketbase/effects.tsv). Raw outputs go to
# bench/out/pocketbase/evidence-MODE-<time>/.
set -euo pipefail
mode=${1:-}
n=${2:-5}
shift $(($# < 2 ? $# : 2))
extra=("$@")
[[ $mode == check || $mode == ab ]] || { echo "usage: $0 check|ab [N]" >&2; exit 2; }
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "evidence.sh: N must be a positive integer, got '$n'" >&2; exit 2; }
CAL_JOBS=${CAL_JOBS:-10}
CAL_PAUSE=${CAL_PAUSE:-30s}
GATE_TIMEOUT=${GATE_TIMEOUT:-40m}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
PB=bench/pocketbase
# shellcheck source=bench/pocketbase/password.sh
source "$PB/password.sh"
OUT=bench/out/pocketbase/evidence-$mode-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT/gates"
[[ -x bench/out/pocketbase/pocketbase-clean && -d bench/out/pocketbase/golden ]] || "$PB/build.sh"
go build -o "$OUT/tailgate" ./cmd/tailgate
go build -o "$OUT/verdicts" ./bench/verdicts
export TG_BIN=$ROOT/$OUT/tailgate TG_KEEP=$ROOT/$OUT/gates
ARMS=(clean slow10 slow30)
{
	echo "started $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "tailgate $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- cmd internal || echo '+dirty'), mode $mode, $n gates per arm${extra[*]:+, extra arguments: ${extra[*]}}"
} | tee "$OUT/info.txt"

case $mode in
check)
	t0=$(date +%s.%N)
	PB_BUILD=clean "$TG_BIN" calibrate -c "$PB/check.yml" --jobs "$CAL_JOBS" --pause "$CAL_PAUSE" \
		--baseline "$OUT/baseline.json" -q >"$OUT/calibrate.txt" 2>"$OUT/calibrate.err" ||
		{ cat "$OUT/calibrate.err" >&2; exit 3; }
	printf 'calibration: %s jobs, %s apart, %.0f s\n' "$CAL_JOBS" "$CAL_PAUSE" "$(echo "$(date +%s.%N) - $t0" | bc)" | tee -a "$OUT/info.txt"
	gate() { PB_BUILD=$1 "$OUT/verdicts" -bin "$PB/keep.sh" -n 1 -timeout "$GATE_TIMEOUT" -- check -c "$PB/check.yml" --baseline "$OUT/baseline.json" "${extra[@]}"; }
	;;
ab)
	gate() { PB_HEAD=$1 "$OUT/verdicts" -bin "$PB/keep.sh" -n 1 -timeout "$GATE_TIMEOUT" -- ab -c "$PB/ab.yml" "${extra[@]}"; }
	;;
esac

for ((i = 1; i <= n; i++)); do
	for ((k = 0; k < ${#ARMS[@]}; k++)); do
		arm=${ARMS[$(((k + i - 1) % ${#ARMS[@]}))]}
		echo "== gate $i, $arm ($(cut -d' ' -f1 /proc/loadavg))"
		TG_TAG=$arm-$i gate "$arm" 2>>"$OUT/gates.err" | tee -a "$OUT/verdicts-$arm.txt"
	done
done
echo "ended $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/info.txt"

# One row per gate: arm, verdict, exit code, seconds, regressed metrics, and
# per metric the change and the "detects ≥ X %".
rows=$OUT/gates.tsv
printf 'arm\tgate\tverdict\tcode\tseconds\tpairs\tregressions\tcpu_change\tcpu_floor\tcpu_detects\tips_change\tips_detects\tp95_change\tp95_detects\n' >"$rows"
for arm in "${ARMS[@]}"; do
	for ((i = 1; i <= n; i++)); do
		f=$OUT/gates/$arm-$i
		[[ -f $f.time ]] || continue
		if [[ -f $f.report.json ]]; then
			jq -r --arg arm "$arm" --arg i "$i" --arg code "$(cat "$f.code")" --arg t "$(cat "$f.time")" '
				def m(k): (.metrics[]? | select(.key == k)) // {};
				def d(k): ((.detectable[]? | select(.key == k) | .effect) // null);
				def s(x): if x == null then "na" else (x * 10 | round / 10 | tostring) end;
				[$arm, $i, .verdict, $code, $t, (.sequential.pairs // "na" | tostring), (((.regressions // []) | join(",")) | if . == "" then "-" else . end),
				 s(m("cpu_ms_per_iteration").change), s(m("cpu_ms_per_iteration").floor), s(d("cpu_ms_per_iteration")),
				 s(m("iterations_per_s").change), s(d("iterations_per_s")),
				 s(m("latency_p95_ms").change), s(d("latency_p95_ms"))] | @tsv' "$f.report.json"
		else
			printf '%s\t%s\terror\t%s\t%s\tna\t-\tna\tna\tna\tna\tna\tna\tna\n' "$arm" "$i" "$(cat "$f.code")" "$(cat "$f.time")"
		fi
	done
done >>"$rows"

effects=bench/out/pocketbase/effects.tsv
echo
echo "PocketBase, tailgate $mode, $n gates per arm (raw: $OUT)"
awk -F'\t' -v effects="$effects" -v mode="$mode" '
	BEGIN {
		inj["clean"] = "0 (same build)"
		while ((getline line < effects) > 0) { split(line, f, "\t"); inj[f[1]] = f[2] " % (peer tool)" }
	}
	NR == 1 {next}
	{
		a = $1; g[a]++; v[a, $3]++
		t[a, g[a]] = $5; pr[a, g[a]] = $6; cd[a, g[a]] = $10; ch[a, g[a]] = $8; id[a, g[a]] = $12; pd[a, g[a]] = $14
		if ($3 == "regression") for (j = split($7, r, ","); j > 0; j--) reg[a, r[j]]++
		if (!(a in seen)) { seen[a] = 1; order[++na] = a }
	}
	function mmm(arr, a, n, f,   i, j, x, k, tmp, med) {
		k = 0
		for (i = 1; i <= n; i++) if (arr[a, i] != "na") x[++k] = arr[a, i] + 0
		if (k == 0) return "not available"
		for (i = 2; i <= k; i++) for (j = i; j > 1 && x[j-1] > x[j]; j--) {tmp = x[j]; x[j] = x[j-1]; x[j-1] = tmp}
		med = (k % 2) ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
		return sprintf(f " [" f "–" f "]", med, x[1], x[k]) (k < n ? sprintf(" (%d of %d)", k, n) : "")
	}
	END {
		for (o = 1; o <= na; o++) {
			a = order[o]; n = g[a]
			label = (a == "clean") ? "false regressions" : "caught"
			printf "\n%s (injected CPU/lifecycle %s):\n", a, inj[a]
			printf "  %s %d/%d   (pass %d, inconclusive %d, error %d)\n", label, v[a, "regression"], n, v[a, "pass"], v[a, "inconclusive"], v[a, "error"]
			m = ""
			for (k in reg) { split(k, kk, SUBSEP); if (kk[1] == a) m = m sprintf(" %s %d", kk[2], reg[k]) }
			if (m != "") printf "  regressed metrics:%s\n", m
			printf "  wall time per verdict     %s s\n", mmm(t, a, n, "%.0f")
			if (mode == "ab") printf "  pairs per verdict         %s\n", mmm(pr, a, n, "%.0f")
			printf "  CPU/iteration change      %s %%\n", mmm(ch, a, n, "%+.1f")
			printf "  detects ≥ (CPU/iteration) %s %%\n", mmm(cd, a, n, "%.1f")
			printf "  detects ≥ (iterations/s)  %s %%\n", mmm(id, a, n, "%.1f")
			printf "  detects ≥ (latency p95)   %s %%\n", mmm(pd, a, n, "%.1f")
		}
	}' "$rows" | tee "$OUT/summary.txt"
