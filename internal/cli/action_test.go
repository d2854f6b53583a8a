package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/ci/citest"
	"github.com/tailgate-ci/tailgate/internal/report/inerttest"
)

const secretToken = "secret-token-123"

// repoTestdata is the repository's testdata directory (events, configs).
func repoTestdata(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "events", "push.json")); err != nil {
		t.Fatalf("the repository's testdata/events/push.json is missing: %v", err)
	}
	return dir
}

// actionEnv is the environment of the Action step on a push to main, with
// every input of ci.Inputs set.
func actionEnv(t *testing.T, dir, config, baselinePath string) environ {
	t.Helper()
	output := filepath.Join(dir, "github_output")
	summary := filepath.Join(dir, "step_summary")
	mustWrite(t, output, "")
	mustWrite(t, summary, "")
	runnerTemp := filepath.Join(dir, "runner_temp")
	if err := os.Mkdir(runnerTemp, 0o755); err != nil {
		t.Fatal(err)
	}
	env := environ{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   "push",
		"GITHUB_EVENT_PATH":   filepath.Join(repoTestdata(t), "events", "push.json"),
		"GITHUB_REPOSITORY":   "tailgate-ci/shop",
		"GITHUB_SHA":          "d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3",
		"GITHUB_REF":          "refs/heads/main",
		"GITHUB_RUN_ID":       "1234",
		"GITHUB_RUN_ATTEMPT":  "1",
		"GITHUB_OUTPUT":       output,
		"GITHUB_STEP_SUMMARY": summary,
		"RUNNER_TEMP":         runnerTemp,
		// Nothing may call the real API from a test: the injected
		// environment points the API at a closed loopback port.
		"GITHUB_API_URL": "http://127.0.0.1:1",
	}
	inputs := map[string]string{
		"config":               config,
		"mode":                 "check",
		"baseline":             baselinePath,
		"baseline_from":        "workspace",
		"benchmark_from":       "base",
		"comment":              "always",
		"fail_on_regression":   "true",
		"fail_on_inconclusive": "false",
		"github_token":         secretToken,
		"working_directory":    dir,
		"trend_url":            "https://tailgate-ci.github.io/shop/trend/",
		"chain":                "false",
		"creep_since":          "",
	}
	for _, name := range ci.InputNames() {
		v, ok := inputs[name]
		if !ok {
			t.Fatalf("ci.Inputs has an input %q this test does not set", name)
		}
		env[ci.InputEnv(name)] = v
	}
	return env
}

func TestActionMissingConfigIsUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yml")
	env := actionEnv(t, dir, missing, filepath.Join(dir, "b.json"))

	o := tailgateEnv(t, env, "action")
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, missing)
	wantNoSecret(t, o)
}

func TestActionBadInputIsUsageError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := actionEnv(t, dir, filepath.Join(dir, "c.yml"), filepath.Join(dir, "b.json"))
	env[ci.InputEnv("mode")] = "benchmark-everything"
	env[ci.InputEnv("fail_on_regression")] = "yes please"

	o := tailgateEnv(t, env, "action")
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "mode", "fail_on_regression")
	wantNoSecret(t, o)
}

func TestActionTakesNoArguments(t *testing.T) {
	t.Parallel()
	o := tailgate(t, "action", "check")
	wantCode(t, o, 2)
}

func TestActionCheckOnPush(t *testing.T) {
	svc := newItemService(t, 3)
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", svc.URL, 0)
	bl := filepath.Join(dir, "baselines", "items.json")
	env := actionEnv(t, dir, cfg, bl)

	o := tailgateEnv(t, env, "action")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "::add-mask::"+secretToken, "tailgate: items: PASS")
	wantNoSecret(t, o)
	wantContains(t, "stderr", o.stderr, "::group::run 1 of 2", "::endgroup::")

	outputs := parseGitHubOutput(t, string(mustRead(t, env["GITHUB_OUTPUT"])))
	if outputs["verdict"] != "pass" {
		t.Errorf("verdict output %q, want pass (all outputs %v)", outputs["verdict"], outputs)
	}
	if outputs["regressions"] != "0" {
		t.Errorf("regressions output %q, want 0", outputs["regressions"])
	}
	reportPath := outputs["report_path"]
	if !strings.HasPrefix(reportPath, env["RUNNER_TEMP"]) {
		t.Errorf("report_path %q is not in RUNNER_TEMP %s", reportPath, env["RUNNER_TEMP"])
	}
	var rep struct {
		Verdict   string `json:"verdict"`
		Benchmark string `json:"benchmark"`
		HeadRuns  int    `json:"head_runs"`
	}
	if err := json.Unmarshal(mustRead(t, reportPath), &rep); err != nil {
		t.Fatalf("report_path %s is not a JSON report: %v", reportPath, err)
	}
	if rep.Verdict != "pass" || rep.Benchmark != "items" || rep.HeadRuns != 2 {
		t.Errorf("report: verdict %q, benchmark %q, %d head runs; want pass, items, 2", rep.Verdict, rep.Benchmark, rep.HeadRuns)
	}
	htmlPath := outputs["html_path"]
	if !strings.HasPrefix(htmlPath, env["RUNNER_TEMP"]) || !strings.HasSuffix(htmlPath, ".html") {
		t.Errorf("html_path %q is not an HTML file in RUNNER_TEMP %s", htmlPath, env["RUNNER_TEMP"])
	}
	wantContains(t, "the HTML report", string(mustRead(t, htmlPath)), "<!doctype html>", "tailgate · items")

	summary := string(mustRead(t, env["GITHUB_STEP_SUMMARY"]))
	if !regexp.MustCompile(`(?m)^### .* tailgate · items: pass`).MatchString(summary) {
		t.Errorf("the job summary has no Markdown verdict line:\n%s", summary)
	}
	wantContains(t, "summary", summary, "[Trend of main](https://tailgate-ci.github.io/shop/trend/)")
	if strings.Contains(summary, secretToken) {
		t.Errorf("the job summary contains the token")
	}
	// A check never records: the workspace baseline is still absent.
	wantNoFile(t, bl)
}

// On a regression the step fails with exit 1 and an ::error annotation;
// fail_on_regression: false keeps the step green with the same verdict.
func TestActionCheckRegression(t *testing.T) {
	svc := newItemService(t, 3)
	dir := t.TempDir()
	// A closed model, whose throughput the target sets (an open-loop rate
	// is set by the load and never gated).
	cfg := filepath.Join(dir, "items.yml")
	mustWrite(t, cfg, strings.Replace(benchConfig("items", svc.URL, 0), "model: open\n  rate: 40/s", "model: closed\n  vus: 2\n  think: 20ms", 1))
	// A baseline of the same definition whose throughput is 3× what the
	// head delivers: the head is far below it.
	res := tailgate(t, "run", "-q", "-c", cfg, "-o", filepath.Join(dir, "r.json"))
	wantCode(t, res, 0)
	bl := filepath.Join(dir, "b.json")
	inflated := inflateThroughput(t, filepath.Join(dir, "r.json"), 3)
	wantCode(t, tailgate(t, "baseline", "record", "--result", inflated, "--baseline", bl, "--job", "j1"), 0)
	wantCode(t, tailgate(t, "baseline", "record", "--result", inflated, "--baseline", bl, "--job", "j2"), 0)
	wantCode(t, tailgate(t, "baseline", "record", "--result", inflated, "--baseline", bl, "--job", "j3"), 0)

	env := actionEnv(t, dir, cfg, bl)
	o := tailgateEnv(t, env, "action")
	wantCode(t, o, 1)
	wantContains(t, "stdout", o.stdout, "::error title=performance regression::", "iterations/s regressed")
	wantNoSecret(t, o)
	outputs := parseGitHubOutput(t, string(mustRead(t, env["GITHUB_OUTPUT"])))
	if outputs["verdict"] != "regression" {
		t.Errorf("verdict output %q, want regression", outputs["verdict"])
	}
}

// inflateThroughput writes a copy of a result file whose throughput
// metrics are multiplied by k.
func inflateThroughput(t *testing.T, path string, k float64) string {
	t.Helper()
	var raw map[string]any
	if err := json.Unmarshal(mustRead(t, path), &raw); err != nil {
		t.Fatal(err)
	}
	for _, r := range raw["runs"].([]any) {
		m := r.(map[string]any)["metrics"].(map[string]any)
		for _, key := range []string{"iterations_per_s", "requests_per_s"} {
			m[key] = m[key].(float64) * k
		}
	}
	data, err := json.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(path, ".json") + "-inflated.json"
	mustWrite(t, out, string(data))
	return out
}

// parseGitHubOutput reads a GITHUB_OUTPUT file: name=value lines and
// name<<DELIMITER heredocs.
func parseGitHubOutput(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("GITHUB_OUTPUT: heredoc %s is not closed:\n%s", delim, s)
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %q is neither name=value nor a heredoc", line)
		}
		out[name] = val
	}
	return out
}

// wantNoSecret fails when the token appears in the output other than in
// the ::add-mask:: command that hides it.
func wantNoSecret(t *testing.T, o outcome) {
	t.Helper()
	for name, text := range map[string]string{"stdout": o.stdout, "stderr": o.stderr} {
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, secretToken) && line != "::add-mask::"+secretToken {
				t.Errorf("%s shows the token outside ::add-mask::: %q", name, line)
			}
		}
	}
}

// A runtime failure in the Action fails the step with exit 3, and its
// message is not hidden in the collapsed log group of the failed run.
func TestActionRuntimeFailureIsOutsideLogGroup(t *testing.T) {
	svc := newItemService(t, 5) // the dataset verify fails
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", svc.URL, 0)
	env := actionEnv(t, dir, cfg, filepath.Join(dir, "b.json"))

	o := tailgateEnv(t, env, "action")
	wantCode(t, o, 3)
	wantNoSecret(t, o)
	open := 0
	for _, line := range strings.Split(o.stderr, "\n") {
		switch {
		case strings.HasPrefix(line, "::group::"):
			open++
		case line == "::endgroup::":
			open--
		case strings.Contains(line, "dataset verify"):
			if open != 0 {
				t.Errorf("the failure is printed inside an open ::group:: (collapsed in the job log):\n%s", o.stderr)
			}
			return
		}
	}
	t.Errorf("stderr does not name the failed dataset verify:\n%s", o.stderr)
}

// A runtime failure still tells the job: an error annotation, a job summary
// that says there is no verdict, and verdict=error.
func TestActionRuntimeFailureStillReports(t *testing.T) {
	svc := newItemService(t, 5) // the dataset verify fails
	dir := t.TempDir()
	cfg := writeBenchConfig(t, dir, "items", svc.URL, 0)
	env := actionEnv(t, dir, cfg, filepath.Join(dir, "b.json"))

	o := tailgateEnv(t, env, "action")
	wantCode(t, o, 3)
	wantContains(t, "stdout", o.stdout, "::error title=tailgate could not judge::")
	summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "summary", string(summary), "no verdict")
	wantContains(t, "summary", string(summary), "dataset verify")
	outputs, err := os.ReadFile(env["GITHUB_OUTPUT"])
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "outputs", string(outputs), "error")
}

// Every failure of the step leaves its trace, also the earliest ones that
// stop before a benchmark is read: exactly one ::error annotation, a job
// summary that says what went wrong, and verdict=error in the outputs.
func TestActionEarlyFailuresLeaveATrace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, env environ, dir string)
		code int
		why  string // in the annotation and the summary
	}{
		{"missing config", func(t *testing.T, env environ, dir string) {
			env[ci.InputEnv("config")] = filepath.Join(dir, "nope.yml")
		}, 2, "nope.yml"},
		{"bad YAML", func(t *testing.T, env environ, dir string) {
			mustWrite(t, env[ci.InputEnv("config")], "target: [\n")
		}, 2, "invalid YAML"},
		{"invalid config", func(t *testing.T, env environ, dir string) {
			mustWrite(t, env[ci.InputEnv("config")], "target: {url: http://127.0.0.1:1}\nload: {rate: 1}\nscenarios:\n  - steps:\n      - {name: \"x\\n::error::pwned\", path: /a}\n")
		}, 2, "scenarios[0].steps[0].name"},
		{"bad inputs", func(t *testing.T, env environ, dir string) {
			env[ci.InputEnv("mode")] = "benchmark-everything"
			env[ci.InputEnv("fail_on_regression")] = "yes please"
		}, 2, "input mode"},
		{"arguments", nil, 2, "no arguments"},
		{"no event payload", func(t *testing.T, env environ, dir string) {
			env["GITHUB_EVENT_NAME"], env["GITHUB_EVENT_PATH"] = "pull_request", ""
		}, 3, "GITHUB_EVENT_PATH is unset"},
		{"unreadable event payload", func(t *testing.T, env environ, dir string) {
			env["GITHUB_EVENT_NAME"], env["GITHUB_EVENT_PATH"] = "pull_request", filepath.Join(dir, "gone.json")
		}, 3, "read the event payload"},
		{"event payload not JSON", func(t *testing.T, env environ, dir string) {
			mustWrite(t, filepath.Join(dir, "event.json"), "<html>")
			env["GITHUB_EVENT_NAME"], env["GITHUB_EVENT_PATH"] = "pull_request", filepath.Join(dir, "event.json")
		}, 3, "parse the event payload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := filepath.Join(dir, "items.yml")
			mustWrite(t, cfg, benchConfig("items", "http://127.0.0.1:1", 0))
			env := actionEnv(t, dir, cfg, filepath.Join(dir, "b.json"))
			args := []string{"action"}
			if tc.edit != nil {
				tc.edit(t, env, dir)
			} else {
				args = append(args, "check")
			}
			o := tailgateEnv(t, env, args...)
			wantCode(t, o, tc.code)
			wantNoSecret(t, o)
			var errs []citest.Command
			for _, c := range citest.Commands(o.stdout + "\n" + o.stderr) {
				if c.Name == "error" {
					errs = append(errs, c)
				}
				if c.Name != "error" && c.Name != "add-mask" {
					t.Errorf("unexpected command %q", c.Text)
				}
			}
			if len(errs) != 1 || errs[0].Props["title"] != "tailgate could not judge" || !strings.Contains(errs[0].Data, tc.why) {
				t.Errorf("want one ::error titled 'tailgate could not judge' saying %q, got %v\n%s", tc.why, errs, o)
			}
			// What a reader of the summary sees: the Markdown escapes
			// the error's punctuation (report.NoVerdictMarkdown).
			summary, _ := inerttest.ShownText(string(mustRead(t, env["GITHUB_STEP_SUMMARY"])))
			wantContains(t, "job summary", summary, "no verdict", fmt.Sprintf("exit code %d", tc.code), tc.why)
			outputs := parseGitHubOutput(t, string(mustRead(t, env["GITHUB_OUTPUT"])))
			if outputs["verdict"] != "error" {
				t.Errorf("verdict output %q, want error (outputs %v)", outputs["verdict"], outputs)
			}
		})
	}
}
