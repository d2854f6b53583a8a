package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A file whose only targets are the A/B sides' own validates for tailgate
// ab; check, baseline record and calibrate, which run the top-level
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

// README's smoke step, tailgate run --runs 1, on a file whose only targets
// are the A/B sides' own (the shape the docs give A/B) runs ab.head's
// target, started as tailgate ab starts that side (its {{port}}, its
// commands told TAILGATE_SIDE=head), and says so in one line; with a
// top-level target run is as before: that target, no side, no such line.
func TestRunWithOnlyABSidesRunsTheHeadSide(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	side := filepath.Join(dir, "side")
	serve := `url: "http://127.0.0.1:{{port}}", start: {command: ["` + exe + `", demo-serve, --addr, "127.0.0.1:{{port}}"]}, ready: {path: /health, timeout: 20s, interval: 20ms}`
	sides := `name: sides
ab:
  base: {` + serve + `}
  head: {` + serve + `}
dataset: {reset: {command: 'printf "[%s]" "$TAILGATE_SIDE" > ` + side + `'}}
load: {model: closed, vus: 1, think: 5ms, warmup: 0s, duration: 200ms}
scenarios: [{steps: [{path: /count}]}]
`
	top := strings.Replace(sides, "ab:", "target: {"+serve+"}\nab:", 1)
	for _, c := range []struct{ name, cfg, note, side string }{
		{"sides only", sides, "tailgate run: no top-level target: running ab.head's (http://127.0.0.1:{{port}})", "[head]"},
		{"top-level target", top, "", "[]"},
	} {
		cfg, res := filepath.Join(dir, "tailgate.yml"), filepath.Join(dir, "r.json")
		mustWrite(t, cfg, c.cfg)
		os.Remove(side)
		o := tailgate(t, "run", "--runs", "1", "-q", "-c", cfg, "-o", res)
		wantCode(t, o, 0)
		if got := strings.Contains(o.stderr, "no top-level target"); got != (c.note != "") {
			t.Errorf("%s: stderr says no top-level target: %v, want %v\n%s", c.name, got, c.note != "", o)
		}
		wantContains(t, c.name+" stderr", o.stderr, c.note)
		if got := string(mustRead(t, side)); got != c.side {
			t.Errorf("%s: the reset ran with TAILGATE_SIDE %s, want %s", c.name, got, c.side)
		}
		wantContains(t, c.name+" stdout", o.stdout, "result written to "+res)
	}
}
