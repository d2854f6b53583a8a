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
		{"open, default max_inflight", "load: {rate: 10/s}\n", "open model's 256 workers"},
		{"open phase", "load: {phases: [{model: closed, vus: 2}, {model: open, rate: 10/s}]}\n", "phase latency's 256 workers"},
		{"open, small max_inflight", "load: {rate: 10/s, max_inflight: 16}\n", ""},
		{"closed", "load: {model: closed, vus: 4}\n", ""},
	}
	for _, tc := range cases {
		cfg, err := Parse("t.yml", []byte(base+tc.load))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		w := strings.Join(cfg.Warnings(), "\n")
		if (tc.want == "") != (w == "") || !strings.Contains(w, tc.want) {
			t.Errorf("%s: warnings %q, want %q", tc.name, w, tc.want)
		}
	}
	cfg, err := Parse("t.yml", []byte("target: {url: http://127.0.0.1:1}\nscenarios: [{name: a, steps: [{path: /}]}]\nload: {rate: 10/s}\n"))
	if err != nil || len(cfg.Warnings()) != 0 {
		t.Errorf("no setup: %v, warnings %q", err, cfg.Warnings())
	}
}
