#!/usr/bin/env bash
# goose-service.sh SERVICE_GIT_DIR [N]: the recipe of docs/footprint.md (A/B:
# a database per side) followed on a third-party Go service whose
# migrations are goose's: leonlonsdale/chirpy (net/http, lib/pq, goose
# files in sql/schema, each with its Up and its Down). Its code is cloned
# into a scratch directory, never into this repository.
#
# In the clone the script adds only what the recipe asks of a repository:
# db/template.sh and db/reset.sh (copied from here), db/seed.sql (20 users,
# 60 chirps, fixed ids) and tailgate.yml; then a branch n1 whose GET
# /api/chirps looks each chirp up again by id (an injected N+1). It starts
# a private PostgreSQL 15 with pg_stat_statements on 127.0.0.1:$PG_PORT and
# runs N A/A jobs (head = base's commit) and N N+1 jobs, each building
# both trees, each tree its own template by goose (template.sh -c). Per
# job it prints the verdict and the statements the report lists.
# ARMS picks the arms (default "aa n1"); TAILGATE a tailgate binary to run
# (default: built from this tree), e.g. an earlier commit's, to compare.
# Needs goose on PATH (go install github.com/pressly/goose/v3/cmd/goose@v3.30.1).
set -euo pipefail
src=${1:?usage: goose-service.sh SERVICE_GIT_DIR [N]}
n=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(git -C "$here" rev-parse --show-toplevel)
out=${OUT:-/tmp/pg-goose-$(date -u +%Y%m%dT%H%M%S)}
port=${PG_PORT:-18533}
bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
command -v goose >/dev/null || { echo "goose-service.sh: goose is not on PATH" >&2; exit 2; }
mkdir -p "$out" && chmod 755 "$out"
as_pg=() && [ "$(id -u)" = 0 ] && as_pg=(runuser -u postgres --)
tg=${TAILGATE:-$out/tailgate}
[ -n "${TAILGATE:-}" ] || (cd "$root" && go build -o "$tg" ./cmd/tailgate)

# The cluster.
mkdir -p "$out/pg" && [ "$(id -u)" != 0 ] || chown postgres "$out/pg"
"${as_pg[@]}" "$bin/initdb" -D "$out/pg/data" -A trust -U postgres --no-sync -E UTF8 --locale C >"$out/initdb.log"
printf '%s\n' "port = $port" "listen_addresses = '127.0.0.1'" "unix_socket_directories = '$out/pg'" \
	"shared_preload_libraries = 'pg_stat_statements'" "fsync = off" "max_connections = 100" >>"$out/pg/data/postgresql.conf"
"${as_pg[@]}" "$bin/pg_ctl" -D "$out/pg/data" -l "$out/pg/log" -w -t 60 start >/dev/null
trap '"${as_pg[@]}" "$bin/pg_ctl" -D "$out/pg/data" -m immediate -w stop >/dev/null' EXIT
export PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres
psql -X -q -d postgres -c 'CREATE EXTENSION pg_stat_statements'

# The service's repository, with the recipe's files.
git clone -q "$src" "$out/repo"
cd "$out/repo"
git config user.email bench@tailgate.invalid && git config user.name bench
git checkout -q -B main
mkdir -p db && cp "$here/template.sh" "$here/reset.sh" db/
cat >db/seed.sql <<'EOF'
INSERT INTO users (id, created_at, updated_at, email)
SELECT md5('user' || i)::uuid, '2025-01-01'::timestamp, '2025-01-01'::timestamp, 'user' || i || '@example.com'
FROM generate_series(1, 20) i;
INSERT INTO chirps (id, created_at, updated_at, body, user_id)
SELECT md5('chirp' || i)::uuid, '2025-01-01'::timestamp + i * interval '1 minute', '2025-01-01'::timestamp,
       'chirp number ' || i, md5('user' || (1 + i % 20))::uuid
FROM generate_series(1, 60) i;
EOF
side() { # the side's own target: its database, its backends, its statements
	cat <<EOF
    url: http://127.0.0.1:{{port}}
    start:
      command: DB_URL="postgres://postgres@127.0.0.1:$port/app_$1?sslmode=disable" ADDR=127.0.0.1:{{port}} PLATFORM=dev exec ./bin/chirpy
    ready: {path: /api/healthz}
    measure: [{name: postgres, process: {cmdline: '^postgres: \S+ app_$1 '}}]
    counters:
      - name: pg
        pg_stat_statements: {database: app_$1}
        gate: [calls, blocks]
EOF
}
cat >tailgate.yml <<EOF
name: chirpy
build:
  command: >-
    go build -trimpath -o bin/chirpy ./cmd/chirpy &&
    ./db/template.sh -c 'goose -dir sql/schema postgres "\$DATABASE_URL" up' db/seed.sql
target:
  url: http://127.0.0.1:{{port}}
  start:
    command: DB_URL="postgres://postgres@127.0.0.1:$port/app_\${TAILGATE_SIDE:-run}?sslmode=disable" ADDR=127.0.0.1:{{port}} PLATFORM=dev exec ./bin/chirpy
  ready: {path: /api/healthz}
ab:
  base:
    ref: main
$(side base)
  head:
$(side head)
dataset:
  reset:
    command: ./db/reset.sh
  verify:
    command: test "\$(psql -X -Atq -d app_\${TAILGATE_SIDE:-run} -c 'SELECT count(*) FROM chirps')" = 60
load:
  warmup: 1s
  duration: 4s
  model: closed
  vus: 4
scenarios:
  - name: timeline
    steps:
      - name: list
        path: /api/chirps
      - name: one
        path: /api/chirps/$(psql -X -Atq -d postgres -c "SELECT md5('chirp7')::uuid")
EOF
"$tg" validate -c tailgate.yml >/dev/null
git add -A && git commit -q -m "bench: the per-side PostgreSQL recipe"
git checkout -q -b n1
perl -0pi -e 's/(chirpsData, err := h\.store\.Chirps\.GetAll\(ctx\)\n(?:.*\n){4})/$1\t\tfor i, c := range chirpsData { \/\/ injected N+1\n\t\t\tif full, err := h.store.Chirps.GetById(ctx, c.ID); err == nil {\n\t\t\t\tchirpsData[i] = full\n\t\t\t}\n\t\t}\n/' internal/handlers/chirps.go
grep -q 'injected N+1' internal/handlers/chirps.go
git commit -q -am "n1: each chirp looked up again"
go build ./... # the head builds

for i in $(seq 1 "$n"); do
	for arm in ${ARMS:-aa n1}; do
		git checkout -q "$([ $arm = aa ] && echo main || echo n1)"
		job=$out/$arm-$i
		start=$(date +%s)
		rc=0
		"$tg" ab -c tailgate.yml -q --max-time 150s --report "$job.json" >"$job.txt" 2>&1 || rc=$?
		printf '%s %d exit=%d %ds verdict=%s statements=%s %s\n' "$arm" "$i" "$rc" $(($(date +%s) - start)) \
			"$(jq -r '.verdict' "$job.json" 2>/dev/null)" \
			"$(jq -r '.statements | length' "$job.json" 2>/dev/null)" \
			"$(jq -c '[.statements[]? | {q: .query[0:60], base: .base[0], head: .head[0]}]' "$job.json" 2>/dev/null)" | tee -a "$out/jobs.txt"
	done
done
echo "reports in $out"
