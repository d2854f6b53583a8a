package gate

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

var cpu = result.CPUPerIteration

// cpuPairs draws pairs of runs with CPU per iteration (2 ms, head scaled by
// headScale) and throughput, each run with noise cv, both runs of a pair
// sharing a drift of 4·cv; request errors at 0 in every run.
func cpuPairs(rng *rand.Rand, pairs int, cv, headScale float64) (base, head []result.Run) {
	for range pairs {
		drift := 4 * cv * rng.NormFloat64()
		for _, side := range []struct {
			runs  *[]result.Run
			scale float64
		}{{&base, 1}, {&head, headScale}} {
			*side.runs = append(*side.runs, run(map[string]float64{
				cpu:                     2 * side.scale * math.Exp(drift+cv*rng.NormFloat64()),
				result.IterationsPerSec: 100 * math.Exp(-drift+cv*rng.NormFloat64()),
				result.RequestErrorPct:  0,
			}))
		}
	}
	return base, head
}

var seqMetrics = []string{cpu, tput, result.RequestErrorPct}

// judgeLoop calls JudgeSequential after every pair, as the A/B job loop
// does, and returns the verdict it stopped at.
func judgeLoop(base, head []result.Run, p Policy, d stats.SeqDesign) Verdict {
	for n := 1; ; n++ {
		v := JudgeSequential(base[:n], head[:n], p, d, n == len(base), SeqOptions{})
		if v.Sequential.Done {
			return v
		}
	}
}

// A clear CPU regression stops the job early as a regression, with the
// estimate, its bounds and the look that decided it in the finding, and
// the design's detectable effect in Detect.
func TestSequentialRegressionStopsEarly(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(51, 1)), 20, 0.02, 1.25)
	v := judgeLoop(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{})
	s := v.Sequential
	if v.Outcome != Regression || !slices.Equal(v.Regressions, []string{cpu}) || !s.Done || s.Blocks >= 12 || s.Blocks < s.MinBlocks {
		t.Fatalf("+25 %% CPU: %s %v after %d pairs (%+v); want an early regression in CPU", v.Outcome, v.Regressions, s.Blocks, s)
	}
	if s.Why.Stop != StopRegression || !slices.Equal(s.Why.Labels, []string{"CPU/iteration"}) {
		t.Errorf("why %+v should say a regression in CPU/iteration stopped the job", s.Why)
	}
	f, _ := finding(v, cpu)
	if f.DecidedAt != s.Blocks || !(f.Lower > 0) || !(f.Estimate > 15 && f.Estimate < 35) || !(f.Upper > f.Estimate) ||
		f.Worse != f.Estimate || f.Change != f.Estimate || f.Floor != 5 || f.FloorSource != FromMinEffect || f.Test != stats.TestSequential {
		t.Errorf("CPU finding %+v: want the estimate near +25 %% inside positive bounds, decided at %d pairs, threshold 5 %%", f, s.Blocks)
	}
	if f.Look == nil || f.Look.Dec.Reason != stats.ReasonBeyond || f.Look.Dec.Blocks != s.Blocks {
		t.Errorf("look %+v", f.Look)
	}
	if len(v.Detect) != len(seqMetrics) {
		t.Fatalf("detect %+v, want one per gated metric", v.Detect)
	}
	for _, d := range v.Detect {
		lo, hi := 2.5, 12.0 // percent, above half of min_effect (the rule's mean)
		if d.Key == result.RequestErrorPct {
			lo, hi = 0.5, 0.7 // pp: no spread, so just above half of the 1 pp min_effect
		}
		if !d.Possible || d.Method != stats.MethodSequential || d.N != 20 || !(d.Effect >= lo) || d.Effect > hi {
			t.Errorf("detect %+v: want a figure of %g–%g within 20 pairs", d, lo, hi)
		}
	}
	// The pairs after the decision change nothing: the verdict depends on
	// the pairs, and a metric keeps its first decision.
	again := JudgeSequential(base[:s.Blocks], head[:s.Blocks], Policy{Metrics: seqMetrics}, stats.SeqDesign{}, false, SeqOptions{})
	if g, _ := finding(again, cpu); g.Estimate != f.Estimate || g.Outcome != f.Outcome {
		t.Errorf("judged again: %+v, want %+v", g, f)
	}
}

// Unchanged code on quiet pairs passes once every gated metric is
// confidently below its min_effect; before that the job goes on, every
// metric "undecided so far" and nothing priced.
func TestSequentialPassAndUndecided(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(52, 1)), 20, 0.01, 1)
	p := Policy{Metrics: seqMetrics}
	v := JudgeSequential(base[:2], head[:2], p, stats.SeqDesign{}, false, SeqOptions{})
	if v.Sequential.Done || v.Outcome != Inconclusive || len(v.Detect) != 0 {
		t.Fatalf("2 pairs: %+v; want not done, inconclusive so far, nothing priced", v.Sequential)
	}
	for _, key := range seqMetrics {
		if f, _ := finding(v, key); f.Outcome != Undecided || f.DecidedAt != 0 {
			t.Errorf("2 pairs, %s: %s decided at %d; want undecided", key, f.Outcome, f.DecidedAt)
		}
	}
	v = judgeLoop(base, head, p, stats.SeqDesign{})
	if v.Outcome != Pass || !v.Sequential.Done || v.Sequential.Blocks == 20 || v.Sequential.Why.Stop != StopDecided || v.Sequential.Why.Missing != nil {
		t.Fatalf("A/A at CV 1 %%: %s, %+v; want a pass before the budget", v.Outcome, v.Sequential)
	}
	for _, key := range seqMetrics {
		f, _ := finding(v, key)
		if f.Outcome != MetricPass && f.Outcome != WithinMinEffect && f.Outcome != Improvement {
			t.Errorf("%s: %s, want a passing outcome", key, f.Outcome)
		}
		if !(f.Upper < f.Floor) {
			t.Errorf("%s: upper bound %.2f not below min_effect %.2f", key, f.Upper, f.Floor)
		}
	}
	// Errors at 0 % in every pair: no spread, decided at the first look.
	if f, _ := finding(v, result.RequestErrorPct); f.DecidedAt != 4 || f.Floor != 1 || f.Worse != 0 {
		t.Errorf("request errors always 0: %+v; want a pass at 4 pairs against 1 pp", f)
	}
}

// A real change of half of min_effect or less passes as "changed, within
// min_effect" where the look that passes it also excludes no change (here
// a first look at 8 blocks: at 4 the bounds are too wide for both, and the
// upper bound passes it before the lower one clears 0); a configured
// min_effect replaces the default.
func TestSequentialWithinMinEffect(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(53, 1)), 20, 0.002, 1.02)
	p, d := Policy{Metrics: []string{cpu}}, stats.SeqDesign{MinBlocks: 8}
	v := judgeLoop(base, head, p, d)
	if f, _ := finding(v, cpu); f.Outcome != WithinMinEffect || v.Outcome != Pass || !(f.Lower > 0) {
		t.Errorf("+2 %% at CV 0.2 %%: %s (%+v), want changed within min_effect and a pass", f.Outcome, f)
	}
	p.MinEffect = map[string]float64{cpu: 1}
	v = judgeLoop(base, head, p, d)
	if f, _ := finding(v, cpu); v.Outcome != Regression || f.Floor != 1 {
		t.Errorf("+2 %% with min_effect 1 %%: %s, floor %v; want a regression against 1 %%", v.Outcome, f.Floor)
	}
}

// Noisy pairs that never decide end inconclusive at the budget, saying how
// many more pairs would likely decide; a job cut short (final) before the
// budget ends there too.
func TestSequentialInconclusiveAtTheBudget(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(59, 1)), 12, 0.10, 1)
	p, d := Policy{Metrics: []string{cpu}}, stats.SeqDesign{MaxBlocks: 12}
	v := judgeLoop(base, head, p, d)
	f, _ := finding(v, cpu)
	if v.Outcome != Inconclusive || f.Outcome != MetricInconclusive || v.Sequential.Blocks != 12 || v.Sequential.Why.Stop != StopBudget {
		t.Fatalf("A/A at CV 10 %%, 12 pairs: %s/%s, %+v; want inconclusive at the budget", v.Outcome, f.Outcome, v.Sequential)
	}
	if v.Sequential.MoreBlocks < 1 || v.Sequential.MoreBlocks > 36 || f.Look.MaxBlocks != 12 || f.Look.Dec.MoreBlocks != v.Sequential.MoreBlocks {
		t.Errorf("more pairs %d, look %+v: want practical advice (at most three budgets)", v.Sequential.MoreBlocks, f.Look)
	}
	// An estimate close to half of min_effect (+2.7 %), where the
	// regression rule's mean lies, would at this spread need more than
	// three budgets more: no number is promised, and the reason says so.
	nb, nh := cpuPairs(rand.New(rand.NewPCG(91, 1)), 12, 0.10, 1)
	far := judgeLoop(nb, nh, p, d)
	if ff, _ := finding(far, cpu); far.Sequential.MoreBlocks != 0 || practical(ff.Look.Dec.MoreBlocks, 12) || ff.Look.Dec.Reason == stats.ReasonBudgetAtThreshold ||
		!slices.Equal(far.Sequential.Why.Hopeless, []string{"CPU/iteration"}) {
		t.Errorf("near half of min_effect: more %d, look %+v, why %+v; want no number promised", far.Sequential.MoreBlocks, ff.Look, far.Sequential.Why)
	}
	cut := JudgeSequential(base[:7], head[:7], p, d, true, SeqOptions{})
	if !cut.Sequential.Done || cut.Outcome == Pass || cut.Sequential.Why.Stop != StopFinal || cut.Sequential.Blocks != 7 {
		t.Errorf("final after 7 of 12: %s, %+v", cut.Outcome, cut.Sequential)
	}
	few := JudgeSequential(base[:2], head[:2], p, d, true, SeqOptions{})
	if f, _ := finding(few, cpu); !few.Sequential.Done || f.Outcome != MetricInconclusive || few.Sequential.MoreBlocks != 2 {
		t.Errorf("final after 2 pairs: %+v, %s; want inconclusive, 2 more pairs to the first look", few.Sequential, f.Outcome)
	}
}

// A metric the load fixes is reported "set by the load": never gated,
// never in Detect, not in K, and requests/s does not stand in for it.
func TestSetByLoad(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(55, 1))
	base, head := cpuPairs(rng, 20, 0.01, 1)
	for _, runs := range [][]result.Run{base, head} {
		for i := range runs {
			runs[i].Metrics[tput] = 30
			runs[i].Metrics[result.RequestsPerSec] = 120
			runs[i].SetByLoad = []string{tput, result.RequestsPerSec}
		}
	}
	v := judgeLoop(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{})
	for _, key := range []string{tput, result.RequestsPerSec} {
		f, _ := finding(v, key)
		if f.Gated || f.Outcome != SetByLoad || !strings.Contains(f.Note, "set by the load") {
			t.Errorf("sequential %s: %+v; want set by the load, not gated", key, f)
		}
	}
	if slices.ContainsFunc(v.Detect, func(d Detectable) bool { return d.Key == tput || d.Key == result.RequestsPerSec }) {
		t.Errorf("detect lists a metric set by the load: %+v", v.Detect)
	}
	// Fixed samples: no gate, no claim, no substitution, not in K.
	fixed := Judge(base[:10], head[:5], Policy{BaselineJobs: 2})
	if f, _ := finding(fixed, tput); f.Gated || f.Outcome != SetByLoad || !math.IsNaN(f.P) || !math.IsNaN(f.Floor) {
		t.Errorf("fixed samples, iterations/s: %+v", f)
	}
	if f, _ := finding(fixed, result.RequestsPerSec); f.Gated || f.Outcome != SetByLoad {
		t.Errorf("fixed samples, requests/s stood in for the throughput: %+v", f)
	}
	if len(fixed.Detect) == 0 || slices.ContainsFunc(fixed.Detect, func(d Detectable) bool { return d.Key == tput || d.Key == result.RequestsPerSec }) {
		t.Errorf("fixed-sample detect: %+v", fixed.Detect)
	}
	// Only head runs say so (a stored baseline keeps no SetByLoad): any
	// run's word counts.
	stored := slices.Clone(base[:10])
	for i := range stored {
		stored[i].SetByLoad = nil
	}
	if f, _ := finding(Judge(stored, head[:5], Policy{}), tput); f.Outcome != SetByLoad {
		t.Errorf("set by the load in the head runs only: %s", f.Outcome)
	}
}

// A gated metric missing from some pair is inconclusive, its note naming
// the pair, and not "one-sided" (sequential_missing_test.go has the rest
// of that contract); a design that cannot be used ends the job at once.
func TestSequentialMissingMetricAndBadDesign(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(56, 1)), 8, 0.01, 1)
	delete(head[3].Metrics, cpu)
	v := JudgeSequential(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{}, false, SeqOptions{})
	if f, _ := finding(v, cpu); f.Outcome != MetricInconclusive || !f.Look.Cut || !slices.Equal(f.Look.Gaps.Head, []int{4}) {
		t.Errorf("CPU missing from pair 4: %+v", f)
	}
	if v.HasWarning(WarnOneSided) {
		t.Errorf("a metric on both sides but not in every pair was called one-sided: %v", v.Warnings)
	}
	bad := JudgeSequential(base, head, Policy{Metrics: seqMetrics}, stats.SeqDesign{MinBlocks: 2}, false, SeqOptions{})
	if !bad.Sequential.Done || bad.Outcome != Inconclusive || !bad.HasWarning(WarnBadDesign) {
		t.Errorf("a design with 2 pairs at the first look: %+v %v", bad.Sequential, bad.Warnings)
	}
	none := JudgeSequential(nil, nil, Policy{}, stats.SeqDesign{}, false, SeqOptions{})
	if none.Sequential.Done || none.Outcome != Inconclusive {
		t.Errorf("no pairs yet: %+v", none.Sequential)
	}
}

// Every metric can be gated sequentially: each has a default min_effect,
// and every default floor's metric is in the catalogue.
func TestEveryMetricHasADefaultMinEffect(t *testing.T) {
	t.Parallel()
	for _, m := range result.Metrics {
		if v, ok := DefaultMinEffect[m.Key]; !ok || !(v > 0) {
			t.Errorf("%s: default min_effect %v", m.Key, v)
		}
	}
	for key := range DefaultFloors {
		if _, ok := result.Lookup(key); !ok {
			t.Errorf("default floor for unknown metric %q", key)
		}
	}
	if len(DefaultMinEffect) != len(result.Metrics) {
		t.Errorf("%d default min_effects for %d metrics", len(DefaultMinEffect), len(result.Metrics))
	}
}

// A count that is 0 in some unit is a measurement, not an error: the note
// says it was not compared as a ratio, in the job's unit; other errors keep
// their text.
func TestCannotCompareNote(t *testing.T) {
	t.Parallel()
	_, err := stats.PairDifferences([]float64{0, 2}, []float64{1, 2}, stats.Ratio, stats.HigherIsWorse)
	if err == nil {
		t.Fatal("PairDifferences took a 0 on the log scale")
	}
	if got, want := cannotCompareNote(err), "not compared: 0 in some blocks, where a ratio has no meaning"; got != want {
		t.Errorf("zero: got %q, want %q", got, want)
	}
	_, err = stats.PairDifferences([]float64{-1, 2}, []float64{1, 2}, stats.Ratio, stats.HigherIsWorse)
	if got := cannotCompareNote(err); !strings.HasPrefix(got, "cannot compare: head: value -1") {
		t.Errorf("negative: got %q", got)
	}
}

// Gates answers before any look what the verdict will gate, as far as the
// policy names it: an A/B job reads it before its first block (whether a
// closed phase's throughput ratio counts in its probe, runner/duet.go).
func TestPolicyGatesWhatItNames(t *testing.T) {
	if !(Policy{}).Gates(result.IterationsPerSec) || !(Policy{}).Gates(result.CPUPerIteration) || (Policy{}).Gates(result.RequestsPerSec) {
		t.Error("the default policy: want iterations/s and CPU per iteration gated, requests/s not")
	}
	if p := (Policy{Metrics: []string{result.CPUPerIteration}}); p.Gates(result.IterationsPerSec) || !p.Gates(result.CPUPerIteration) {
		t.Error("gate.metrics [cpu_ms_per_iteration]: want iterations/s not gated, CPU per iteration gated")
	}
}

// Rates at 0 on both sides through the first look cannot regress (their
// pass is kept): they take no share of α, so CPU is judged as one of the
// metrics that can, its lower bound that of a job gating CPU and
// throughput alone. Rates that differ before the first look count; a rate
// that rises only after it changes nothing; nor does a count decided
// exactly. The upper bound (β) never depends on K.
func TestInertMetricsTakeNoShareOfAlpha(t *testing.T) {
	t.Parallel()
	base, head := cpuPairs(rand.New(rand.NewPCG(53, 1)), 5, 0.03, 1.04)
	rates := []string{result.RequestErrorPct, result.LifecycleSuccess}
	withRates := func(runs []result.Run, errors ...float64) []result.Run {
		out := make([]result.Run, len(runs))
		for i, r := range runs {
			out[i] = run(map[string]float64{cpu: r.Metrics[cpu], tput: r.Metrics[tput], result.RequestErrorPct: errors[i], result.LifecycleSuccess: 100})
		}
		return out
	}
	judge := func(metrics []string, base, head []result.Run, n int) (Finding, Verdict) {
		v := JudgeSequential(base[:n], head[:n], Policy{Metrics: metrics}, stats.SeqDesign{}, false, SeqOptions{})
		f, _ := finding(v, cpu)
		return f, v
	}
	zeros := []float64{0, 0, 0, 0, 0}
	for _, n := range []int{4, 5} { // the first look, and one after it
		alone, _ := judge([]string{cpu, tput}, base, head, n)
		inert, v := judge(append([]string{cpu, tput}, rates...), withRates(base, zeros...), withRates(head, zeros...), n)
		if inert.Lower != alone.Lower || inert.Upper != alone.Upper || math.IsNaN(alone.Lower) {
			t.Errorf("%d pairs, rates at 0: CPU bounds [%g, %g], want those of CPU and throughput alone [%g, %g]", n, inert.Lower, inert.Upper, alone.Lower, alone.Upper)
		}
		for _, key := range rates {
			if f, _ := finding(v, key); f.Outcome != MetricPass || f.DecidedAt != 4 {
				t.Errorf("%d pairs, %s at 0: %s decided at %d, want a pass at the first look", n, key, f.Outcome, f.DecidedAt)
			}
		}
		// Errors that differ in the second pair: a test that can reject.
		counted, _ := judge(append([]string{cpu, tput}, rates...), withRates(base, zeros...), withRates(head, 0, 0.5, 0, 0, 0), n)
		if !(counted.Lower < alone.Lower) || counted.Upper != alone.Upper {
			t.Errorf("%d pairs, errors differing: CPU bounds [%g, %g], want a lower bound below %g (one of 3) and the upper %g", n, counted.Lower, counted.Upper, alone.Lower, alone.Upper)
		}
	}
	// Errors rising after the first look: the pass is kept and K with it.
	late, v := judge(append([]string{cpu, tput}, rates...), withRates(base, zeros...), withRates(head, 0, 0, 0, 0, 3), 5)
	alone, _ := judge([]string{cpu, tput}, base, head, 5)
	if f, _ := finding(v, result.RequestErrorPct); late.Lower != alone.Lower || f.Outcome != MetricPass || f.DecidedAt != 4 {
		t.Errorf("errors rising at pair 5: CPU lower bound %g (want %g), errors %s at %d (want the first look's pass)", late.Lower, alone.Lower, f.Outcome, f.DecidedAt)
	}
	// A counter's count per iteration alike on both sides (pg_stat_statements
	// calls): decided exactly, it takes no share either.
	cb, ch := withRates(base, zeros...), withRates(head, zeros...)
	rng := rand.New(rand.NewPCG(53, 2))
	withCalls(rng, cb, 53)
	withCalls(rng, ch, 53)
	if exact, _ := judge([]string{cpu, tput, calls}, cb, ch, 5); exact.Lower != alone.Lower {
		t.Errorf("an exact count beside CPU: CPU's lower bound %g, want that of CPU and throughput alone (%g)", exact.Lower, alone.Lower)
	}
}
