package cli_test

import (
	"path/filepath"
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
