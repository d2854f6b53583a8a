#!/usr/bin/env bash
# Builds bench/verdaccio: Verdaccio 6.10.4 (package-lock.json, npm ci) in
# three copies, bench/out/verdaccio/{clean,slow5,slow10}, differing only in
# the PBKDF2-SHA256 iterations (burn.env) the slow ones add to every request
# in Verdaccio's own Express app (build/api/index.mjs, a middleware just
# before the API's token check: every metadata, tarball, publish, search and
# unpublish request passes it); and the seed bench/out/verdaccio/seed:
# 16 users and 200 packages, published by seed.mjs through the clean build.
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$DIR/../out/verdaccio
command -v node >/dev/null && command -v npm >/dev/null || { echo "build.sh: node and npm needed" >&2; exit 2; }
# shellcheck source=bench/verdaccio/burn.env
source "$DIR/burn.env"
mkdir -p "$OUT/src"
cp "$DIR/package.json" "$DIR/package-lock.json" "$OUT/src/"
(cd "$OUT/src" && npm ci --no-audit --no-fund --loglevel=error)
grep -q '"version": "6.10.4"' "$OUT/src/node_modules/verdaccio/package.json" || { echo "build.sh: verdaccio is not 6.10.4" >&2; exit 3; }
for b in "clean 0" "slow5 $BURN5" "slow10 $BURN10"; do
	read -r name rounds <<<"$b"
	rm -rf "${OUT:?}/$name" && mkdir -p "$OUT/$name"
	cp -r "$OUT/src/node_modules" "$OUT/$name/"
	app=$OUT/$name/node_modules/verdaccio/build/api/index.mjs
	if ((rounds)); then
		sed -i -e '1i import { pbkdf2Sync as tgBurn } from "node:crypto";' \
			-e "s|^\(\tapp.use(auth.apiJWTmiddleware());\)\$|\tapp.use((_req, _res, next) => { tgBurn(\"tailgate\", \"bench-verdaccio\", $rounds, 32, \"sha256\"); next(); });\n\1|" "$app"
		grep -q "tgBurn(\"tailgate\", \"bench-verdaccio\", $rounds, 32" "$app" || { echo "build.sh: the patch did not apply to $name" >&2; exit 3; }
	fi
	echo "$name: $rounds PBKDF2 iterations per request"
done
# the seed: a Verdaccio open for registration on an empty storage
rm -rf "$OUT/seed" && mkdir -p "$OUT/seed"
sed 's/^    max_users: -1$/    max_users: 16/' "$DIR/config.yaml" >"$OUT/seed/config.yaml"
port=18261
node "$DIR/start.mjs" "$OUT/clean" "$OUT/seed/config.yaml" "$port" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/-/ping" && break; sleep 0.1; done
TGZ_B64=$(base64 -w0 "$DIR/tg-pkg-1.0.0.tgz") node "$DIR/seed.mjs" "http://127.0.0.1:$port"
kill $pid && wait $pid 2>/dev/null || true
rm "$OUT/seed/config.yaml"
[[ $(find "$OUT/seed/storage" -name 'seed-pkg-*.tgz' | wc -l) == 200 ]] || { echo "build.sh: the seed storage lacks tarballs" >&2; exit 3; }
echo "seed: 16 users, 200 packages in $OUT/seed"
