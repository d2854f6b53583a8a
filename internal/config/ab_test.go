package config

import (
	"strings"
	"testing"
)

func TestABConfig(t *testing.T) {
	t.Parallel()
	cfg, err := LoadFile("../../testdata/config/ab.yml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.AB == nil || cfg.AB.Base.URL != "http://127.0.0.1:8081" || cfg.AB.Head.URL != "http://127.0.0.1:8082" {
		t.Fatalf("ab = %+v", cfg.AB)
	}
	if cfg.AB.Order != OrderABBA || cfg.AB.Base.Ready.Timeout != DefaultReadyTimeout {
		t.Errorf("defaults not applied to ab: order %q, base ready %+v", cfg.AB.Order, cfg.AB.Base.Ready)
	}
}

func TestABConfigProblems(t *testing.T) {
	t.Parallel()
	src := `name: x
ab:
  base: {url: "http://10.0.0.1:80"}
  head: {url: "http://127.0.0.1:81"}
  order: sideways
load: {rate: 10/s}
scenarios: [{steps: [{path: /}]}]
`
	_, err := Parse("ab.yml", []byte(src))
	if err == nil {
		t.Fatal("want problems")
	}
	for _, want := range []string{"ab.yml:3:", "ab.base.url: host \"10.0.0.1\" is not this machine", "ab.order: invalid order \"sideways\""} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "target.url") {
		t.Errorf("with ab, target may be left out; got %q", err)
	}
}

func TestCommandEngineProblems(t *testing.T) {
	t.Parallel()
	src := `name: x
target: {url: "http://127.0.0.1:80"}
load:
  engine: command
  rate: 10/s
scenarios: [{steps: [{path: /}]}]
`
	_, err := Parse("cmd.yml", []byte(src))
	if err == nil {
		t.Fatal("want problems")
	}
	for _, want := range []string{
		"load.command: required with engine: command",
		"load.output: required with engine: command",
		"cmd.yml:5:3: load.rate: not used with engine: command",
		"cmd.yml:6:1: scenarios: not used with engine: command",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestCommandKeysNeedCommandEngine(t *testing.T) {
	t.Parallel()
	src := `name: x
target: {url: "http://127.0.0.1:80"}
load: {rate: 10/s, output: out.json}
scenarios: [{steps: [{path: /}]}]
`
	_, err := Parse("t.yml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "load.output: only used with engine: command") {
		t.Fatalf("err = %v", err)
	}
}
