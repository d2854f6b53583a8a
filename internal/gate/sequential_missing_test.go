package gate

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// withoutCPU removes CPU per iteration from the given runs (0-based), as
// a run that completed no iteration has none.
func withoutCPU(runs []result.Run, idx ...int) {
	for _, i := range idx {
		delete(runs[i].Metrics, cpu)
	}
}

// A head that costs 30 % more CPU and lacks CPU per iteration in one pair
// (a run too slow to complete an iteration) must not pass on the other
// metrics: the gated metric is inconclusive, its note names the pair and
// the side, the job stops once the other metrics decide, and no
// detectable effect is claimed for it.
func TestSequentialGatedMetricMissingFromAPairNeverPasses(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(61, 1)), 20, 0.01, 1.3)
	withoutCPU(head, 1)
	v := judgeLoop(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{})
	f, _ := finding(v, cpu)
	if v.Outcome == Pass || f.Outcome != MetricInconclusive || !f.Gated {
		t.Fatalf("+30 %% CPU, missing from head in pair 2: verdict %s, CPU %s (%q); want inconclusive, never a pass", v.Outcome, f.Outcome, f.Note)
	}
	if f.Look == nil || !f.Look.Cut || len(f.Look.Gaps.Base) > 0 || !slices.Equal(f.Look.Gaps.Head, []int{2}) {
		t.Errorf("CPU look %+v does not say which pair lacks it", f.Look)
	}
	s := v.Sequential
	if !s.Done || s.Blocks >= 20 || !slices.Equal(s.Why.Missing, []string{"CPU/iteration"}) {
		t.Errorf("sequential %+v: want done once the other metrics decided, the reason naming CPU/iteration", s)
	}
	if !v.HasWarning(WarnMissingInBlocks) {
		t.Errorf("no warning about the gap: %v", v.Warnings)
	}
	for _, d := range v.Detect {
		if d.Key == cpu && (d.Possible || d.Cut == nil || !slices.Equal(d.Cut.Head, []int{2})) {
			t.Errorf("detect %+v claims a sensitivity for a metric it could not judge", d)
		}
	}

	// A decision made on the pairs before the first gap stands: the
	// regression at the first looks is not undone by a gap at pair 12.
	base, head = cpuPairs(rand.New(rand.NewPCG(62, 1)), 20, 0.01, 1.3)
	withoutCPU(head, 11)
	late := JudgeSequential(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{}, true, SeqOptions{})
	if g, _ := finding(late, cpu); late.Outcome != Regression || g.Outcome != MetricRegression || g.DecidedAt >= 12 || g.Look.Cut || !slices.Equal(g.Look.Gaps.Head, []int{12}) {
		t.Errorf("+30 %% CPU decided before the gap at pair 12: %s, CPU %+v", late.Outcome, g)
	}
}

// A gated metric one side measured in every pair and the other in none
// (the base's CPU sampled, the head's not) is inconclusive, never a pass.
func TestSequentialOneSidedGatedMetricIsInconclusive(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(63, 1)), 20, 0.01, 1)
	withoutCPU(head, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)
	v := judgeLoop(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{})
	f, _ := finding(v, cpu)
	if v.Outcome != Inconclusive || f.Outcome != MetricInconclusive || !f.Look.Cut || len(f.Look.Gaps.Head) != f.Look.Gaps.Blocks {
		t.Errorf("CPU on the base side only: verdict %s, CPU %s %+v; want inconclusive", v.Outcome, f.Outcome, f.Look)
	}
	if !v.Sequential.Done || v.Sequential.Blocks < v.Sequential.MinBlocks {
		t.Errorf("sequential %+v: want done after the first look", v.Sequential)
	}
}

// K, the metrics the job's α is split among, counts every gated metric
// some pair measured, so a gap does not loosen the others' bounds (K
// never falls as pairs are added, and an earlier look is never replayed
// at a looser level); a metric no pair measured on either side is "not
// available" and outside K, as before.
func TestSequentialKCountsAMetricWithAGap(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(64, 1)), 8, 0.01, 1)
	full := JudgeSequential(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{}, false, SeqOptions{})
	withoutCPU(head, 3)
	gap := JudgeSequential(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{}, false, SeqOptions{})
	a, _ := finding(full, tput)
	b, _ := finding(gap, tput)
	if a.Lower != b.Lower || a.Upper != b.Upper {
		t.Errorf("throughput bounds %v…%v with CPU in every pair, %v…%v with a gap: K changed", a.Lower, a.Upper, b.Lower, b.Upper)
	}
	withoutCPU(head, 0, 1, 2, 4, 5, 6, 7)
	withoutCPU(base, 0, 1, 2, 3, 4, 5, 6, 7)
	none := JudgeSequential(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{}, false, SeqOptions{})
	two := JudgeSequential(base, head, Policy{Metrics: []string{tput, result.RequestErrorPct}}, stats.SeqDesign{}, false, SeqOptions{})
	c, _ := finding(none, tput)
	d, _ := finding(two, tput)
	if f, _ := finding(none, cpu); f.Outcome != NotAvailable || c.Lower != d.Lower {
		t.Errorf("CPU in no pair: %s, throughput lower bound %v, %v without CPU gated; want not available and outside K", f.Outcome, c.Lower, d.Lower)
	}
}

// No job is done before its first look unless the caller says final: not
// even one whose gated metrics are missing from some pair, or from all.
func TestSequentialNeverDoneBeforeTheFirstLook(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(65, 1)), 6, 0.01, 1)
	gapped := Policy{Metrics: []string{cpu}}
	withoutCPU(head, 0)
	absent := Policy{Metrics: []string{result.LatencyP95}} // no run measures it
	for name, p := range map[string]Policy{"CPU missing from pair 1": gapped, "no gated metric measured": absent} {
		for n := 1; n < 4; n++ {
			if v := JudgeSequential(base[:n], head[:n], p, stats.SeqDesign{}, false, SeqOptions{}); v.Sequential.Done {
				t.Errorf("%s: done after %d of at least 4 pairs (%+v)", name, n, v.Sequential.Why)
			}
		}
		if v := JudgeSequential(base[:4], head[:4], p, stats.SeqDesign{}, false, SeqOptions{}); !v.Sequential.Done || v.Outcome != Inconclusive {
			t.Errorf("%s, 4 pairs: %s %+v; want done, inconclusive", name, v.Outcome, v.Sequential)
		}
		if v := JudgeSequential(base[:2], head[:2], p, stats.SeqDesign{}, true, SeqOptions{}); !v.Sequential.Done {
			t.Errorf("%s, final after 2 pairs: not done", name)
		}
	}
}

// A phase later blocks left out once its metrics decided (runner's
// SkipPhase) leaves a gap at the end on both sides: a gated metric keeps
// the decision it made before it, saying where it was not measured, and a
// reported-only metric is shown from the units that measured it, not "not
// available". A reported-only metric one side alone lacks stays not
// available.
func TestSequentialMetricsOfAPhaseLeftOutKeepTheirFindings(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(64, 1)), 12, 0.01, 1)
	for i := range base {
		base[i].Metrics[result.LatencyP50], head[i].Metrics[result.LatencyP50] = 2, 2.2
		if i >= 4 { // the phase of the error rate and the p50 left out from unit 5 on
			delete(base[i].Metrics, result.RequestErrorPct)
			delete(head[i].Metrics, result.RequestErrorPct)
			delete(base[i].Metrics, result.LatencyP50)
			delete(head[i].Metrics, result.LatencyP50)
		}
	}
	v := JudgeSequential(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{}, true, SeqOptions{})
	errs, _ := finding(v, result.RequestErrorPct)
	if errs.Outcome != MetricPass || errs.DecidedAt > 4 || errs.Look.Cut || len(errs.Look.Gaps.Base) != 8 || !slices.Equal(errs.Look.Gaps.Base, errs.Look.Gaps.Head) {
		t.Errorf("error rate decided before the gap: %s at %d, look %+v; want its pass kept and the gap named", errs.Outcome, errs.DecidedAt, errs.Look)
	}
	p50, _ := finding(v, result.LatencyP50)
	if p50.Outcome != NotGated || p50.N != 4 || p50.Change < 9.9 || p50.Change > 10.1 {
		t.Errorf("reported-only p50 measured in the first 4 units: %s, n %d, change %v, note %q; want +10 %% on those 4", p50.Outcome, p50.N, p50.Change, p50.Note)
	}

	delete(head[1].Metrics, result.LatencyP50) // one side alone lacks it
	v = JudgeSequential(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{}, true, SeqOptions{})
	if p50, _ := finding(v, result.LatencyP50); p50.Outcome != NotAvailable {
		t.Errorf("p50 missing from head in unit 2 and both from unit 5: %s, want not available", p50.Outcome)
	}
}
