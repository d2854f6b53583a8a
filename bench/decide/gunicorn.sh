# shellcheck shell=bash
# The gunicorn driver of bench/decide/run.sh: a Flask notes API behind a
# session-cookie login under Debian's gunicorn with three sync worker
# processes (bench/gunicorn), its A/B benchmark bench/gunicorn/ab.yml (a
# signed-in 5-step lifecycle, a closed capacity phase and an open latency
# phase), and the injected CPU regressions of burn.env (SHA-256 rounds in
# every /notes request: builds slow10 and slow30), measured with wrk
# running the same lifecycle before the series. The target's CPU is the
# gunicorn master's process tree, its workers (issue 38 part 8).
# shellcheck source=bench/gunicorn/password.sh
source bench/gunicorn/password.sh
CONFIG=bench/gunicorn/ab.yml

prepare() {
	[[ -f bench/out/gunicorn/golden.db ]] || bench/gunicorn/build.sh
	command -v wrk >/dev/null || { echo "gunicorn.sh: wrk missing (apt-get install wrk)" >&2; exit 2; }
}

# measure_effects OUT: the injected effects as wrk's lifecycle sees them
# (the workers' CPU per lifecycle, 6 connections, all builds at once).
measure_effects() {
	bench/gunicorn/measure-injected.sh -r "${EFFECT_ROUNDS:-3}" 2>&1 | tail -3
	cp bench/out/gunicorn/effects.tsv "$1/effects.tsv" 2>/dev/null || true
}

# head_env ARM: the environment that makes the arm's head build.
head_env() {
	case $1 in
	aa) echo NOTES_HEAD=clean ;;
	*) echo "NOTES_HEAD=$1" ;;
	esac
}
