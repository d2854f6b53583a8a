# shellcheck shell=bash
# The Miniflux driver of bench/decide/run.sh: Miniflux v2.3.5 on a private
# PostgreSQL 15 cluster (bench/miniflux), its A/B benchmark
# bench/miniflux/ab.yml (an API-key reader's sync, one closed phase; the
# PostgreSQL server's processes measured beside Miniflux's, its
# pg_stat_statements and Miniflux's allocations read as counters), and the
# injected CPU regressions of cpu-burn.patch (SHA-256 rounds before every
# API request: builds slow10 and slow30), measured with hey before the
# series. The database server is one for both sides, each side on its own
# database and measuring the backends that serve it, so both sides can be
# loaded at once. ARMS may also name n1 (the N+1 query of n1-query.patch)
# and noidx (the head's database cloned from the template without
# enclosures_entry_id_idx): the database regressions of issue 36.
CONFIG=bench/miniflux/ab.yml
# The counters' psql (pg_stat_statements) runs in tailgate's environment:
# lib.sh exports where the private cluster listens (PGHOST, PGPORT,
# PGUSER). Without them every read failed and the pg counters, gated, were
# absent from every job of the 03:59 series of 2026-12-05.
# shellcheck source=bench/miniflux/lib.sh
source bench/miniflux/lib.sh

# MF_MEASURE=cluster measures the whole PostgreSQL cluster on both sides
# instead of each side's own backends (the postmaster's pid file: every
# backend, the ended ones counted exactly through the postmaster, and the
# server's own processes): a copy of ab.yml beside it with each side's
# measure: replaced (.cluster.yml, ignored by git). Both sides then list the
# same processes, so no window loads both at once (docs/footprint.md).
if [[ ${MF_MEASURE:-sides} == cluster ]]; then
	CONFIG=bench/miniflux/.cluster.yml
	/usr/bin/python3 - "$PG_DATA/postmaster.pid" >"$CONFIG" <<'PY'
import re, sys
s = open("bench/miniflux/ab.yml").read()
part = "    measure:                         # the whole cluster: the postmaster and every process it forks\n" \
       "      - name: postgres\n        pid_file: %s\n" % sys.argv[1]
s, n = re.subn(r"    measure:.*\n      - name: postgres\n        process: .*\n", lambda m: part, s)
assert n == 2, "ab.yml: expected a measure: block on each side"
print(s, end="")
PY
fi

prepare() {
	[[ -x bench/out/miniflux/bin/miniflux-slow30 ]] || bench/miniflux/build.sh
	bench/miniflux/pg.sh status >/dev/null 2>&1 || bench/miniflux/pg.sh start
	command -v hey >/dev/null || PATH=$PATH:$(go env GOPATH)/bin
	command -v hey >/dev/null || go install github.com/rakyll/hey@v0.1.5
}

# measure_effects OUT: the injected effects as hey sees them (Miniflux's own
# CPU per lifecycle, closed loop at ab.yml's 4 connections).
# EFFECT_ROUNDS=0 skips it (the effects of the same builds measured
# before: bench/out/miniflux/effects.tsv is copied as it is).
measure_effects() {
	if [[ ${EFFECT_ROUNDS:-3} == 0 ]]; then
		echo "effects not measured in this series: the last measure-injected.sh run's, $(ls -d bench/out/miniflux/measure-* | tail -1):"
		cat bench/out/miniflux/effects.tsv
		cp bench/out/miniflux/effects.tsv "$1/effects.tsv"
		return
	fi
	bench/miniflux/measure-injected.sh -r "${EFFECT_ROUNDS:-3}" 2>&1 | tail -6
	cp bench/out/miniflux/effects.tsv "$1/effects.tsv" 2>/dev/null || true
}

# head_env ARM: the environment that makes the arm's head build.
head_env() {
	case $1 in
	aa) echo MF_HEAD=clean ;;
	noidx) echo MF_HEAD=clean MF_HEAD_DB=miniflux_tmpl_noidx ;; # the dropped index: the head's template lacks it
	*) echo "MF_HEAD=$1" ;;                                        # slow10, slow30, n1
	esac
}
