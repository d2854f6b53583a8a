# shellcheck shell=bash
# The Caddy driver of bench/decide/run.sh: Caddy v2.11.9 (a server this
# project did not write) with a burn handler of SHA-256 rounds per request
# (bench/caddy: builds slow5 and slow10), serving a page rendered from a
# template and Markdown, a directory listing and gzip-compressed JSON; its
# A/B benchmark bench/caddy/ab.yml (a 4-request lifecycle, one closed
# phase), the effects measured with wrk, builds alternating. Arms:
#   ARMS="aa slow5 slow10" bench/decide/run.sh caddy N
CONFIG=bench/caddy/ab.yml

prepare() {
	[[ -x bench/out/caddy/caddy-slow10 ]] || bench/caddy/build.sh
	command -v wrk >/dev/null || { echo "caddy.sh: wrk missing (apt-get install wrk)" >&2; exit 2; }
}

EFFECTS_SCRIPT=bench/caddy/measure-injected.sh
EFFECTS_TSV=bench/out/caddy/effects.tsv
HEAD_VAR=CADDY_HEAD
