#!/usr/bin/env bash
# Summarises bench/ab-design.sh's lines (files given, or every *.txt of the
# newest bench/out/ab-design-*/): per arm, the verdicts, and wall time and
# units as median [min–max]. Usage: bench/ab-design-summary.sh [FILE...]
set -euo pipefail
cd "$(dirname "$0")/.."
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
	dir=$(ls -d bench/out/ab-design-*/ | tail -1)
	files=("$dir"*-*.txt)
fi
printf '| arm | jobs | pass | regression | inconclusive | error | wall s | units | load |\n|---|---:|---:|---:|---:|---:|---|---|---|\n'
cat "${files[@]}" | awk '
function med(s,   n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return sprintf("%g [%g–%g]", (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2, a[1], a[n])
}
{
	# "HH:MM:SS load L DESIGN EFFECT:  1  exit C  W s  U pairs  VERDICT ..."
	arm = $4 " " $5; sub(/:$/, "", arm)
	for (i = 1; i <= NF; i++) {
		if ($i == "exit") code = $(i + 1)
		if ($i == "s" && wall == "") wall = $(i - 1)
		if ($i == "pairs" || $i == "pair") { units = $(i - 1); verdict = $(i + 1) }
	}
	n[arm]++; v[arm, verdict]++; walls[arm] = walls[arm] " " wall; us[arm] = us[arm] " " units
	load[arm] = load[arm] " " $3
	wall = ""
}
END {
	for (a in n) printf "| %s | %d | %d | %d | %d | %d | %s | %s | %s |\n", a, n[a], v[a, "pass"], v[a, "regression"], v[a, "inconclusive"], n[a] - v[a, "pass"] - v[a, "regression"] - v[a, "inconclusive"], med(walls[a]), med(us[a]), med(load[a])
}' | sort
