package pipeline

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
)

const policyBench = `name: shop
target: {url: "http://127.0.0.1:8080"}
load: {rate: 10/s}
scenarios:
  - steps: [{path: /a}]
`

func parseBench(t *testing.T, extra string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("tailgate.yml", []byte(policyBench+extra))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const where = "tailgate.yml at the PR's base commit 3a9c5e7f1b2d"

// trustedGate and trustedBench are TrustBase's policy of a base file
// given as bytes: the gate's policy alone, or the whole benchmark.
func trustedGate(head *config.Config, base []byte, found bool, where string) *Policy {
	return trustedPolicy(head, BaseFile{Data: base, Found: found, Where: where, Path: head.Path}, false)
}

func trustedBench(head *config.Config, base BaseFile) *Policy { return trustedPolicy(head, base, true) }

// A PR that loosens its gate or points it at a fresh baseline is judged by
// the base commit's gate, and the report says what it changes.
func TestTrustedPolicyIsTheBaseCommits(t *testing.T) {
	t.Parallel()
	base := policyBench + "gate:\n  floors: {iterations_per_s: 5}\n  alpha: 0.05\n"
	head := parseBench(t, "gate:\n  baseline: baselines/fresh.json\n  floors: {iterations_per_s: 90}\n  min_effect: {latency_p95_ms: 500}\n  alpha: 0.0001\n")
	p := trustedGate(head, []byte(base), true, where)
	if p.Gate.Baseline != "baselines/shop.json" || p.Gate.Floors[result.IterationsPerSec] != 5 || p.Gate.Alpha != 0.05 || len(p.Gate.MinEffect) != 0 {
		t.Errorf("policy gate %+v, want the base commit's", p.Gate)
	}
	notes := strings.Join(p.Notes, "\n")
	for _, want := range []string{"comes from " + where, "This PR changes the gate's policy; it applies after merge",
		"changed: gate.baseline, gate.alpha, gate.floors, gate.min_effect"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if p.Warning != "" {
		t.Errorf("warning %q for a policy read from the base", p.Warning)
	}
	// What the gate is given is the base commit's policy.
	gp := policyFor(head, p, nil)
	if gp.Alpha != 0.05 || gp.Floors[result.IterationsPerSec] != 5 {
		t.Errorf("gate.Policy %+v, want the base commit's alpha and floors", gp)
	}
}

func TestTrustedPolicyUnchangedSaysOnlyItsSource(t *testing.T) {
	t.Parallel()
	head := parseBench(t, "gate: {floors: {iterations_per_s: 5, latency_p95_ms: 30}, min_effect: {}}\n")
	// Formatting, key order and an empty map do not change the policy.
	base := policyBench + "# the same gate, written differently\ngate:\n  floors:\n    latency_p95_ms: 30\n    iterations_per_s: 5\n"
	p := trustedGate(head, []byte(base), true, where)
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], where) || p.Warning != "" {
		t.Errorf("notes %q, warning %q: want only the source", p.Notes, p.Warning)
	}
}

// Without a benchmark file at the base (the PR adds tailgate), or with one
// this tailgate cannot load, the policy is the PR's own, with a warning.
func TestTrustedPolicyFallsBackWithAWarning(t *testing.T) {
	t.Parallel()
	head := parseBench(t, "gate: {alpha: 0.01}\n")
	for name, tc := range map[string]struct {
		base  []byte
		found bool
		want  string
	}{
		"no file at the base": {nil, false, where + " does not exist, so the gate's policy is this pull request's own (tailgate.yml)"},
		"empty file":          {[]byte{}, true, where + " does not load with this tailgate (" + where + ":1:1: the file is empty"},
		"invalid file":        {[]byte("target: [\n"), true, "does not load with this tailgate"},
	} {
		p := trustedGate(head, tc.base, tc.found, where)
		if p.Gate.Alpha != 0.01 || !strings.Contains(p.Warning, tc.want) || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], tc.want) {
			t.Errorf("%s: gate alpha %g, warning %q, notes %q; want the PR's own policy and %q", name, p.Gate.Alpha, p.Warning, p.Notes, tc.want)
		}
	}
}

// Check judges by the policy it is given, and its notes reach the report.
func TestCheckJudgesByTheGivenPolicy(t *testing.T) {
	t.Parallel()
	svc := newService(t)
	cfg := benchmark(t, svc.URL, "gate: {metrics: [latency_p95_ms], floors: {latency_p95_ms: 100000}}\n")
	dir := t.TempDir()
	head, err := Run(t.Context(), Env{}, RunOptions{Config: cfg, ResultPath: dir + "/r.json"})
	if err != nil {
		t.Fatal(err)
	}
	// The measured p95 of two short runs can differ threefold on a busy
	// machine: fix the head's so that the baseline, a third of it, is
	// wholly below.
	for i := range head.Runs {
		head.Runs[i].Metrics[result.LatencyP95] = 3 + float64(i)/10
	}
	bl := baseline.New(cfg.Name, head.DefinitionHash, head.Env, 30)
	for i := range 3 { // a baseline whose p95 is a third of the head's, from 3 jobs
		fast := *head
		fast.Runs = scaledP95(head.Runs, 1.0/3)
		bl.Append(&fast, baseline.Provenance{Job: string(rune('a' + i))})
	}
	path := dir + "/b.json"
	if err := baseline.Write(path, bl); err != nil {
		t.Fatal(err)
	}
	// The PR's own floor of 100000 % hides the rise; the base policy's 5 % does not.
	// (p95, not throughput: an open model sets its throughput.)
	strict := &Policy{Gate: cfg.Gate, Notes: []string{"policy note"}}
	strict.Gate.Floors = map[string]float64{result.LatencyP95: 5}
	for _, tc := range []struct {
		pol  *Policy
		want gate.Outcome
	}{{nil, gate.Pass}, {strict, gate.Regression}} {
		j, err := Check(t.Context(), Env{}, CheckOptions{Config: cfg, Head: head, Baseline: baseline.FileSource{Path: path}, Policy: tc.pol})
		if err != nil {
			t.Fatal(err)
		}
		if j.Verdict.Outcome != tc.want || (tc.pol != nil && !strings.Contains(strings.Join(j.Notes, "|"), "policy note")) {
			t.Errorf("policy %v: verdict %s, notes %q; want %s", tc.pol, j.Verdict.Outcome, j.Notes, tc.want)
		}
	}
}

func scaledP95(runs []result.Run, k float64) []result.Run {
	out := make([]result.Run, len(runs))
	for i, r := range runs {
		r.Metrics = map[string]float64{}
		for key, v := range runs[i].Metrics {
			r.Metrics[key] = v
		}
		r.Metrics[result.LatencyP95] *= k
		out[i] = r
	}
	return out
}

// The A/B budget is policy too: a PR that shrinks ab.min_blocks,
// ab.max_blocks or ab.max_time (to end inconclusive, which passes) is
// judged by the base commit's budget, the report naming the keys; a base
// commit without an ab section has the default budget.
func TestTrustedPolicyTakesTheABBudgetFromTheBase(t *testing.T) {
	t.Parallel()
	head := parseBench(t, "ab: {base: {url: \"http://127.0.0.1:8081\"}, min_blocks: 4, max_blocks: 4, max_time: 1s}\n")
	for name, tc := range map[string]struct {
		base       string
		min, max   int
		maxTime    time.Duration
		changedKey string
	}{
		"budget at the base": {policyBench + "ab: {min_blocks: 6, max_blocks: 30, max_time: 10m}\n", 6, 30, 10 * time.Minute, "changed: ab.min_blocks, ab.max_blocks, ab.max_time"},
		"no ab at the base":  {policyBench, config.DefaultMinBlocks, config.DefaultMaxBlocks, 0, "changed: ab.min_blocks, ab.max_blocks, ab.max_time"},
	} {
		p := trustedGate(head, []byte(tc.base), true, where)
		ab, err := ABOptions{Config: head, Policy: p}.ab()
		if err != nil {
			t.Fatal(err)
		}
		if ab.MinBlocks != tc.min || ab.MaxBlocks != tc.max || ab.MaxTime.D() != tc.maxTime {
			t.Errorf("%s: the job's budget is %d–%d pairs, %s; want the base commit's %d–%d, %s", name, ab.MinBlocks, ab.MaxBlocks, ab.MaxTime.D(), tc.min, tc.max, tc.maxTime)
		}
		notes := strings.Join(p.Notes, "\n")
		for _, want := range []string{"ab.min_blocks, ab.max_blocks, ab.max_time", "This PR changes the gate's policy; it applies after merge", tc.changedKey} {
			if !strings.Contains(notes, want) {
				t.Errorf("%s: notes lack %q:\n%s", name, want, notes)
			}
		}
	}
	// The same budget, written differently, changes nothing; the PR's own
	// policy (no trusted base) keeps the PR's budget.
	same := trustedGate(head, []byte(policyBench+"ab:\n  max_time: 1s\n  max_blocks: 4\n  min_blocks: 4\n  base: {ref: main}\n"), true, where)
	if len(same.Notes) != 1 {
		t.Errorf("an unchanged budget: notes %q", same.Notes)
	}
	own := trustedGate(head, nil, false, where)
	if ab, _ := (ABOptions{Config: head, Policy: own}).ab(); ab.MaxBlocks != 4 {
		t.Errorf("the PR's own policy: budget of %d pairs, want the PR's 4", ab.MaxBlocks)
	}
}

// A PR that cuts its own load.runs (so that too few samples can detect
// nothing) or passes the job's token to its own service gets neither: the
// runs and the credentials are the base commit's, and the report says
// what the PR changes. A PR may still withhold a credential the base
// passes on.
func TestTrustedPolicyKeepsRunsAndCredentials(t *testing.T) {
	t.Parallel()
	base := strings.Replace(policyBench, "load: {rate: 10/s}", "load: {rate: 10/s, runs: 7}", 1) + "pass_env: [GH_TOKEN, API_KEY]\n"
	head, err := config.Parse("tailgate.yml", []byte(strings.Replace(policyBench, "load: {rate: 10/s}", "load: {rate: 10/s, runs: 1}", 1)+
		"pass_env: [INPUT_GITHUB_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN, API_KEY, HOME]\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := trustedGate(head, []byte(base), true, where)
	cfg := p.benchmark(head)
	if cfg.Load.Runs != 7 {
		t.Errorf("load.runs %d, want the base commit's 7", cfg.Load.Runs)
	}
	if want := []string{"API_KEY", "HOME"}; !slices.Equal(cfg.PassEnv, want) {
		t.Errorf("pass_env %q, want %q: no credential the base does not pass, none the PR withholds", cfg.PassEnv, want)
	}
	if head.Load.Runs != 1 || len(head.PassEnv) != 4 {
		t.Errorf("the PR's config was changed in place: runs %d, pass_env %q", head.Load.Runs, head.PassEnv)
	}
	notes := strings.Join(p.Notes, "\n")
	if want := "changed: load.runs, pass_env (withheld: INPUT_GITHUB_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN)"; !strings.Contains(notes, want) {
		t.Errorf("notes lack %q:\n%s", want, notes)
	}
	if strings.Contains(notes, "changes the benchmark itself") {
		t.Errorf("load.runs is policy, not the definition, yet the notes say the benchmark changed:\n%s", notes)
	}
	// Without a trusted policy the config runs as it is.
	if got := (*Policy)(nil).benchmark(head); got != head {
		t.Error("a nil policy changed the config")
	}
	own := trustedGate(head, nil, false, where).benchmark(head)
	if own.Load.Runs != 1 || len(own.PassEnv) != 4 {
		t.Errorf("the PR's own policy (no file at the base) changed its runs or pass_env: %d, %q", own.Load.Runs, own.PassEnv)
	}
}

// A PR that changes what one sample measures (a shorter duration, fewer
// phases, another scenario) cannot be compared with the base commit's
// baseline: its check is inconclusive, and the report names what changed.
func TestTrustedPolicySaysTheBenchmarkChanged(t *testing.T) {
	t.Parallel()
	head, err := config.Parse("tailgate.yml", []byte(strings.Replace(policyBench, "load: {rate: 10/s}", "load: {rate: 10/s, duration: 100ms, warmup: 0s}", 1)+
		"seed: 9\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := trustedGate(head, []byte(policyBench), true, where)
	notes := strings.Join(p.Notes, "\n")
	for _, want := range []string{"This PR changes the benchmark itself (changed: load.warmup, load.duration, seed)", "fail_on_inconclusive: true", "mode: ab"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "gate's policy; it applies") {
		t.Errorf("the notes say the policy changed:\n%s", notes)
	}
}

// TrustedBenchmark runs the base commit's whole benchmark, names every key
// of the procedure the PR changes (not the gate's policy, which its own
// note names), and reads the files the base's benchmark names through the
// base commit's reader, never the working tree.
func TestTrustedBenchmarkIsTheBaseCommits(t *testing.T) {
	t.Parallel()
	base := policyBench + "build: {command: make}\nfeed: {file: users.csv}\nab: {min_blocks: 4}\n"
	headCfg := strings.Replace(policyBench, "rate: 10/s", "rate: 5/s, duration: 1s", 1)
	headCfg = strings.Replace(headCfg, `target: {url: "http://127.0.0.1:8080"}`, `target: {url: "http://127.0.0.1:8080", start: {command: ./serve}}`, 1)
	head, err := config.Parse("tailgate.yml", []byte(headCfg+"build: {command: make fast}\n"+
		"ab: {min_blocks: 8, base: {url: \"http://127.0.0.1:7\"}}\ndataset: {reset: {command: ./reset}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var read []string
	files := func(path string, max int64) ([]byte, error) {
		read = append(read, path)
		return []byte("user\nu1\n"), nil
	}
	p := trustedBench(head, BaseFile{Data: []byte(base), Found: true, Where: where, Path: "perf/tailgate.yml", Read: files})
	if !slices.Equal(read, []string{"perf/users.csv"}) {
		t.Errorf("the base's feed was read as %q, want perf/users.csv through the base commit's reader", read)
	}
	cfg := p.benchmark(head)
	if cfg.Build.Command.Shell != "make" || cfg.Target.Start != nil || cfg.AB.Base.URL != "" || cfg.Dataset.Reset != nil || cfg.Feed == nil || len(cfg.Feed.Rows) != 1 {
		t.Errorf("the benchmark run is not the base commit's: %+v", cfg)
	}
	notes := strings.Join(p.Notes, "\n")
	want := "This PR changes the benchmark (changed: target.start, dataset.reset, load.rate, load.duration, feed, build.command, ab.base.url): it is judged with the base's"
	if !strings.Contains(notes, want) {
		t.Errorf("notes lack %q:\n%s", want, notes)
	}
	if !strings.Contains(notes, "changed: ab.min_blocks") {
		t.Errorf("the policy note does not name the A/B budget:\n%s", notes)
	}
	err = p.headFailure(errors.New("head target: build failed"))
	if !strings.Contains(err.Error(), "benchmark_from: head") || KindOf(err) != Runtime {
		t.Errorf("a head failure: %v (kind %v), want the way out and a runtime failure", err, KindOf(err))
	}

	same := trustedBench(head, BaseFile{Data: []byte(policyBench), Found: true, Where: where, Path: "tailgate.yml"})
	if same.procedure == nil {
		t.Error("no changes found between different benchmarks")
	}
	unchanged := trustedBench(parseBench(t, ""), BaseFile{Data: []byte(policyBench), Found: true, Where: where, Path: "tailgate.yml"})
	if len(unchanged.Notes) != 1 || unchanged.headFailure(errors.New("x")).Error() != "x" {
		t.Errorf("an unchanged benchmark: notes %q", unchanged.Notes)
	}
	none := trustedBench(head, BaseFile{Found: false, Where: where, Path: "tailgate.yml"})
	if none.Benchmark != nil || !strings.Contains(none.Warning, "the gate's policy and the benchmark are this pull request's own") {
		t.Errorf("without a base file: benchmark %v, warning %q", none.Benchmark, none.Warning)
	}
}
