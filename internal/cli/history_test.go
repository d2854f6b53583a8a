package cli_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// writeHistory writes 40 jobs of 5 runs: CPU per iteration 2 ms (3 % noise
// in a job, 1 % between jobs) that rises by 10 % at job 20, throughput
// 100/s. The commit of job 3 and the ref of every job are hostile text.
func writeHistory(t *testing.T, dir string, step func(j int) float64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(22, 1))
	h := &baseline.History{}
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for j := range 40 {
		res := &result.File{Benchmark: "api", DefinitionHash: "d1", Env: result.Env{CPUModel: "cpu", Cores: 2, OS: "linux", Arch: "amd64"}}
		drift := rng.NormFloat64() * 0.01
		for r := range 5 {
			res.Runs = append(res.Runs, result.Run{Index: r, Metrics: map[string]float64{
				result.CPUPerIteration:  2 * step(j) * math.Exp(drift+rng.NormFloat64()*0.03),
				result.IterationsPerSec: 100 * math.Exp(rng.NormFloat64()*0.02),
			}})
		}
		commit := fmt.Sprintf("%03x", j) + strings.Repeat("f", 37)
		if j == 3 {
			commit = "<script>alert(1)</script>"
		}
		h.Append(res, baseline.Provenance{Commit: commit, Ref: "refs/heads/main\n::error::x", Job: fmt.Sprint(j), Time: t0.Add(time.Duration(j) * time.Hour)}, "ubuntu24/1", 0)
	}
	path := filepath.Join(dir, "api.history.jsonl")
	if err := baseline.WriteHistory(path, h); err != nil {
		t.Fatal(err)
	}
	return path
}

func stepAt20(j int) float64 {
	if j >= 20 {
		return 1.10
	}
	return 1
}

func TestHistoryFindsTheStep(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeHistory(t, dir, stepAt20)
	page := filepath.Join(dir, "trend.html")
	o := tailgate(t, "history", "--history", path, "--html", page)
	wantCode(t, o, 1)
	golden(t, "history-regression.txt", o.stdout, dir)
	wantContains(t, "stderr", o.stderr, "regressed level of 1 gated metric")

	html := string(mustRead(t, page))
	wantContains(t, "page", html, "<svg", "regressed", "&lt;script&gt;", "CPU/iteration")
	for _, bad := range []string{"<script", "src=\"http", "href=\"http", "url(http", "\n::error"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}

	o = tailgate(t, "history", "--history", path, "--fail-on-regression=false")
	wantCode(t, o, 0)
}

func TestHistoryCleanAndBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeHistory(t, dir, func(int) float64 { return 1 })
	o := tailgate(t, "history", "--history", path)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "CPU/iteration (40 jobs): no change point", "main is at no regressed level")

	wantCode(t, tailgate(t, "history"), 2)
	wantCode(t, tailgate(t, "history", "--history", filepath.Join(dir, "none.jsonl")), 2)
	bad := filepath.Join(dir, "bad.jsonl")
	mustWrite(t, bad, string(mustRead(t, path))+"{not json\n")
	o = tailgate(t, "history", "--history", bad)
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "bad.jsonl:41:")
	before, _ := os.Stat(bad)
	if before.Size() == 0 {
		t.Error("the bad file was emptied")
	}
}

// history reads -c tailgate.yml by default, as every other command does:
// the history beside its baseline (baselines/<name>.history.jsonl).
func TestHistoryDefaultsToTailgateYml(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "tailgate.yml"), "name: api\ntarget: {url: \"http://127.0.0.1:1\"}\nload: {rate: 10/s}\nscenarios:\n  - steps: [{path: /a}]\n")
	if err := os.Mkdir(filepath.Join(dir, "baselines"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeHistory(t, filepath.Join(dir, "baselines"), stepAt20)
	o := tailgateIn(t, dir, nil, "history")
	wantCode(t, o, 1)
	wantContains(t, "stdout", o.stdout, "40 jobs from baselines/api.history.jsonl", "regression: +10.1 %")
}

// End to end, in a real git repository with a real service: tailgate ab
// --history appends each commit of main judged against its parent (the
// base built from HEAD~1 in a worktree), two commits in a row make a chain
// without a gap, and tailgate history shows the A/B view beside the
// absolute one, with the creep counted since a tag.
func TestHistoryChainEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts services for every run")
	}
	t.Parallel()
	repo, base, head := prRepo(t)
	// Issue 45: the file names a base ref, the command another: the
	// command's is built, and the link names it as the parent.
	cfg := filepath.Join(repo, "tailgate.yml")
	mustWrite(t, cfg, strings.Replace(string(mustRead(t, cfg)), "ab: {min_blocks", "ab: {base: {ref: HEAD}, min_blocks", 1))
	hist := filepath.Join(repo, "main.history.jsonl")
	env := []string{"RUNNER_TEMP=" + t.TempDir(), "GITHUB_SHA=", "GITHUB_REF=", "GITHUB_RUN_ID="}
	o := tailgateIn(t, repo, env, "ab", "-q", "--base-ref", "HEAD~1", "--history", hist, "--job", "ab-1")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "from git: commit "+head, "appended the A/B of "+head[:12]+" against its parent "+base[:12])

	mustWrite(t, filepath.Join(repo, "version"), "3\n")
	gitRun(t, repo, "commit", "-q", "-am", "third")
	third := gitRun(t, repo, "rev-parse", "HEAD")
	gitRun(t, repo, "tag", "v1", base)
	o = tailgateIn(t, repo, env, "ab", "-q", "--base-ref", "HEAD~1", "--history", hist, "--job", "ab-2")
	wantCode(t, o, 0)

	h, err := baseline.ReadHistory(hist)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Jobs) != 2 || h.Jobs[0].AB == nil || h.Jobs[1].AB == nil || h.Jobs[0].AB.Parent != base || h.Jobs[0].Commit != head ||
		h.Jobs[1].AB.Parent != head || h.Jobs[1].Commit != third || len(h.Jobs[1].Runs) != 0 {
		t.Fatalf("history %+v, want two links base→head→third without runs", h.Jobs)
	}
	for _, j := range h.Jobs {
		if len(j.AB.Metrics) == 0 {
			t.Errorf("link %s holds no metric", j.Commit)
		}
	}
	o = tailgateIn(t, repo, env, "history", "--history", hist, "--since", "v1")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "A/B chain of main: 2 commits, each judged against its parent side by side", "creep since v1 (2 commits)")
	if strings.Contains(o.stdout, "gap:") {
		t.Errorf("a chain of consecutive commits has a gap:\n%s", o.stdout)
	}
	o = tailgateIn(t, repo, env, "history", "--history", hist, "--since", "nosuch")
	wantCode(t, o, 2)

	// The third commit judged against the tag: a span, kept beside the
	// links (its own job id), from which the history reads the creep.
	o = tailgateIn(t, repo, env, "ab", "-q", "--base-ref", "v1", "--history", hist, "--job", "ab-3")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "appended the A/B of "+third[:12]+` against an earlier point of main's chain than its last link (a span`)
	if h, err = baseline.ReadHistory(hist); err != nil || len(h.Jobs) != 3 || h.Jobs[2].Job != "ab-3/ab-span" || h.Jobs[2].AB.Parent != base {
		t.Fatalf("history %+v (%v), want the span base→third as a third line", h.Jobs, err)
	}
	o = tailgateIn(t, repo, env, "history", "--history", hist, "--since", "v1")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "A/B chain of main: 2 commits", "measured by one A/B of "+third[:12]+" against "+base[:12])
}

// The Action's mode record with chain: true, on a push of main: the
// absolute job and the pushed commit's A/B against the push's previous tip
// (built in a worktree) both land in the history beside the baseline, as
// two lines of the one CI job.
func TestActionRecordChain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts services for every run")
	}
	t.Parallel()
	repo, base, head := prRepo(t)
	env := actionEnv(t, t.TempDir(), "tailgate.yml", "baselines/pr.json")
	event := filepath.Join(t.TempDir(), "event.json")
	mustWrite(t, event, `{"ref": "refs/heads/main", "before": "`+base+`", "after": "`+head+`"}`)
	env["GITHUB_EVENT_PATH"], env["GITHUB_SHA"] = event, head
	env["INPUT_MODE"], env["INPUT_CHAIN"], env["INPUT_WORKING_DIRECTORY"] = "record", "true", "."
	gitRun(t, repo, "tag", "v1", base)
	env["INPUT_CREEP_SINCE"] = "v1" // the parent: the link measured it, no second A/B
	cache := t.TempDir()            // action.yml restores and saves it for the chain as for mode ab
	env["XDG_CACHE_HOME"] = cache
	var vars []string
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	o := tailgateIn(t, repo, vars, "action")
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "appended the job to the history", "appended the A/B of "+head[:12]+" against its parent "+base[:12],
		`creep_since "v1" is the pushed commit's parent: the link just appended measured it`)
	h, err := baseline.ReadHistory(filepath.Join(repo, "baselines", "pr.history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Jobs) != 2 || h.Jobs[0].AB != nil || len(h.Jobs[0].Runs) == 0 || h.Jobs[1].AB == nil || h.Jobs[1].AB.Parent != base ||
		h.Jobs[1].Commit != head || h.Jobs[1].Job != "1234-1/ab" {
		t.Fatalf("history %+v, want the absolute job and the A/B link of %s", h.Jobs, head)
	}
	if _, err := os.Stat(filepath.Join(cache, "tailgate", "noise.json")); err != nil {
		t.Errorf("the chain's A/B kept no noise for the next push: %v", err)
	}
}
