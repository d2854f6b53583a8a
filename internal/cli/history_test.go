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
