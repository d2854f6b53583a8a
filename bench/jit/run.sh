#!/usr/bin/env bash
# Does tailgate ab read a JIT runtime's change as a peer tool does on warm
# processes? peer.sh first (the effect's range on warm processes), then
# JOBS (default 3) `tailgate ab -c bench/jit/ab.yml` jobs with JIT_HEAD=slow
# per tailgate binary given (default: one built from this checkout), each
# job's CPU/iteration estimate with its bounds, and the warm-up it found
# (report note). Output in bench/out/jit-<time>/.
#
#   bench/jit/run.sh [TAILGATE ...]     # e.g. an older binary beside this one
#
# RESTART=never runs the jobs with ab.restart: never (both processes kept
# for the whole job, so later blocks measure them warmer: the remedy
# docs/config.md gives for a runtime that keeps getting faster); ARGS adds
# arguments to every job (e.g. ARGS="--warmup 20s").
set -euo pipefail
cd "$(dirname "$0")/../.."
out=bench/out/jit-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
config=bench/jit/ab.yml
if [[ -n ${RESTART:-} ]]; then
	config=bench/jit/.restart-$$.yml # beside ab.yml: its relative paths hold
	trap 'rm -f "$config"' EXIT
	sed "s/^ab:\$/ab:\n  restart: $RESTART/" bench/jit/ab.yml >"$config"
	grep -q "^  restart: $RESTART\$" "$config" || { echo "run.sh: no top-level ab: in bench/jit/ab.yml" >&2; exit 2; }
fi
read -r -a args <<<"${ARGS:-}"
echo "config $config${RESTART:+ (ab.restart: $RESTART)}, arguments: ${args[*]:-none}" | tee "$out/info.txt"
bins=("$@")
if ((${#bins[@]} == 0)); then
	go build -o "$out/tailgate" ./cmd/tailgate
	bins=("$out/tailgate")
fi
bench/jit/peer.sh | tee "$out/peer.txt"
for bin in "${bins[@]}"; do
	for j in $(seq "${JOBS:-3}"); do
		rep=$out/$(basename "$(dirname "$bin")")-$(basename "$bin")-$j.json
		t0=$(date +%s)
		set +e
		JIT_HEAD=slow timeout 10m "$bin" ab -c "$config" --noise off --report "$rep" "${args[@]}" >"$rep.out" 2>&1
		code=$?
		set -e
		python3 - "$rep" "$bin" "$code" "$(($(date +%s) - t0))" <<'PY' | tee -a "$out/jobs.txt"
import json, os, sys
rep, binary, code, secs = sys.argv[1:]
if not os.path.exists(rep):
    sys.exit(print(f"{binary}: exit {code}, {secs} s, no report (see {rep}.out)"))
r = json.load(open(rep))
f = next(m for m in r["metrics"] if m["key"] == "cpu_ms_per_iteration")
warm = [n for n in r["notes"] if "warm-up took" in n]
print(f"{binary}: exit {code}, {secs} s, {r['verdict']}, CPU/iteration {f.get('change', float('nan')):+.1f} % [{f.get('lower', float('nan')):+.1f} … {f.get('upper', float('nan')):+.1f}]"
      + (f"; {warm[0]}" if warm else "; warm-up as configured"))
PY
	done
done
