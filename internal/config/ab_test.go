package config

import (
	"strings"
	"testing"
	"time"
)

func TestABConfig(t *testing.T) {
	t.Parallel()
	cfg, err := LoadFile("../../testdata/config/ab.yml")
	if err != nil {
		t.Fatal(err)
	}
	ab := cfg.AB
	if ab == nil || ab.Base.Ref != "origin/main" || !ab.Head.IsEmpty() || ab.MaxTime.D() != 8*time.Minute {
		t.Fatalf("ab = %+v", ab)
	}
	base := ab.Base.TargetOr(cfg.Target)
	if base.URL != "http://127.0.0.1:{{port}}" || base.Ready.Timeout != DefaultReadyTimeout || cfg.Build.Timeout.D() != 5*time.Minute {
		t.Errorf("the base is the top-level target with its defaults: %+v, build %+v", base, cfg.Build)
	}
	if ps := cfg.Load.RunPhases(); len(ps) != 2 || ps[0].Load.Model != ModelClosed || ps[1].Load.Rate.PerSecond != 50 {
		t.Errorf("phases %+v", ps)
	}
}

func TestABConfigProblems(t *testing.T) {
	t.Parallel()
	src := `name: x
ab:
  base: {url: "http://10.0.0.1:80"}
  head: {url: "http://127.0.0.1:81"}
  order: sideways
  phases: some
  unsealed: maybe
  root_sockets: sometimes
  procedure: [scripts/, ../other]
load: {rate: 10/s}
scenarios: [{steps: [{path: /}]}]
`
	_, err := Parse("ab.yml", []byte(src))
	if err == nil {
		t.Fatal("want problems")
	}
	for _, want := range []string{"ab.yml:3:", "ab.base.url: host \"10.0.0.1\" is not this machine", "ab.order: invalid order \"sideways\"", "ab.yml:6:11: ab.phases: invalid phases \"some\"", "ab.yml:7:13: ab.unsealed: invalid value \"maybe\"", "ab.yml:8:17: ab.root_sockets: invalid value \"sometimes\"", "ab.yml:9:25: ab.procedure[1]: \"../other\" is not a directory or file inside the tree"} {
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

// refAB is the A/B of a build from git: the top-level target with a free
// port, built and started in each tree.
const refAB = `name: r
target:
  url: "http://127.0.0.1:{{port}}"
  start:
    command: [./bin/server, --addr, "127.0.0.1:{{port}}"]
    env: {PORT: "{{port}}"}
build: {command: [go, build, -o, bin/server, .]}
ab:
  base: {ref: origin/main}
load: {rate: 10/s}
scenarios: [{steps: [{path: /}]}]
`

func TestABFromRefDefaults(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, refAB)
	ab := cfg.AB
	if ab.Base.Ref != "origin/main" || ab.Base.HasTarget() || !ab.Head.IsEmpty() {
		t.Fatalf("ab = %+v", ab)
	}
	if ab.Order != OrderABBA || ab.Restart != RestartEveryPair || ab.MinBlocks != DefaultMinBlocks ||
		ab.MaxBlocks != DefaultMaxBlocks || ab.Windows != 0 || ab.Window != 0 || ab.WindowWarmup != DefaultWindowWarmup || ab.MaxTime != 0 || ab.Noise != "" || ab.Phases != PhasesUndecided {
		t.Errorf("ab defaults: %+v", ab)
	}
	if cfg.Build.Timeout != DefaultBuildTimeout || cfg.Build.DirIn("/tmp/t") != "/tmp/t" {
		t.Errorf("build defaults: %+v", cfg.Build)
	}
	if got := ab.Head.TargetOr(cfg.Target); got.URL != cfg.Target.URL {
		t.Errorf("an empty head is the top-level target, got %+v", got)
	}
	if d := DefaultAB(); d.Order != OrderABBA || d.Restart != RestartEveryPair || d.MinBlocks != 3 || d.MaxBlocks != 12 {
		t.Errorf("DefaultAB = %+v", d)
	}
}

// TestABRemovedKeys: ab.design, ab.min_pairs and ab.max_pairs, removed
// after a release of warnings, are errors at their key and line that say
// what replaced them; min_blocks and max_blocks name the first look and
// the budget; one fixed address is accepted (the job then measures whole
// runs: runner.Shape).
func TestABRemovedKeys(t *testing.T) {
	t.Parallel()
	with := func(keys string) string {
		return strings.Replace(refAB, "  base: {ref: origin/main}", "  base: {ref: origin/main}\n"+keys, 1)
	}
	for keys, want := range map[string][]string{
		"  design: duet":                  {"t.yml:10:3: ab.design: design was removed", "every A/B job follows one rule"},
		"  min_pairs: 5":                  {"t.yml:10:3: ab.min_pairs: min_pairs was removed", "rename it ab.min_blocks"},
		"  max_blocks: 9\n  max_pairs: 9": {"t.yml:11:3: ab.max_pairs", "rename it ab.max_blocks"},
	} {
		_, err := Parse("t.yml", []byte(with(keys)))
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error %v, want %q", keys, err, w)
			}
		}
	}
	if ab := mustParse(t, with("  min_blocks: 5\n  max_blocks: 9")).AB; ab.MinBlocks != 5 || ab.MaxBlocks != 9 {
		t.Errorf("first look %d, budget %d; want 5, 9", ab.MinBlocks, ab.MaxBlocks)
	}
	if _, err := Parse("t.yml", []byte(with("  min_blocks: 2"))); err == nil || !strings.Contains(err.Error(), "ab.min_blocks: must be at least 3") {
		t.Errorf("min_blocks 2: %v", err)
	}
	if _, err := Parse("t.yml", []byte(strings.ReplaceAll(refAB, "{{port}}", "8080"))); err != nil {
		t.Fatalf("one fixed port: %v, want it accepted", err)
	}
}

func TestPortPlaceholder(t *testing.T) {
	t.Parallel()
	cfg := mustParse(t, refAB)
	if !cfg.Target.UsesPort() {
		t.Fatal("the URL's placeholder is not seen")
	}
	filled := cfg.Target.WithPort(23456)
	if filled.URL != "http://127.0.0.1:23456" || filled.Start.Command.Args[2] != "127.0.0.1:23456" || filled.Start.Env["PORT"] != "23456" {
		t.Errorf("filled target %+v, start %+v", filled, filled.Start)
	}
	if cfg.Target.Start.Command.Args[2] != "127.0.0.1:{{port}}" || cfg.Target.Start.Env["PORT"] != "{{port}}" {
		t.Errorf("WithPort changed the config's own target: %+v", cfg.Target.Start)
	}
	shell := Target{URL: "http://127.0.0.1:{{port}}", Start: &Start{Command: Command{Shell: "./s --port {{port}}"}}}
	if got := shell.WithPort(21000).Start.Command.Shell; got != "./s --port 21000" {
		t.Errorf("shell command %q", got)
	}
	moved := filled.InTree("/tmp/tree")
	if moved.Start.Dir != "/tmp/tree" || filled.Start.Dir != "" {
		t.Errorf("InTree: %q (original %q)", moved.Start.Dir, filled.Start.Dir)
	}
}

func TestABAndPortProblems(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ src, want string }{
		"port without start": {
			"target: {url: \"http://127.0.0.1:{{port}}\"}\n",
			"target.url: {{port}} needs target.start"},
		"port only in start": {
			"target: {url: \"http://127.0.0.1:80\", start: {command: [./s, \"{{port}}\"]}}\n",
			"target.start: the start command uses {{port}} but target.url does not"},
		"ref without start": {
			"target: {url: \"http://127.0.0.1:80\"}\nab: {base: {ref: main}}\n",
			"target.start: required with ab.base.ref"},
		"ref option": {
			"target: {url: \"http://127.0.0.1:80\", start: {command: [./s]}}\nab: {base: {ref: --upload-pack=x}}\n",
			"ab.base.ref: a ref cannot start with '-'"},
		"ref range": {
			"target: {url: \"http://127.0.0.1:80\", start: {command: [./s]}}\nab: {base: {ref: a..b}}\n",
			"ab.base.ref: a ref names one commit"},
		"ref with pid file": {
			"ab: {base: {ref: main, url: \"http://127.0.0.1:80\", pid_file: p}, head: {url: \"http://127.0.0.1:81\"}}\n",
			"ab.base.pid_file: a side built from ref is started by tailgate"},
		"shared port never restarted": {
			"target: {url: \"http://127.0.0.1:80\", start: {command: [./s]}}\nab: {base: {ref: main}, restart: never}\n",
			"ab.restart: with restart: never both sides run at once, and both would use http://127.0.0.1:80"},
		"pairs": {
			"target: {url: \"http://127.0.0.1:80\", start: {command: [./s]}}\nab: {base: {ref: main}, min_blocks: 2, restart: sometimes}\n",
			"ab.min_blocks: must be at least 3"},
		"budget": {
			"target: {url: \"http://127.0.0.1:80\", start: {command: [./s]}}\nab: {base: {ref: main}, min_blocks: 6, max_blocks: 5}\n",
			"ab.max_blocks: must be between the first look, ab.min_blocks (6), and 500"},
		"restart": {
			"target: {url: \"http://127.0.0.1:80\", start: {command: [./s]}}\nab: {base: {ref: main}, restart: sometimes}\n",
			"ab.restart: invalid restart \"sometimes\""},
		"side start without url": {
			"target: {url: \"http://127.0.0.1:80\", start: {command: [./s]}}\nab: {base: {start: {command: [./b]}}}\n",
			"ab.base.url: required"},
		"build": {
			"target: {url: \"http://127.0.0.1:80\"}\nbuild: {dir: ../up}\n",
			"build.command: required"},
		"build dir": {
			"target: {url: \"http://127.0.0.1:80\"}\nbuild: {command: [make], dir: ../up}\n",
			"build.dir: must be a directory inside the tree"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := "name: x\n" + c.src + "load: {rate: 10/s}\nscenarios: [{steps: [{path: /}]}]\n"
			_, err := Parse("x.yml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v\nwant %q", err, c.want)
			}
		})
	}
}

func TestABSharedPortRestartedIsFine(t *testing.T) {
	t.Parallel()
	// Restarted for every pair, one side runs at a time: they may share a port.
	mustParse(t, "name: x\ntarget: {url: \"http://127.0.0.1:80\", start: {command: [./s]}}\nab: {base: {ref: main}}\nload: {rate: 10/s}\nscenarios: [{steps: [{path: /}]}]\n")
}

// A side that names start (or ready, pid_file) is a target of its own:
// its url does not come from the top-level target, so the error says so
// and shows the url to write, instead of a bare "required" beside a target
// that has one.
func TestABSideOfItsOwnNamesItsURL(t *testing.T) {
	t.Parallel()
	src := "name: x\ntarget: {url: \"http://127.0.0.1:{{port}}\", start: {command: [./s, \"{{port}}\"]}, ready: {path: /health}}\n" +
		"ab: {base: {start: {command: [./b, \"{{port}}\"]}}}\nload: {rate: 10/s}\nscenarios: [{steps: [{path: /}]}]\n"
	_, err := Parse("x.yml", []byte(src))
	for _, want := range []string{"ab.base.url: required", "a target of its own, with its own url", "every key it does not set but url, remote, tls, start, pid_file"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant %q", err, want)
		}
	}
}

// ab.base.measure and ab.head.counters (any target key) on a side without
// url would be ignored, the side resolved to target alone: refused, at
// the key's line, with the reason.
func TestABSideMeasureWithoutURLIsRefused(t *testing.T) {
	t.Parallel()
	for key, side := range map[string]string{
		"measure":  "    measure: [{name: db, pid_file: /tmp/db.pid}]\n",
		"counters": "    counters: [{name: app, request: {path: /metrics}}]\n",
		"tls":      "    tls: {insecure: true}\n",
	} {
		src := "name: x\ntarget: {url: \"http://127.0.0.1:{{port}}\", start: {command: [./s, \"{{port}}\"]}}\n" +
			"ab:\n  head:\n" + side + "load: {rate: 10/s}\nscenarios: [{steps: [{path: /}]}]\n"
		_, err := Parse("x.yml", []byte(src))
		for _, want := range []string{"x.yml:5:", "ab.head.url: required", "a side that names " + key, "ab.head." + key + " would be ignored"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v\nwant %q", key, err, want)
			}
		}
	}
}

func TestABSideVerify(t *testing.T) {
	t.Parallel()
	src := `target: {url: "http://127.0.0.1:8080"}
dataset:
  verify: {request: {path: /count}, expect: {count: 3}}
ab:
  base: {url: "http://127.0.0.1:8081"}
  head: {verify: {request: {path: /count}, expect: {count: 4}}}
load: {rate: 10/s}
scenarios: [{steps: [{path: /}]}]
`
	cfg, err := Parse("ab.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	base, head := cfg.AB.Base.TargetOr(cfg.Target), cfg.AB.Head.TargetOr(cfg.Target)
	if base.Verify != nil || head.Verify == nil || head.Verify.Expect["count"] != 4 || head.URL != "http://127.0.0.1:8080" {
		t.Errorf("base verify %+v, head %+v: want the head's own verify on the top-level target", base.Verify, head)
	}
	_, err = Parse("ab.yml", []byte(strings.Replace(src, "head: {verify: {request: {path: /count}, expect: {count: 4}}}", "head: {verify: {command: [true], expect: {count: 4}}}", 1)))
	if err == nil || !strings.Contains(err.Error(), "ab.head.verify.expect: expect checks a JSON response and needs a request") {
		t.Errorf("a command verify with expect: %v", err)
	}
	// a regex that does not compile is refused at its file, line and key
	_, err = Parse("ab.yml", []byte(strings.Replace(src, "head: {verify: {request: {path: /count}, expect: {count: 4}}}", "head: {verify: {request: {path: /cal/}, regex: '<count>(300</count>'}}", 1)))
	if err == nil || !strings.Contains(err.Error(), "ab.yml:6:") || !strings.Contains(err.Error(), `ab.head.verify.regex: invalid regular expression "<count>(300</count>"`) {
		t.Errorf("a verify regex that does not compile: %v", err)
	}
}
