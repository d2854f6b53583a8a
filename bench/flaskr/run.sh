#!/usr/bin/env bash
# run.sh APP_DIR [A/A JOBS] [A/B JOBS]: the Flask tutorial's blog (APP_DIR
# is flask's examples/tutorial, unmodified) under tailgate ab: A/A jobs
# (both sides the clean app), then A/B jobs whose head is a copy slowed by a
# CPU loop of FLASKR_BURN rounds in the create view (default 200000: about
# 2 ms, +25 % of the clean app's 9 ms of CPU per iteration). The copies go
# to bench/out/flaskr (never committed); each job's report to
# bench/out/flaskr/<stamp>/. Needs Debian's gunicorn and Flask, and tailgate
# on PATH (or TAILGATE). The password holds & and =, which form: encodes.
set -euo pipefail
app=${1:?usage: run.sh APP_DIR [AA_JOBS] [AB_JOBS]}
aa=${2:-2} ab=${3:-2}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/bench/out/flaskr
tg=${TAILGATE:-tailgate}
[[ -f $app/flaskr/blog.py ]] || { echo "run.sh: $app/flaskr/blog.py missing: give flask's examples/tutorial" >&2; exit 2; }
[[ -x /usr/bin/gunicorn ]] || { echo "run.sh: apt-get install gunicorn python3-flask" >&2; exit 2; }
rm -rf "$OUT/clean" "$OUT/slow" && mkdir -p "$OUT"
cp -r "$app" "$OUT/clean" && cp -r "$app" "$OUT/slow"
# The slow copy: a CPU loop as the create view's first statement on a POST.
python3 - "$OUT/slow/flaskr/blog.py" "${FLASKR_BURN:-200000}" <<'PY'
import sys
path, burn = sys.argv[1], int(sys.argv[2])
src = open(path).read()
at = src.index('if request.method == "POST":', src.index("def create("))
at = src.index("\n", at) + 1
open(path, "w").write(src[:at] + f"        for _ in range({burn}):\n            pass\n" + src[at:])
PY
grep -c "for _ in range" "$OUT/slow/flaskr/blog.py" >/dev/null
export FLASKR_PASSWORD='pa&ss=w+rd'
run=$OUT/$(date -u +%Y%m%dT%H%M%SZ) && mkdir -p "$run"
cd "$ROOT"
job() { # job NAME HEAD
	echo "== $1 (head: $2): $tg ab -c bench/flaskr/ab.yml"
	FLASKR_HEAD=$2 "$tg" ab -c bench/flaskr/ab.yml -o "$run/$1.json" --markdown "$run/$1.md" >"$run/$1.log" 2>&1 || true
	grep -E "^A/B stopped|^tailgate: flaskr|^(iterations/s|latency p95|CPU/iteration|lifecycle success) " "$run/$1.log" || true
}
for i in $(seq "$aa"); do job "aa-$i" clean; done
for i in $(seq "$ab"); do job "ab-$i" slow; done
echo "reports: $run"
