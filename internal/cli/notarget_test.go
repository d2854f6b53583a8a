package cli_test

import (
	"path/filepath"
	"testing"
	"time"
)

// A file whose only targets are the A/B sides' own validates for tailgate
// ab; run, check, baseline record and calibrate, which run the top-level
// target, refuse it at once (exit 2, naming the file and target.url)
// instead of waiting 30 s for a url of "" to be ready.
func TestCommandsWithoutTopLevelTargetRefuseAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sides.yml")
	mustWrite(t, cfg, `name: sides
ab:
  base: {url: "http://127.0.0.1:1"}
  head: {url: "http://127.0.0.1:2"}
load: {model: closed, vus: 1, duration: 1s}
scenarios: [{steps: [{path: /}]}]
`)
	wantCode(t, tailgate(t, "validate", "-c", cfg), 0)
	for _, args := range [][]string{
		{"run", "-o", filepath.Join(dir, "r.json")},
		{"check", "--baseline", filepath.Join(dir, "b.json")},
		{"baseline", "record", "--baseline", filepath.Join(dir, "b.json")},
		{"calibrate", "--baseline", filepath.Join(dir, "b.json")},
	} {
		start := time.Now()
		o := tailgate(t, append(append(args, "-q", "-c"), cfg)...)
		wantCode(t, o, 2)
		wantContains(t, args[0]+" stderr", o.stderr, cfg+": target.url: required to run the benchmark alone")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s took %s to refuse", args[0], d)
		}
	}
}
