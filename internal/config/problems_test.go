package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// doc joins lines, so that a case's line numbers are its indexes + 1.
func doc(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// valid body lines, reused by cases that break one thing elsewhere.
var (
	targetOK   = []string{"target:", "  url: http://127.0.0.1:8080"} // lines 1-2
	scenarioOK = []string{"scenarios:", "  - steps:", "      - path: /a"}
)

func lines(parts ...[]string) string {
	var all []string
	for _, p := range parts {
		all = append(all, p...)
	}
	return doc(all...)
}

func l(s ...string) []string { return s }

type badCase struct {
	name      string
	src       string
	line, col int
	key       string
	msg       string // a part of the message
}

var badCases = []badCase{
	{"unknown top-level key", lines(targetOK, l("laod: {rate: 1}"), scenarioOK),
		3, 1, "laod", `unknown key "laod" (did you mean "load"?)`},
	{"unknown nested key", lines(targetOK, l("load:", "  rate: 10/s", "  rmp: 2s"), scenarioOK),
		5, 3, "load.rmp", `unknown key "rmp" (did you mean "ramp"?); expected one of: client, command, command_timeout, cookies, duration, engine`},
	{"unknown key in a list item", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - pth: /a")),
		6, 9, "scenarios[0].steps[0].pth", `unknown key "pth" (did you mean "path"?)`},
	{"unknown key beside an inline action", lines(targetOK, l("dataset:", "  verify:", "    request: {path: /n}", "    expected: {n: 1}", "load: {rate: 1}"), scenarioOK),
		6, 5, "dataset.verify.expected", `(did you mean "expect"?)`},
	{"bad duration", lines(targetOK, l("load:", "  rate: 10/s", "  duration: 10 seconds"), scenarioOK),
		5, 13, "load.duration", `invalid duration "10 seconds": expected a duration such as 10s, 500ms`},
	{"duration without unit", lines(targetOK, l("load: {rate: 10/s, warmup: 3}"), scenarioOK),
		3, 28, "load.warmup", `invalid duration "3"`},
	{"negative duration", lines(targetOK, l("load:", "  rate: 10/s", "  think: -1s"), scenarioOK),
		5, 10, "load.think", `negative duration "-1s"`},
	{"bad rate", lines(targetOK, l("load:", "  rate: fast"), scenarioOK),
		4, 9, "load.rate", `invalid rate "fast": expected a positive number per second, minute or hour, such as 50/s`},
	{"zero rate", lines(targetOK, l("load:", "  rate: 0/s"), scenarioOK),
		4, 9, "load.rate", `rate "0/s" is not positive`},
	{"string for an integer", lines(targetOK, l("load:", "  rate: 1", "  runs: five"), scenarioOK),
		5, 9, "load.runs", `expected an integer, got the string "five"`},
	{"scalar for a section", lines(targetOK, l("load: fast"), scenarioOK),
		3, 7, "load", `expected a mapping with the keys client, command, command_timeout, cookies, duration, engine`},
	{"mapping for a list", lines(targetOK, l("load: {rate: 1}", "scenarios: {steps: []}")),
		4, 12, "scenarios", "expected a list, got a mapping"},
	{"list for a string", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: [/a]")),
		6, 15, "scenarios[0].steps[0].path", "expected a string, got a list"},
	{"duplicate key", lines(targetOK, l("load:", "  rate: 1", "  rate: 2"), scenarioOK),
		5, 3, "load.rate", `key "rate" is given twice (first at line 4)`},
	{"missing target", lines(l("load: {rate: 1}"), scenarioOK),
		1, 1, "target.url", "required: the base URL"},
	{"missing url", lines(l("target:", "  pid_file: x", "load: {rate: 1}"), scenarioOK),
		1, 1, "target.url", "required"},
	{"remote target", lines(l("target: {url: 'http://10.0.0.7:8080'}", "load: {rate: 1}"), scenarioOK),
		1, 15, "target.url", `host "10.0.0.7" is not this machine: tailgate only sends load to a loopback address`},
	{"bad url scheme", lines(l("target:", "  url: ftp://127.0.0.1/", "load: {rate: 1}"), scenarioOK),
		2, 8, "target.url", "expected http://host:port or https://host:port"},
	{"start and pid_file", lines(targetOK, l("  start: {command: ./s}", "  pid_file: /tmp/p", "load: {rate: 1}"), scenarioOK),
		4, 3, "target.pid_file", "remove one of them"},
	{"empty start command", lines(targetOK, l("  start: {command: []}", "load: {rate: 1}"), scenarioOK),
		3, 20, "target.start.command", "empty command"},
	{"ready status out of range", lines(targetOK, l("  ready: {status: 999}", "load: {rate: 1}"), scenarioOK),
		3, 19, "target.ready.status", "invalid HTTP status 999"},
	{"unknown model", lines(targetOK, l("load:", "  model: ramp", "  rate: 1"), scenarioOK),
		4, 10, "load.model", `unknown model "ramp": expected open`},
	{"open without rate", lines(targetOK, l("load:", "  runs: 3"), scenarioOK),
		3, 1, "load.rate", "required with the open model"},
	{"no load at all", lines(targetOK, scenarioOK),
		1, 1, "load.rate", "required with the open model"},
	{"closed without vus", lines(targetOK, l("load:", "  model: closed"), scenarioOK),
		3, 1, "load.vus", "required with the closed model"},
	{"closed with rate", lines(targetOK, l("load:", "  model: closed", "  vus: 2", "  rate: 5/s"), scenarioOK),
		6, 3, "load.rate", "not used by the closed model"},
	{"ramp_from without ramp", lines(targetOK, l("load:", "  rate: 50/s", "  ramp_from: 5/s"), scenarioOK),
		3, 1, "load.ramp", "required with ramp_from"},
	{"ramp without ramp_from", lines(targetOK, l("load:", "  rate: 50/s", "  ramp: 5s"), scenarioOK),
		5, 3, "load.ramp", "ramp needs ramp_from"},
	{"zero runs", lines(targetOK, l("load:", "  rate: 5", "  runs: 0"), scenarioOK),
		5, 9, "load.runs", "must be at least 1, got 0"},
	{"zero duration", lines(targetOK, l("load:", "  rate: 5", "  duration: 0s"), scenarioOK),
		5, 13, "load.duration", "must be longer than 0"},
	{"zero max_inflight", lines(targetOK, l("load:", "  rate: 5", "  max_inflight: 0"), scenarioOK),
		5, 17, "load.max_inflight", "must be at least 1"},
	{"max_failed_percent above 100", lines(targetOK, l("load:", "  rate: 5", "  max_failed_percent: 150"), scenarioOK),
		5, 23, "load.max_failed_percent", "must be a percentage from 0 to 100 (100 accepts any run), got 150"},
	{"unknown client", lines(targetOK, l("load:", "  rate: 5", "  client: curl"), scenarioOK),
		5, 11, "load.client", `unknown client "curl": expected fast (the default) or nethttp`},
	{"action with both", lines(targetOK, l("dataset:", "  reset:", "    request: {path: /r}", "    command: [./r]", "load: {rate: 1}"), scenarioOK),
		6, 14, "dataset.reset.command", "give a request or a command, not both"},
	{"action with neither", lines(targetOK, l("dataset:", "  reset: {}", "load: {rate: 1}"), scenarioOK),
		4, 10, "dataset.reset", "needs a request or a command"},
	{"expect with a command", lines(targetOK, l("dataset:", "  verify:", "    command: [./check]", "    expect: {n: 1}", "load: {rate: 1}"), scenarioOK),
		6, 13, "dataset.verify.expect", "needs a request"},
	{"drain without until", lines(targetOK, l("drain:", "  probe: {path: /stats}", "load: {rate: 1}"), scenarioOK),
		3, 1, "drain.until", "required: the JSON values that mean idle"},
	{"drain quiet not below timeout", lines(targetOK, l("drain:", "  probe: {path: /s}", "  until: {p: 0}", "  quiet: 5s", "  timeout: 5s", "load: {rate: 1}"), scenarioOK),
		6, 10, "drain.quiet", "must be shorter than timeout"},
	{"no scenarios", lines(targetOK, l("load: {rate: 1}")),
		1, 1, "scenarios", "required: at least one scenario"},
	{"scenario without steps", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - name: idle")),
		5, 5, "scenarios[0].steps", "required: at least one step"},
	{"path without slash", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: items")),
		6, 15, "scenarios[0].steps[0].path", `path "items" must start with /`},
	{"missing path", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - name: x")),
		6, 9, "scenarios[0].steps[0].path", "required: a path starting with /"},
	{"json and body", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        json: {a: 1}", "        body: raw")),
		8, 15, "scenarios[0].steps[0].body", "give one of json, body and form, not json and body: each is the whole request body"},
	{"step status out of range", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - {path: /a, status: 42}")),
		6, 28, "scenarios[0].steps[0].status", "invalid HTTP status 42"},
	{"bad method", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - {path: /a, method: 'GE T'}")),
		6, 28, "scenarios[0].steps[0].method", `invalid method "GE T"`},
	{"negative weight", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - weight: -1", "    steps: [{path: /a}]", "  - steps: [{path: /b}]")),
		5, 13, "scenarios[0].weight", "must be 0 or more, got -1"},
	{"weights sum to zero", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - weight: 0", "    steps: [{path: /a}]")),
		5, 3, "scenarios", "the weights add up to 0"},
	{"duplicate scenario names", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - {name: a, steps: [{path: /a}]}", "  - {name: a, steps: [{path: /b}]}")),
		6, 12, "scenarios[1].name", `scenario name "a" is already used by scenarios[0]`},
	{"duplicate step names", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "      - path: /a")),
		7, 9, "scenarios[0].steps[1].name", `step name "GET /a" is already used by step 0`},
	{"step name too long", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - {name: "+strings.Repeat("s", 101)+", path: /a}")),
		6, 16, "scenarios[0].steps[0].name", `is 101 characters long: names are shown in logs and PR comments; use at most 100`},
	{"scenario name too long", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - {name: "+strings.Repeat("é", 120)+", steps: [{path: /a}]}")),
		5, 12, "scenarios[0].name", `is 120 characters long`},
	{"phase name too long", lines(targetOK, l("load:", "  phases:", "    - {name: "+strings.Repeat("p", 41)+", model: open, rate: 1}", "scenarios:", "  - steps: [{path: /a}]")),
		5, 14, "load.phases[0].name", `is 41 characters long: use at most 40`},
	{"scenario name with a line break", lines(targetOK, l("load: {rate: 1}", "scenarios:", `  - {name: "demo\n::error::pwned", steps: [{path: /a}]}`)),
		5, 12, "scenarios[0].name", `scenario name "demo\n::error::pwned" contains a line break (U+000A) at character 5`},
	{"step name with a bidi override", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", `      - {name: "safe\u202eevil", path: /a}`)),
		6, 16, "scenarios[0].steps[0].name", `step name "safe\u202eevil" contains the bidirectional control U+202E at character 5`},
	{"step name with a zero-width space", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", `      - {name: "get\u200border", path: /a}`)),
		6, 16, "scenarios[0].steps[0].name", "contains the invisible format character U+200B at character 4"},
	{"step name with a carriage return", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", `      - {name: "a\r::error::x", path: /a}`)),
		6, 16, "scenarios[0].steps[0].name", "contains a line break (U+000D) at character 2"},
	{"unnamed step whose path has a line break", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", `      - path: "/a\n::error::x"`)),
		6, 15, "scenarios[0].steps[0].path", "contains a line break (U+000A) at character 3: percent-encode it"},
	{"save into a name with a line break", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", `        save: {"id\n::error::x": id}`)),
		7, 16, "scenarios[0].steps[0].save.id\n::error::x", `invalid variable name "id\n::error::x"`},
	{"save into a non-identifier", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        save: {my-id: id}")),
		7, 16, "scenarios[0].steps[0].save.my-id", `invalid variable name "my-id"`},
	{"save without a JSON path", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        save: {id: ''}")),
		7, 20, "scenarios[0].steps[0].save.id", "needs a JSON path"},
	{"save from an unknown source", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        save:", "          csrf: {heder: X-CSRF-Token}")),
		8, 17, "scenarios[0].steps[0].save.csrf", `unknown source "heder": expected a JSON path such as data.id, or one of {json: PATH}, {header: NAME}, {cookie: NAME}`},
	{"save from two sources", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        save: {sid: {cookie: sid, header: X-Sid}}")),
		7, 21, "scenarios[0].steps[0].save.sid", "one source and at most one regex, got header"},
	{"save by an invalid regex", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        save:", `          id: {regex: 'href="/(\d+/update"'}`)),
		8, 11, "scenarios[0].steps[0].save.id.regex", `invalid regular expression "href=\"/(\\d+/update\"": error parsing regexp: missing closing )`},
	{"save by a regex of two groups", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", `        save: {id: {header: Location, regex: '/(\d+)/(\w+)'}}`)),
		7, 16, "scenarios[0].steps[0].save.id.regex", "2 capturing groups"},
	{"form with a body", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        body: x", "        form: {user: u}")),
		8, 15, "scenarios[0].steps[0].form", "give one of json, body and form, not body and form: each is the whole request body"},
	{"unclosed template in a form value", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        form: {user: '{{vu'}")),
		7, 22, "scenarios[0].steps[0].form.user", "unclosed {{"},
	{"header expectation by an invalid regex", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        expect: {header: {Location: '[/'}}")),
		7, 37, "scenarios[0].steps[0].expect.header.Location", "invalid regular expression"},
	{"header expectation as a template", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        expect: {header: {Location: '^/{{.id}}$'}}")),
		7, 37, "scenarios[0].steps[0].expect.header.Location", "not a template"},
	{"save from a header name that is no token", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        save: {csrf: {header: 'X CSRF'}}")),
		7, 22, "scenarios[0].steps[0].save.csrf", `header name "X CSRF" is not a valid header name`},
	{"save from an empty cookie name", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        save: {sid: {cookie: ''}}")),
		7, 21, "scenarios[0].steps[0].save.sid", `cookie name "" is not a valid cookie name`},
	{"cookies not a bool", lines(targetOK, l("load: {rate: 1, cookies: maybe}"), scenarioOK),
		3, 26, "load.cookies", "maybe"},
	{"cookies with a command engine", lines(targetOK, l("load: {engine: command, command: k6 run x.js, output: o.json, cookies: false}")),
		3, 63, "load.cookies", "not used with engine: command"},
	{"unclosed template", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a/{{.id")),
		6, 15, "scenarios[0].steps[0].path", `unclosed {{ in "/a/{{.id"`},
	{"unclosed template in a json leaf", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        json: {tags: [ok, '{{uuid']}")),
		7, 27, "scenarios[0].steps[0].json.tags[1]", "unclosed {{"},
	{"non-finite number in json", lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", "        json: {x: .nan}")),
		7, 19, "scenarios[0].steps[0].json.x", "cannot be sent as JSON"},
	{"unknown gate metric", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("gate:", "  metrics: [latency_p95_ms, p95]")),
		8, 29, "gate.metrics[1]", `unknown metric "p95": expected one of iterations_per_s`},
	{"unknown floor metric", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("gate:", "  floors:", "    p95: 10")),
		9, 5, "gate.floors.p95", `unknown metric "p95"`},
	{"alpha out of range", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("gate: {alpha: 0.6}")),
		7, 15, "gate.alpha", "must be in (0, 0.5]"},
	{"window too small", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("gate: {window: 1}")),
		7, 16, "gate.window", "must be at least 2 samples"},
	{"history too short", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("gate: {history: {jobs: 1}}")),
		7, 24, "gate.history.jobs", "must be at least 2 jobs"},
	{"bad creep reference", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("gate:", "  creep: {against: [window_start, v1.4]}")),
		8, 35, "gate.creep.against[1]", `"v1.4" is neither window_start nor tag:GLOB`},
	{"bad creep tag glob", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("gate:", "  creep: {against: [\"tag:v[\"]}")),
		8, 21, "gate.creep.against[0]", `syntax error in pattern`},
	{"empty gate metrics", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("gate: {metrics: []}")),
		7, 17, "gate.metrics", "lists no metric"},
	{"bad name", lines(l("name: ../escape"), targetOK, l("load: {rate: 1}"), scenarioOK),
		1, 7, "name", `invalid name "../escape"`},
	{"bad pass_env name", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("pass_env: [GH_TOKEN, API-KEY]")),
		7, 22, "pass_env[1]", `invalid variable name "API-KEY"`},
	{"pass_env name twice", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("pass_env:", "  - GH_TOKEN", "  - GH_TOKEN")),
		9, 5, "pass_env[1]", "GH_TOKEN is listed twice"},
}

func TestBadInputs(t *testing.T) {
	t.Parallel()
	for _, tc := range badCases {
		t.Run(tc.name, func(t *testing.T) {
			ps := problemsOf(t, tc.src)
			if len(ps) != 1 {
				t.Fatalf("want exactly 1 problem, got %d:\n%v\nin:\n%s", len(ps), &Error{ps}, tc.src)
			}
			p := ps[0]
			if p.File != "bad.yml" || p.Line != tc.line || p.Col != tc.col || p.Key != tc.key || !strings.Contains(p.Msg, tc.msg) {
				t.Errorf("got  %s\nwant bad.yml:%d:%d: %s: …%s…\nin:\n%s", p, tc.line, tc.col, tc.key, tc.msg, tc.src)
			}
		})
	}
}

// problemsOf parses src and returns its problems, failing if it parses.
func problemsOf(t *testing.T, src string) []Problem {
	t.Helper()
	cfg, err := Parse("bad.yml", []byte(src))
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("want *Error, got config %v and error %v", cfg, err)
	}
	if cfg != nil {
		t.Error("a config with problems must come back nil")
	}
	return perr.Problems
}

func TestWholeFileProblems(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		want      string
	}{
		{"empty", "", "bad.yml:1:1: the file is empty"},
		{"only a comment", "# nothing\n", "bad.yml:1:1: the file is empty"},
		{"syntax error", "target:\n  url: [\n", "bad.yml:2: invalid YAML: did not find expected node content"},
		{"tab indentation", "target:\n\t- x\n", "bad.yml:2: invalid YAML: found character that cannot start any token"},
		// yaml.v3 counts a parser error's line from 0: the unclosed flow
		// sequence on line 6 is where the file is wrong.
		{"unclosed flow sequence", "name: x\ntarget:\n  url: http://127.0.0.1:1\nscenarios:\n  - name: a\n    steps: [{path: /}\n", "bad.yml:6: invalid YAML: did not find expected ',' or ']'"},
		{"unclosed flow mapping", "a: 1\nb: 2\nc: {x: 1\nd: 4\n", "bad.yml:3: invalid YAML: did not find expected ',' or '}'"},
		{"a list item in a mapping", "a: 1\n- b\n", "bad.yml:2: invalid YAML: did not find expected key"},
		{"a mapping in a sequence", "a: 1\nb:\n  - x\n  y: 2\n", "bad.yml:3: invalid YAML: did not find expected '-' indicator"},
		{"two documents", lines(targetOK, l("load: {rate: 1}"), scenarioOK, l("---", "name: x")), "bad.yml:7:1: a second YAML document starts here"},
		{"top level is a list", "- a\n", `bad.yml:1:1: expected a mapping with the keys ab, build, dataset, drain, feed, gate, load, name, pass_env, scenarios, seed, setup, target, got a list`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := problemsOf(t, tc.src)
			if len(ps) != 1 || !strings.HasPrefix(ps[0].String(), tc.want) {
				t.Errorf("got %v, want one problem starting %q", &Error{ps}, tc.want)
			}
		})
	}
}

// TestAllProblemsReported checks that problems of every kind in one file
// are reported together, in file order, each at its place.
func TestAllProblemsReported(t *testing.T) {
	t.Parallel()
	src := doc(
		"name: demo",                         // 1
		"target:",                            // 2
		"  url: http://example.com:80",       // 3  remote target
		"  strat: {command: [./s]}",          // 4  unknown key
		"load:",                              // 5
		"  rate: fast",                       // 6  bad rate
		"  duration: 10 seconds",             // 7  bad duration
		"  runs: 0",                          // 8  invalid value
		"scenarios:",                         // 9
		"  - name: s",                        // 10
		"    steps:",                         // 11
		"      - path: items",                // 12 no leading slash
		"        colour: red",                // 13 unknown key in a list
		"        save: {1st: id}",            // 14 bad variable name
		"gate:",                              // 15
		"  metrics: [iterations_per_s, p95]", // 16 unknown metric
		"  alpha: 0",                         // 17 alpha out of range
	)
	want := []string{
		"bad.yml:3:8: target.url: host \"example.com\" is not this machine",
		"bad.yml:4:3: target.strat: unknown key \"strat\" (did you mean \"start\"?)",
		"bad.yml:6:9: load.rate: invalid rate \"fast\"",
		"bad.yml:7:13: load.duration: invalid duration \"10 seconds\"",
		"bad.yml:8:9: load.runs: must be at least 1",
		"bad.yml:12:15: scenarios[0].steps[0].path: path \"items\" must start with /",
		"bad.yml:13:9: scenarios[0].steps[0].colour: unknown key \"colour\"",
		"bad.yml:14:16: scenarios[0].steps[0].save.1st: invalid variable name \"1st\"",
		"bad.yml:16:31: gate.metrics[1]: unknown metric \"p95\"",
		"bad.yml:17:10: gate.alpha: must be in (0, 0.5]",
	}
	ps := problemsOf(t, src)
	if len(ps) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(want), &Error{ps})
	}
	for i, p := range ps {
		if !strings.HasPrefix(p.String(), want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s…", i, p, want[i])
		}
	}
	if err := (&Error{ps}).Error(); strings.Count(err, "\n") != len(want)-1 {
		t.Errorf("Error() must print one problem per line:\n%s", err)
	}
}

func TestProblemString(t *testing.T) {
	t.Parallel()
	cases := map[string]Problem{
		"f.yml:3:7: load.rate: bad": {File: "f.yml", Line: 3, Col: 7, Key: "load.rate", Msg: "bad"},
		"f.yml:3: invalid YAML: x":  {File: "f.yml", Line: 3, Msg: "invalid YAML: x"},
		"f.yml: empty":              {File: "f.yml", Msg: "empty"},
	}
	for want, p := range cases {
		if got := p.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}

func TestLoadFileMissing(t *testing.T) {
	t.Parallel()
	_, err := LoadFile("testdata-does-not-exist.yml")
	var perr *Error
	if err == nil || errors.As(err, &perr) || !strings.Contains(err.Error(), "read config") {
		t.Errorf("LoadFile of a missing file: %v; want a plain wrapped read error", err)
	}
}

// TestTypoIsReportedOnce checks that a misspelt key is reported as unknown,
// without a second "required" problem for the key it was meant to be.
func TestTypoIsReportedOnce(t *testing.T) {
	t.Parallel()
	src := lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - stpes:", "      - pth: /a", "  - steps:", "      - pth: /a", "      - pth: /b"))
	ps := problemsOf(t, src)
	want := []string{
		`bad.yml:5:5: scenarios[0].stpes: unknown key "stpes" (did you mean "steps"?)`,
		`bad.yml:8:9: scenarios[1].steps[0].pth: unknown key "pth" (did you mean "path"?)`,
		`bad.yml:9:9: scenarios[1].steps[1].pth: unknown key "pth" (did you mean "path"?)`,
	}
	if len(ps) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(want), &Error{ps})
	}
	for i, p := range ps {
		if !strings.HasPrefix(p.String(), want[i]) {
			t.Errorf("got  %s\nwant %s…", p, want[i])
		}
	}
}

// A key that holds a line break is quoted, so that every problem is one line.
func TestProblemWithALineBreakInItsKeyIsOneLine(t *testing.T) {
	t.Parallel()
	ps := problemsOf(t, lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:", "      - path: /a", `        save: {"id\n::error::x": id}`)))
	if got := ps[0].String(); strings.ContainsAny(got, "\r\n") || !strings.Contains(got, `"scenarios[0].steps[0].save.id\n::error::x"`) {
		t.Errorf("problem %q: want one line with the key quoted", got)
	}
}

// An unquoted {{port}} inside a flow mapping is the YAML error a new user
// meets first: the message says to quote the template.
func TestUnquotedTemplateInFlowMappingGetsAHint(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"name: x\ntarget: {url: http://127.0.0.1:{{port}}, start: {command: ./s --port {{port}}}}\n",
		"target: {url: http://127.0.0.1:{{port}}, start: {command: ./s --port {{port}}}}\n", // line 1: yaml names no line
	} {
		_, err := Parse("bad.yml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "invalid YAML") || !strings.Contains(err.Error(), `quote it: "…{{port}}…"`) {
			t.Errorf("%q: err = %v, want the YAML error with a hint to quote the template", src, err)
		}
	}
	// No template on the line: no hint.
	if _, err := Parse("bad.yml", []byte("target:\n  url: [\n")); err == nil || strings.Contains(err.Error(), "quote it") {
		t.Errorf("err = %v, want no template hint", err)
	}
}

// A step's path may begin with a template (a link saved from an earlier
// answer): the request checks that it renders a leading "/". A dataset
// action's or a probe's path is sent as written, so there it stays an
// error: "{{env "P"}}" would be sent as those characters.
func TestPathMayBeginWithATemplate(t *testing.T) {
	src := lines(targetOK, l("load: {rate: 1}", "scenarios:", "  - steps:",
		"      - {path: /page, save: {next: {header: Location}}}", "      - path: '{{.next}}'"))
	if _, err := Parse("ok.yml", []byte(src)); err != nil {
		t.Fatalf("a path that is a saved value: %v", err)
	}
	src = lines(targetOK, l("dataset:", "  reset: {request: {method: POST, path: '{{.x}}'}}",
		"drain: {probe: {path: '{{env \"P\"}}'}, until: {n: 0}}", "load: {rate: 1}"), scenarioOK)
	var keys []string
	for _, p := range problemsOf(t, src) {
		if strings.Contains(p.Msg, "must start with /") {
			keys = append(keys, p.Key)
		}
	}
	if want := []string{"dataset.reset.request.path", "drain.probe.path"}; !slices.Equal(keys, want) {
		t.Errorf("paths refused at %v, want %v", keys, want)
	}
}
