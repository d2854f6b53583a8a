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

# The effects as wrk's lifecycle sees them (the workers' CPU per
# lifecycle, 6 connections, all builds at once), and the head build of an
# arm: NOTES_HEAD (run.sh's defaults).
EFFECTS_SCRIPT=bench/gunicorn/measure-injected.sh
EFFECTS_TSV=bench/out/gunicorn/effects.tsv
HEAD_VAR=NOTES_HEAD
