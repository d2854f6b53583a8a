package config

import (
	"strings"
	"testing"
	"time"
)

const phasedLoad = `name: p
target: {url: "http://127.0.0.1:8080"}
load:
  warmup: 1s
  duration: 3s
  runs: 4
  phases:
    - {model: closed, vus: 8}
    - {name: steady, rate: 30/s, warmup: 500ms}
scenarios: [{steps: [{path: /}]}]
`

func TestPhasesDefaults(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, phasedLoad)
	ps := cfg.Load.RunPhases()
	if len(ps) != 2 {
		t.Fatalf("phases %+v", ps)
	}
	capacity, steady := ps[0], ps[1]
	if capacity.Name != PhaseCapacity || capacity.Load.Model != ModelClosed || capacity.Load.VUs != 8 ||
		capacity.Load.Warmup.D() != time.Second || capacity.Load.Duration.D() != 3*time.Second {
		t.Errorf("capacity phase %+v", capacity)
	}
	if steady.Name != "steady" || steady.Load.Model != ModelOpen || steady.Load.Rate.PerSecond != 30 ||
		steady.Load.MaxInflight != DefaultMaxInflight || steady.Load.Warmup.D() != 500*time.Millisecond {
		t.Errorf("open phase %+v", steady)
	}
	for _, p := range ps {
		if p.Load.Runs != 4 || p.Load.RequestTimeout != DefaultRequestTimeout || len(p.Load.Phases) != 0 {
			t.Errorf("phase %s does not carry the run's keys: %+v", p.Name, p.Load)
		}
	}
	if cfg.Load.Model != "" || cfg.Load.MaxInflight != 0 {
		t.Errorf("with phases the top-level model keys stay unset: %+v", cfg.Load)
	}
	if got, want := cfg.Load.RunTime(), 1*time.Second+3*time.Second+500*time.Millisecond+3*time.Second; got != want {
		t.Errorf("run time %v, want %v", got, want)
	}
	cfg.Load.SetDuration(Duration(2 * time.Second))
	cfg.Load.SetWarmup(0)
	if got := cfg.Load.RunTime(); got != 4*time.Second {
		t.Errorf("after the overrides, run time %v, want 4s", got)
	}
}

func TestNoPhasesIsOnePhase(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, strings.Replace(phasedLoad, "  phases:\n    - {model: closed, vus: 8}\n    - {name: steady, rate: 30/s, warmup: 500ms}\n", "  rate: 10/s\n", 1))
	ps := cfg.Load.RunPhases()
	if len(ps) != 1 || ps[0].Name != "" || ps[0].Load.Model != ModelOpen || ps[0].Load.Rate.PerSecond != 10 {
		t.Fatalf("phases of a load without phases: %+v", ps)
	}
	if cfg.Load.RunTime() != 4*time.Second {
		t.Errorf("run time %v", cfg.Load.RunTime())
	}
}

func TestPhasesProblems(t *testing.T) {
	t.Parallel()
	src := `name: p
target: {url: "http://127.0.0.1:8080"}
load:
  rate: 10/s
  phases:
    - {model: closed, rate: 5/s}
    - {model: closed, vus: 2, name: "two words"}
    - {model: open}
    - {model: sideways, duration: 0s}
scenarios: [{steps: [{path: /}]}]
`
	_, err := Parse("p.yml", []byte(src))
	if err == nil {
		t.Fatal("want problems")
	}
	for _, want := range []string{
		"p.yml:4:3: load.rate: with load.phases, set it in each phase",
		"load.phases[0].vus: required with the closed model",
		"p.yml:6:23: load.phases[0].rate: not used by the closed model",
		`load.phases[1].name: invalid phase name "two words"`,
		"load.phases[1].model: load.phases[0] is already closed",
		"load.phases[2].rate: required with the open model",
		`load.phases[3].model: unknown model "sideways"`,
		"load.phases[3].duration: must be longer than 0",
	} {
		if strings.Contains(err.Error(), "already used") {
			t.Errorf("an unknown model's default name clashes:\n%v", err)
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	empty := "name: p\ntarget: {url: \"http://127.0.0.1:8080\"}\nload: {phases: []}\nscenarios: [{steps: [{path: /}]}]\n"
	if _, err := Parse("p.yml", []byte(empty)); err == nil || !strings.Contains(err.Error(), "load.phases: lists no phase") {
		t.Errorf("empty phases: %v", err)
	}
	cmd := `name: p
target: {url: "http://127.0.0.1:8080"}
load: {engine: command, command: [k6], output: o.json, phases: [{vus: 1}]}
`
	if _, err := Parse("p.yml", []byte(cmd)); err == nil || !strings.Contains(err.Error(), "load.phases: not used with engine: command") {
		t.Errorf("phases with engine: command: %v", err)
	}
}
