#!/usr/bin/env bash
# Where an A/B job's noise and time go, on two real services (issue 19):
# noiseprobe on PocketBase (its capacity phase) and on Miniflux (its one
# closed phase), A/A (two processes of the clean build per block: the
# configs' head is the clean build unless PB_HEAD / MF_HEAD say otherwise,
# and each side keeps its own data dir or database), each
# with the windows alternating between the sides (A B B A) and with both
# sides loaded at once (duet), each on the quiet machine and beside a CPU
# hog at normal priority (HOGS busy loops, default 1). BLOCKS blocks of one
# segment per window length (WINDOWS, default 250ms,500ms,1s,2s) of
# SEGMENT each (default 12s). Every run's JSON lines and its analysis go to
# bench/out/noiseprobe-<time>/; about 4 minutes a run, 16 runs in all.
#
#   bench/noiseprobe/run.sh                      # both services
#   SERVICES=pocketbase bench/noiseprobe/run.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BLOCKS=${BLOCKS:-4}
WINDOWS=${WINDOWS:-250ms,500ms,1s,2s}
SEGMENT=${SEGMENT:-12s}
HOGS=${HOGS:-1}
read -r -a services <<<"${SERVICES:-pocketbase miniflux}"
OUT=bench/out/noiseprobe-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
go build -o "$OUT/noiseprobe" ./bench/noiseprobe

hog_pids=()
hog_off() {
	((${#hog_pids[@]})) && kill "${hog_pids[@]}" 2>/dev/null || true
	wait "${hog_pids[@]}" 2>/dev/null || true
	hog_pids=()
}
trap hog_off EXIT

for svc in "${services[@]}"; do
	case $svc in
	pocketbase)
		# shellcheck source=bench/pocketbase/password.sh
		source bench/pocketbase/password.sh
		[[ -x bench/out/pocketbase/pocketbase-clean ]] || bench/pocketbase/build.sh
		config=bench/pocketbase/ab.yml phase=capacity
		;;
	miniflux)
		[[ -x bench/out/miniflux/bin/miniflux-clean ]] || bench/miniflux/build.sh
		bench/miniflux/pg.sh status >/dev/null 2>&1 || bench/miniflux/pg.sh start
		config=bench/miniflux/ab.yml phase=""
		;;
	*) echo "run.sh: unknown service $svc" >&2; exit 2 ;;
	esac
	for mode in alternate duet; do
		for hog in 0 1; do
			name=$svc-$mode-hog$hog
			args=(-c "$config" -blocks "$BLOCKS" -windows "$WINDOWS" -segment "$SEGMENT" -o "$OUT/$name.jsonl")
			[[ -n $phase ]] && args+=(-phase "$phase")
			[[ $mode == duet ]] && args+=(-duet)
			if ((hog)); then
				for ((h = 0; h < HOGS; h++)); do
					sh -c 'while :; do :; done' &
					hog_pids+=($!)
				done
			fi
			echo "== $name (load $(cut -d' ' -f1 /proc/loadavg))"
			"$OUT/noiseprobe" "${args[@]}" 2>"$OUT/$name.err"
			hog_off
			"$OUT/noiseprobe" -analyze "$OUT/$name.jsonl" | tee "$OUT/$name.txt"
		done
	done
done
echo "raw lines and analyses in $OUT"
