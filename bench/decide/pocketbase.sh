# shellcheck shell=bash
# The PocketBase driver of bench/decide/run.sh: PocketBase v0.36.8 as a
# library (bench/pocketbase/app), its A/B benchmark bench/pocketbase/ab.yml
# (a signed-in 5-step lifecycle, a closed capacity phase and an open
# latency phase), and the injected CPU regressions of build.sh (a
# middleware that chains SHA-256: PB_BURN10 and PB_BURN30 rounds per
# request), measured with hey before the series.
# shellcheck source=bench/pocketbase/password.sh
source bench/pocketbase/password.sh
CONFIG=bench/pocketbase/ab.yml

prepare() {
	[[ -x bench/out/pocketbase/pocketbase-slow30 && -d bench/out/pocketbase/golden ]] || bench/pocketbase/build.sh
	command -v hey >/dev/null || PATH=$PATH:$(go env GOPATH)/bin
	command -v hey >/dev/null || go install github.com/rakyll/hey@v0.1.5
}

# measure_effects OUT: the injected effects as hey sees them (3 rounds,
# closed loop at the capacity phase's 8 connections).
measure_effects() {
	bench/pocketbase/measure-injected.sh -r "${EFFECT_ROUNDS:-3}" 2>&1 | tail -6
	cp bench/out/pocketbase/effects.tsv "$1/effects.tsv" 2>/dev/null || true
}

# head_env ARM: the environment that makes the arm's head build.
head_env() {
	case $1 in
	aa) echo PB_HEAD=clean ;;
	*) echo "PB_HEAD=$1" ;;
	esac
}
