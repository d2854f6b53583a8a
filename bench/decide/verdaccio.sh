# shellcheck shell=bash
# The Verdaccio driver of bench/decide/run.sh: Verdaccio 6.10.4 (a private
# npm registry in Node.js, which this project did not write) in three
# copies, two of which burn PBKDF2 iterations in every request
# (bench/verdaccio: builds slow5 and slow10), its A/B benchmark
# bench/verdaccio/ab.yml (npm's 7-request life of a package on a registry
# of 200, logged in once per user, a closed and an open phase), the effects
# measured with wrk, builds alternating. Arms:
#   ARMS="aa slow5 slow10" bench/decide/run.sh verdaccio N
CONFIG=bench/verdaccio/ab.yml

prepare() {
	[[ -d bench/out/verdaccio/slow10/node_modules && -d bench/out/verdaccio/seed/storage ]] || bench/verdaccio/build.sh
	command -v wrk >/dev/null || { echo "verdaccio.sh: wrk missing (apt-get install wrk)" >&2; exit 2; }
}

EFFECTS_SCRIPT=bench/verdaccio/measure-injected.sh
EFFECTS_TSV=bench/out/verdaccio/effects.tsv
HEAD_VAR=VERDACCIO_HEAD
