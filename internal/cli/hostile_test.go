package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/ci/citest"
	"github.com/tailgate-ci/tailgate/internal/gh/ghtest"
	"github.com/tailgate-ci/tailgate/internal/printable"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// The hostile strings corpus (testdata/hostile) through every path that
// prints text tailgate did not write to the job log: the Action's step
// (config names, step names, a service's error bodies, the terminal report
// and per-step table), `tailgate comment` (a fork's report artifact, the
// GitHub API's answers), the terminal report of a result file, and error
// exits quoting any of them. Each run is the real cli.Main in GitHub
// Actions (GITHUB_ACTIONS=true, injected env and writers); its stdout and
// stderr are read with the runner's command grammar (citest), and every
// command found must be one tailgate issued itself.

const hostileToken = "ghs_hostileTESTtoken"

// ownTitles are the titles of tailgate's own annotations.
var ownTitles = map[string]bool{
	"tailgate could not judge": true, "performance regression": true, "tailgate": true,
	"PR comment skipped": true, "PR comment failed": true, "job summary": true, "outputs": true, "gate policy": true,
}

var groupTitle = regexp.MustCompile(`^run [0-9]+ of [0-9]+( \((base|head)\))?$`)

// foreignCommands lists the commands in log that tailgate did not issue.
func foreignCommands(log string) []string {
	var bad []string
	for _, c := range citest.Commands(log) {
		switch {
		case c.Legacy:
		case c.Name == "add-mask" && c.Data == hostileToken:
			continue
		case c.Name == "group" && groupTitle.MatchString(c.Data), c.Name == "endgroup" && c.Data == "":
			continue
		case (c.Name == "error" || c.Name == "warning" || c.Name == "notice") && ownTitles[c.Props["title"]] && len(c.Props) == 1:
			continue
		}
		bad = append(bad, fmt.Sprintf("line %d: %q", c.Line, clip(c.Text)))
	}
	return bad
}

func clip(s string) string {
	if r := []rune(s); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return s
}

type hostileRun struct {
	code           int
	stdout, stderr string
}

// mainIn runs cli.Main in process with env (GITHUB_ACTIONS=true added).
func mainIn(env map[string]string, args ...string) hostileRun {
	var stdout, stderr bytes.Buffer
	get := func(k string) string {
		if k == "GITHUB_ACTIONS" {
			return "true"
		}
		return env[k]
	}
	code := Main(args, &stdout, &stderr, get)
	return hostileRun{code, stdout.String(), stderr.String()}
}

// wantInert fails when the run's log holds a command tailgate did not issue.
func (r hostileRun) wantInert(t *testing.T, what string) {
	t.Helper()
	for name, log := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if bad := foreignCommands(log); len(bad) > 0 {
			t.Errorf("%s: %s holds commands from the input:\n%s", what, name, strings.Join(bad, "\n"))
		}
	}
}

// hostileService answers /e/N with status 500 and the Nth hostile string
// as its body, so that it becomes the error sample of step N.
func hostileService(t *testing.T, corpus []citest.Hostile) string {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("GET /e/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.WriteHeader(http.StatusInternalServerError)
		if n >= 0 && n < len(corpus) {
			fmt.Fprint(w, corpus[n].Value)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// yamlString is s as a YAML double-quoted scalar (Go's ASCII quoting uses
// only escapes YAML has).
func yamlString(s string) string { return strconv.QuoteToASCII(s) }

// printableName reports whether s may be a name (printable and at most
// printable.MaxName characters), as the config and report readers require.
func printableName(s string) bool {
	return printable.Check(s) == nil && printable.Long(s, printable.MaxName) == nil
}

func actionStepEnv(t *testing.T, dir, cfg string) map[string]string {
	t.Helper()
	temp := filepath.Join(dir, "runner_temp")
	if err := os.MkdirAll(temp, 0o755); err != nil {
		t.Fatal(err)
	}
	event, err := filepath.Abs(filepath.Join("..", "..", "testdata", "events", "push.json"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": event, "GITHUB_REPOSITORY": "tailgate-ci/shop",
		"GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
		"RUNNER_TEMP": temp, "GITHUB_API_URL": "http://127.0.0.1:1",
		"INPUT_CONFIG": cfg, "INPUT_BASELINE": filepath.Join(dir, "baseline.json"), "INPUT_BASELINE_FROM": "workspace",
		"INPUT_COMMENT": "never", "INPUT_GITHUB_TOKEN": hostileToken,
	}
}

// The Action's step measures a service whose step names are the corpus's
// printable strings and whose error bodies are all of them; the names that
// are not printable are refused, by the Action and by `tailgate check`.
func TestHostileTextInTheActionLog(t *testing.T) {
	corpus := citest.HostileStrings(t)
	url := hostileService(t, corpus)
	dir := t.TempDir()
	// Most iterations fail by design (load.max_failed_percent: 100 keeps
	// the run). One scenario holds a step per printable string, each
	// accepting the service's 500: the per-step table lists them all. A scenario per
	// string then expects 200, so that its body becomes an error sample.
	var names, samples strings.Builder
	var refused []int
	for i, h := range corpus {
		fmt.Fprintf(&samples, "  - {name: sample-%d, steps: [{name: sample-%d, path: /e/%d}]}\n", i, i, i)
		if !printableName(h.Value) {
			refused = append(refused, i)
			continue
		}
		fmt.Fprintf(&names, "      - {name: %s, path: /e/%d, status: 500}\n", yamlString(h.Value), i)
	}
	const head = "name: hostile\nseed: 11\ntarget: {url: %s, ready: {path: /health, timeout: 2s}}\n" +
		"load: {rate: 200/s, warmup: 0s, duration: 500ms, runs: 1, request_timeout: 2s, max_failed_percent: 100}\nscenarios:\n  - name: %s\n    weight: 20\n    steps:\n"
	cfg := filepath.Join(dir, "hostile.yml")
	mustWriteFile(t, cfg, fmt.Sprintf(head, url, yamlString("demo ##[stop-commands]pwn ##[group]x"))+names.String()+samples.String())

	res := mainIn(actionStepEnv(t, dir, cfg), "action")
	if res.code != ExitPass {
		t.Fatalf("action: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	res.wantInert(t, "action step")
	// The hostile text did reach the log, neutralised.
	for _, want := range []string{`  demo ##\[stop-commands]pwn ##\[group]x`, `  \::add-mask::value`, `  \::set-output name=verdict::pass`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the step's report lacks %q:\n%s", want, clip(res.stdout))
		}
	}
	if n := strings.Count(res.stdout, "unexpected_status  sample-"); n < 5 {
		t.Errorf("%d error samples from the service in the report, want at least 5", n)
	}

	for _, i := range refused {
		h := corpus[i]
		cfg := filepath.Join(dir, fmt.Sprintf("refused-%d.yml", i))
		mustWriteFile(t, cfg, fmt.Sprintf(head, url, "s")+fmt.Sprintf("      - {name: %s, path: /e/%d}\n", yamlString(h.Value), i))
		res := mainIn(actionStepEnv(t, dir, cfg), "action")
		if res.code != ExitUsage || !strings.Contains(res.stderr, "scenarios[0].steps[0].name") {
			t.Errorf("%s: action exit %d, want 2 naming the step's name:\n%s", h.Name, res.code, res.stderr)
		}
		res.wantInert(t, h.Name+": refused config (action)")
		res = mainIn(nil, "check", "-q", "-c", cfg)
		if res.code != ExitUsage {
			t.Errorf("%s: check exit %d, want 2", h.Name, res.code)
		}
		res.wantInert(t, h.Name+": refused config (check)")
	}
}

// A result file is the user's or an importer's: its names are shown as they
// are, in the terminal report and the per-step and error tables.
func TestHostileTextInTheTerminalReport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, h := range citest.HostileStrings(t) {
		path := hostileResultFile(t, dir, i, h.Value)
		res := mainIn(nil, "check", "--result", path, "--baseline", filepath.Join(dir, "none.json"))
		if res.code != ExitPass || !strings.Contains(res.stdout, "Per step") || !strings.Contains(res.stdout, "Errors (head)") {
			t.Errorf("%s: check exit %d, want the report with its tables:\n%s", h.Name, res.code, clip(res.stdout+res.stderr))
		}
		res.wantInert(t, h.Name+": terminal report")

		// An error exit quoting the name: a result file that is not there.
		res = mainIn(nil, "check", "--result", filepath.Join(dir, h.Value[:min(len(h.Value), 200)]))
		if res.code != ExitUsage && res.code != ExitRuntime {
			t.Errorf("%s: missing result file: exit %d", h.Name, res.code)
		}
		res.wantInert(t, h.Name+": error exit")
	}
}

// `tailgate comment` runs with a write token on a fork's artifact: a
// report whose every name-like and free-text field is hostile, posted to
// an API whose answers are hostile too.
func TestHostileTextInTheCommentPublisher(t *testing.T) {
	t.Parallel()
	template, err := os.ReadFile(filepath.Join("..", "report", "testdata", "regression.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	event, err := filepath.Abs(filepath.Join("testdata", "e2e", "workflow_run.json"))
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range citest.HostileStrings(t) {
		api := hostileAPI(t, h.Value, i%2 == 1)
		var rep map[string]any
		if err := json.Unmarshal(template, &rep); err != nil {
			t.Fatal(err)
		}
		name := firstRunes(h.Value, 100)
		rep["benchmark"] = name
		rep["summary"], rep["baseline_source"] = firstRunes(h.Value, 2000), firstRunes(h.Value, 2000)
		rep["notes"], rep["warnings"] = []any{firstRunes(h.Value, 2000)}, []any{firstRunes(h.Value, 2000)}
		rep["metrics"].([]any)[0].(map[string]any)["label"] = name
		rep["detectable"].([]any)[0].(map[string]any)["label"] = name
		rep["steps"].([]any)[0].(map[string]any)["name"] = name
		e0 := rep["errors"].([]any)[0].(map[string]any)
		e0["step"], e0["sample"] = name, firstRunes(h.Value, 2000)
		data, _ := json.Marshal(rep)
		path := filepath.Join(dir, fmt.Sprintf("report-%d.json", i))
		mustWriteFile(t, path, string(data))

		env := map[string]string{"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": event,
			"GITHUB_REPOSITORY": "tailgate-ci/e2e-shop", "GITHUB_API_URL": api, "GITHUB_TOKEN": hostileToken,
			"GITHUB_OUTPUT": filepath.Join(dir, fmt.Sprintf("output-%d", i))}
		res := mainIn(env, "comment", "--report", path, "--pr", "7")
		switch {
		case !printableName(name):
			if res.code != ExitUsage || strings.Count(strings.TrimRight(res.stderr, "\n"), "\n") != 0 {
				t.Errorf("%s: exit %d, stderr %q; want the artifact refused (exit 2) in one line", h.Name, res.code, res.stderr)
			}
		case i%2 == 1: // the API refused with a hostile message
			if res.code != ExitRuntime {
				t.Errorf("%s: exit %d, want 3 for a refused comment:\n%s", h.Name, res.code, res.stderr)
			}
		default:
			if res.code != ExitPass || !strings.Contains(res.stdout, "tailgate: sticky comment for ") {
				t.Errorf("%s: exit %d, want the comment posted:\n%s\n%s", h.Name, res.code, res.stdout, res.stderr)
			}
		}
		res.wantInert(t, h.Name+": comment")
	}
}

// hostileAPI is ghtest's fake GitHub API answering with text: the created
// comment's html_url, or (refuse) a 403 whose message is text.
func hostileAPI(t *testing.T, text string, refuse bool) string {
	api := ghtest.New(t, ghtest.Token(hostileToken), ghtest.Repo("tailgate-ci/e2e-shop"))
	reply := ghtest.Reply{Status: http.StatusCreated, Body: jsonText(t, map[string]any{"id": 1,
		"html_url": "https://github.com/x#" + text, "user": map[string]string{"login": ghtest.ActionsBot}})}
	if refuse {
		reply = ghtest.Reply{Status: http.StatusForbidden, Body: jsonText(t, map[string]string{"message": text})}
	}
	api.Queue("POST /repos/tailgate-ci/e2e-shop/issues/7/comments", reply)
	return api.URL()
}

func jsonText(t *testing.T, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func firstRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

func mustWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The container recipes (docs/container.md, docs/sharding.md) run
// tailgate in a workflow's `run:` step as `docker run … IMAGE check …`:
// its output is the job log, but the container gets no GITHUB_ACTIONS.
// A result file's hostile names in the terminal report still form no
// command there.
func TestHostileTextInTheLogOfAContainer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, h := range citest.HostileStrings(t) {
		path := hostileResultFile(t, dir, i, h.Value)
		var stdout, stderr bytes.Buffer
		code := Main([]string{"check", "--result", path, "--baseline", filepath.Join(dir, "none.json")}, &stdout, &stderr,
			func(string) string { return "" })
		if code != ExitPass || !strings.Contains(stdout.String(), "Per step") {
			t.Errorf("%s: check exit %d, want the report with its tables:\n%s", h.Name, code, clip(stdout.String()+stderr.String()))
		}
		hostileRun{code, stdout.String(), stderr.String()}.wantInert(t, h.Name+": terminal report outside GITHUB_ACTIONS")
	}
}

// hostileResultFile writes result file number i of dir with s as its
// benchmark, step name, error sample and run note.
func hostileResultFile(t *testing.T, dir string, i int, s string) string {
	t.Helper()
	f := &result.File{Benchmark: s, Runs: []result.Run{{
		Metrics: map[string]float64{result.IterationsPerSec: 100, result.LatencyP95: 20},
		Steps:   []result.Step{{Name: s, Requests: 10, Failed: 1, Metrics: map[string]float64{result.LatencyP95: 20}}},
		Errors:  []result.ErrorClass{{Class: result.ErrStatus, Step: s, Count: 1, Sample: "500 " + s}},
		Notes:   []string{s},
	}}}
	path := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
	if err := result.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}
