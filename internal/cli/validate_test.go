package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateChecksWithoutLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "tailgate.yml")
	// Nothing listens and nothing is started: validate sends nothing.
	mustWrite(t, good, `name: items
target:
  url: http://127.0.0.1:{{port}}
  start: {command: [./bin/no-such-server, --port, "{{port}}"]}
load:
  phases:
    - {model: closed, vus: 2}
    - {model: open, rate: 5/s}
setup: {vu: [{name: login, method: POST, path: /login, json: {user: 'u{{vu}}', password: '{{env "ITEMS_PASSWORD"}}'}}]}
scenarios:
  - name: read
    steps: [{name: items, path: /items}]
`)
	o := tailgateEnv(t, environ{"ITEMS_PASSWORD": "x"}, "validate", "-c", good)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, good+": valid", "phase capacity: closed, 2 virtual users", "phase latency: open, 5/s (max_inflight 256)", "scenario   read: 1 step",
		"setup      258 setup.vu logins per run (phase capacity 2, one per virtual user; phase latency 256, for 256 open-model workers), 1290 in 5 runs")
	wantContains(t, "stderr", o.stderr, "warning: target.start runs ./bin/no-such-server, which does not exist yet (and no build command makes it)",
		"warning: setup.vu runs 256 times for phase latency's 256 workers")

	// A variable {{env}} reads that is not set is bad input, as a run would find it.
	o = tailgate(t, "validate", "-c", good)
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "ITEMS_PASSWORD is not set")

	bad := filepath.Join(dir, "bad.yml")
	mustWrite(t, bad, "name: x\ntarget:\n  url: http://127.0.0.1:1\nscenarios:\n  - name: a\n    steps: [{path: /}\n")
	o = tailgate(t, "validate", "-c", bad)
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, bad+":6: invalid YAML")
}

// validate says what a run will do beyond the load: setup and its users,
// the feed, the measured parts and counters, and in A/B each side, the
// unit it counts (blocks) and how its phases run, and the budget.
func TestValidateDescribesSetupFeedPartsAndAB(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "users.csv"), "email,password\na@x,1\nb@x,2\nc@x,3\n")
	cfg := filepath.Join(dir, "tailgate.yml")
	mustWrite(t, cfg, `name: todos
target:
  url: http://127.0.0.1:{{port}}
  start: {command: [node, server.js, "{{port}}"]}
  measure: [{name: db, process: {comm: postgres}}]
  counters:
    - {name: app, prometheus: {path: /metrics, metrics: [queries_total]}, gate: [queries_total]}
    - {name: pg, pg_stat_statements: {database: 'todos_${TAILGATE_SIDE:-run}'}, gate: [calls]}
load:
  phases:
    - {name: capacity, model: closed, vus: 4}
    - {name: latency, model: open, rate: 20/s, max_inflight: 8}
feed: {file: users.csv}
setup:
  run: [{name: admin, method: POST, path: /admin/login}]
  vu: [{name: login, method: POST, path: /login, json: {email: '{{feed "email"}}'}}]
scenarios:
  - name: todos
    steps: [{name: list, path: /todos}]
ab:
  base: {ref: origin/main}
  max_blocks: 10
  max_time: 3m
`)
	o := tailgate(t, "validate", "-c", cfg)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout,
		"measured   the target's processes (tailgate starts them); part db (processes named postgres)",
		"counters   app (Prometheus /metrics: queries_total; gated: queries_total); pg (pg_stat_statements of the database todos_${TAILGATE_SIDE:-run}: calls, rows, blocks, blocks_read, sessions, and the statements that changed; gated: calls), read before and after each measured window",
		"setup      run: 1 step (admin), once per run before the warm-up (not measured)",
		"setup      vu: 1 step (login), once per virtual user or open-model worker (not measured): 4 virtual users in capacity, 8 workers (max_inflight) in latency",
		"feed       users.csv: 3 rows of email, password; each virtual user takes the next row, then start again at the first",
		"A/B base   git ref origin/main (built and started by tailgate in a worktree)",
		"A/B head   the working tree, started as target says",
		"unit       a block: 3 to 10; in a block each phase measures each side in 20 windows of 500ms (ab.window unset: longer where 3 lifecycles of a virtual user take longer in the first block's warm-up) (ab.windows unset: up to twice as many where they would hold under 8 lifecycles of a virtual user a block), ",
		// the job's own rule: both sides measure one PostgreSQL, whose work
		// cannot be told apart by side while both are loaded
		`every phase alternates between the sides, as both sides measure the same part "db"`,
		"budget     at most 10 blocks or max_time 3m0s (builds not counted), whichever comes first")
	if strings.Contains(o.stdout, "pairs") {
		t.Errorf("validate counts blocks in pairs:\n%s", o.stdout)
	}
}

// validate says when an A/B job will measure whole runs instead of
// blocks: both sides started on one fixed address.
func TestValidateSaysWhenTheUnitIsWholeRuns(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "tailgate.yml")
	mustWrite(t, cfg, `name: fixed
target:
  url: http://127.0.0.1:18080
  start: {command: [./server]}
ab: {base: {ref: main}}
load: {model: closed, vus: 1}
scenarios: [{steps: [{path: /}]}]
`)
	o := tailgate(t, "validate", "-c", cfg)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "unit       a pair of whole runs, one side at a time, as both sides are started on http://127.0.0.1:18080, one fixed address")
}

// Issue 45: a side that is a target of its own takes target's counters,
// and validate says so for that side (it used to print the counters
// line while the side dropped them).
func TestValidateSaysWhatASideInherits(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "tailgate.yml")
	mustWrite(t, cfg, `name: pg
target:
  url: http://127.0.0.1:{{port}}
  start: {command: [./server, "{{port}}", app_head]}
  counters: [{name: pg, pg_stat_statements: {database: 'app_${TAILGATE_SIDE}'}, gate: [calls]}]
ab:
  base: {ref: main, url: "http://127.0.0.1:{{port}}", start: {command: [./server, "{{port}}", app_base]}}
load: {rate: 10/s}
scenarios: [{steps: [{path: /}]}]
`)
	o := tailgate(t, "validate", "-c", cfg)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "base counters: pg (pg_stat_statements of the database app_${TAILGATE_SIDE}")
}
