# shellcheck shell=bash
# The go-httpbin driver of bench/decide/run.sh: go-httpbin v2.26.0 (a
# service this project did not write) behind a wrapper that burns SHA-256
# rounds per request (bench/httpbin: builds slow5 and slow10), its A/B
# benchmark bench/httpbin/ab.yml (a 4-request lifecycle, one closed
# phase), the effects measured with wrk, builds alternating. Arms:
#   ARMS="aa slow5 slow10" bench/decide/run.sh httpbin N
CONFIG=bench/httpbin/ab.yml

prepare() {
	[[ -x bench/out/httpbin/httpbin-slow10 ]] || bench/httpbin/build.sh
	command -v wrk >/dev/null || { echo "httpbin.sh: wrk missing (apt-get install wrk)" >&2; exit 2; }
}

EFFECTS_SCRIPT=bench/httpbin/measure-injected.sh
EFFECTS_TSV=bench/out/httpbin/effects.tsv
HEAD_VAR=HTTPBIN_HEAD
