#!/usr/bin/env bash
# build.sh: installs what the benchmark needs (PostgreSQL 15 from Debian,
# if absent), builds Miniflux v2.3.5 from the Go module proxy's source
# twice — as released (clean) and with the injected N+1 query (n1) — and
# makes the private cluster with the fixed dataset (dataset.sh).
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
"$OUT/bin/miniflux-clean" -version

"$MF_DIR/dataset.sh"
