#!/usr/bin/env bash
# Runs every fuzz target of the module (the importers, the config parser,
# the report-artifact reader) for a given time each, one worker at a time,
# and prints per target the executions and whether it found a failure.
# A failing input is written by Go to the package's testdata/fuzz/<target>/
# (commit it: it becomes a seed that every `go test` runs).
#
#   bench/fuzz.sh                 # 3 minutes per target
#   bench/fuzz.sh 60s             # 60 s per target
#   bench/fuzz.sh 30s ./internal/importer/wrk   # only these packages
#   FUZZ_VMEM_KB=2097152 FUZZ_GOMEMLIMIT=512MiB bench/fuzz.sh   # memory caps
#
# Raw output goes to bench/out/fuzz/.
set -uo pipefail
cd "$(dirname "$0")/.."
dur=${1:-3m}
shift || true
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || mapfile -t pkgs < <(go list ./...)
vmem_kb=${FUZZ_VMEM_KB:-4194304}     # ulimit -v of each target's run: 4 GiB
gomemlimit=${FUZZ_GOMEMLIMIT:-1GiB}
out=bench/out/fuzz
mkdir -p "$out"
printf '%-58s %-26s %12s  %s\n' package target execs finding
failed=0
for pkg in "${pkgs[@]}"; do
	targets=$(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
	for t in $targets; do
		log="$out/$(basename "$pkg")-$t.log"
		# Minimizing a new input is capped so that it does not eat the run.
		# Memory is capped too (address space and Go's heap goal), so that
		# an input that makes a decoder allocate what the file did not pay
		# for fails the target instead of exhausting the machine.
		(ulimit -v "$vmem_kb" && GOMEMLIMIT=$gomemlimit go test -run '^$' -fuzz "^$t\$" -fuzztime "$dur" -fuzzminimizetime 3s -parallel 1 "$pkg") >"$log" 2>&1
		rc=$?
		execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | awk '{print $2}')
		finding=none
		if [ $rc -ne 0 ]; then
			failed=1
			finding=$(grep -m1 -o 'testdata/fuzz/[^ ]*' "$log" || true)
			finding=${finding:-"failed (see $log)"}
		fi
		printf '%-58s %-26s %12s  %s\n' "${pkg#github.com/tailgate-ci/tailgate/}" "$t" "${execs:-0}" "$finding"
	done
done
exit $failed
