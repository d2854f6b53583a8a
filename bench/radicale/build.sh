#!/usr/bin/env bash
# Builds bench/radicale: three copies of Debian's Radicale 3.1.8
# (python3-radicale), bench/out/radicale/{clean,slow5,slow10}/radicale,
# differing only in the PBKDF2-SHA256 iterations (burn.env) the slow ones
# add to Application._handle_request, the code path of every request; and
# the fixed dataset bench/out/radicale/seed (seed.py), its cache primed by
# the clean build and its storage checked with radicale --verify-storage.
set -euo pipefail
DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$DIR/../out/radicale
SRC=/usr/lib/python3/dist-packages/radicale
[[ -f $SRC/app/__init__.py ]] || { echo "build.sh: $SRC missing (apt-get install python3-radicale)" >&2; exit 2; }
grep -q '^Version: 3.1.8' <(dpkg -s python3-radicale) || echo "build.sh: python3-radicale is not 3.1.8: burn.env was calibrated on 3.1.8" >&2
# shellcheck source=bench/radicale/burn.env
source "$DIR/burn.env"
mkdir -p "$OUT"
for b in "clean 0" "slow5 $BURN5" "slow10 $BURN10"; do
	read -r name rounds <<<"$b"
	rm -rf "${OUT:?}/$name" && mkdir -p "$OUT/$name"
	cp -r "$SRC" "$OUT/$name/radicale"
	find "$OUT/$name" -name __pycache__ -prune -exec rm -rf {} +
	if ((rounds)); then
		# one line after the request's method is read: the same work for every request
		sed -i "s|^\(        request_method = environ\[\"REQUEST_METHOD\"\].upper()\)\$|\1\n        __import__(\"hashlib\").pbkdf2_hmac(\"sha256\", b\"tailgate\", b\"bench-radicale\", $rounds)|" \
			"$OUT/$name/radicale/app/__init__.py"
		grep -q "pbkdf2_hmac(\"sha256\", b\"tailgate\", b\"bench-radicale\", $rounds)" "$OUT/$name/radicale/app/__init__.py" ||
			{ echo "build.sh: the patch did not apply to $name" >&2; exit 3; }
	fi
	/usr/bin/python3 -m compileall -q "$OUT/$name/radicale"
	echo "$name: $rounds PBKDF2 iterations per request"
done
rm -rf "$OUT/seed"
/usr/bin/python3 "$DIR/seed.py" "$OUT"
# prime the item cache: one export of each collection by the clean build
port=18241
PYTHONPATH=$OUT/clean /usr/bin/python3 -m radicale -C "$DIR/radicale.conf" -H "127.0.0.1:$port" \
	--storage-filesystem-folder "$OUT/seed" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -fs -o /dev/null -u tg:tg "http://127.0.0.1:$port/tg/team/" && break; sleep 0.1; done
n=$(curl -fs -u tg:tg "http://127.0.0.1:$port/tg/team/" | grep -c '^UID:')
curl -fs -o /dev/null -u tg:tg "http://127.0.0.1:$port/tg/contacts/"
kill $pid && wait $pid 2>/dev/null || true
[[ $n == 300 ]] || { echo "build.sh: the seed calendar serves $n events, not 300" >&2; exit 3; }
PYTHONPATH=$OUT/clean /usr/bin/python3 -m radicale -C "$DIR/radicale.conf" --storage-filesystem-folder "$OUT/seed" --verify-storage
echo "seed: 300 events, 200 contacts in $OUT/seed"
