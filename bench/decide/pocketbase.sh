# shellcheck shell=bash
# The PocketBase driver of bench/decide/run.sh: PocketBase v0.36.8 as a
# library (bench/pocketbase/app), its A/B benchmark bench/pocketbase/ab.yml
# (a signed-in 5-step lifecycle, a closed capacity phase and an open
# latency phase), and the injected CPU regressions of build.sh (a
# middleware that chains SHA-256: PB_BURN5, PB_BURN10 and PB_BURN30 rounds per
# request), measured before the series by a peer tool on the same lifecycle.
# shellcheck source=bench/pocketbase/password.sh
source bench/pocketbase/password.sh
CONFIG=bench/pocketbase/ab.yml

prepare() {
	[[ -x bench/out/pocketbase/pocketbase-slow5 && -x bench/out/pocketbase/pocketbase-slow30 && -d bench/out/pocketbase/golden ]] || bench/pocketbase/build.sh
	command -v locust >/dev/null || { echo "pocketbase.sh: locust not found (apt-get install python3-locust)" >&2; exit 2; }
}

# The effects of the builds the arms name as Locust sees them on ab.yml's
# own lifecycle (peer/peer.sh: 8 users, the builds taking turns, 10
# rounds unless EFFECT_ROUNDS; hey's measure-injected.sh repeats single
# requests, a cheaper lifecycle, so the same work reads larger there),
# and the head build of an arm: PB_HEAD (run.sh's default).
HEAD_VAR=PB_HEAD
measure_effects() {
	local builds=clean arm
	for arm in "${arms[@]}"; do [[ $arm == aa ]] || builds+=" $arm"; done
	bench/pocketbase/peer/peer.sh -r "${EFFECT_ROUNDS:-10}" -b "$builds" -o "$1/effects.tsv" 2>&1 | tail -4
}
