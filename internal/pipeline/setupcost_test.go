package pipeline

import (
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// validate says what setup will cost: a login per closed VU, one per
// feed row the open workers use (not one per worker), per run and job,
// and in A/B per block.
func TestSetupCostCountsLogins(t *testing.T) {
	t.Parallel()
	src := `
target: {url: "http://127.0.0.1:8080"}
feed: {file: users.csv, per: vu}
setup:
  vu:
    - {method: POST, path: /login, body: 'u={{feed "user"}}', status: 303}
load:
  runs: 3
  phases:
    - {name: capacity, model: closed, vus: 8}
    - {name: latency, model: open, rate: 30/s, max_inflight: 256}
scenarios: [{steps: [{path: /notes}]}]
ab:
  base: {url: "http://127.0.0.1:8081"}
  max_blocks: 6
`
	read := func(string, int64) ([]byte, error) { return []byte("user\nu1\nu2\nu3\nu4\n"), nil }
	cfg, err := config.ParseAt("cost.yml", "cost.yml", []byte(src), read)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := scenario.CompileWith(cfg.Scenarios, scenario.Inputs{Setup: cfg.Setup, Feed: cfg.Feed})
	if err != nil {
		t.Fatal(err)
	}
	got := setupCost(plan, cfg)
	for _, want := range []string{
		"12 setup.vu logins per run (phase capacity 8, one per virtual user; phase latency 4, for 256 open-model workers)",
		"36 in 3 runs",
		"A/B: 16 in the first block (both sides; the phases share their users' logins), then none while the service keeps its sessions",
		"else up to 24 per block and 144 in 6 blocks",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("setup cost\n%s\nlacks %q", got, want)
		}
	}
	if s := setupCost(nil, cfg); s != "" {
		t.Errorf("engine: command (no plan): %q, want nothing", s)
	}
}
