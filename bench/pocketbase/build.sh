#!/usr/bin/env bash
# Builds the PocketBase benchmark service (bench/pocketbase/app, its own Go
# module around github.com/pocketbase/pocketbase@v0.36.8) four times from the
# same source, differing only in the CPU work its injected middleware does per
# request, and prepares the golden data dir every instance starts from:
#
#   bench/out/pocketbase/pocketbase-clean    burnRounds=0
#   bench/out/pocketbase/pocketbase-slow5    burnRounds=$PB_BURN5 (+5 % CPU per lifecycle)
#   bench/out/pocketbase/pocketbase-slow10   burnRounds=$PB_BURN10 (+10 % CPU per lifecycle)
#   bench/out/pocketbase/pocketbase-slow30   burnRounds=$PB_BURN30 (+30 % CPU per lifecycle)
#   bench/out/pocketbase/golden/             data dir: the users of users.csv and 1000 seed complaints
#
# The users' password is PB_BENCH_PASSWORD (see password.sh: from the
# environment, else a random one kept in bench/out/pocketbase/password).
# The burn rounds (SHA-256 compressions per request) are sized on the
# gate's own lifecycle: a round costs 70 ns here (app/burn_test.go), so a
# lifecycle of five requests gains 0.35 µs a round, against the 4.5–5.0 ms
# that ab.yml's lifecycle costs a clean server (peer/peer.sh, Locust; the
# gate's clean side reads the same). 700 rounds are +5 % of that, 1400
# +10 %. (hey's five repeated requests, measure-injected.sh, cost 3.3 ms:
# the same rounds read larger there.) Override them to recalibrate:
#   PB_BURN10=1200 PB_BURN30=4000 bench/pocketbase/build.sh
# COLD=1 builds with an empty build cache (the time a CI runner without a
# warm cache pays; module downloads are not included).
# Build times go to bench/out/pocketbase/build-times.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/bench/out/pocketbase
APP=$ROOT/bench/pocketbase/app
BURN5=${PB_BURN5:-700}
BURN10=${PB_BURN10:-1400}
BURN30=${PB_BURN30:-3300}
GOLDEN_PORT=${PB_GOLDEN_PORT:-18199}
# shellcheck source=bench/pocketbase/password.sh
source "$ROOT/bench/pocketbase/password.sh"
export PB_BENCH_USERS=$ROOT/bench/pocketbase/users.csv
users=$(($(wc -l <"$PB_BENCH_USERS") - 1))
for v in BURN5 BURN10 BURN30 GOLDEN_PORT; do
	[[ ${!v} =~ ^[0-9]+$ ]] || { echo "build.sh: $v must be a non-negative integer, got '${!v}'" >&2; exit 2; }
done
mkdir -p "$OUT"
if [[ ${COLD:-0} == 1 ]]; then
	GOCACHE=$(mktemp -d)
	export GOCACHE
	trap 'rm -rf "$GOCACHE"' EXIT
fi

now() { date +%s.%N; }
build() { # build NAME ROUNDS
	local t0
	t0=$(now)
	(cd "$APP" && go build -trimpath -ldflags "-X main.burnRounds=$2 -X main.buildName=$1" -o "$OUT/pocketbase-$1.tmp" .)
	mv "$OUT/pocketbase-$1.tmp" "$OUT/pocketbase-$1"
	printf '%s\tburn_rounds=%s\t%.1f s\n' "$1" "$2" "$(echo "$(now) - $t0" | bc)" | tee -a "$OUT/build-times.txt"
}

echo "# $(date -u +%FT%TZ) go $(go env GOVERSION) cold=${COLD:-0} load: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/build-times.txt"
t_all=$(now)
build clean 0
build slow5 "$BURN5"
build slow10 "$BURN10"
build slow30 "$BURN30"
printf 'all four\t%.1f s\n' "$(echo "$(now) - $t_all" | bc)" | tee -a "$OUT/build-times.txt"

# The golden data dir: the first start on an empty dir creates the
# collection and the seed records; a clean shutdown leaves them on disk.
rm -rf "$OUT/golden.tmp"
"$ROOT/bench/pocketbase/portfree.sh" "$GOLDEN_PORT"
"$OUT/pocketbase-clean" serve --http "127.0.0.1:$GOLDEN_PORT" --dir "$OUT/golden.tmp" >"$OUT/golden.log" 2>&1 &
pid=$!
ok=0
for _ in $(seq 100); do
	if curl -fs -o /dev/null "http://127.0.0.1:$GOLDEN_PORT/api/health"; then ok=1; break; fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
count=$(curl -fsS "http://127.0.0.1:$GOLDEN_PORT/bench/count" | jq -c . || true)
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
if [[ $ok != 1 || $count != "{\"complaints\":1000,\"users\":$users}" ]]; then
	echo "build.sh: the golden data dir was not created (ready=$ok, records=$count); see $OUT/golden.log" >&2
	exit 3
fi
rm -rf "$OUT/golden"
mv "$OUT/golden.tmp" "$OUT/golden"
echo "golden data dir: $OUT/golden ($users users, 1000 seed complaints, $(du -sh "$OUT/golden" | cut -f1))"
