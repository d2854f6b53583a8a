package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// A setup step the service does not answer in time names the limit it
// ran into (load.request_timeout) and the file with the service's output,
// where the service says why: exit 3, a runtime failure.
func TestSetupTimeoutNamesTheTimeoutAndTheLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logs := t.TempDir()
	cfg := filepath.Join(dir, "tailgate.yml")
	// The tree service answers every order after 2s: the login step, an
	// order here, cannot answer within the 300ms request timeout.
	mustWrite(t, cfg, `name: slowlogin
target:
  url: http://127.0.0.1:{{port}}
  start: {command: ["`+os.Args[0]+`", tree-service, --addr, "127.0.0.1:{{port}}", --delay, 2s]}
  ready: {path: /health}
load: {model: closed, vus: 1, warmup: 0s, duration: 1s, runs: 1, request_timeout: 300ms}
setup: {vu: [{name: login, path: /orders/1}]}
scenarios: [{name: s, steps: [{name: health, path: /health}]}]
`)
	o := tailgateEnv(t, environ{"RUNNER_TEMP": logs}, "run", "-c", cfg, "-o", filepath.Join(dir, "out.json"))
	wantCode(t, o, 3)
	wantContains(t, "stderr", o.stderr, `setup.vu step "login" (virtual user 1) failed: GET /orders/1: no response within 300ms (load.request_timeout)`,
		"; the target's output is in "+logs+string(filepath.Separator))
	path := regexp.MustCompile(`the target's output is in (\S+\.log)`).FindStringSubmatch(o.stderr)
	if path == nil {
		t.Fatalf("no log path in %q", o.stderr)
	}
	if _, err := os.Stat(path[1]); err != nil {
		t.Errorf("the log the message names is not there: %v", err)
	}
}
