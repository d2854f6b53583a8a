#!/usr/bin/env bash
# pgshare.sh N: how much of PostgreSQL's CPU an A/B job measures when the
# service opens a connection per request (issue 36: a pool that
# reconnects). bench/gunicorn's notes API on PostgreSQL (ab-pg.yml), N jobs
# per arm (aa: A/A; n1: the head's list step fetches each note with its own
# query) in each of two ways of measuring the database:
#
#   sides    each side's part is the backends serving its own database,
#            selected by command line (ab-pg.yml as committed): a backend
#            that lives a few milliseconds mostly ends between two samples,
#            so the part catches a share of them, which the report states
#            (part.postgres.cpu_attributed_pct of the postmaster's tree);
#   cluster  each side's part is the whole cluster, by the postmaster's pid
#            file (ended backends counted exactly through the postmaster).
#
# Jobs alternate mode and arm; no hog. Raw outputs in
# bench/out/gunicorn/pgshare-<time>/, with summary.txt: per job the
# verdict, wall time, and per side the part's CPU per iteration, the
# server's, the attributed share, connections (sessions) and statements
# (calls) per iteration, and path CPU's change and verdict.
set -euo pipefail
n=${1:?usage: pgshare.sh N}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
source bench/gunicorn/password.sh
source bench/miniflux/lib.sh
bench/miniflux/pg.sh status >/dev/null 2>&1 || bench/miniflux/pg.sh start
psql_q -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'gnotes_tmpl'" | grep -q 1 || bench/gunicorn/build.sh --pg
OUT=bench/out/gunicorn/pgshare-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
go build -o "$OUT/tailgate" ./cmd/tailgate
cluster=bench/gunicorn/.cluster-pg.yml # beside ab-pg.yml: its relative paths hold (ignored by git)
/usr/bin/python3 - "$PG_DATA/postmaster.pid" >"$cluster" <<'PY'
import re, sys
s = open("bench/gunicorn/ab-pg.yml").read()
part = "    measure:                         # the whole cluster\n      - name: postgres\n        pid_file: %s\n" % sys.argv[1]
s, k = re.subn(r"    measure:\n      - name: postgres\n        process: .*\n", lambda m: part, s)
assert k == 2, "ab-pg.yml: expected a measure: block on each side"
print(s, end="")
PY
for ((i = 1; i <= n; i++)); do
	for mode in sides cluster; do
		for arm in aa n1; do
			cfg=bench/gunicorn/ab-pg.yml
			[[ $mode == cluster ]] && cfg=$cluster
			job=$OUT/$mode-$arm-$i
			t0=$(date +%s.%N)
			set +e
			env NOTES_HEAD_N1="$([[ $arm == n1 ]] && echo 1)" XDG_CACHE_HOME="$ROOT/$OUT/cache" timeout 10m \
				"$OUT/tailgate" ab -c "$cfg" --max-time 150s --report "$job.report.json" >"$job.out" 2>"$job.err"
			code=$?
			set -e
			echo "$(date +%s.%N) - $t0" | bc >"$job.time"
			printf '%s %-7s %-3s %d exit %d %5.1f s\n' "$(date -u +%T)" "$mode" "$arm" "$i" "$code" "$(cat "$job.time")" | tee -a "$OUT/jobs.txt"
		done
	done
done
/usr/bin/python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import glob, json, os, sys
out = sys.argv[1]
keys = ["part.postgres.cpu_ms_per_iteration", "part.postgres.server_cpu_ms_per_iteration",
        "part.postgres.cpu_attributed_pct", "counter.pg.sessions", "counter.pg.calls"]
print("job              verdict     wall s | base: part, server ms/it, attributed %, sessions, calls | head: the same | path CPU change, verdict")
for f in sorted(glob.glob(os.path.join(out, "*.report.json"))):
    d = json.load(open(f))
    m = {x["key"]: x for x in d["metrics"]}
    def side(s):
        return " ".join("%.2f" % m[k][s] if k in m and m[k].get(s) is not None else "-" for k in keys)
    p = m.get("path_cpu_ms_per_iteration", {})
    wall = open(f.replace(".report.json", ".time")).read().strip()
    chg = "%+.1f %%" % p["change"] if p.get("change") is not None else "-"
    print("%-16s %-11s %6.1f | %s | %s | %s %s" % (os.path.basename(f)[:-12], d["verdict"], float(wall),
          side("baseline_median"), side("head_median"), chg, p.get("verdict", "-")))
PY
