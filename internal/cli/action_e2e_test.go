package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gh/ghtest"
	"github.com/tailgate-ci/tailgate/internal/report"
)

// The end-to-end tests run the real tailgate binary the way the runner runs
// the composite action's step: the INPUT_* variables action.yml maps, the
// GITHUB_* variables and files a runner provides, a pull_request payload, a
// fake GitHub API, a real git repository for the trusted baseline, and an
// HTTP target on loopback whose speed the test controls.

const (
	e2eToken  = "ghs_e2eSECRETtoken0123456789"
	e2eOwner  = "tailgate-ci"
	e2eRepo   = "e2e-shop"
	e2ePR     = 7
	e2eMarker = "<!-- tailgate:e2e -->"
	fastDelay = 20 * time.Millisecond
	slowDelay = 400 * time.Millisecond // at most 16 in flight: ~40/s of the 200/s offered
)

func TestActionEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Parallel()
	started := time.Now()
	bin := buildTailgate(t)
	target := newE2ETarget(t)
	repo, baseSHA := newE2ERepo(t, bin, target.url())
	committed, err := os.ReadFile(filepath.Join(repo, "baselines", "e2e.json"))
	if err != nil {
		t.Fatal(err)
	}
	fake := newE2EGitHub(t)
	fake.Seed(e2ePR, "alice", "LGTM")
	fake.Seed(e2ePR, "github-actions[bot]", "a message from another bot")
	fake.Seed(e2ePR, "mallory", e2eMarker+"\nnot tailgate's comment: must never be edited")
	event := writeEvent(t, "pull_request.json", func(ev map[string]any) {
		ev["pull_request"].(map[string]any)["base"].(map[string]any)["sha"] = baseSHA
	})

	// The PR raises its own baseline a thousandfold: read from the working
	// tree it would fail; read from the base commit it passes. (Tenfold
	// was too little: a loaded machine brought the head's p95 rise against
	// it from +900 % to +539 %, inside the 600 % floor; +99,900 % is not.)
	writeScaledBaseline(t, repo, committed, 1000)
	run1 := runAction(t, bin, repo, fake, event, nil)
	run1.wantExit(t, ExitPass)
	run1.wantOutputs(t, "pass", "0")
	if fake.Count("POST") != 1 || fake.Count("PATCH") != 0 {
		t.Fatalf("run 1: %d POST, %d PATCH; want the comment created once", fake.Count("POST"), fake.Count("PATCH"))
	}
	url1 := run1.outputs["comment_url"]
	rep := readReportOutput(t, run1)
	if want := "at the PR's base commit " + baseSHA[:12]; !strings.Contains(rep.BaselineSource, want) {
		t.Errorf("baseline source %q, want it read %s", rep.BaselineSource, want)
	}
	if !strings.HasPrefix(run1.summary, e2eMarker) || !strings.Contains(run1.summary, "### ✅ tailgate · e2e: pass") {
		t.Errorf("run 1 job summary lacks the Markdown report:\n%s", run1.summary)
	}

	run2 := runAction(t, bin, repo, fake, event, nil)
	run2.wantExit(t, ExitPass)
	run2.wantOutputs(t, "pass", "0")
	if fake.Count("POST") != 1 || fake.Count("PATCH") != 1 || run2.outputs["comment_url"] != url1 {
		t.Fatalf("run 2: %d POST, %d PATCH, url %q; want the same comment %q edited",
			fake.Count("POST"), fake.Count("PATCH"), run2.outputs["comment_url"], url1)
	}
	wantOneSticky(t, fake, "### ✅ tailgate · e2e: pass")

	// Control: the same run reading the edited working tree regresses, so
	// the pass above is the base commit's doing.
	control := runAction(t, bin, repo, fake, event, map[string]string{"baseline_from": "workspace", "comment": "never"})
	control.wantExit(t, ExitRegression)

	// A real regression, which the PR tries to hide by lowering its baseline.
	target.regress()
	writeScaledBaseline(t, repo, committed, 0.1)
	run3 := runAction(t, bin, repo, fake, event, nil)
	run3.wantExit(t, ExitRegression)
	run3.wantOutputs(t, "regression", "")
	if n, _ := strconv.Atoi(run3.outputs["regressions"]); n < 1 {
		t.Errorf("regressions output %q, want ≥ 1", run3.outputs["regressions"])
	}
	if !strings.Contains(run3.stdout, "::error title=performance regression::") {
		t.Errorf("run 3 printed no ::error annotation:\n%s", run3.stdout)
	}
	if fake.Count("POST") != 1 || fake.Count("PATCH") != 2 {
		t.Errorf("run 3: %d POST, %d PATCH; want the sticky comment edited again", fake.Count("POST"), fake.Count("PATCH"))
	}
	actionBody := wantOneSticky(t, fake, "### ❌ tailgate · e2e: regression in")
	hidden := runAction(t, bin, repo, fake, event, map[string]string{"baseline_from": "workspace", "comment": "never"})
	hidden.wantExit(t, ExitPass) // control: the lowered working-tree baseline would have hidden it

	t.Run("comment publisher", func(t *testing.T) { testCommentPublisher(t, bin, fake, run3, actionBody) })
	t.Run("token without write access", func(t *testing.T) { testForbidden(t, bin, repo, event) })
	t.Logf("end-to-end runtime %v", time.Since(started).Round(time.Millisecond))
}

// testCommentPublisher runs `tailgate comment` as the workflow_run job does,
// on the report run 3 wrote, and on artifacts it must refuse.
func testCommentPublisher(t *testing.T, bin string, fake *ghtest.Server, run3 e2eResult, actionBody string) {
	dir := t.TempDir()
	prFile := filepath.Join(dir, "pr.txt")
	writeFile(t, prFile, "7\n")
	event := writeEvent(t, "workflow_run.json", nil)
	env := commentEnv(t, fake, event)

	res := runTailgate(t, bin, dir, env, "comment", "--report", run3.outputs["report_path"], "--pr-file", prFile)
	res.wantExit(t, ExitPass)
	if fake.Count("POST") != 1 || fake.Count("PATCH") != 3 {
		t.Errorf("comment: %d POST, %d PATCH; want the action's sticky comment edited", fake.Count("POST"), fake.Count("PATCH"))
	}
	body := wantOneSticky(t, fake, "### ❌ tailgate · e2e: regression in")
	note := "- Posted from the report of [workflow run 4242](https://github.com/tailgate-ci/e2e-shop/actions/runs/4242); its figures come from the pull request's own workflow run.\n"
	if !strings.Contains(body, note) {
		t.Fatalf("the publisher's comment lacks its provenance note %q:\n%s", note, body)
	}
	if got := strings.Replace(strings.Replace(body, note, "", 1), "<details><summary>Notes</summary>\n\n\n</details>\n\n", "", 1); got != actionBody {
		t.Errorf("the re-rendered comment differs from the action's beyond the note:\n--- publisher ---\n%s\n--- action ---\n%s", got, actionBody)
	}

	calls := len(fake.Calls())
	badReport := filepath.Join(dir, "evil.json")
	data, _ := os.ReadFile(run3.outputs["report_path"])
	writeFile(t, badReport, strings.Replace(string(data), `"schema": 1,`, `"schema": 1, "markdown": "<script>",`, 1))
	writeFile(t, filepath.Join(dir, "pr-bad.txt"), "7; rm -rf /")
	writeFile(t, filepath.Join(dir, "pr-long.txt"), strings.Repeat("0", 40)+"7")
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"no token", []string{"--report", run3.outputs["report_path"], "--pr", "7"},
			slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GITHUB_TOKEN=") }), "no GitHub token"},
		{"no PR", []string{"--report", badReport}, env, "exactly one of --pr-file FILE or --pr N"},
		{"two PRs", []string{"--report", badReport, "--pr", "7", "--pr-file", prFile}, env, "exactly one of"},
		{"PR number too large", []string{"--report", run3.outputs["report_path"], "--pr", "4294967303"}, env, "is not a pull request number (a positive integer of at most 2147483647)"},
		{"no repository", []string{"--report", run3.outputs["report_path"], "--pr", "7"},
			slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "GITHUB_REPOSITORY=") }), "GITHUB_REPOSITORY is unset"},
		{"unknown field", []string{"--report", badReport, "--pr", "7"}, env, `unknown field "markdown"`},
		{"PR file not a number", []string{"--report", run3.outputs["report_path"], "--pr-file", filepath.Join(dir, "pr-bad.txt")}, env, "is not a pull request number"},
		{"PR file too long", []string{"--report", run3.outputs["report_path"], "--pr-file", filepath.Join(dir, "pr-long.txt")}, env, "larger than the 32 bytes tailgate reads of a pull request number file"},
		{"PR not the trigger's", []string{"--report", run3.outputs["report_path"], "--pr", "8"},
			commentEnv(t, fake, writeEvent(t, "workflow_run.json", func(ev map[string]any) {
				ev["workflow_run"].(map[string]any)["pull_requests"] = []any{map[string]any{"number": 7}}
			})), "refusing to comment elsewhere"},
	} {
		res := runTailgate(t, bin, dir, tc.env, append([]string{"comment"}, tc.args...)...)
		if res.code != ExitUsage || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 saying %q", tc.name, res.code, res.stderr, tc.want)
		}
	}
	if got := len(fake.Calls()); got != calls {
		t.Errorf("refused artifacts still made %d API calls", got-calls)
	}

	// Posting is this job's whole purpose: a token that may not comment
	// is one warning and exit 3.
	denied := newE2EGitHub(t, ghtest.ReadOnly())
	res = runTailgate(t, bin, dir, commentEnv(t, denied, event), "comment", "--report", run3.outputs["report_path"], "--pr", "7")
	if res.code != ExitRuntime || strings.Count(res.stdout, "::warning title=PR comment failed::") != 1 {
		t.Errorf("comment with a read-only token: exit %d, stdout %q; want exit 3 and one warning", res.code, res.stdout)
	}
}

// testForbidden: a token that may not comment (as on a fork PR) gets one
// warning; the summary and outputs are still written and the exit code is
// the verdict's (the target is still slow: a regression).
func testForbidden(t *testing.T, bin, repo, event string) {
	fake := newE2EGitHub(t, ghtest.ReadOnly())
	res := runAction(t, bin, repo, fake, event, nil)
	res.wantExit(t, ExitRegression)
	res.wantOutputs(t, "regression", "")
	if n := strings.Count(res.stdout, "::warning title=PR comment skipped::"); n != 1 {
		t.Errorf("%d 'PR comment skipped' warnings, want exactly 1:\n%s", n, res.stdout)
	}
	if res.outputs["comment_url"] != "" || fake.Count("POST") != 1 {
		t.Errorf("comment_url %q after %d POSTs; want empty after the one refused POST", res.outputs["comment_url"], fake.Count("POST"))
	}
	if !strings.Contains(res.summary, "### ❌ tailgate · e2e: regression in") {
		t.Errorf("job summary not written:\n%s", res.summary)
	}
}

// --- running the binary ----------------------------------------------------

// built is cmd/tailgate built once for the whole test binary, in the
// temp directory TestMain removes at the end: the e2e tests each built it
// again, a link of several seconds apiece on a busy machine.
var built struct {
	once     sync.Once
	bin, out string
	err      error
}

// buildTailgate returns the path of the tailgate binary, building it on
// first use. Tests only run it; one that must change it copies it.
func buildTailgate(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "tailgate-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "tailgate")
		out, err := exec.Command("go", "build", "-o", built.bin, "github.com/tailgate-ci/tailgate/cmd/tailgate").CombinedOutput()
		built.out, built.err = string(out), err
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

type e2eResult struct {
	code            int
	stdout, stderr  string
	outputs         map[string]string
	summary, output string // the GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files
}

func runTailgate(t *testing.T, bin, dir string, env []string, args ...string) e2eResult {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := e2eResult{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", bin, err)
	}
	if strings.Contains(res.stderr, e2eToken) {
		t.Errorf("the token appears on stderr:\n%s", res.stderr)
	}
	for _, line := range strings.Split(res.stdout, "\n") {
		if strings.Contains(line, e2eToken) && line != "::add-mask::"+e2eToken {
			t.Errorf("the token appears unmasked on stdout: %q", line)
		}
	}
	return res
}

// runAction runs `tailgate action` in repo with the environment the
// composite step gives it: action.yml's env mapping of the inputs (defaults
// unless set in inputs) and a runner's GITHUB_* variables and files.
func runAction(t *testing.T, bin, repo string, fake *ghtest.Server, event string, inputs map[string]string) e2eResult {
	t.Helper()
	files := t.TempDir()
	output, summary := filepath.Join(files, "set_output"), filepath.Join(files, "step_summary")
	env := append(runnerEnv(t, files, fake.URL()), "GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH="+event,
		"GITHUB_REF=refs/pull/7/merge", "GITHUB_BASE_REF=main", "GITHUB_HEAD_REF=faster-orders",
		"GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary)
	env = append(env, actionInputEnv(t, inputs)...)
	wd := cmp.Or(inputs["working_directory"], ".")
	res := runTailgate(t, bin, filepath.Join(repo, wd), env, "action")
	outData, _ := os.ReadFile(output)
	sumData, _ := os.ReadFile(summary)
	res.output, res.summary = string(outData), string(sumData)
	res.outputs = parseOutputFile(t, res.output)
	if strings.Contains(res.output+res.summary, e2eToken) {
		t.Error("the token appears in the outputs or the job summary")
	}
	return res
}

// runnerEnv is what a runner sets for every step (the subset tailgate may
// read), with PATH for git and a private HOME so no user config applies;
// GITHUB_API_URL is the fake API's.
func runnerEnv(t *testing.T, temp, apiURL string) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CI=true", "GITHUB_ACTIONS=true",
		"GITHUB_REPOSITORY=" + e2eOwner + "/" + e2eRepo, "GITHUB_REPOSITORY_OWNER=" + e2eOwner,
		"GITHUB_SHA=c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", "GITHUB_ACTOR=alice",
		"GITHUB_API_URL=" + apiURL, "GITHUB_SERVER_URL=https://github.com",
		"GITHUB_RUN_ID=1001", "GITHUB_RUN_ATTEMPT=1", "GITHUB_JOB=perf", "GITHUB_WORKFLOW=tailgate",
		"RUNNER_TEMP=" + temp, "RUNNER_OS=Linux", "RUNNER_ARCH=X64"}
}

func commentEnv(t *testing.T, fake *ghtest.Server, event string) []string {
	return append(runnerEnv(t, t.TempDir(), fake.URL()), "GITHUB_EVENT_NAME=workflow_run", "GITHUB_EVENT_PATH="+event,
		"GITHUB_TOKEN="+e2eToken)
}

// e2eAction is the part of action.yml the runner emulation reads.
type e2eAction struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Steps []struct {
			ID  string            `yaml:"id"`
			Env map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readActionYML(t *testing.T) e2eAction {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a e2eAction
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

var inputExpr = regexp.MustCompile(`^\$\{\{\s*inputs\.([a-z0-9_]+)\s*\}\}$`)

// actionInputEnv evaluates the env mapping of action.yml's `run` step.
func actionInputEnv(t *testing.T, set map[string]string) []string {
	t.Helper()
	a := readActionYML(t)
	var env []string
	for _, step := range a.Runs.Steps {
		if step.ID != "run" {
			continue
		}
		for name, expr := range step.Env {
			m := inputExpr.FindStringSubmatch(expr)
			if m == nil {
				continue // TAILGATE_BIN: the binary is run directly here
			}
			in, ok := a.Inputs[m[1]]
			if !ok {
				t.Fatalf("action.yml maps %s from undeclared input %s", name, m[1])
			}
			v, given := set[m[1]]
			if !given {
				v = strings.ReplaceAll(in.Default, "${{ github.token }}", e2eToken)
			}
			env = append(env, name+"="+v)
		}
	}
	if len(env) == 0 {
		t.Fatal("action.yml has no step with id run mapping inputs")
	}
	return env
}

func (r e2eResult) wantExit(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

// wantOutputs checks verdict (and regressions when given) and that every
// output action.yml declares was written.
func (r e2eResult) wantOutputs(t *testing.T, verdict, regressions string) {
	t.Helper()
	for _, name := range []string{"verdict", "regressions", "report_path", "comment_url"} {
		if _, ok := r.outputs[name]; !ok {
			t.Errorf("output %s not written; GITHUB_OUTPUT:\n%s", name, r.output)
		}
	}
	if r.outputs["verdict"] != verdict || (regressions != "" && r.outputs["regressions"] != regressions) {
		t.Errorf("outputs verdict=%q regressions=%q, want %q %q", r.outputs["verdict"], r.outputs["regressions"], verdict, regressions)
	}
}

// parseOutputFile reads GITHUB_OUTPUT as the runner does: NAME=VALUE lines
// and NAME<<DELIMITER heredocs.
func parseOutputFile(t *testing.T, data string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var value []string
			for sc.Scan() && sc.Text() != delim {
				value = append(value, sc.Text())
			}
			out[name] = strings.Join(value, "\n")
			continue
		}
		if name, value, ok := strings.Cut(line, "="); ok {
			out[name] = value
		} else if line != "" {
			t.Errorf("GITHUB_OUTPUT line %q is neither NAME=VALUE nor a heredoc", line)
		}
	}
	return out
}

func readReportOutput(t *testing.T, r e2eResult) report.Input {
	t.Helper()
	f, err := os.Open(r.outputs["report_path"])
	if err != nil {
		t.Fatalf("report_path output: %v", err)
	}
	defer f.Close()
	in, err := report.ReadJSON(f)
	if err != nil {
		t.Fatalf("the action's report does not read back: %v", err)
	}
	return in
}

// --- the repository, the target and the event -------------------------------

// newE2ERepo makes a git repository holding the benchmark and a baseline of
// 6 samples recorded by the binary against the fast target, committed; it
// returns the directory and the commit (the PR's base).
func newE2ERepo(t *testing.T, bin, targetURL string) (string, string) {
	t.Helper()
	repo := t.TempDir()
	tmpl, err := os.ReadFile(filepath.Join("testdata", "e2e", "tailgate.yml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "tailgate.yml"), strings.ReplaceAll(string(tmpl), "@URL@", targetURL))
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for range 3 { // 3 jobs of 2 runs: enough samples for the exact test
		res := runTailgate(t, bin, repo, env, "baseline", "record", "-c", "tailgate.yml", "-q")
		res.wantExit(t, ExitPass)
	}
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "add", "tailgate.yml", "baselines/e2e.json")
	gitIn(t, repo, "commit", "-q", "-m", "baseline")
	return repo, gitIn(t, repo, "rev-parse", "HEAD")
}

// writeScaledBaseline writes the committed baseline into the working tree
// with throughput scaled by k and latencies by 1/k, and, when k < 1, the
// dropped work raised to 100·(1−k) %: a PR editing its baseline (dropped
// work is gated by default, so hiding a regression means editing it too).
func writeScaledBaseline(t *testing.T, repo string, committed []byte, k float64) {
	t.Helper()
	var bl map[string]any
	if err := json.Unmarshal(committed, &bl); err != nil {
		t.Fatal(err)
	}
	for _, s := range bl["samples"].([]any) {
		m := s.(map[string]any)["metrics"].(map[string]any)
		for key, v := range m {
			switch {
			case strings.HasSuffix(key, "_per_s"):
				m[key] = v.(float64) * k
			case strings.HasPrefix(key, "latency_") || strings.HasPrefix(key, "iteration_p"):
				m[key] = v.(float64) / k
			case key == "dropped_pct", key == "request_error_pct":
				m[key] = max(v.(float64), 100*(1-k))
			case key == "lifecycle_success_pct":
				m[key] = min(v.(float64), 100*k)
			}
		}
	}
	data, _ := json.MarshalIndent(bl, "", "  ")
	writeFile(t, filepath.Join(repo, "baselines", "e2e.json"), string(data))
}

type e2eTarget struct {
	srv   *httptest.Server
	delay atomic.Int64 // per /orders request
	leaks atomic.Int64 // requests that carried the step's token (e2eToken)
	// failTenths of every ten /orders requests answer 500, counted, not
	// timed: the error rate the regression adds does not depend on how
	// loaded the machine is, unlike its latency.
	failTenths, served atomic.Int64
}

// regress makes the target the regressed build: 20× slower and 30 % of
// its answers errors. The error rate (+30 pp against a 1 pp floor) fails
// the gate on any machine; a loaded one shrank the slowdown's p95 rise
// to +523 % once, below its 600 % floor.
func (tg *e2eTarget) regress() {
	tg.delay.Store(int64(slowDelay))
	tg.failTenths.Store(3)
}

// heal makes the target the clean build again.
func (tg *e2eTarget) heal() {
	tg.delay.Store(int64(fastDelay))
	tg.failTenths.Store(0)
}

func newE2ETarget(t *testing.T) *e2eTarget {
	tg := &e2eTarget{}
	tg.delay.Store(int64(fastDelay))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("GET /orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		for _, vs := range r.Header {
			if slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(v, e2eToken) }) {
				tg.leaks.Add(1)
			}
		}
		select {
		case <-time.After(time.Duration(tg.delay.Load())):
		case <-r.Context().Done():
			return
		}
		if tg.served.Add(1)%10 < tg.failTenths.Load() {
			http.Error(w, "out of stock", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id": %q, "state": "shipped"}`, r.PathValue("id"))
	})
	tg.srv = httptest.NewServer(mux)
	t.Cleanup(tg.srv.Close)
	return tg
}

func (tg *e2eTarget) url() string { return tg.srv.URL }

// writeEvent writes testdata/e2e/name, edited, to a temp file.
func writeEvent(t *testing.T, name string, edit func(map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "e2e", name))
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(ev)
	}
	data, _ = json.Marshal(ev)
	path := filepath.Join(t.TempDir(), "event.json")
	writeFile(t, path, string(data))
	return path
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// --- a fake GitHub API ------------------------------------------------------

// newE2EGitHub is ghtest's fake GitHub API for the e2e repository: it
// insists on e2eToken and on this repository, and answers GET /user with
// 403 as for an Actions token, so comments are authored by
// github-actions[bot].
func newE2EGitHub(t *testing.T, opts ...ghtest.Option) *ghtest.Server {
	opts = append([]ghtest.Option{ghtest.Token(e2eToken), ghtest.Repo(e2eOwner + "/" + e2eRepo)}, opts...)
	return ghtest.New(t, opts...)
}

// wantOneSticky checks that the PR has exactly one comment of ours with the
// marker, containing want, and returns its body.
func wantOneSticky(t *testing.T, f *ghtest.Server, want string) string {
	t.Helper()
	var ours []ghtest.Comment
	for _, c := range f.Authored(e2ePR) {
		if strings.Contains(c.Body, e2eMarker) {
			ours = append(ours, c)
		}
	}
	if len(ours) != 1 {
		t.Fatalf("%d sticky comments of ours on #%d, want 1", len(ours), e2ePR)
	}
	if !strings.Contains(ours[0].Body, want) {
		t.Errorf("sticky comment lacks %q:\n%s", want, ours[0].Body)
	}
	return ours[0].Body
}

// --- the repository's own workflows -----------------------------------------

type workflowFile struct {
	Name        string                 `yaml:"name"`
	On          map[string]yaml.Node   `yaml:"on"`
	Permissions yaml.Node              `yaml:"permissions"`
	Jobs        map[string]workflowJob `yaml:"jobs"`
}

type workflowJob struct {
	If    string `yaml:"if"`
	Steps []struct {
		ID   string            `yaml:"id"`
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]string `yaml:"with"`
	} `yaml:"steps"`
}

var stepOutputExpr = regexp.MustCompile(`steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)`)

// The workflows parse, pass only inputs action.yml declares to `uses: ./`,
// read only outputs it declares, point at benchmark files that load, keep
// expressions out of shell scripts, and wire the fork-PR pair by name.
func TestRepositoryWorkflows(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	paths, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	if len(paths) < 3 {
		t.Fatalf("found %d workflows in .github/workflows, want tailgate.yml, tailgate-fork-pr.yml and tailgate-comment.yml", len(paths))
	}
	action := readActionYML(t)
	var outputs struct {
		Outputs map[string]yaml.Node `yaml:"outputs"`
	}
	data, _ := os.ReadFile(filepath.Join(root, "action.yml"))
	if err := yaml.Unmarshal(data, &outputs); err != nil {
		t.Fatal(err)
	}
	byName := map[string]workflowFile{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var wf workflowFile
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		file := filepath.Base(path)
		byName[file] = wf
		if wf.Name == "" || len(wf.On) == 0 || len(wf.Jobs) == 0 || wf.Permissions.Kind == 0 {
			t.Errorf("%s: needs name, on, jobs and a top-level permissions block", file)
		}
		if _, ok := wf.On["pull_request_target"]; ok {
			t.Errorf("%s: pull_request_target would run PR code with a write token", file)
		}
		_, onPR := wf.On["pull_request"]
		for jobName, job := range wf.Jobs {
			local := map[string]bool{}
			runsPR := onPR && (len(wf.On) == 1 || strings.Contains(job.If, "pull_request"))
			for i, st := range job.Steps {
				where := fmt.Sprintf("%s: job %s step %d", file, jobName, i+1)
				// A job that runs the PR's code (its build, its service) must
				// not leave the checkout's token in .git/config for it.
				if runsPR && strings.HasPrefix(st.Uses, "actions/checkout@") && st.With["persist-credentials"] != "false" {
					t.Errorf("%s: actions/checkout in a job that runs the PR's code needs persist-credentials: false", where)
				}
				// A workflow_run job has a write token: it checks out the
				// default branch only, never what the PR's run was for.
				if _, privileged := wf.On["workflow_run"]; privileged && strings.HasPrefix(st.Uses, "actions/checkout@") {
					if ref := st.With["ref"] + st.With["repository"]; ref != "" {
						t.Errorf("%s: a workflow_run job checks out %q: it must run only the default branch's code", where, ref)
					}
				}
				if strings.Contains(st.Run, "${{") {
					t.Errorf("%s: run script interpolates an expression; pass it through env", where)
				}
				if st.Uses != "./" {
					continue
				}
				local[st.ID] = true
				for in := range st.With {
					if _, ok := action.Inputs[in]; !ok {
						t.Errorf("%s: input %q is not declared in action.yml", where, in)
					}
				}
				if cfg := st.With["config"]; cfg != "" {
					if _, err := config.LoadFile(filepath.Join(root, cfg)); err != nil {
						t.Errorf("%s: config %s: %v", where, cfg, err)
					}
				}
			}
			raw, _ := yaml.Marshal(job)
			for _, m := range stepOutputExpr.FindAllStringSubmatch(string(raw), -1) {
				if _, ok := outputs.Outputs[m[2]]; local[m[1]] && !ok {
					t.Errorf("%s: job %s reads output %q that action.yml does not declare", file, jobName, m[2])
				}
			}
		}
	}
	fork, comment := byName["tailgate-fork-pr.yml"], byName["tailgate-comment.yml"]
	var trigger struct {
		Workflows []string `yaml:"workflows"`
	}
	node := comment.On["workflow_run"]
	if err := node.Decode(&trigger); err != nil || !slices.Contains(trigger.Workflows, fork.Name) {
		t.Errorf("tailgate-comment.yml must run on workflow_run of %q, got %v (%v)", fork.Name, trigger.Workflows, err)
	}
}
