package cli_test

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/cli"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// authExample is testdata/config/auth.yml copied into dir with users.csv,
// the demo service's port replaced by a free one (the target is not part
// of the definition); it returns the config's path.
func authExample(t *testing.T, dir string) string {
	t.Helper()
	src := string(mustRead(t, "../../testdata/config/auth.yml"))
	if !strings.Contains(src, "127.0.0.1:8080") {
		t.Fatal("auth.yml no longer names 127.0.0.1:8080: update the test")
	}
	src = strings.ReplaceAll(src, "127.0.0.1:8080", "127.0.0.1:"+strconv.Itoa(freeLoopbackPort(t)))
	cfg := filepath.Join(dir, "auth.yml")
	mustWrite(t, cfg, src)
	mustWrite(t, filepath.Join(dir, "users.csv"), string(mustRead(t, "../../testdata/config/users.csv")))
	return cfg
}

// tailgateOS runs cli.Main with the process environment, as main does:
// the started demo service inherits it.
func tailgateOS(t *testing.T, args ...string) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, &stdout, &stderr, os.Getenv)
	return outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// onPath puts this test binary on PATH as `tailgate`, which auth.yml's
// start command runs (TestMain makes it serve demo-serve).
func onPath(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "tailgate")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// wantNoSecret fails when any of the texts holds the secret.
func wantNoneHolds(t *testing.T, secret string, texts map[string]string) {
	t.Helper()
	for name, text := range texts {
		if strings.Contains(text, secret) {
			t.Errorf("%s shows the secret %q", name, secret)
		}
	}
}

// TestAuthExampleEndToEnd runs testdata/config/auth.yml against the demo
// service with logins on: each virtual user logs in once per run as its
// own user from the feed, with the password from the environment, and a
// templated expectation checks every complaint it reads. The baseline
// survives a new password and a new number of runs, not a new user list.
func TestAuthExampleEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo service four times")
	}
	onPath(t)
	const password = "pw-first-7c1e"
	t.Setenv("TAILGATE_DEMO_PASSWORD", password)
	dir := t.TempDir()
	cfg := authExample(t, dir)
	bl := filepath.Join(dir, "baseline.json")
	short := []string{"-q", "-c", cfg, "--duration", "700ms", "--warmup", "200ms"}

	// One result, recorded as the baseline.
	res := filepath.Join(dir, "r1.json")
	o := tailgateOS(t, append([]string{"run", "-o", res, "--runs", "2"}, short...)...)
	wantCode(t, o, 0)
	f, err := result.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Runs {
		// At least one lifecycle per run, even on a machine this busy
		// (load 12 on 2 cores was seen); all of them pass.
		if r.Iterations.Completed < 1 || r.Iterations.Succeeded != r.Iterations.Completed || len(r.Errors) != 0 {
			t.Errorf("run %d: iterations %+v errors %+v; want every lifecycle to pass with its VU's token", r.Index, r.Iterations, r.Errors)
		}
		if len(r.Steps) != 4 || r.Steps[0].Name != "create" {
			t.Errorf("run %d: steps %+v, want the 4 scenario steps only (the login is not measured)", r.Index, r.Steps)
		}
	}
	// The service logs each login: once per VU and run, each VU its own user.
	log := string(mustRead(t, f.TargetLog))
	logins := regexp.MustCompile(`(?m)^login (user-\d+)$`).FindAllStringSubmatch(log, -1)
	perUser := map[string]int{}
	for _, m := range logins {
		perUser[m[1]]++
	}
	if len(logins) != 8 || len(perUser) != 4 || perUser["user-001"] != 2 || perUser["user-004"] != 2 {
		t.Errorf("logins %v (%d), want 2 runs × 4 VUs: users 001–004 twice each", perUser, len(logins))
	}
	wantNoneHolds(t, password, map[string]string{"stdout": o.stdout, "stderr": o.stderr, "result": string(mustRead(t, res)), "target log": log})
	wantCode(t, tailgate(t, "baseline", "record", "--result", res, "--baseline", bl), 0)

	check := func(name string, extra ...string) (outcome, string) {
		t.Helper()
		rep := filepath.Join(dir, name+".json")
		o := tailgateOS(t, append(append([]string{"check", "--baseline", bl, "--report", rep, "--markdown", rep + ".md"}, short...), extra...)...)
		if o.code != 0 && o.code != 1 {
			t.Fatalf("%s: check exited %d\n%s", name, o.code, o)
		}
		return o, string(mustRead(t, rep)) + string(mustRead(t, rep+".md"))
	}
	changed := func(report string) bool { return strings.Contains(report, "benchmark changed") }

	// A new password (the service is restarted with it): the same benchmark.
	const second = "pw-second-19b4"
	t.Setenv("TAILGATE_DEMO_PASSWORD", second)
	o, report := check("new-password", "--runs", "2")
	// Compared, not refused as another benchmark. Whether it then passes
	// depends on the machine's load (a 700 ms window of bcrypt logins may
	// complete no lifecycle at load 7, which is inconclusive): not asserted.
	if changed(report) || !strings.Contains(o.stdout, "2 head runs vs 2 baseline samples") {
		t.Errorf("a new password changed the benchmark:\n%s", o.stdout)
	}
	wantNoneHolds(t, second, map[string]string{"stdout": o.stdout, "stderr": o.stderr, "reports": report})

	// Another number of runs: a number of samples is not a definition.
	o, report = check("more-runs", "--runs", "3")
	if changed(report) {
		t.Errorf("--runs 3 changed the benchmark:\n%s", o.stdout)
	}

	// Other rows in the feed: another dataset, so another benchmark.
	users := filepath.Join(dir, "users.csv")
	mustWrite(t, users, strings.Replace(string(mustRead(t, users)), "user-002", "user-042", 1))
	o, report = check("new-users", "--runs", "2")
	if !changed(report) || !strings.Contains(o.stdout, "INCONCLUSIVE") {
		t.Errorf("a changed feed kept the baseline:\n%s", o.stdout)
	}
}

// A response that echoes a secret (a key the service refuses) keeps it out
// of the result, the reports (JSON and the Markdown of the PR comment) and
// the terminal: the error sample shows *** in its place.
func TestSecretsStayOutOfResultsAndReports(t *testing.T) {
	t.Parallel()
	srv := echoRefusal(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bench.yml")
	mustWrite(t, cfg, `
target: {url: "`+srv+`"}
load: {model: closed, vus: 2, warmup: 0s, duration: 300ms, runs: 2}
scenarios:
  - steps:
      - path: /items
        headers: {X-Api-Key: '{{env "API_KEY"}}'}
`)
	const key = "k3y-Zq81-secret"
	// Every request is refused: no measurement, and the message that says
	// so quotes the refusal with the key masked.
	o := tailgateEnv(t, environ{"API_KEY": key}, "run", "-q", "-c", cfg, "-o", filepath.Join(dir, "refused.json"))
	wantCode(t, o, 3)
	wantContains(t, "stderr", o.stderr, "iterations failed", `403 key *** is not valid`)
	wantNoneHolds(t, key, map[string]string{"stdout": o.stdout, "stderr": o.stderr})
	wantNoFile(t, filepath.Join(dir, "refused.json"))
	mustWrite(t, cfg, strings.Replace(string(mustRead(t, cfg)), "runs: 2}", "runs: 2, max_failed_percent: 100}", 1))

	rep, res := filepath.Join(dir, "report.json"), filepath.Join(dir, "result.json")
	o = tailgateEnv(t, environ{"API_KEY": key}, "check", "-q", "-c", cfg, "--baseline", filepath.Join(dir, "bl.json"),
		"--report", rep, "--markdown", rep+".md", "-o", res)
	wantCode(t, o, 0)
	var r struct {
		Errors []struct{ Sample string } `json:"errors"`
	}
	if err := json.Unmarshal(mustRead(t, rep), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Sample, "403 key *** is not valid") {
		t.Errorf("report errors %+v, want the refusal with the key masked", r.Errors)
	}
	wantNoneHolds(t, key, map[string]string{"stdout": o.stdout, "stderr": o.stderr,
		"report.json": string(mustRead(t, rep)), "report.md": string(mustRead(t, rep+".md")), "result.json": string(mustRead(t, res))})

	// A variable that is not set, or a credential, is bad input.
	o = tailgate(t, "run", "-q", "-c", cfg, "-o", filepath.Join(dir, "none.json"))
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, `{{env "API_KEY"}}: API_KEY is not set`)
	mustWrite(t, cfg, strings.Replace(string(mustRead(t, cfg)), "API_KEY", "GITHUB_TOKEN", 1))
	o = tailgateEnv(t, environ{"GITHUB_TOKEN": "ghs_x"}, "run", "-q", "-c", cfg, "-o", filepath.Join(dir, "none.json"))
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "GITHUB_TOKEN is a GitHub or Actions credential")
	wantNoFile(t, filepath.Join(dir, "none.json"))
}

func freeLoopbackPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// echoRefusal is a loopback service that refuses every key and says which.
func echoRefusal(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "key "+r.Header.Get("X-Api-Key")+" is not valid", http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
