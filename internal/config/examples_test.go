package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
)

const examplesDir = "../../testdata/config"

func TestExamplesParse(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(examplesDir, "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("found %d example files in %s, want at least 4", len(files), examplesDir)
	}
	for _, f := range files {
		cfg, err := LoadFile(f)
		if err != nil {
			t.Errorf("%s:\n%v", f, err)
			continue
		}
		if !reflect.DeepEqual(cfg.GatedMetrics(gate.DefaultMetrics()), gate.DefaultMetrics()) && filepath.Base(f) != "open.yml" && filepath.Base(f) != "postgres.yml" {
			t.Errorf("%s: gate metrics %v, want the defaults", f, cfg.GatedMetrics(gate.DefaultMetrics()))
		}
	}
}

func TestOpenExample(t *testing.T) {
	t.Parallel()
	cfg, err := LoadFile(filepath.Join(examplesDir, "open.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Target.Start.Command.Args; !reflect.DeepEqual(got, []string{"./complaints", "--addr", "127.0.0.1:8080"}) {
		t.Errorf("start command %q", got)
	}
	if cfg.Target.Start.Env["GOMAXPROCS"] != "2" {
		t.Errorf("env GOMAXPROCS = %q, want the number read as text", cfg.Target.Start.Env["GOMAXPROCS"])
	}
	if cfg.Load.Rate.PerSecond != 100 || cfg.Load.RampFrom.PerSecond != 20 || cfg.Load.Ramp.D() != 2*time.Second {
		t.Errorf("load %+v", cfg.Load)
	}
	steps := cfg.Scenarios[0].Steps
	if len(steps) != 4 || steps[1].Path != "/complaints/{{.id}}/assign" || steps[0].Save["id"] != (SaveFrom{From: SaveJSON, Name: "id"}) {
		t.Fatalf("steps %+v", steps)
	}
	if steps[3].Method != "GET" || steps[3].Expect["items.#"] != 10 {
		t.Errorf("search step %+v", steps[3])
	}
	wantJSON := map[string]any{"title": "noise {{seq}}", "priority": "{{randInt 1 5}}"}
	if !reflect.DeepEqual(steps[0].JSON, wantJSON) || steps[0].Status != 201 {
		t.Errorf("create step json %#v status %d", steps[0].JSON, steps[0].Status)
	}
	if cfg.Gate.Floors["iterations_per_s"] != 6.7 {
		t.Errorf("floors %v", cfg.Gate.Floors)
	}
}

// demoConfig is the shape `tailgate demo` uses.
const demoConfig = `
target:
  url: http://127.0.0.1:41234
  start:
    command: [/usr/bin/tailgate, demo-service, --addr, 127.0.0.1:41234]
  ready: {path: /health}
dataset:
  reset:
    request: {method: POST, path: /reset}
  verify:
    request: {path: /count}
    expect: {count: 3}
drain:
  probe: {path: /stats}
  until: {pending: 0}
load: {model: open, rate: 100/s, warmup: 1s, duration: 4s, runs: 5}
scenarios:
  - name: lifecycle
    steps:
      - {name: create, method: POST, path: /complaints, json: {title: "t{{seq}}"}, save: {id: id}}
      - {name: assign, method: POST, path: "/complaints/{{.id}}/assign"}
      - {name: resolve, method: POST, path: "/complaints/{{.id}}/resolve"}
      - {name: search, path: "/complaints?state=resolved"}
`

func TestDemoShapeAndDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := Parse("/tmp/demo.yml", []byte(demoConfig))
	if err != nil {
		t.Fatal(err)
	}
	want := struct {
		name, baseline, model           string
		inflight, runs, weight, window  int
		warmup, duration, reqTimeout    time.Duration
		readyStatus                     int
		readyTimeout, readyInterval     time.Duration
		quiet, drainTimeout, drainEvery time.Duration
		alpha                           float64
		resetMethod, verifyMethod       string
	}{
		"demo", "baselines/demo.json", "open",
		256, 5, 1, 0, // gate.window 0: the baseline's default
		time.Second, 4 * time.Second, 10 * time.Second,
		200, 30 * time.Second, 100 * time.Millisecond,
		500 * time.Millisecond, 30 * time.Second, 100 * time.Millisecond,
		0, "POST", "GET", // gate.alpha 0: the gate's default
	}
	got := want
	got.name, got.baseline, got.model = cfg.Name, cfg.Gate.Baseline, cfg.Load.Model
	got.inflight, got.runs, got.weight, got.window = cfg.Load.MaxInflight, cfg.Load.Runs, cfg.Scenarios[0].Weight, cfg.Gate.Window
	got.warmup, got.duration, got.reqTimeout = cfg.Load.Warmup.D(), cfg.Load.Duration.D(), cfg.Load.RequestTimeout.D()
	got.readyStatus, got.readyTimeout, got.readyInterval = cfg.Target.Ready.Status, cfg.Target.Ready.Timeout.D(), cfg.Target.Ready.Interval.D()
	got.quiet, got.drainTimeout, got.drainEvery = cfg.Drain.Quiet.D(), cfg.Drain.Timeout.D(), cfg.Drain.Interval.D()
	got.alpha = cfg.Gate.Alpha
	got.resetMethod, got.verifyMethod = cfg.Dataset.Reset.Request.Method, cfg.Dataset.Verify.Request.Method
	if got != want {
		t.Errorf("defaults:\n got %+v\nwant %+v", got, want)
	}
	if cfg.Dataset.Verify.Expect["count"] != 3 || cfg.Drain.Until["pending"] != 0 {
		t.Errorf("expect %v until %v", cfg.Dataset.Verify.Expect, cfg.Drain.Until)
	}
	if cfg.Path != "/tmp/demo.yml" {
		t.Errorf("Path = %q", cfg.Path)
	}
}

func TestExplicitZeroIsKept(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, minimal+"load: {rate: 10/s, warmup: 0s}\n")
	if cfg.Load.Warmup != 0 {
		t.Errorf("warmup: 0s became %v; an explicit zero must not be replaced by the default", cfg.Load.Warmup)
	}
}

func TestStepDefaults(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `
target: {url: "http://localhost:1"}
load: {rate: 1}
scenarios:
  - steps:
      - {path: /a}
      - {path: /b, json: {x: 1}}
      - {path: /c, body: "x", method: put}
      - {path: /d, method: delete, name: remove}
`)
	s := cfg.Scenarios[0]
	var got []string
	for _, st := range s.Steps {
		got = append(got, st.Name+"|"+st.Method)
	}
	want := []string{"GET /a|GET", "POST /b|POST", "PUT /c|PUT", "remove|DELETE"}
	if s.Name != "scenario-1" || !reflect.DeepEqual(got, want) {
		t.Errorf("scenario %q steps %v, want scenario-1 %v", s.Name, got, want)
	}
	if cfg.Target.Ready != nil {
		t.Error("ready must stay nil when not given (the target package then waits for any answer on /)")
	}
}

func TestMergeKeysAndAliases(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, `
target: {url: "http://127.0.0.1:1"}
load: {rate: 5/s}
scenarios:
  - steps:
      - &base {path: /a, headers: {A: "1"}, status: 200}
      - <<: *base
        path: /b
`)
	b := cfg.Scenarios[0].Steps[1]
	if b.Path != "/b" || b.Headers["A"] != "1" || b.Status != 200 {
		t.Errorf("merged step %+v", b)
	}
}

// minimal is the smallest valid file but for its load section.
const minimal = `
target: {url: "http://127.0.0.1:8080"}
scenarios: [{steps: [{path: /}]}]
`

func mustParse(t *testing.T, src string) *Config {
	t.Helper()
	cfg, err := Parse("test.yml", []byte(src))
	if err != nil {
		t.Fatalf("parse:\n%v", err)
	}
	return cfg
}

func TestPostgresExample(t *testing.T) {
	t.Parallel()
	cfg, err := LoadFile(filepath.Join(examplesDir, "postgres.yml"))
	if err != nil {
		t.Fatal(err)
	}
	want := append(gate.DefaultMetrics(), "path_cpu_ms_per_iteration", "counter.pg.calls", "counter.pg.blocks")
	if got := cfg.GatedMetrics(gate.DefaultMetrics()); !reflect.DeepEqual(got, want) {
		t.Errorf("gate metrics %v, want %v", got, want)
	}
	m := cfg.Target.Measure
	if len(m) != 1 || m[0].Name != "postgres" || m[0].PIDFile == "" {
		t.Errorf("measure %+v", m)
	}
	c := cfg.Target.Counters
	if len(c) != 2 || c[0].Command == nil || c[0].Timeout.D() != 5*time.Second || c[1].Prometheus.Path != "/metrics" || c[1].Timeout != DefaultCounterTimeout {
		t.Errorf("counters %+v", c)
	}
	if !strings.Contains(cfg.Dataset.Reset.Command.Shell, "TEMPLATE app_template") {
		t.Errorf("reset %+v", cfg.Dataset.Reset.Command)
	}
}
