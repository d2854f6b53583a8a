package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// With both A/B sides targets of their own, every top-level key either
// reaches the sides (inherited, or shared by both), stays for run and check
// while each side names its own, or is refused at its line with the side
// keys to write (issue 45: target.start was silently used by neither side).
// The table holds every yaml key of Target; a key added later fails here
// until its case is written.
func TestTopLevelKeysWithTwoOwnSidesAreUsedOrRefused(t *testing.T) {
	t.Parallel()
	const (
		inherited = "inherited" // both sides resolve to the top-level value
		kept      = "kept"      // valid: each side names its own, target's is run's and check's
		refused   = "refused"   // Parse fails at want's line and key, naming the side keys
	)
	both := func(base, head string) string {
		return "ab:\n  base: {" + base + "}\n  head: {" + head + "}\nload: {rate: 10/s}\nscenarios: [{steps: [{path: /}]}]\n"
	}
	started := func(port string) string {
		return `url: "http://127.0.0.1:` + port + `", start: {command: [./s, ` + port + `]}`
	}
	cases := []struct {
		name, key, src, outcome string
		line                    int      // of the problem (refused)
		mentions                []string // in the problem (refused)
	}{
		{"url is its own on each side", "url", "target: {url: \"http://127.0.0.1:9000\"}\n" + both(started("9001"), started("9002")), kept, 0, nil},
		{"start, sides start themselves (the per-side database recipe)", "start",
			"target:\n  url: http://127.0.0.1:9000\n  start: &start {command: [./s], env: {DB: app_run}}\n" +
				both(`url: "http://127.0.0.1:9001", start: *start`, `url: "http://127.0.0.1:9002", start: {command: [./s, head]}`), kept, 0, nil},
		{"start, no side starts", "start", "target:\n  url: http://127.0.0.1:9000\n  start: {command: [./s]}\n" +
			both(`url: "http://127.0.0.1:9001"`, `url: "http://127.0.0.1:9002"`), refused, 4,
			[]string{"target.start:", "ab.base.start and ab.head.start", "ab.base.pid_file and ab.head.pid_file"}},
		{"start, the head starts nothing", "start", "target:\n  url: http://127.0.0.1:9000\n  start: {command: [./s]}\n" +
			both(started("9001"), `url: "http://127.0.0.1:9002"`), refused, 4,
			[]string{"target.start:", "ab.head would be neither started nor sampled", "write ab.head.start"}},
		{"start, the base remote", "start", "target:\n  url: http://127.0.0.1:9000\n  start: {command: [./s]}\n" +
			both(`url: "http://192.0.2.1:80", remote: true, measure: []`, started("9002")), kept, 0, nil},
		{"pid_file, sides sample nothing", "pid_file", "target:\n  url: http://127.0.0.1:9000\n  pid_file: /run/s.pid\n" +
			both(`url: "http://127.0.0.1:9001"`, `url: "http://127.0.0.1:9002", pid_file: /run/h.pid`), refused, 4,
			[]string{"target.pid_file:", "write ab.base.start", "or ab.base.pid_file"}},
		{"pid_file, sides sample themselves", "pid_file", "target:\n  url: http://127.0.0.1:9000\n  pid_file: /run/s.pid\n" +
			both(`url: "http://127.0.0.1:9001", pid_file: /run/b.pid`, started("9002")), kept, 0, nil},
		{"remote, a side elsewhere without its own", "remote", "target: {url: \"http://192.0.2.1:80\", remote: true}\n" +
			both(`url: "http://192.0.2.2:80"`, started("9002")), refused, 4,
			[]string{"ab.base.url:", "ab.base.remote"}},
		{"tls, https sides without their own", "tls", "target:\n  url: https://127.0.0.1:9000\n  tls: {ca_file: ca.pem}\n" +
			both(`url: "https://127.0.0.1:9001", start: {command: [./b]}`, `url: "https://127.0.0.1:9002", start: {command: [./h]}`), refused, 4,
			[]string{"target.tls:", "ab.base.tls and ab.head.tls"}},
		{"tls, sides with their own", "tls", "target:\n  url: https://127.0.0.1:9000\n  tls: &tls {ca_file: ca.pem}\n" +
			both(`url: "https://127.0.0.1:9001", start: {command: [./b]}, tls: *tls`, `url: "http://127.0.0.1:9002", start: {command: [./h]}`), kept, 0, nil},
		{"ready", "ready", "target: {url: \"http://127.0.0.1:9000\", ready: {path: /health}}\n" + both(started("9001"), started("9002")), inherited, 0, nil},
		{"measure", "measure", "target: {url: \"http://127.0.0.1:9000\", measure: [{name: db, pid_file: /run/pg.pid}]}\n" + both(started("9001"), started("9002")), inherited, 0, nil},
		{"counters", "counters", "target: {url: \"http://127.0.0.1:9000\", counters: [{name: pg, pg_stat_statements: {database: app}, gate: [calls]}]}\n" + both(started("9001"), started("9002")), inherited, 0, nil},
	}
	var keys []string
	tt := reflect.TypeFor[Target]()
	for i := range tt.NumField() {
		if k, _, _ := strings.Cut(tt.Field(i).Tag.Get("yaml"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if !slices.ContainsFunc(cases, func(c struct {
			name, key, src, outcome string
			line                    int
			mentions                []string
		}) bool {
			return c.key == k
		}) {
			t.Errorf("target key %s has no case", k)
		}
	}
	ca := testCAPEM(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := "name: x\n" + tc.src
			cfg, err := ParseAt("x.yml", "x.yml", []byte(src), func(string, int64) ([]byte, error) { return []byte(ca), nil })
			if tc.outcome == refused {
				p := onlyProblem(t, err)
				if p.File != "x.yml" || p.Line != tc.line {
					t.Errorf("at %s:%d, want x.yml:%d: %v", p.File, p.Line, tc.line, p)
				}
				for _, m := range tc.mentions {
					if !strings.Contains(p.String(), m) {
						t.Errorf("%q lacks %q", p, m)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\n%v", src, err)
			}
			if tc.outcome == inherited {
				field := tt.Field(slices.Index(keys, tc.key)).Name
				want := reflect.ValueOf(cfg.Target).FieldByName(field).Interface()
				for _, s := range []ABSide{cfg.AB.Base, cfg.AB.Head} {
					if got := reflect.ValueOf(s.TargetOr(cfg.Target)).FieldByName(field).Interface(); !reflect.DeepEqual(got, want) {
						t.Errorf("side %s: %s = %v, target's %v", s.URL, tc.key, got, want)
					}
				}
			}
		})
	}
}

// The rest of the file is the same for both sides: dataset, drain, load,
// setup, build are read once, and a side's verify replaces dataset.verify
// for that side only (run and check keep dataset.verify).
func TestTwoOwnSidesShareTheRestOfTheFile(t *testing.T) {
	t.Parallel()
	src := `name: x
target: {url: "http://127.0.0.1:9000", start: &start {command: [./s], env: {DB: app_run}}}
build: {command: [make]}
dataset:
  reset: {command: ./reset.sh}
  verify: {command: ./verify.sh}
ab:
  base: {ref: main, url: "http://127.0.0.1:{{port}}", start: {command: [./s, "{{port}}"]}, verify: {command: ./verify-base.sh}}
  head: {url: "http://127.0.0.1:{{port}}", start: {command: [./s, "{{port}}"]}}
load: {rate: 10/s}
scenarios: [{steps: [{path: /}]}]
`
	cfg := mustParse(t, src)
	base, head := cfg.AB.Base.TargetOr(cfg.Target), cfg.AB.Head.TargetOr(cfg.Target)
	if base.Verify == nil || base.Verify.Command.String() != "./verify-base.sh" || head.Verify != nil {
		t.Errorf("verify: base %+v, head %+v (nil: dataset.verify)", base.Verify, head.Verify)
	}
	if base.Start.Env != nil || head.Start.Env != nil {
		t.Errorf("a side's own start is whole: env %v, %v", base.Start.Env, head.Start.Env)
	}
}

func onlyProblem(t *testing.T, err error) Problem {
	t.Helper()
	e, ok := err.(*Error)
	if !ok || len(e.Problems) != 1 {
		t.Fatalf("want one problem, got %v", err)
	}
	return e.Problems[0]
}
