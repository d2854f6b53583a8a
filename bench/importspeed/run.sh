#!/usr/bin/env bash
# Measures `tailgate import` on a generated per-request result file of about
# 1 GB: wall time, CPU time (user + system) and peak RSS of each of N
# imports (default 3), and their medians, with /usr/bin/time -v, and the
# load average before and after (on a shared machine the wall time includes
# waiting for a core; the CPU time is what the import itself costs). The
# file is written to a temporary folder (TMPDIR, default /tmp) and deleted
# at the end.
#
#   bench/importspeed/run.sh                      # JMeter CSV JTL, builds ./cmd/tailgate
#   FORMAT=k6-ndjson bench/importspeed/run.sh     # or k6-csv, hey-csv, ab-gnuplot, gatling-log, vegeta-csv
#   bench/importspeed/run.sh /path/tailgate       # measures that binary
#   SIZE_MB=256 RUNS=5 bench/importspeed/run.sh
#   LONG_MB=512 bench/importspeed/run.sh          # memory: a k6 NDJSON file whose one line is 512 MiB
#
# Every format's rows are closed-loop requests to 20 URLs, one a
# millisecond (k6: 0.2 ms), every 50th failed with a 503; k6 writes its 13
# samples per request (the nine http_req*, data_sent, data_received,
# iterations, iteration_duration).
set -euo pipefail
cd "$(dirname "$0")/../.."
format=${FORMAT:-jtl}
size_mb=${SIZE_MB:-1024}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
bin=${1:-}
if [ -z "$bin" ]; then
	go build -o "$work/tailgate" ./cmd/tailgate
	bin=$work/tailgate
fi
bytes=$((size_mb * 1024 * 1024))
in=$work/input

# k6Line prints one k6 Point line; the awk programs below share it.
k6fn='function k6Line(m, ts, v, tags) { return sprintf("{\"metric\":\"%s\",\"type\":\"Point\",\"data\":{\"time\":\"%s\",\"value\":%.6f,\"tags\":%s}}", m, ts, v, tags) }'

if [ -n "${LONG_MB:-}" ]; then
	# One request whose URL tag is LONG_MB MiB, between two ordinary lines.
	format=k6-ndjson-long
	awk -v mb="$LONG_MB" "$k6fn"'BEGIN {
		t = "{\"status\":\"200\",\"expected_response\":\"true\",\"method\":\"GET\",\"name\":\"short\"}"
		print k6Line("http_req_duration", "2026-12-04T20:00:00.000000Z", 5, t)
		printf "{\"metric\":\"http_req_duration\",\"type\":\"Point\",\"data\":{\"time\":\"2026-12-04T20:00:01.000000Z\",\"value\":7,\"tags\":{\"status\":\"200\",\"expected_response\":\"true\",\"method\":\"GET\",\"url\":\"http://127.0.0.1/"
		chunk = sprintf("%01024d", 0); for (i = 0; i < mb * 1024; i++) printf "%s", chunk
		print "\"}}}"
		print k6Line("http_req_duration", "2026-12-04T20:00:02.000000Z", 9, t)
	}' >"$in"
else
	case $format in
	jtl)
		awk -v bytes="$bytes" 'BEGIN {
			print "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"
			srand(1)
			for (i = 0; total < bytes; i++) {
				lab = i % 20; th = i % 50 + 1; el = 5 + int(rand() * 200)
				if (i % 50 == 49) { code = 503; msg = "Service Unavailable"; ok = "false"; fail = "Test failed: code expected 200" }
				else { code = 200; msg = "OK"; ok = "true"; fail = "" }
				line = sprintf("%d,%d,GET /items/%d,%d,%s,Thread Group 1-%d,text,%s,%s,3213,246,50,50,http://127.0.0.1:8080/items/%d,%d,0,%d",
					1700000000000 + i, el, lab, code, msg, th, ok, fail, lab, int(el * 0.8), i % 7)
				print line; total += length(line) + 1
			}
		}' >"$in"
		;;
	k6-ndjson)
		awk -v bytes="$bytes" "$k6fn"'BEGIN {
			srand(1)
			n = split("http_reqs http_req_duration http_req_blocked http_req_connecting http_req_tls_handshaking http_req_sending http_req_waiting http_req_receiving http_req_failed", hm, " ")
			for (k = 1; k <= n; k++) printf "{\"type\":\"Metric\",\"data\":{\"name\":\"%s\",\"type\":\"trend\",\"contains\":\"time\",\"thresholds\":[],\"submetrics\":null},\"metric\":\"%s\"}\n", hm[k], hm[k]
			plain = "{\"group\":\"\",\"scenario\":\"default\"}"
			for (i = 0; total < bytes; i++) {
				sec = int(i / 5000)
				ts = sprintf("2026-12-04T%02d:%02d:%02d.%06d+00:00", 20 + int(sec / 3600), int(sec / 60) % 60, sec % 60, (i % 5000) * 200)
				lab = i % 20; d = 2 + rand() * 40; st = (i % 50 == 49) ? 503 : 200; er = (st == 200) ? "true" : "false"
				tags = sprintf("{\"expected_response\":\"%s\",\"group\":\"\",\"method\":\"GET\",\"name\":\"http://127.0.0.1:8080/items/%d\",\"proto\":\"HTTP/1.1\",\"scenario\":\"default\",\"status\":\"%d\",\"url\":\"http://127.0.0.1:8080/items/%d\"}", er, lab, st, lab)
				out = ""
				for (k = 1; k <= n; k++) out = out k6Line(hm[k], ts, (k == 1) ? 1 : (k == n ? (st != 200) : d / k), tags) "\n"
				out = out k6Line("data_sent", ts, 84, plain) "\n" k6Line("data_received", ts, 1203, plain) "\n"
				out = out k6Line("iterations", ts, 1, plain) "\n" k6Line("iteration_duration", ts, d + 0.3, plain)
				print out; total += length(out) + 1
			}
		}' >"$in"
		;;
	k6-csv)
		awk -v bytes="$bytes" 'BEGIN {
			srand(1)
			print "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata"
			n = split("http_reqs http_req_duration http_req_blocked http_req_connecting http_req_tls_handshaking http_req_sending http_req_waiting http_req_receiving http_req_failed", hm, " ")
			for (i = 0; total < bytes; i++) {
				lab = i % 20; d = 2 + rand() * 40; st = (i % 50 == 49) ? 503 : 200; er = (st == 200) ? "true" : "false"
				out = ""
				for (k = 1; k <= n; k++) out = out sprintf("%s,%d,%.6f,,,,%s,,GET,http://127.0.0.1:8080/items/%d,HTTP/1.1,default,,%d,,,http://127.0.0.1:8080/items/%d,,\n", hm[k], 1733342400 + int(i / 5000), (k == 1) ? 1 : d / k, er, lab, st, lab)
				out = out sprintf("iterations,%d,1.000000,,,,,,,,,default,,,,,,,\niteration_duration,%d,%.6f,,,,,,,,,default,,,,,,,", 1733342400 + int(i / 5000), 1733342400 + int(i / 5000), d + 0.3)
				print out; total += length(out) + 1
			}
		}' >"$in"
		;;
	hey-csv)
		awk -v bytes="$bytes" 'BEGIN {
			srand(1)
			print "response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,offset"
			for (i = 0; total < bytes; i++) {
				d = 0.002 + rand() * 0.04; st = (i % 50 == 49) ? 503 : 200
				line = sprintf("%.4f,0.0000,0.0000,0.0000,%.4f,0.0001,%d,%.4f", d, d - 0.0002, st, i / 1000)
				print line; total += length(line) + 1
			}
		}' >"$in"
		;;
	ab-gnuplot)
		awk -v bytes="$bytes" 'BEGIN {
			srand(1)
			print "starttime\tseconds\tctime\tdtime\tttime\twait"
			for (i = 0; total < bytes; i++) {
				s = 1796116951 + int(i / 1000); t = 2 + int(rand() * 40)
				line = sprintf("Tue Dec 01 09:22:31 2026\t%d\t0\t%d\t%d\t%d", s, t, t, t)
				print line; total += length(line) + 1
			}
		}' >"$in"
		;;
	gatling-log)
		awk -v bytes="$bytes" 'BEGIN {
			srand(1)
			print "RUN\tcomputerdatabase.BasicSimulation\tbasicsimulation\t1796116951000\t \t3.9.5"
			for (i = 0; total < bytes; i++) {
				s = 1796116951000 + i; t = 2 + int(rand() * 40); ok = (i % 50 == 49) ? "KO\tstatus.find.in(200,304), but actually found 503" : "OK\t "
				line = sprintf("REQUEST\t\tGET /items/%d\t%d\t%d\t%s", i % 20, s, s + t, ok)
				print line; total += length(line) + 1
			}
		}' >"$in"
		;;
	vegeta-csv)
		awk -v bytes="$bytes" 'BEGIN {
			srand(1)
			for (i = 0; total < bytes; i++) {
				st = (i % 50 == 49) ? 503 : 200; t = 2000000 + int(rand() * 40000000)
				line = sprintf("%d%09d,%d,%d,0,2,,,bench,%d,GET,http://127.0.0.1:8080/items/%d,", 1796116951 + int(i / 1000), (i % 1000) * 1000000, st, t, i, i % 20)
				print line; total += length(line) + 1
			}
		}' >"$in"
		;;
	*)
		echo "unknown FORMAT $format" >&2
		exit 2
		;;
	esac
fi
size=$(stat -c %s "$in")
echo "$format: $size bytes; binary: $bin; load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
walls=() rss=() cpus=()
for i in $(seq "$runs"); do
	/usr/bin/time -v "$bin" import -o "$work/out.json" "$in" >/dev/null 2>"$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
	w=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (k = 1; k <= n; k++) s = s * 60 + p[k]; print s}' "$work/time.txt")
	r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
	u=$(awk -F': ' '/User time/ {print $2}' "$work/time.txt")
	s=$(awk -F': ' '/System time/ {print $2}' "$work/time.txt")
	cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')
	walls+=("$w") rss+=("$r") cpus+=("$cpu")
	printf 'run %d: %6.2f s wall, %6.2f s CPU (user %.2f + sys %.2f), %6d KB max RSS\n' "$i" "$w" "$cpu" "$u" "$s" "$r"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
mw=$(median "${walls[@]}")
mr=$(median "${rss[@]}")
mc=$(median "${cpus[@]}")
awk -v w="$mw" -v c="$mc" -v r="$mr" -v b="$size" 'BEGIN {g = b / 1073741824
	printf "median: %.2f s wall (%.2f s per GB), %.2f s CPU (%.2f s per GB), %d KB max RSS (%.2f× the file)\n", w, w / g, c, c / g, r, r * 1024 / b}'
