#!/usr/bin/env bash
# effects-summary.sh: the summary of a measure-injected.sh run (bench/pocketbase, bench/miniflux).
#
#   bench/effects-summary.sh round ROWS R         # one round's CPU per lifecycle per build
#   bench/effects-summary.sh total ROWS "BUILDS" EFFECTS TITLE
#
# ROWS is the rows.tsv the scripts write (round, build, kind, requests,
# cpu_ms, cpu_ms_ticks, us_per_req). total prints, per build of BUILDS (in
# that order, clean first), CPU per lifecycle (the sum over the kinds of CPU
# per request, ms) and its ratio to clean of the same round, median
# [min–max] over the rounds, and writes "build<TAB>ratio" lines to EFFECTS.
set -euo pipefail
case ${1:-} in
round)
	awk -F'\t' -v r="$3" '$1 == r {s[$2] += $7} END {for (b in s) printf "round %d %-7s CPU per lifecycle %.3f ms\n", r, b, s[b] / 1000}' "$2" | sort -k3
	;;
total)
	awk -F'\t' '
	NR > 1 {life[$2 SUBSEP $1] += $7 / 1000; if ($1 > rounds) rounds = $1}
	function mmm(a, n, f,   i, j, t, med) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) {t = a[j]; a[j] = a[j-1]; a[j-1] = t}
		med = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		return sprintf(f " [" f "–" f "]", med, a[1], a[n])
	}
	END {
		printf "\n%s, median [min–max] over %d rounds:\n", title, rounds
		split(builds, order, " ")
		for (i = 1; i in order; i++) {
			b = order[i]; n = 0; m = 0
			for (r = 1; r <= rounds; r++) {
				v[++n] = life[b SUBSEP r]
				q[++m] = (life[b SUBSEP r] / life["clean" SUBSEP r] - 1) * 100
			}
			line = sprintf("  %-7s %s ms", b, mmm(v, n, "%.3f"))
			if (b != "clean") {
				line = line sprintf("   vs clean: %s %%", mmm(q, m, "%+.1f"))
				print b "\t" mmm(q, m, "%+.1f") > effects
			}
			print line
		}
	}' builds="$3" effects="$4" title="$5" "$2"
	;;
*)
	echo "usage: effects-summary.sh round ROWS R | total ROWS BUILDS EFFECTS TITLE" >&2
	exit 2
	;;
esac
