package report

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// commentJob is an A/B job of 8 blocks as the Action's comment gets it
// (the target logs left out): throughput and p95 of both sides with a
// block-to-block noise of a few percent, the request error rate at 0 in
// every block, a step "delete-article" whose p95 jumps by up to three
// times from block to block on either side, and notes that name the
// runner's temporary directories. head scales the head's latency, and
// its step "list", by slow.
func commentJob(t *testing.T, slow float64) Input {
	t.Helper()
	rng := rand.New(rand.NewPCG(47, 3))
	noisy := func() time.Duration { return time.Duration(float64(8*time.Millisecond) * (0.5 + 2.5*rng.Float64())) }
	var base, head []result.Run
	for i := range 8 {
		for side, scale := range []float64{1, slow} {
			w := 1 + 0.03*(rng.Float64()-0.5)
			r := result.Run{Index: i, Metrics: map[string]float64{result.IterationsPerSec: 100 / scale * w, result.LatencyP95: 50 * scale / w,
				result.RequestErrorPct: 0, result.LifecycleSuccess: 100},
				Steps: []result.Step{fixtureStep("list", 400, 0, time.Duration(float64(10*time.Millisecond)*scale*w)), fixtureStep("delete-article", 40, 0, noisy())}}
			if side == 0 {
				base = append(base, r)
			} else {
				head = append(head, r)
			}
		}
	}
	v := gate.JudgeSequential(base, head, gate.Policy{Alpha: 0.05}, stats.SeqDesign{MinBlocks: 3, MaxBlocks: 8}, true, gate.SeqOptions{})
	v.Sequential.Unit = "block"
	return Input{Name: "api", Mode: "ab", Verdict: v, Base: base, Head: head,
		AB: &ABRun{Blocks: 8, MaxBlocks: 8, Elapsed: time.Minute, AA: slow == 1},
		Notes: []string{"the commands of each side ran in its own tree: base in /tmp/tailgate-ab-123/base, head in /home/runner/work/_temp/tailgate-ab-123/head",
			"noise: this job's own (the noise file /root/.cache/tailgate/noise.json had no earlier job of this benchmark, machine and design; this job's is now kept there)"}}
}

// The comment a reviewer reads in ten seconds: the verdict and the gated
// table first, then one chart (of the metric that decided, never a rate
// flat at 0), the steps, and the notes collapsed; no runner path; a step
// that moved only within its own noise is not marked as moved, one that
// moved beyond it is.
func TestCommentReadsInTenSeconds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		slow  float64
		chart string // the metric charted
		moved bool   // whether the step "list" moved beyond its noise
	}{
		{"A/A", 1, "", false},
		{"regression", 1.3, "iterations/s", true},
	} {
		in := commentJob(t, tc.slow)
		md := Markdown(in)
		if tc.chart == "" { // a pass: the metric nearest its limit of those not flat (the rates are)
			best := math.Inf(-1)
			for _, f := range in.Verdict.Findings {
				if f.Gated && (f.Key == result.IterationsPerSec || f.Key == result.LatencyP95) && pull(f) > best {
					tc.chart, best = f.Label, pull(f)
				}
			}
		} else if in.Verdict.Outcome != gate.Regression {
			t.Fatalf("%s: verdict %v", tc.name, in.Verdict.Outcome)
		}
		at := func(s string) int {
			i := strings.Index(md, s)
			if i < 0 {
				t.Fatalf("%s: the comment lacks %q:\n%s", tc.name, s, md)
			}
			return i
		}
		order := []int{at("### "), at("| gated metric |"), at("```mermaid"), at("**Per step, base → head"), at("<details><summary>Notes</summary>"), at("<sub>mode ab")}
		for i := 1; i < len(order); i++ {
			if order[i] <= order[i-1] {
				t.Errorf("%s: sections out of order (verdict, gated table, chart, steps, notes, context): %v", tc.name, order)
			}
		}
		if n := strings.Count(md, "```mermaid"); n != 1 {
			t.Errorf("%s: %d charts, want 1", tc.name, n)
		}
		if !strings.Contains(md, `title "`+tc.chart+` change of head against base in each block"`) {
			t.Errorf("%s: the chart is not of %s:\n%s", tc.name, tc.chart, md)
		}
		if p := regexp.MustCompile(`(/tmp|/home|/root)/`).FindString(md); p != "" {
			t.Errorf("%s: the comment names a runner path (%s):\n%s", tc.name, p, md)
		}
		if !strings.Contains(md, "base in …/base, head in …/head") || !strings.Contains(md, "the noise file …/noise.json had") {
			t.Errorf("%s: the notes do not name the trees and the noise file by their last part:\n%s", tc.name, md)
		}
		row := func(step string) string {
			i := at("| " + step + " |")
			return md[i : i+strings.Index(md[i:], "\n")]
		}
		if strings.Contains(md, "| errors |") { // no step failed a request
			t.Errorf("%s: the step table has a column of error rates that are all none", tc.name)
		}
		noisy := row("delete-article")
		if strings.Contains(noisy, "**") || strings.Count(noisy, "within noise") != 2 || !strings.Contains(noisy, " … ") {
			t.Errorf("%s: the noisy step's p50 and p95 are not shown with their bounds, within noise: %s", tc.name, noisy)
		}
		if list := row("list"); tc.moved != (strings.Count(list, "**") == 4) || tc.moved == strings.Contains(list, "within noise") {
			t.Errorf("%s: step list moved beyond its noise: %v, but its row is %s", tc.name, tc.moved, list)
		}
	}
}

// The comment cuts the runner's paths from the job's own notes only: a
// path that a load tool or the service wrote (an endpoint) stays whole.
func TestCommentKeepsPathsItDidNotWrite(t *testing.T) {
	t.Parallel()
	in := commentJob(t, 1)
	for i := range in.Head {
		in.Head[i].Notes = append(in.Head[i].Notes, "404 on /api/v1/users/7")
	}
	md := Markdown(in)
	if !strings.Contains(md, "/api/v1/users/7") {
		t.Errorf("the load tool's note lost its endpoint:\n%s", md)
	}
	if strings.Contains(md, "/tmp/tailgate-ab-123") {
		t.Errorf("the job's own note kept the runner's path:\n%s", md)
	}
}
