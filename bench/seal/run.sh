#!/usr/bin/env bash
# What one sealed environment per side does to real A/B jobs (issues 35, 44).
#
#   bench/seal/run.sh verdicts N   # N A/A and N slowed jobs, sealed
#   bench/seal/run.sh overhead N   # N sealed and N unsealed A/A jobs
#   bench/seal/run.sh demo N       # a child's start, then N sealed and N unsealed demo A/A jobs
#
# verdicts and overhead run pb.yml: stock PocketBase v0.36.8
# (examples/base, from a copy of the module source: pb-clean as it is,
# pb-slow with a CPU loop of PB_BURN SHA-256 rounds, default 8000, injected
# at the top of the record view handler, which the scenario calls once an
# iteration), its data dir under $TMPDIR, its reset restoring the golden
# database there (pb-reset.sh). verdicts alternates A/A (clean, clean)
# and slowed (clean, slow) jobs, default budget (3 to 6 blocks);
# overhead alternates sealed and unsealed A/A jobs of exactly BLOCKS
# blocks (default 3, noise off) and reports each job's wall time and its
# first start (from tailgate's start to the first dataset reset after a
# side's start: sealing checked, a side started and ready), as median
# [min–max] and the ratio of the medians.
# demo: BenchmarkChildStart (unsealed, sealed per command, sealed as a
# job seals), then demo A/A jobs (`tailgate demo --aa`, 3 blocks).
#
# The unsealed build is this tree with its seal check made to fail, in a
# scratch copy of the source, never committed; the configs' copies have
# ab.unsealed: allow, which changes nothing while sealing works. Every job
# line says the load average at its start. Raw outputs and summary.txt:
# bench/out/seal/MODE-<time>/.
set -euo pipefail
mode=${1:-} n=${2:-}
[[ $mode =~ ^(verdicts|overhead|demo)$ && $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 verdicts|overhead|demo N" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
OUT=bench/out/seal/$mode-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT/jobs"
scratch=$(mktemp -d)
config=bench/seal/.run-$$.yml # beside pb.yml: its relative paths hold
trap 'rm -rf "$scratch" "$config"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }

go build -o "$OUT/tailgate-sealed" ./cmd/tailgate
if [[ $mode != verdicts ]]; then
	mkdir "$scratch/tree"
	cp -r go.mod go.sum cmd internal "$scratch/tree/"
	sed -i 's|^\tif !seal.Supported {$|\tif true { // bench/seal/run.sh: the unsealed arm|' "$scratch/tree/internal/pipeline/seal.go"
	grep -q 'the unsealed arm' "$scratch/tree/internal/pipeline/seal.go" || { echo "run.sh: could not patch checkSeals" >&2; exit 2; }
	go build -C "$scratch/tree" -o "$ROOT/$OUT/tailgate-unsealed" ./cmd/tailgate
fi

# pocketbase builds pb-clean and pb-slow from copies of the module source
# and the golden data dir (a public notes collection, 200 seed notes).
pocketbase() {
	local src mod=github.com/pocketbase/pocketbase@v0.36.8 port=${PB_GOLDEN_PORT:-18299} v
	(cd "$scratch" && go mod download -json "$mod" >mod.json)
	src=$(jq -r .Dir "$scratch/mod.json")
	for v in clean slow; do
		cp -r "$src" "$scratch/pb-$v"
		chmod -R u+w "$scratch/pb-$v"
	done
	sed -i 's|^func recordView(e \*core.RequestEvent) error {$|&\n\tfor i, h := 0, sha256.Sum256([]byte(e.Request.URL.Path)); i < '"${PB_BURN:-8000}"'; i++ {\n\t\th = sha256.Sum256(h[:])\n\t} // bench/seal/run.sh|' "$scratch/pb-slow/apis/record_crud.go"
	sed -i '0,/^import (/s||import (\n\t"crypto/sha256"|' "$scratch/pb-slow/apis/record_crud.go"
	grep -q 'bench/seal/run.sh' "$scratch/pb-slow/apis/record_crud.go" || { echo "run.sh: could not patch recordView" >&2; exit 2; }
	for v in clean slow; do
		go build -C "$scratch/pb-$v" -trimpath -o "$ROOT/bench/out/seal/pb-$v" ./examples/base
	done
	local g=$scratch/golden pb=bench/out/seal/pb-clean url=http://127.0.0.1:$port tok
	"$pb" superuser upsert bench@example.invalid bench-password-1 --dir "$g" >/dev/null
	"$pb" serve --http "127.0.0.1:$port" --dir "$g" >"$OUT/golden.log" 2>&1 &
	local pid=$!
	for _ in $(seq 100); do curl -fs -o /dev/null "$url/api/health" && break; sleep 0.1; done
	tok=$(curl -fsS "$url/api/collections/_superusers/auth-with-password" -H 'Content-Type: application/json' \
		-d '{"identity":"bench@example.invalid","password":"bench-password-1"}' | jq -r .token)
	curl -fsS -o /dev/null "$url/api/collections" -H "Authorization: $tok" -H 'Content-Type: application/json' \
		-d '{"name":"notes","type":"base","listRule":"","viewRule":"","createRule":"","fields":[{"name":"title","type":"text"},{"name":"body","type":"text"}]}'
	for i in $(seq 200); do
		curl -fsS -o /dev/null "$url/api/collections/notes/records" -H 'Content-Type: application/json' -d "{\"title\":\"seed $i\",\"body\":\"seed\"}"
	done
	kill -TERM "$pid"
	wait "$pid" || true
	rm -rf bench/out/seal/golden
	cp -a "$g" bench/out/seal/golden
}

# job VARIANT TAG ENV... runs one job of OUT's config with tailgate-VARIANT.
job() {
	local v=$1 tag=$2 j=$OUT/jobs/$2 code
	shift 2
	echo "$v" >"$j.design"
	echo 0 >"$j.noisy"
	cut -d' ' -f1 /proc/loadavg >"$j.load0"
	local t0 l0
	l0=$(load)
	t0=$(date +%s.%N)
	set +e
	if [[ $mode == demo ]]; then
		timeout 10m "$OUT/tailgate-$v" demo --aa --max-blocks 3 --noise off -q --report "$j.report.json" >"$j.out" 2>"$j.err"
	else
		env PB_TIMES="$ROOT/$j.times" "$@" timeout 15m "$OUT/tailgate-$v" ab -c "$config" --report "$j.report.json" >"$j.out" 2>"$j.err"
	fi
	code=$?
	set -e
	echo "$(date +%s.%N) - $t0" | bc >"$j.time"
	echo "$code" >"$j.code"
	local first=- says=unsealed
	# the first reset after a start: a side started and ready (the reset
	# before the first start fails: no database yet)
	[[ -f $j.times ]] && first=$(awk -v t0="$t0" '$1 == "start" { s = 1 } s && $1 == "reset" { printf "%.2f", $2 - t0; exit }' "$j.times")
	grep -q 'the sides were sealed off from each other' "$j.out" && says=sealed
	printf '%s %-14s %-8s exit %d verdict %-12s %6.1f s, first start %s s, load %s, the report says: %s\n' "$(date -u +%T)" "$tag" "$v" "$code" \
		"$(jq -r .verdict "$j.report.json" 2>/dev/null || echo -)" "$(cat "$j.time")" "$first" "$l0" "$says" | tee -a "$OUT/jobs.txt"
}

case $mode in
verdicts | overhead)
	pocketbase
	if [[ $mode == verdicts ]]; then
		cp bench/seal/pb.yml "$config"
	else
		sed "s/^  min_blocks: 3\$/  unsealed: allow\n  min_blocks: ${BLOCKS:-3}\n  noise: off/; s/^  max_blocks: 6\$/  max_blocks: ${BLOCKS:-3}/" bench/seal/pb.yml >"$config"
	fi
	;;
demo)
	go test ./internal/target -run '^$' -bench BenchmarkChildStart -benchtime 40x -count 3 | tee "$OUT/childstart.txt"
	;;
esac
echo "$mode, $n jobs per arm, tailgate $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- cmd internal || echo '+dirty'), uid $(id -u), started $(date -u +%FT%TZ), load $(load)" | tee "$OUT/info.txt"
for ((i = 1; i <= n; i++)); do
	if [[ $mode == verdicts ]]; then
		job sealed "aa-$i" PB_HEAD=clean
		job sealed "slow-$i" PB_HEAD=slow
	else
		for v in $( ((i % 2)) && echo sealed unsealed || echo unsealed sealed); do
			job "$v" "$v-aa-$i" PB_HEAD=clean
		done
	fi
done
echo "ended $(date -u +%FT%TZ), load $(load)" | tee -a "$OUT/info.txt"
# stat ARM COLUMN: the median, min, max and count of a column of jobs.txt
stat() {
	awk -v v="$1" -v c="$2" '$3 == v { print $c }' "$OUT/jobs.txt" | sort -n |
		awk '{ a[NR] = $1 } END { printf "%.2f %.2f %.2f %d", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2, a[1], a[NR], NR }'
}
{
	[[ $mode == verdicts ]] || for c in "8 whole job" "12 first start"; do
		read -r ms lo hi k <<<"$(stat sealed "${c%% *}")"
		read -r mu lo2 hi2 k2 <<<"$(stat unsealed "${c%% *}")"
		echo "${c#* }: sealed median $ms s [$lo–$hi] ($k jobs), unsealed $mu s [$lo2–$hi2] ($k2 jobs), sealed/unsealed $(echo "scale=3; $ms / $mu" | bc)"
	done
	go run ./bench/decide/summary "$OUT"
} | tee "$OUT/summary.txt"
