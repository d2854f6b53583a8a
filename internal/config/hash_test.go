package config

import (
	"regexp"
	"strings"
	"testing"
)

// hashBase is a full definition; the variants below change one thing each.
const hashBase = `
name: h
seed: 1
target: {url: "http://127.0.0.1:8080"}
dataset:
  reset: {request: {method: POST, path: /reset}}
  verify: {request: {path: /count}, expect: {count: 3}}
drain: {probe: {path: /stats}, until: {pending: 0}}
load: {rate: 100/s, warmup: 1s, duration: 4s, runs: 5}
scenarios:
  - name: life
    steps:
      - {name: create, path: /c, json: {a: 1, b: "x"}, save: {id: id}}
      - {name: get, path: "/c/{{.id}}"}
gate: {alpha: 0.05}
`

// sameDefinition is hashBase reordered, reformatted and commented, with
// other targets, name and gate, defaults written out and rates in other
// units: none of that changes what is measured.
const sameDefinition = `
# a comment
gate: {alpha: 0.01, window: 10, metrics: [latency_p99_ms]}
scenarios:
  - steps:
      - name: create
        json:
          b: x      # key order inside a body does not matter
          a: 1
        method: POST
        save: {id: id}
        path: /c
      - path: "/c/{{.id}}"
        name: get
    weight: 1
    name: life
load:
  model: open
  runs: 5
  duration: 4000ms
  warmup: 1s
  rate: 6000/m
  max_inflight: 256
  request_timeout: 10s
drain:
  until: {pending: 0}
  probe: {path: /stats, method: get}
  quiet: 500ms
dataset:
  verify: {expect: {count: 3}, request: {path: /count}}
  reset: {request: {path: /reset, method: POST}}
target:
  url: "http://localhost:39999"
  start: {command: [./demo]}
name: other-name
seed: 1
pass_env: [GH_TOKEN]   # which credentials children get is not what is measured
`

func TestDefinitionHashIgnoresFormAndTarget(t *testing.T) {
	t.Parallel()
	a := mustParse(t, hashBase).DefinitionHash()
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(a) {
		t.Fatalf("hash %q is not sha256:<64 hex>", a)
	}
	if b := mustParse(t, sameDefinition).DefinitionHash(); a != b {
		t.Errorf("same definition, different hash:\n%s\n%s", a, b)
	}
	if b := mustParse(t, hashBase).DefinitionHash(); a != b {
		t.Error("hash is not stable across parses")
	}
}

func TestDefinitionHashSeesEveryChange(t *testing.T) {
	t.Parallel()
	base := mustParse(t, hashBase).DefinitionHash()
	changes := map[string][2]string{
		"seed":          {"seed: 1", "seed: 2"},
		"rate":          {"rate: 100/s", "rate: 101/s"},
		"warmup":        {"warmup: 1s", "warmup: 2s"},
		"duration":      {"duration: 4s", "duration: 5s"},
		"model":         {"load: {rate: 100/s,", "load: {model: closed, vus: 3,"},
		"step path":     {"path: /c,", "path: /d,"},
		"step name":     {"name: get", "name: fetch"},
		"step status":   {"{name: create", "{name: create, status: 201"},
		"json value":    {"a: 1", "a: 2"},
		"save":          {"save: {id: id}", "save: {id: uid}"},
		"template":      {`"/c/{{.id}}"`, `"/c/{{.id}}/x"`},
		"reset":         {"path: /reset", "path: /reset2"},
		"verify expect": {"count: 3", "count: 4"},
		"verify regex":  {"expect: {count: 3}", "expect: {count: 3}, regex: '\"count\"'"},
		"drain until":   {"pending: 0", "pending: 1"},
		"scenario name": {"name: life", "name: life2"},
		"phases":        {"load: {rate: 100/s,", "load: {phases: [{model: closed, vus: 2}, {rate: 100/s}],"},
	}
	for what, c := range changes {
		if !strings.Contains(hashBase, c[0]) {
			t.Fatalf("%s: %q not in the base", what, c[0])
		}
		changed := mustParse(t, strings.Replace(hashBase, c[0], c[1], 1)).DefinitionHash()
		if changed == base {
			t.Errorf("changing the %s did not change the hash", what)
		}
	}
}

func TestDefinitionHashIgnoresNameGateTargetAndSampleCounts(t *testing.T) {
	t.Parallel()
	base := mustParse(t, hashBase).DefinitionHash()
	for _, c := range [][2]string{
		{"name: h", "name: other"},
		{"gate: {alpha: 0.05}", "gate: {alpha: 0.1, window: 5}"},
		{`url: "http://127.0.0.1:8080"`, `url: "http://127.0.0.1:1234"`},
		// a number of samples is not a definition
		{"runs: 5", "runs: 9"},
		{"gate: {alpha: 0.05}", "gate: {alpha: 0.05}\nab: {base: {ref: origin/main, url: \"http://127.0.0.1:{{port}}\", start: {command: [./s, \"{{port}}\"]}}, min_blocks: 6, max_blocks: 30, max_time: 5m, restart: never}"},
		{"gate: {alpha: 0.05}", "gate: {alpha: 0.05}\nbuild: {command: [make]}"},
	} {
		if got := mustParse(t, strings.Replace(hashBase, c[0], c[1], 1)).DefinitionHash(); got != base {
			t.Errorf("%q → %q changed the hash", c[0], c[1])
		}
	}
}

func TestDefinitionHashOfUnencodableValues(t *testing.T) {
	t.Parallel()
	cfg := &Config{Scenarios: []Scenario{{Steps: []Step{{Request: Request{JSON: map[any]any{1: "x"}}}}}}}
	a, b := cfg.DefinitionHash(), cfg.DefinitionHash()
	if a != b || !strings.HasPrefix(a, "sha256:") {
		t.Errorf("hash of a config built in code: %q, %q", a, b)
	}
}
