package cli_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// articlesBenchmark is a benchmark file as users write them: a signed-in
// lifecycle that creates an article whose slug must be unique (deleted
// ones included), reads it, deletes it and signs a user up with a unique
// e-mail. @EXE@ is the articles service (this test binary).
const articlesBenchmark = `name: articles
seed: 3
target:
  url: "http://127.0.0.1:{{port}}"
  start: {command: ["@EXE@", articles-service, --addr, "127.0.0.1:{{port}}"]}
  ready: {path: /health, timeout: 20s, interval: 20ms}
dataset:
  reset: {request: {method: POST, path: /admin/reset, status: 204}}
  verify: {request: {path: /admin/count}, expect: {articles: 0}}
feed: {file: users.csv}
setup:
  vu:
    - {name: login, path: /login, json: {user: '{{feed "user"}}', password: pw}, status: 200, save: {token: token}}
load:
  runs: 2
  phases:
    - {name: capacity, model: closed, vus: 2, warmup: 100ms, duration: 400ms}
    - {name: latency, model: open, rate: 40/s, max_inflight: 4, warmup: 100ms, duration: 400ms}
scenarios:
  - name: lifecycle
    steps:
      - name: create
        path: /articles
        headers: {Authorization: "Bearer {{.token}}"}
        json: {title: "Gate article {{seq}}"}
        status: 201
        save: {slug: slug}
      - {name: read, path: "/articles/{{.slug}}"}
      - {name: delete, method: DELETE, path: "/articles/{{.slug}}", headers: {Authorization: "Bearer {{.token}}"}, status: 204}
      - {name: sign up, path: /users, json: {email: "u{{seq}}@example.com"}, status: 201}
ab: {min_blocks: 3, max_blocks: 3, window: 200ms}
`

// A feature matrix of the default A/B (and check): each row is a feature
// users combine in their benchmark files, applied to the articles
// benchmark, and each must run to a verdict (exit 0 or 1) with no failed
// iteration on either side. Unique keys drawn from {{seq}}, {{uuid}} or
// {{randString}} hold across every window of a block (warm-ups
// included), as the dataset is reset only per block and phase; a load
// tool runs whole runs per side; a fixed port runs one side at a time.
func TestABFeatureMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("runs many A/B jobs")
	}
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	title := func(tmpl string) func(string) string {
		return func(cfg string) string { return strings.Replace(cfg, "Gate article {{seq}}", tmpl, 1) }
	}
	replace := func(pairs ...string) func(string) string {
		return func(cfg string) string {
			for i := 0; i < len(pairs); i += 2 {
				if !strings.Contains(cfg, pairs[i]) {
					t.Fatalf("the benchmark has no %q to replace", pairs[i])
				}
				cfg = strings.Replace(cfg, pairs[i], pairs[i+1], 1)
			}
			return cfg
		}
	}
	closedPhase := "    - {name: capacity, model: closed, vus: 2, warmup: 100ms, duration: 400ms}\n"
	openPhase := "    - {name: latency, model: open, rate: 40/s, max_inflight: 4, warmup: 100ms, duration: 400ms}\n"
	startLine := `  start: {command: ["` + exe + `", articles-service, --addr, "127.0.0.1:{{port}}"]}` + "\n"
	cases := []struct {
		name    string
		edit    func(cfg string) string
		args    []string // beyond ab -c tailgate.yml --base-ref main
		ownBase bool     // the config names the base: no --base-ref
		setup   func(t *testing.T) map[string]string
		design  string // what the report must say ran
		command string // "ab" (default) or "check"
	}{
		{name: "seq in unique keys, both phases, setup.vu, feed per vu"},
		{name: "uuid in unique keys", edit: title("Gate {{uuid}}")},
		{name: "randString in unique keys", edit: title("Gate {{randString 16}}")},
		{name: "open phase only", edit: replace(closedPhase, "")},
		{name: "closed phase only", edit: replace(openPhase, "")},
		{name: "setup.run", edit: replace(
			"  vu:\n    - {name: login, path: /login, json: {user: '{{feed \"user\"}}', password: pw}, status: 200, save: {token: token}}\n",
			"  run:\n    - {name: admin login, method: POST, path: /admin/login, status: 200, save: {token: token}}\n")},
		{name: "feed per iteration", edit: replace("feed: {file: users.csv}", "feed: {file: users.csv, per: iteration}",
			"  vu:\n    - {name: login, path: /login, json: {user: '{{feed \"user\"}}', password: pw}, status: 200, save: {token: token}}\n",
			"  run:\n    - {name: admin login, method: POST, path: /admin/login, status: 200, save: {token: token}}\n",
			`json: {title: "Gate article {{seq}}"}`, `json: {title: "Gate article {{seq}} by {{feed \"user\"}}"}`)},
		{name: "engine command", design: "load.engine: command", edit: func(cfg string) string {
			head, _, _ := strings.Cut(cfg, "feed:")
			return head + "load:\n  engine: command\n  command: [\"" + exe + "\", articles-load, --for, 300ms]\n  output: out/hey.csv\n  format: hey-csv\n  runs: 2\nab: {min_blocks: 4, max_blocks: 4}\n"
		}},
		{name: "target.measure", setup: sidecar, edit: replace("  ready: {path: /health", "  measure: [{name: sidecar, pid_file: \"@SIDECAR@\"}]\n  ready: {path: /health")},
		{name: "target.counters", edit: replace("  ready: {path: /health", "  counters: [{name: svc, prometheus: {path: /metrics, metrics: [articles_writes_total]}}]\n  ready: {path: /health")},
		{name: "restart never", edit: replace("window: 200ms}", "window: 200ms, restart: never}")},
		{name: "a fixed port", design: "one fixed address", setup: fixedPort, edit: replace(`"http://127.0.0.1:{{port}}"`, `"http://127.0.0.1:@PORT@"`, `"127.0.0.1:{{port}}"]}`, `"127.0.0.1:@PORT@"]}`)},
		{name: "pid_file targets", setup: pidFileTargets, ownBase: true, edit: replace(startLine,
			"  pid_file: \"@BASEPID@\"\n", `"http://127.0.0.1:{{port}}"`, `"http://@BASEADDR@"`,
			"ab: {", `ab: {base: {url: "http://@BASEADDR@", pid_file: "@BASEPID@", ready: {path: /health}}, head: {url: "http://@HEADADDR@", pid_file: "@HEADPID@", ready: {path: /health}}, `)},
		{name: "max_failed_percent", edit: replace("  runs: 2\n  phases:", "  runs: 2\n  max_failed_percent: 1\n  phases:")},
		{name: "benchmark_from base", args: []string{"--benchmark-from", "base"}},
		{name: "check", command: "check"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each case its own repository, services and ports
			cfg := strings.ReplaceAll(articlesBenchmark, "@EXE@", exe)
			if c.edit != nil {
				cfg = c.edit(cfg)
			}
			if c.setup != nil {
				for k, v := range c.setup(t) {
					cfg = strings.ReplaceAll(cfg, k, v)
				}
			}
			repo := articlesRepo(t, cfg)
			rep := filepath.Join(t.TempDir(), "report.json")
			args := []string{"ab", "-c", "tailgate.yml", "--base-ref", "main", "-q", "--report", rep, "--noise", "off"}
			if c.command == "check" {
				args = []string{"check", "-c", "tailgate.yml", "-q", "--report", rep}
			}
			if c.ownBase {
				args = slices.Delete(args, 3, 5)
			}
			args = append(args, c.args...)
			o := tailgateIn(t, repo, nil, args...)
			if o.code != 0 && o.code != 1 {
				t.Fatalf("exit %d, want a verdict (0 or 1):\n%s", o.code, o)
			}
			in := readReport(t, rep)
			failed := failedWork(in.Head) + failedWork(in.Base)
			t.Logf("%s: verdict %s, %d units, %d failed iterations or requests", c.name, in.Verdict.Outcome, len(in.Head), failed)
			if failed != 0 {
				t.Errorf("%d iterations or requests failed, want none:\n%s", failed, o)
			}
			if c.command != "check" && len(in.Base) == 0 {
				t.Errorf("the A/B report has no base runs")
			}
			if c.design != "" && !strings.Contains(strings.Join(in.Notes, "\n"), c.design) {
				t.Errorf("the report's notes do not say %q:\n%s", c.design, strings.Join(in.Notes, "\n"))
			}
		})
	}
}

// failedWork counts the failed iterations and requests of runs.
func failedWork(runs []result.Run) int64 {
	var n int64
	for _, r := range runs {
		n += r.Requests.Failed
		if c := r.Iterations.Counted; c&result.CountSucceeded != 0 && c&result.CountCompleted != 0 {
			n += r.Iterations.Completed - r.Iterations.Succeeded
		}
	}
	return n
}

func readReport(t *testing.T, path string) report.Input {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no report: %v", err)
	}
	defer f.Close()
	in, err := report.ReadJSON(f)
	if err != nil {
		t.Fatalf("the report does not read back: %v", err)
	}
	return in
}

// articlesRepo is a git repository whose main holds the benchmark cfg and
// its feed of users, with a second commit (the head) on top.
func articlesRepo(t *testing.T, cfg string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) { t.Helper(); gitIn(t, dir, args...) }
	var users strings.Builder
	users.WriteString("user\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&users, "user-%d\n", i)
	}
	git("init", "-q", "-b", "main")
	mustWrite(t, filepath.Join(dir, "tailgate.yml"), cfg)
	mustWrite(t, filepath.Join(dir, "users.csv"), users.String())
	mustWrite(t, filepath.Join(dir, ".gitignore"), "out/\n")
	mustWrite(t, filepath.Join(dir, "version"), "1\n")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	mustWrite(t, filepath.Join(dir, "version"), "2\n")
	git("commit", "-q", "-am", "head")
	return dir
}

// sidecar starts a process beside the service (a part of the request
// path both sides measure, as one database server would be).
func sidecar(t *testing.T) map[string]string {
	pid := startArticles(t, "")
	return map[string]string{"@SIDECAR@": pid}
}

// fixedPort is a free port both sides are started on, one at a time.
func fixedPort(t *testing.T) map[string]string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	return map[string]string{"@PORT@": port}
}

// pidFileTargets starts a base and a head service elsewhere (not by
// tailgate), each naming its pid in a file.
func pidFileTargets(t *testing.T) map[string]string {
	m := map[string]string{}
	for _, side := range []string{"BASE", "HEAD"} {
		addr := "127.0.0.1:" + fixedPort(t)["@PORT@"]
		m["@"+side+"PID@"] = startArticles(t, addr)
		m["@"+side+"ADDR@"] = addr
	}
	return m
}

// startArticles starts the articles service on addr (a free one when
// empty) until the test ends and returns its pid file once it is written.
func startArticles(t *testing.T, addr string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "svc.pid")
	cmd := exec.Command(exe, articlesServiceCommand, "--addr", addr, "--pid-file", pidFile)
	if addr == "" {
		cmd.Args[3] = "127.0.0.1:0"
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(pidFile); err == nil {
			return pidFile
		}
	}
	t.Fatal("the service wrote no pid file")
	return ""
}
