package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
)

// serviceSource is a tiny Go service: /item costs rounds of SHA-256.
const serviceSource = `package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
)

const rounds = ROUNDS

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /item", func(w http.ResponseWriter, r *http.Request) {
		s := sha256.Sum256([]byte(r.URL.Path))
		for i := 0; i < rounds; i++ {
			s = sha256.Sum256(s[:])
		}
		fmt.Fprintf(w, "{\"ok\": true, \"x\": %d}", s[0])
	})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv := &http.Server{Addr: *addr, Handler: mux}
	go func() { <-ctx.Done(); srv.Close() }()
	fmt.Println("listening on", *addr)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`

// abRepoConfig builds the service in each tree and starts it on a free
// port; the base is the commit before the working tree's.
const abRepoConfig = `name: svc
target:
  url: "http://127.0.0.1:{{port}}"
  start: {command: [./bin/svc, -addr, "127.0.0.1:{{port}}"]}
  ready: {path: /health, timeout: 20s, interval: 20ms}
build: {command: [go, build, -o, bin/svc, .], timeout: 2m}
ab: {base: {ref: HEAD~1}, min_blocks: 4, max_blocks: 6}
load: {model: closed, vus: 1, warmup: 100ms, duration: 300ms}
scenarios:
  - steps:
      - {name: item, path: /item, expect: {ok: true}}
gate:
  metrics: [cpu_ms_per_iteration]
`

// serviceRepo is a git repository in a temp dir with two commits of the
// service: the base (baseSrc) and the working tree's (headSrc).
func serviceRepo(t *testing.T, baseSrc, headSrc string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the test builds a service")
	}
	return commitsRepo(t, map[string]string{"go.mod": "module svc\n\ngo 1.22\n", ".gitignore": "bin/\n", "main.go": baseSrc}, map[string]string{"main.go": headSrc})
}

// commitsRepo is a git repository whose commit HEAD~1 holds the files
// base, and HEAD those of head written over them.
func commitsRepo(t *testing.T, base, head map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for i, files := range []map[string]string{base, head} {
		for name, text := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", ".")
		git("commit", "-q", "-m", []string{"base", "head"}[i])
	}
	return dir
}

func withRounds(n int) string { return strings.Replace(serviceSource, "ROUNDS", fmt.Sprint(n), 1) }

// buildEnv is an Env whose children can build Go (a cache, a PATH) without
// the network.
func buildEnv(t *testing.T, te *testEnv) Env {
	env := te.env()
	env.Processes.Environ = append(os.Environ(), "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod")
	env.TempDir = t.TempDir()
	return supervised(t, env)
}

// worktrees lists the repository's worktrees.
func worktrees(t *testing.T, repo string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", repo, "worktree", "list", "--porcelain").Output()
	if err != nil {
		t.Fatal(err)
	}
	var trees []string
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			trees = append(trees, p)
		}
	}
	return trees
}

func wantCleanedUp(t *testing.T, repo, tempDir string) {
	t.Helper()
	if trees := worktrees(t, repo); len(trees) != 1 {
		t.Errorf("worktrees left: %v", trees)
	}
	if left, _ := os.ReadDir(tempDir); len(left) != 0 {
		t.Errorf("temporary directory not emptied: %v", left)
	}
}

// TestABBuildsTheBaseFromAGitRef is the whole flow of A/B from a ref: a
// worktree of the base commit, the build command in both trees, both
// builds started on free ports, pairs until the verdict, the worktree
// removed.
func TestABBuildsTheBaseFromAGitRef(t *testing.T) {
	repo := serviceRepo(t, withRounds(3000), withRounds(9000)) // the head does 3× the work
	cfg, err := config.Parse(filepath.Join(repo, "tailgate.yml"), []byte(abRepoConfig))
	if err != nil {
		t.Fatal(err)
	}
	var te testEnv
	env := buildEnv(t, &te)
	j, err := AB(t.Context(), env, ABOptions{Config: cfg, Git: baseline.ExecGit{}, Dir: repo})
	if err != nil {
		t.Fatalf("AB: %v\n%s", err, te.log.String())
	}
	wantCleanedUp(t, repo, env.TempDir)
	if _, err := os.Stat(filepath.Join(repo, "bin", "svc")); err != nil {
		t.Errorf("the head was not built in the working tree: %v", err)
	}
	base, head := result.Values(j.Base.Runs, result.CPUPerIteration), result.Values(j.Head.Runs, result.CPUPerIteration)
	if len(base) < 4 || len(head) != len(base) {
		t.Fatalf("CPU per iteration measured in %d base and %d head runs", len(base), len(head))
	}
	if ratio := median(head) / median(base); ratio < 1.8 {
		t.Errorf("head/base CPU per iteration %.2f: the head build (3× the work) is not the one measured as head", ratio)
	}
	if j.Verdict.Outcome != gate.Regression {
		t.Errorf("verdict %s, want a regression; log:\n%s", j.Verdict.Outcome, te.log.String())
	}
	wantIn(t, te.log.String(), "base: HEAD~1 at ", "after block 4 of at most 6", "A/B stopped after")
	var text strings.Builder
	if err := report.WriteText(&text, j.Input); err != nil {
		t.Fatal(err)
	}
	wantIn(t, text.String(), "base: built from HEAD~1 at", "each side was started afresh", "blocks of at most")
	if !strings.Contains(j.BaselineSource, "(HEAD~1 at ") {
		t.Errorf("source %q does not name the base commit", j.BaselineSource)
	}
}

// Issue 45: a config that names ab.base.ref and a job given another base
// (tailgate ab --base-ref, the Action's parent) build the given one, and
// the history link names the commit built as its parent.
func TestABGivenBaseIsBuiltAndIsTheLinksParent(t *testing.T) {
	repo := serviceRepo(t, withRounds(10), withRounds(11))
	cfg, err := config.Parse(filepath.Join(repo, "tailgate.yml"), []byte(strings.Replace(abRepoConfig,
		"ab: {base: {ref: HEAD~1}, min_blocks: 4, max_blocks: 6}", "ab: {base: {ref: HEAD}, min_blocks: 3, max_blocks: 3}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	rev := func(ref string) string {
		out, err := exec.Command("git", "-C", repo, "rev-parse", ref).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	parent, head := rev("HEAD~1"), rev("HEAD")
	var te testEnv
	env := buildEnv(t, &te)
	j, err := AB(t.Context(), env, ABOptions{Config: cfg, BaseRef: parent, BaseFrom: "--base-ref HEAD~1", Git: baseline.ExecGit{}, Dir: repo})
	if err != nil {
		t.Fatalf("AB: %v\n%s", err, te.log.String())
	}
	if j.BaseCommit != parent {
		t.Errorf("the base built %q, want the given %s", j.BaseCommit, parent)
	}
	wantIn(t, strings.Join(j.Notes, "\n"), `ab.base.ref "HEAD" of the benchmark file is not used: the base is --base-ref HEAD~1 (`+parent[:12]+")")
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if _, err := RecordLink(LinkOptions{Config: cfg, Judged: j, Path: path, Provenance: baseline.Provenance{Commit: head, Job: "t"}}); err != nil {
		t.Fatal(err)
	}
	h, err := readHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(h.Jobs); n != 1 || h.Jobs[0].AB == nil || h.Jobs[0].AB.Parent != parent {
		t.Errorf("history %+v, want one link whose parent is %s", h.Jobs, parent)
	}
	j.BaseCommit = "" // a base that was not a build of a commit
	if _, err := RecordLink(LinkOptions{Config: cfg, Judged: j, Path: path, Provenance: baseline.Provenance{Commit: head, Job: "t"}}); KindOf(err) != Usage {
		t.Errorf("a link without a base commit: %v, want a usage error", err)
	}
}

// The tests of the worktree's removal, the noise file and the seal measure
// nothing that other tests running beside them could move: they are
// parallel. TestABBuildsTheBaseFromAGitRef compares CPU per iteration: not.
func TestABRemovesTheWorktreeWhenTheBuildFails(t *testing.T) {
	t.Parallel()
	repo := serviceRepo(t, "package main\n\nfunc main() { undefined() }\n", withRounds(10))
	cfg, err := config.Parse("tailgate.yml", []byte(abRepoConfig))
	if err != nil {
		t.Fatal(err)
	}
	var te testEnv
	env := buildEnv(t, &te)
	_, err = AB(t.Context(), env, ABOptions{Config: cfg, Git: baseline.ExecGit{}, Dir: repo})
	if KindOf(err) != Runtime || !strings.Contains(err.Error(), "base") || !strings.Contains(err.Error(), "undefined") {
		t.Fatalf("AB = %v; want a runtime failure of the base build quoting its output", err)
	}
	wantCleanedUp(t, repo, env.TempDir)
}

func TestABRemovesTheWorktreeWhenInterrupted(t *testing.T) {
	t.Parallel()
	repo := serviceRepo(t, withRounds(10), withRounds(11))
	cfg, err := config.Parse("tailgate.yml", []byte(abRepoConfig))
	if err != nil {
		t.Fatal(err)
	}
	var te testEnv
	env := buildEnv(t, &te)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	env.Progress = cancelOnStart{cancel}
	_, err = AB(ctx, env, ABOptions{Config: cfg, Git: baseline.ExecGit{}, Dir: repo})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("AB = %v; want interrupted", err)
	}
	wantCleanedUp(t, repo, env.TempDir)
}

// cancelOnStart cancels the job when its first run starts.
type cancelOnStart struct{ cancel context.CancelFunc }

func (c cancelOnStart) RunStarted(int, int, string)   { c.cancel() }
func (cancelOnStart) Step(int, string)                {}
func (cancelOnStart) Progress(int, load.Progress)     {}
func (cancelOnStart) RunDone(int, *result.Run, error) {}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func wantIn(t *testing.T, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%q not in:\n%s", p, text)
		}
	}
}

// sleeper is a service whose cost is its sleep per request: a closed
// phase's throughput follows it closely, whatever else the machine does.
func sleeper(t *testing.T, d time.Duration) string {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("POST /reset", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /item", func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(d)
		fmt.Fprint(w, `{"ok": true}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

var _ runner.Observer = cancelOnStart{}

// failing is a service that fails a share of its requests, exactly: at
// the k-th dataset reset the next share is pcts[k % len(pcts)] percent,
// every request of a run counted. A run's error rate is what the test
// says, however busy the machine. Each answer takes a millisecond: still
// hundreds of requests a window, without the closed loop spinning both
// cores for a whole job (12 blocks of the unclear case).
func failing(t *testing.T, pcts ...int) string {
	var mu sync.Mutex
	resets, pct, n := 0, 0, 0
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("POST /reset", func(http.ResponseWriter, *http.Request) {
		mu.Lock()
		pct, n = pcts[resets%len(pcts)], 0
		resets++
		mu.Unlock()
	})
	mux.HandleFunc("GET /item", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		n++
		fail := pct > 0 && n%(100/pct) == 0
		mu.Unlock()
		time.Sleep(time.Millisecond)
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
		}
		fmt.Fprint(w, `{"ok": true}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// sequentialConfig judges two services started elsewhere block after
// block, between 4 and 12 blocks, on one metric.
func sequentialConfig(t *testing.T, base, head, metric string, minEffect float64) *config.Config {
	t.Helper()
	return designConfig(t, sequentialYAML(base, head, metric, minEffect))
}

// designConfig is a sequential config with two 300 ms windows a side in a
// block.
func designConfig(t *testing.T, yaml string) *config.Config {
	t.Helper()
	extra := "  windows: 2\n  window: 300ms\n  window_warmup: 50ms\n"
	cfg, err := config.Parse("seq.yml", []byte(strings.Replace(yaml, "  max_blocks: 12\n", "  max_blocks: 12\n"+extra, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// abModes are the ways one A/B rule measures a closed phase: blocks
// alternating between the sides, and pairs of whole runs (where blocks
// cannot run).
var abModes = []string{"alternating", "whole runs"}

// modeEnv is te's environment for mode, and the options' WholeRuns.
func modeEnv(te *testEnv, mode string) (Env, result.Apart) {
	env := te.env()
	if mode == "whole runs" {
		return env, result.Apart{Why: result.RecordBase}
	}
	return env, result.Apart{}
}

// sequentialYAML is sequentialConfig's file.
func sequentialYAML(base, head, metric string, minEffect float64) string {
	return fmt.Sprintf(`name: seq
ab:
  base: {url: "%s"}
  head: {url: "%s"}
  min_blocks: 4
  max_blocks: 12
dataset:
  reset: {request: {method: POST, path: /reset}}
load: {model: closed, vus: 2, warmup: 50ms, duration: 400ms}
scenarios:
  - steps:
      - {name: read, path: /item}
gate:
  metrics: [%s]
  min_effect: {%s: %g}
`, base, head, metric, metric, minEffect)
}

// The sequential job stops as soon as the verdict is clear, and only then:
// a service eight times as slow is a regression, one whose error rate is
// the base's a pass, both well before the budget; pairs whose error rates
// differ by 25 points once in six (mean 4.2, beyond half of 8 but never
// surely above 0) can neither confirm a change nor rule out one of 8
// points: the job runs to the budget, inconclusive.
//
// Every way of measuring: in blocks the units are blocks of two window
// pairs each, each side's block one run; in whole runs, pairs of runs.
func TestABAddsPairsUntilTheVerdictIsClear(t *testing.T) {
	for _, mode := range abModes {
		t.Run(mode, func(t *testing.T) { t.Parallel(); testABAddsUnits(t, mode) })
	}
}

func testABAddsUnits(t *testing.T, mode string) {
	unit, perUnit := "block", 2 // one unit, the block, of two window pairs
	if mode == "whole runs" {
		perUnit = 1 // or of one pair of whole runs
	}
	for _, c := range []struct {
		name       string
		base, head string
		metric     string
		minEffect  float64
		want       gate.Outcome
		early      bool
	}{
		{"regression", sleeper(t, 2*time.Millisecond), sleeper(t, 16*time.Millisecond), result.IterationsPerSec, 20, gate.Regression, true},
		{"pass", failing(t, 0), failing(t, 0), result.RequestErrorPct, 1, gate.Pass, true},
		{"unclear", failing(t, 0), failing(t, 25, 0, 0, 0, 0, 0), result.RequestErrorPct, 8, gate.Inconclusive, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Each case its own services, and what it judges (8× the
			// latency, exact error counts) holds with the others running.
			t.Parallel()
			var te testEnv
			env, whole := modeEnv(&te, mode)
			j, err := AB(t.Context(), env, ABOptions{Config: designConfig(t, sequentialYAML(c.base, c.head, c.metric, c.minEffect)), WholeRuns: whole})
			if err != nil {
				t.Fatal(err)
			}
			for i := range j.Head.Runs {
				t.Logf("pair %d: base %v head %v", i, j.Base.Runs[i].Metrics[c.metric], j.Head.Runs[i].Metrics[c.metric])
			}
			seq := j.Verdict.Sequential
			if j.Verdict.Outcome != c.want || seq == nil || !seq.Done {
				t.Fatalf("verdict %s, sequential %+v; want %s, done\n%s", j.Verdict.Outcome, seq, c.want, te.log.String())
			}
			units := len(j.Head.Runs) // a run per pair, or per block
			if seq.Blocks != units || len(j.Base.Runs) != units || seq.RunPairs != units*perUnit || seq.UnitWord(2) != unit+"s" {
				t.Errorf("the verdict judged %d %ss (%d window pairs), the job made %d base and %d head runs", seq.Blocks, seq.Unit, seq.RunPairs, len(j.Base.Runs), units)
			}
			switch {
			case c.early && (units < 4 || units >= 12):
				t.Errorf("%d %ss: want a stop between the first look (4) and the budget (12)", units, unit)
			case !c.early && units != 12:
				t.Errorf("%d %ss: want the whole budget of 12", units, unit)
			}
			log := te.log.String()
			if n := strings.Count(log, "after "+unit+" "); n != units {
				t.Errorf("%d progress lines for %d %ss:\n%s", n, units, unit, log)
			}
			wantIn(t, log, fmt.Sprintf("A/B stopped after %d %ss", units, unit))
			if !c.early {
				wantIn(t, log, "the budget of 12 "+unit+"s is spent")
			}
		})
	}
}

// One rule for the base, whoever gives it (--base-ref, the Action's PR
// base commit or pushed commit's parent): a given ref replaces
// ab.base.ref, and the report says so; it fills a base the config leaves
// out; a base that is a target of its own without ref is no commit, and
// the report says the given ref is not used.
func TestABBaseRef(t *testing.T) {
	t.Parallel()
	parse := func(ab string) *config.Config {
		cfg, err := config.Parse("t.yml", []byte(strings.Replace(abRepoConfig, "ab: {base: {ref: HEAD~1}, ", ab, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	withRef, without, own := parse("ab: {base: {ref: HEAD}, "), parse("ab: {"), parse(`ab: {base: {url: "http://127.0.0.1:9"}, `)
	const sha = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name string
		o    ABOptions
		want string
		note string
	}{
		{"replaced", ABOptions{Config: withRef, BaseRef: sha, BaseFrom: "--base-ref X", Git: baseline.ExecGit{}}, sha, `ab.base.ref "HEAD" of the benchmark file is not used: the base is --base-ref X (0123456789ab)`},
		{"the config's", ABOptions{Config: withRef, Git: baseline.ExecGit{}}, "HEAD", ""},
		// --benchmark-from base without --base-ref: the file's own ref,
		// pinned to the commit it named, which nothing replaced.
		{"the config's, pinned", ABOptions{Config: withRef, BaseRef: sha, Policy: &Policy{Commit: sha}, Git: baseline.ExecGit{}}, sha, ""},
		{"filled", ABOptions{Config: without, BaseRef: sha, Git: baseline.ExecGit{}}, sha, ""},
		{"own target", ABOptions{Config: own, BaseRef: sha, BaseFrom: "the pull request's base commit", Git: baseline.ExecGit{}}, "",
			"the pull request's base commit (0123456789ab) is not used: ab.base is a target of its own (http://127.0.0.1:9)"},
	} {
		ab, err := c.o.ab()
		if err != nil || ab.Base.Ref != c.want {
			t.Errorf("%s: base ref %q (%v), want %q", c.name, ab.Base.Ref, err, c.want)
		}
		if note := strings.Join(c.o.baseNote(), "; "); (note == "") != (c.note == "") || !strings.Contains(note, c.note) {
			t.Errorf("%s: note %q, want %q", c.name, note, c.note)
		}
	}
}

// A pull request that shrinks its own A/B budget (ab.max_time: 1ms ends
// the job after one pair, inconclusive, which passes) is judged by the
// base commit's budget: the head eight times as slow is a regression
// after at least the base's first look, and the report names the key.
func TestABBudgetComesFromTheTrustedGate(t *testing.T) {
	base, head := sleeper(t, 2*time.Millisecond), sleeper(t, 16*time.Millisecond)
	trusted := sequentialYAML(base, head, result.IterationsPerSec, 20)
	pr := sequentialConfig(t, base, head, result.IterationsPerSec, 20)
	pr.AB.MaxTime = config.Duration(time.Millisecond)
	pol := trustedGate(pr, []byte(trusted), true, where)
	var te testEnv
	j, err := AB(t.Context(), te.env(), ABOptions{Config: pr, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	seq := j.Verdict.Sequential
	if j.Verdict.Outcome != gate.Regression || seq == nil || seq.Blocks < 4 || seq.MinBlocks != 4 || seq.MaxBlocks != 12 {
		t.Fatalf("verdict %s after %d pairs (%+v); want a regression judged by the base commit's budget of 4–12 pairs\n%s",
			j.Verdict.Outcome, len(j.Head.Runs), seq, te.log.String())
	}
	wantIn(t, strings.Join(j.Notes, "\n"), "This PR changes the gate's policy; it applies after merge (changed: ab.max_time)")
}

// A phase may be left out of later blocks only once a look has decided
// every gated metric taken from it: not before the first look, not while
// a metric of it or one taken from every phase (the error rate) is
// undecided; reported-only metrics do not keep it.
func TestPhaseDecided(t *testing.T) {
	t.Parallel()
	phases := []config.PhaseLoad{
		{Name: "capacity", Load: config.Load{Model: config.ModelClosed}},
		{Name: "latency", Load: config.Load{Model: config.ModelOpen}},
	}
	verdict := func(pairs int, outcomes map[string]gate.MetricOutcome) gate.Verdict {
		v := gate.Verdict{Sequential: &gate.Sequential{Blocks: pairs, MinBlocks: 3}}
		for key, o := range outcomes {
			v.Findings = append(v.Findings, gate.Finding{Key: key, Gated: true, Outcome: o})
		}
		v.Findings = append(v.Findings, gate.Finding{Key: result.LatencyP50, Outcome: gate.Undecided}) // reported only
		return v
	}
	p95Decided := map[string]gate.MetricOutcome{result.IterationsPerSec: gate.Undecided, result.LatencyP95: gate.MetricPass,
		result.RequestErrorPct: gate.MetricPass, result.CPUPerIteration: gate.Undecided}
	for _, c := range []struct {
		name     string
		v        gate.Verdict
		capacity bool
		latency  bool
	}{
		{"no look yet", gate.Verdict{}, false, false},
		{"before the first look", verdict(2, p95Decided), false, false},
		{"latency's metrics decided", verdict(3, p95Decided), false, true},
		{"error rate undecided", verdict(4, map[string]gate.MetricOutcome{result.LatencyP95: gate.MetricPass,
			result.RequestErrorPct: gate.Undecided, result.IterationsPerSec: gate.Undecided}), false, false},
		{"p95 undecided", verdict(4, map[string]gate.MetricOutcome{result.LatencyP95: gate.Undecided,
			result.IterationsPerSec: gate.MetricPass, result.CPUPerIteration: gate.MetricPass}), true, false},
	} {
		if got := phaseDecided(c.v, phases, "capacity"); got != c.capacity {
			t.Errorf("%s: capacity decided %v, want %v", c.name, got, c.capacity)
		}
		if got := phaseDecided(c.v, phases, "latency"); got != c.latency {
			t.Errorf("%s: latency decided %v, want %v", c.name, got, c.latency)
		}
	}
}

// Issue 45 end to end: both sides targets of their own, the counters
// written once at the top level: every block of both sides reads them
// (each side its own, by TAILGATE_SIDE), and the counter is judged.
func TestABPerSideTargetsReadTopLevelCounters(t *testing.T) {
	dir := t.TempDir()
	count := `n=$(cat "` + dir + `/$TAILGATE_SIDE" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "` + dir + `/$TAILGATE_SIDE"; echo "{\"calls\": $n}"`
	base, head := sleeper(t, time.Millisecond), sleeper(t, time.Millisecond)
	src := strings.Replace(sequentialYAML(base, head, "counter.n.calls", 50), "ab:\n",
		"target:\n  url: \""+base+"\"\n  counters: [{name: n, command: [sh, -c, '"+count+"'], gate: [calls]}]\nab:\n", 1)
	src = strings.Replace(src, "min_blocks: 4\n  max_blocks: 12", "min_blocks: 3\n  max_blocks: 3\n  windows: 2\n  window: 300ms", 1)
	cfg, err := config.Parse("seq.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var te testEnv
	env := supervised(t, te.env())
	env.Processes.Environ = os.Environ() // the counter's sh, found on the side's PATH
	j, err := AB(t.Context(), env, ABOptions{Config: cfg})
	if err != nil {
		t.Fatalf("AB: %v\n%s", err, te.log.String())
	}
	for side, runs := range map[string][]result.Run{"base": j.Base.Runs, "head": j.Head.Runs} {
		if len(runs) < 3 {
			t.Fatalf("%s: %d blocks", side, len(runs))
		}
		for i, r := range runs {
			if r.Counters["n.calls"] <= 0 {
				t.Errorf("%s block %d: counters %v, want n.calls read", side, i+1, r.Counters)
			}
		}
	}
	found := false
	for _, f := range j.Verdict.Findings {
		found = found || (f.Key == "counter.n.calls" && f.Gated && f.Outcome != gate.NotAvailable)
	}
	if !found {
		t.Errorf("counter.n.calls not judged: %+v", j.Verdict.Findings)
	}
}
