#!/usr/bin/env bash
# Measures `tailgate import` on a generated JMeter CSV JTL of about 1 GB:
# wall time, CPU time (user + system) and peak RSS of each of N imports
# (default 3), and their medians, with /usr/bin/time -v. On a shared
# machine the wall time includes waiting for a core; the CPU time is what
# the import itself costs. The JTL is written to a temporary
# folder (TMPDIR, default /tmp) and deleted at the end.
#
#   bench/importspeed/run.sh                 # builds ./cmd/tailgate and measures it
#   bench/importspeed/run.sh /path/tailgate  # measures that binary
#   SIZE_MB=256 RUNS=5 bench/importspeed/run.sh
#
# The rows are JMeter's default 17-column layout: 20 labels over 50
# threads, one sample a millisecond, every 50th failed with a 503.
set -euo pipefail
cd "$(dirname "$0")/../.."
size_mb=${SIZE_MB:-1024}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
bin=${1:-}
if [ -z "$bin" ]; then
	go build -o "$work/tailgate" ./cmd/tailgate
	bin=$work/tailgate
fi
jtl=$work/big.jtl
rows=$((size_mb * 1024 * 1024 / 120))
awk -v rows="$rows" 'BEGIN {
	print "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"
	srand(1)
	for (i = 0; i < rows; i++) {
		lab = i % 20; th = i % 50 + 1; el = 5 + int(rand() * 200)
		if (i % 50 == 49) { code = 503; msg = "Service Unavailable"; ok = "false"; fail = "Test failed: code expected 200" }
		else { code = 200; msg = "OK"; ok = "true"; fail = "" }
		printf "%d,%d,GET /items/%d,%d,%s,Thread Group 1-%d,text,%s,%s,3213,246,50,50,http://127.0.0.1:8080/items/%d,%d,0,%d\n",
			1700000000000 + i, el, lab, code, msg, th, ok, fail, lab, int(el * 0.8), i % 7
	}
}' >"$jtl"
bytes=$(stat -c %s "$jtl")
echo "JTL: $bytes bytes, $rows samples; binary: $bin"
walls=() rss=() cpus=()
for i in $(seq "$runs"); do
	/usr/bin/time -v "$bin" import -o "$work/out.json" "$jtl" >/dev/null 2>"$work/time.txt"
	w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (k = 1; k <= n; k++) s = s * 60 + p[k]; print s}' "$work/time.txt")
	r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
	u=$(awk -F': ' '/User time/ {print $2}' "$work/time.txt")
	s=$(awk -F': ' '/System time/ {print $2}' "$work/time.txt")
	cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')
	walls+=("$w") rss+=("$r") cpus+=("$cpu")
	printf 'run %d: %6.2f s wall, %6.2f s CPU (user %.2f + sys %.2f), %6d KB max RSS\n' "$i" "$w" "$cpu" "$u" "$s" "$r"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
mw=$(median "${walls[@]}")
mr=$(median "${rss[@]}")
mc=$(median "${cpus[@]}")
awk -v w="$mw" -v c="$mc" -v r="$mr" -v b="$bytes" 'BEGIN {g = b / 1073741824
	printf "median: %.2f s wall (%.2f s per GB), %.2f s CPU (%.2f s per GB), %d KB max RSS\n", w, w / g, c, c / g, r}'
