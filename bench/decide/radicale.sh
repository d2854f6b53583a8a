# shellcheck shell=bash
# The Radicale driver of bench/decide/run.sh: Radicale 3.1.8 (Debian's
# python3-radicale, a CalDAV/CardDAV server this project did not write) in
# three copies, two of which burn PBKDF2 iterations in every request
# (bench/radicale: builds slow5 and slow10), its A/B benchmark
# bench/radicale/ab.yml (a calendar client's 5-request lifecycle on a
# 300-event calendar, a closed and an open phase), the effects measured
# with wrk, builds alternating. Arms:
#   ARMS="aa slow5 slow10" bench/decide/run.sh radicale N
CONFIG=bench/radicale/ab.yml

prepare() {
	[[ -d bench/out/radicale/slow10/radicale && -d bench/out/radicale/seed ]] || bench/radicale/build.sh
	command -v wrk >/dev/null || { echo "radicale.sh: wrk missing (apt-get install wrk)" >&2; exit 2; }
}

EFFECTS_SCRIPT=bench/radicale/measure-injected.sh
EFFECTS_TSV=bench/out/radicale/effects.tsv
HEAD_VAR=RADICALE_HEAD
