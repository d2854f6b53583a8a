#!/usr/bin/env bash
# build.sh: installs what the benchmark needs (PostgreSQL 15 from Debian,
# if absent), builds Miniflux v2.3.5 from the Go module proxy's source
# — as released (clean), with the injected N+1 query (n1), and with the
# injected CPU regression (slow10, slow30: cpu-burn.patch) — and makes the
# private cluster with the fixed dataset (dataset.sh).
#
# MF_BURN10, MF_BURN30: the SHA-256 rounds each API request burns in slow10
# and slow30, chosen so that a peer tool measures about +10 % and +30 %
# Miniflux CPU per lifecycle (measure-injected.sh; see the README).
source "$(dirname "$0")/lib.sh"
mkdir -p "$OUT/bin" "$OUT/src"

if [ ! -x "$PG_BIN/postgres" ] || [ ! -f /usr/lib/postgresql/15/lib/pg_stat_statements.so ]; then
	echo "installing postgresql-15"
	apt-get update -qq && apt-get install -y -qq postgresql-15
fi
command -v psql >/dev/null || apt-get install -y -qq postgresql-client-15

# The module's source, from the proxy (go mod download keeps it read-only
# in the module cache: the builds use copies).
src=$(cd "$OUT/src" && GOFLAGS=-mod=mod go mod download -json "miniflux.app/v2@$MF_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "go mod download miniflux.app/v2@$MF_VERSION gave no source directory" >&2; exit 3; }
for build in clean n1; do
	rm -rf "$OUT/src/$build"
	cp -r "$src" "$OUT/src/$build"
	chmod -R u+w "$OUT/src/$build"
	if [ "$build" = n1 ]; then
		patch -s -d "$OUT/src/n1" -p1 <"$MF_DIR/n1-query.patch"
	fi
	start=$(date +%s)
	(cd "$OUT/src/$build" && nice -n 10 go build -trimpath -o "$OUT/bin/miniflux-$build" .)
	echo "built miniflux-$build in $(($(date +%s) - start)) s"
done

# The CPU regression: one patched copy, linked twice. burnRounds is a string
# set at link time (-X), so slow10 and slow30 are the same code with
# different work per request, and the second build is only a link.
rm -rf "$OUT/src/slow"
cp -r "$src" "$OUT/src/slow"
chmod -R u+w "$OUT/src/slow"
patch -s -d "$OUT/src/slow" -p1 <"$MF_DIR/cpu-burn.patch"
for build in slow10 slow30; do
	case $build in
	slow10) rounds=${MF_BURN10:-1650} ;;
	slow30) rounds=${MF_BURN30:-5300} ;;
	esac
	[[ $rounds =~ ^[0-9]+$ ]] || { echo "build.sh: burn rounds of $build must be a non-negative integer, got '$rounds'" >&2; exit 2; }
	start=$(date +%s)
	(cd "$OUT/src/slow" && nice -n 10 go build -trimpath -ldflags "-X miniflux.app/v2/internal/api.burnRounds=$rounds" -o "$OUT/bin/miniflux-$build" .)
	# -trimpath leaves -ldflags out of the binary's build info: the rounds
	# are recorded beside it (measure-injected.sh prints them).
	echo "$rounds" >"$OUT/bin/miniflux-$build.burn"
	echo "built miniflux-$build (burnRounds=$rounds) in $(($(date +%s) - start)) s"
done
"$OUT/bin/miniflux-clean" -version

"$MF_DIR/dataset.sh"
