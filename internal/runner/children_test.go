package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/target/targettest"
)

// The test binary also runs as the supervisor (supervisorArg) and as a
// real service process (serveEnv: /reset, /count, /items, /health on the
// address it names, each request logged on stdout).
const (
	supervisorArg = "tailgate-runner-test-supervise"
	serveEnv      = "TAILGATE_RUNNER_TEST_SERVE"
	pidFileEnv    = "TAILGATE_RUNNER_TEST_PIDFILE"
	// itemsSQLEnv, when set, is SQL that GET /items runs with psql (on
	// the database of the PG* environment) before it answers.
	itemsSQLEnv = "TAILGATE_RUNNER_TEST_ITEMS_SQL"
	// warmingEnv, when set, is a half-life: GET /items starts at 41 times
	// its work at the first request, and the extra work halves every
	// half-life, as a runtime that compiles its hot paths as it runs gets
	// faster (steeply at first, so a test's slices differ by far more than
	// the noise of a loaded machine: at 11 times, a run beside every
	// package's tests saw the fourth slice 8 % below the third, the fixed
	// cost of a request grown with the load, and stopped a slice early).
	warmingEnv = "TAILGATE_RUNNER_TEST_WARMING"
	// spellEnv, when set, is a moment D: GET /items does 5 times its work
	// from D to 1.5·D after the first request and its usual work else, as a
	// service that does not warm up is slowed a while by a busy neighbour.
	spellEnv = "TAILGATE_RUNNER_TEST_SPELL"
)

func serveService(addr string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /reset", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"count":3}`)) })
	slow, _ := time.ParseDuration(os.Getenv(warmingEnv))
	spell, _ := time.ParseDuration(os.Getenv(spellEnv))
	var first sync.Once
	var warmAt atomic.Int64
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, _ *http.Request) {
		// some work, so that a window of requests takes measurable CPU
		work := 200_000
		first.Do(func() { warmAt.Store(time.Now().UnixNano()) })
		since := time.Since(time.Unix(0, warmAt.Load()))
		if slow > 0 {
			work += int(8_000_000 * math.Exp2(-float64(since)/float64(slow)))
		}
		if spell > 0 && since >= spell && since < spell*3/2 {
			work *= 5
		}
		x := 0
		for i := 0; i < work; i++ {
			x += i % 7
		}
		if sql := os.Getenv(itemsSQLEnv); sql != "" { // a service on a database (postgres_test.go)
			if out, err := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql).CombinedOutput(); err != nil {
				http.Error(w, fmt.Sprintf("%v: %s", err, out), http.StatusInternalServerError)
				return
			}
		}
		fmt.Fprintf(w, `{"ok":true,"x":%d}`, x)
	})
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	logged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("served", r.Method, r.URL.Path)
		mux.ServeHTTP(w, r)
	})
	if f := os.Getenv(pidFileEnv); f != "" {
		os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	// SIGUSR1 closes the listener for half a second and opens it again, as
	// a service does that restarts its listener when its data is replaced.
	relisten := make(chan os.Signal, 1)
	signal.Notify(relisten, syscall.SIGUSR1)
	for {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		srv := &http.Server{Handler: logged}
		served := make(chan struct{})
		go func() { srv.Serve(ln); close(served) }()
		fmt.Println("service listening on", addr)
		fmt.Println("service pid", os.Getpid())
		select {
		case <-ctx.Done():
			srv.Close()
			return 0
		case <-relisten:
			srv.Close()
			<-served
			time.Sleep(500 * time.Millisecond)
		}
	}
}

func testExe(t *testing.T) string { return targettest.Executable(t) }

// serviceTarget is a target that tailgate starts: a shell that writes its
// environment to envFile and execs the service.
func serviceTarget(t *testing.T, envFile string) config.Target {
	addr := targettest.FreeAddr(t)
	return config.Target{
		URL: "http://" + addr,
		Start: &config.Start{
			Command: config.Command{Shell: `env > "` + envFile + `"; exec "$SERVICE"`},
			Env:     map[string]string{"SERVICE": testExe(t), serveEnv: addr},
		},
		Ready: &config.Ready{Path: "/health", Timeout: config.Duration(20 * time.Second)},
	}
}

// actionsEnv is what a GitHub Actions step holds, credentials included.
var actionsEnv = []string{
	"GITHUB_TOKEN=ghs_1", "INPUT_GITHUB_TOKEN=ghs_2", "ACTIONS_RUNTIME_TOKEN=t3",
	"ACTIONS_ID_TOKEN_REQUEST_URL=https://id.example/", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=t4",
	"ACTIONS_CACHE_URL=https://cache.example/", "ACTIONS_RUNTIME_URL=https://rt.example/",
	"ACTIONS_RESULTS_URL=https://results.example/", "GH_TOKEN=t5",
	"GH_ENTERPRISE_TOKEN=passed-on", "GITHUB_SHA=abc123",
}

func readEnv(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

// TestABChildrenGetNoCredentials runs an A/B benchmark whose two targets
// are started by tailgate, whose dataset reset is a command and whose load
// is a tool (engine: command), all under an Actions environment: none of
// them sees a credential, each sees the one pass_env names, the reset
// and the tool are told the target's URL and side, and the target its side.
func TestABChildrenGetNoCredentials(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, head := serviceTarget(t, dir+"/target-base.env"), serviceTarget(t, dir+"/target-head.env")
	cfg := benchConfig(base.URL, 1)
	cfg.PassEnv = []string{"GH_ENTERPRISE_TOKEN"}
	cfg.Dataset.Reset = &config.Action{Command: &config.Command{Shell: `env > "` + dir + `/reset-$TAILGATE_SIDE.env"`}}
	cfg.Scenarios = nil
	cfg.Load = config.Load{
		Engine: config.EngineCommand, Runs: 1, Output: filepath.Join(dir, "out", "summary.json"), Format: "k6-summary-export",
		Command:        &config.Command{Shell: `env > "` + dir + `/tool-$TAILGATE_SIDE.env"; TAILGATE_TEST_TOOL=1 exec "` + testExe(t) + `"`},
		CommandTimeout: config.Duration(30 * time.Second),
	}
	r := &Benchmark{Config: cfg, Environ: append(os.Environ(), actionsEnv...), Supervisor: []string{testExe(t), supervisorArg}, TargetLogDir: dir}
	res, err := r.RunAB(context.Background(), ABPlan{Base: base, Head: head, Order: config.OrderABBA, MaxBlocks: 1, Restart: true, Shape: Shape{WholeRuns: wholeIf("pairs under test")}})
	if err != nil {
		t.Fatal(err)
	}
	urls := map[string]string{"base": base.URL, "head": head.URL}
	for _, side := range []string{"base", "head"} {
		for _, child := range []string{"target", "reset", "tool"} {
			env := readEnv(t, filepath.Join(dir, child+"-"+side+".env"))
			for _, kv := range actionsEnv {
				k, v, _ := strings.Cut(kv, "=")
				switch got, seen := env[k]; {
				case k == "GH_ENTERPRISE_TOKEN" || k == "GITHUB_SHA":
					if got != v {
						t.Errorf("%s of %s: %s = %q, want %q passed on", child, side, k, got, v)
					}
				case seen:
					t.Errorf("%s of %s saw the credential %s", child, side, k)
				}
			}
			if child == "target" { // it knows its side (its database is the side's), not a URL it serves
				if env["TAILGATE_SIDE"] != side {
					t.Errorf("target of %s: TAILGATE_SIDE=%q", side, env["TAILGATE_SIDE"])
				}
				continue
			}
			if env["TAILGATE_TARGET_URL"] != urls[side] || env["TAILGATE_SIDE"] != side {
				t.Errorf("%s of %s: TAILGATE_TARGET_URL=%q TAILGATE_SIDE=%q, want %s and %s", child, side, env["TAILGATE_TARGET_URL"], env["TAILGATE_SIDE"], urls[side], side)
			}
		}
	}
	// each side's output is in its own log, named in its result file
	for side, f := range map[string]*result.File{"base": res.Base, "head": res.Head} {
		if !strings.HasPrefix(f.TargetLog, dir+"/tailgate-items-target-"+side+"-") {
			t.Fatalf("%s TargetLog = %q, want a file in %s for that side", side, f.TargetLog, dir)
		}
		b, _ := os.ReadFile(f.TargetLog)
		if !strings.Contains(string(b), "service listening on "+strings.TrimPrefix(urls[side], "http://")) || !strings.Contains(string(b), "served GET /items") {
			t.Errorf("%s log %s = %q, want that side's service output", side, f.TargetLog, b)
		}
	}
}

// A target tailgate started is measured: CPU per iteration and peak RSS
// are present. One whose port another process holds is not: both are
// absent, and the run says why.
func TestResourcesOnlyOfTheProcessThatAnswers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tgt := serviceTarget(t, dir+"/target.env")
	cfg := benchConfig(tgt.URL, 1)
	cfg.Target = tgt
	cfg.Dataset = config.Dataset{}
	cfg.Load.Duration = config.Duration(time.Second)
	r := &Benchmark{Config: cfg, Environ: os.Environ(), Supervisor: []string{testExe(t), supervisorArg}}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	if run.Metrics[result.CPUPerIteration] <= 0 || run.Metrics[result.PeakRSS] <= 0 || slices.ContainsFunc(run.Notes, notMeasuredNote) {
		t.Errorf("started target: metrics %v, notes %q; want CPU and RSS measured", run.Metrics, run.Notes)
	}
	if res.TargetLog != "" {
		t.Errorf("TargetLog = %q without a TargetLogDir", res.TargetLog)
	}

	// a target whose server leaves its process group and tree (a daemon):
	// it answers, but the tree tailgate samples is not it
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("needs setsid(1)")
	}
	daemon := serviceTarget(t, dir+"/daemon.env")
	daemon.Start.Command.Shell = `( setsid "$SERVICE" & echo $! > "` + dir + `/daemon.pid" ); exec sleep 60`
	cfg = benchConfig(daemon.URL, 2)
	cfg.Target = daemon
	cfg.Dataset = config.Dataset{}
	res, err = (&Benchmark{Config: cfg, Environ: os.Environ(), Supervisor: []string{testExe(t), supervisorArg}}).Run(context.Background())
	if b, rerr := os.ReadFile(dir + "/daemon.pid"); rerr == nil {
		var pid int
		fmt.Sscan(string(b), &pid)
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range res.Runs {
		_, cpu := run.Metrics[result.CPUPerIteration]
		_, rss := run.Metrics[result.PeakRSS]
		if cpu || rss || run.Resources != nil {
			t.Errorf("resources of a tree that does not answer: metrics %v, resources %+v", run.Metrics, run.Resources)
		}
		why := slices.IndexFunc(run.Notes, notMeasuredNote)
		if why < 0 || !strings.HasPrefix(run.Notes[why], "CPU and memory not measured: port ") || !strings.Contains(run.Notes[why], "outside the process tree tailgate measures") {
			t.Errorf("notes %q, want why CPU and memory are absent", run.Notes)
		}
	}
}

// A target that dies between runs fails the benchmark with its exit
// status and last output; no result is written.
func TestATargetThatDiesFailsTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tgt := serviceTarget(t, dir+"/target.env")
	// the service is killed by the reset command of the second run; its
	// shell then ends with status 7
	cfg := benchConfig(tgt.URL, 3)
	cfg.Target = tgt
	cfg.Target.Start.Command.Shell = `"$SERVICE" & echo $! > "` + dir + `/service.pid"; wait; echo service ended >&2; exit 7`
	cfg.Dataset = config.Dataset{Reset: &config.Action{Command: &config.Command{
		Shell: `if [ -e "` + dir + `/once" ]; then kill -KILL $(cat "` + dir + `/service.pid"); sleep 2; fi; touch "` + dir + `/once"`}}}
	r := &Benchmark{Config: cfg, Environ: os.Environ(), Supervisor: []string{testExe(t), supervisorArg}, TargetLogDir: dir}
	res, err := r.Run(context.Background())
	if res != nil || err == nil {
		t.Fatalf("Run = %v, %v; want no result and an error", res, err)
	}
	for _, want := range []string{"run 2 of 3", "target exited: exit status 7", "service ended", "(all of it in " + dir + "/tailgate-items-target-"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if errors.Is(err, context.Canceled) {
		t.Errorf("error %v is a cancellation", err)
	}
}

// notMeasuredNote is the run note of a resource that was not measured (a
// busy machine may add others, such as a late schedule).
func notMeasuredNote(n string) bool { return strings.Contains(n, "not measured") }

// A reset command that makes the service close its listener for a while
// (a restart when its data is replaced) is followed by the readiness
// probe: verify and the load find it answering again, in every run.
func TestReadyAgainAfterAResetCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "service.pid")
	tgt := serviceTarget(t, dir+"/target.env")
	tgt.Start.Env[pidFileEnv] = pidFile
	cfg := benchConfig(tgt.URL, 2)
	cfg.Target = tgt
	cfg.Dataset.Reset = &config.Action{Command: &config.Command{Shell: `kill -USR1 "$(cat '` + pidFile + `')" && sleep 0.1`}}
	cfg.Load.Duration = config.Duration(300 * time.Millisecond)
	r := &Benchmark{Config: cfg, Environ: os.Environ(), Supervisor: []string{testExe(t), supervisorArg}, TargetLogDir: dir}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatalf("a reset command that restarts the listener: %v", err)
	}
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(res.Runs))
	}
	b, _ := os.ReadFile(res.TargetLog)
	if n := strings.Count(string(b), "service listening on"); n != 3 {
		t.Errorf("the service listened %d times, want 3 (the start and after each of 2 resets):\n%s", n, b)
	}
}
