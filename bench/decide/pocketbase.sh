# shellcheck shell=bash
# The PocketBase driver of bench/decide/run.sh: PocketBase v0.36.8 as a
# library (bench/pocketbase/app), its A/B benchmark bench/pocketbase/ab.yml
# (a signed-in 5-step lifecycle, a closed capacity phase and an open
# latency phase), and the injected CPU regressions of build.sh (a
# middleware that chains SHA-256: PB_BURN5, PB_BURN10 and PB_BURN30 rounds per
# request), measured with hey before the series.
# shellcheck source=bench/pocketbase/password.sh
source bench/pocketbase/password.sh
CONFIG=bench/pocketbase/ab.yml

prepare() {
	[[ -x bench/out/pocketbase/pocketbase-slow5 && -x bench/out/pocketbase/pocketbase-slow30 && -d bench/out/pocketbase/golden ]] || bench/pocketbase/build.sh
	command -v hey >/dev/null || PATH=$PATH:$(go env GOPATH)/bin
	command -v hey >/dev/null || go install github.com/rakyll/hey@v0.1.5
}

# The effects as hey sees them (3 rounds, closed loop at the capacity
# phase's 8 connections) of the builds the arms name, and the head build
# of an arm: PB_HEAD (run.sh's default).
HEAD_VAR=PB_HEAD
measure_effects() {
	local builds=clean arm
	for arm in "${arms[@]}"; do [[ $arm == aa ]] || builds+=" $arm"; done
	bench/pocketbase/measure-injected.sh -r "${EFFECT_ROUNDS:-3}" -b "$builds" 2>&1 | tail -6
	cp bench/out/pocketbase/effects.tsv "$1/effects.tsv" 2>/dev/null || true
}
