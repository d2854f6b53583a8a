package config

import (
	"strings"
	"testing"
)

func TestSetupPerOpenWorkerIsWarned(t *testing.T) {
	t.Parallel()
	base := "target: {url: http://127.0.0.1:1}\nscenarios: [{name: a, steps: [{path: /}]}]\nsetup: {vu: [{name: login, path: /login}]}\n"
	cases := []struct {
		name, load string
		want       string // "" for no warning
	}{
		{"open, default max_inflight", "load: {rate: 10/s}\n", "runs 256 times for the open model's 256 workers"},
		{"open phase", "load: {phases: [{model: closed, vus: 2}, {model: open, rate: 10/s}]}\n", "phase latency's 256 workers"},
		{"open, small max_inflight", "load: {rate: 10/s, max_inflight: 16}\n", ""},
		{"closed", "load: {model: closed, vus: 4}\n", ""},
	}
	for _, tc := range cases {
		cfg, err := Parse("t.yml", []byte(base+tc.load))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		w := strings.Join(cfg.Warnings(nil), "\n")
		if (tc.want == "") != (w == "") || !strings.Contains(w, tc.want) {
			t.Errorf("%s: warnings %q, want %q", tc.name, w, tc.want)
		}
	}
	cfg, err := Parse("t.yml", []byte("target: {url: http://127.0.0.1:1}\nscenarios: [{name: a, steps: [{path: /}]}]\nload: {rate: 10/s}\n"))
	if err != nil || len(cfg.Warnings(nil)) != 0 {
		t.Errorf("no setup: %v, warnings %q", err, cfg.Warnings(nil))
	}
}

// Workers that share logins (their setup reads 16 feed rows) make 16 of
// them, below the bound: no warning.
func TestSharedOpenLoginsAreNotWarned(t *testing.T) {
	t.Parallel()
	cfg, err := Parse("t.yml", []byte("target: {url: http://127.0.0.1:1}\nscenarios: [{name: a, steps: [{path: /}]}]\nsetup: {vu: [{name: login, path: /login}]}\nload: {rate: 10/s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w := cfg.Warnings(func(workers int) int { return min(workers, 16) }); len(w) != 0 {
		t.Errorf("16 logins for 256 workers: warnings %q, want none", w)
	}
	if w := cfg.Warnings(func(int) int { return 40 }); len(w) != 1 || !strings.Contains(w[0], "runs 40 times for the open model's 256 workers") {
		t.Errorf("40 logins: warnings %q", w)
	}
}

// A command that runs a container engine's tool is warned of (validate
// says it): a sealed A/B side cannot reach the engine's socket, unless
// ab.root_sockets: allow.
func TestContainerEngineCommandIsWarned(t *testing.T) {
	t.Parallel()
	src := "target:\n  url: http://127.0.0.1:1\n  start: {command: \"docker compose up -d && exec ./svc\"}\nscenarios: [{name: a, steps: [{path: /}]}]\nload: {rate: 10/s, max_inflight: 4}\n"
	w := strings.Join(mustParse(t, src).Warnings(nil), "\n")
	if !strings.Contains(w, "target.start.command runs docker: in an A/B job (mode ab) the sides cannot reach the container engine's socket") || !strings.Contains(w, "ab.root_sockets: allow") {
		t.Errorf("warnings %q", w)
	}
	// A side that is a target of its own runs its own start command.
	side := "target:\n  url: http://127.0.0.1:1\nscenarios: [{name: a, steps: [{path: /}]}]\nload: {rate: 10/s, max_inflight: 4}\n" +
		"ab:\n  base: {ref: main, url: \"http://127.0.0.1:{{port}}\", start: {command: \"podman run svc\"}}\n  head: {url: \"http://127.0.0.1:{{port}}\", start: {command: [./svc]}}\n"
	if w := strings.Join(mustParse(t, side).Warnings(nil), "\n"); !strings.Contains(w, "ab.base.start.command runs podman") || strings.Contains(w, "ab.head") {
		t.Errorf("a side's own start: warnings %q", w)
	}
	if w := mustParse(t, src+"ab: {root_sockets: allow}\n").Warnings(nil); len(w) != 0 {
		t.Errorf("with ab.root_sockets: allow: warnings %q", w)
	}
}
