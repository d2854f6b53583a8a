package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Comparison-scale thresholds of a ratio metric: min_effect 5 %, the 1 %
// resolution of the gate.
var (
	minEffect5 = logPct(0.05)
	resolution = logPct(0.01)
)

func TestSelectDescendingMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(40)) // many ties
			if trial%2 == 0 {
				x[i] = rng.NormFloat64()
			}
		}
		want := slices.Clone(x)
		slices.Sort(want)
		slices.Reverse(want)
		k := rng.IntN(n)
		if got := selectDescending(slices.Clone(x), k); got != want[k] {
			t.Fatalf("rank %d of %v: got %v, want %v", k, x, got, want[k])
		}
		if k >= 1 && k < n {
			c := upperCut(slices.Clone(x), k)
			above := 0
			for _, v := range x {
				if v > c {
					above++
				}
			}
			if want[k-1] != want[k] && above != k {
				t.Fatalf("upperCut(%d) = %v leaves %d values above", k, c, above)
			}
		}
	}
}

// With a single look the calibrated boundary must be Student's t quantile:
// the Monte Carlo reproduces the exact fixed-sample test.
func TestSeqBoundarySingleLookIsStudentT(t *testing.T) {
	for _, c := range []struct {
		n     int
		level float64
	}{{10, 0.05}, {6, 0.05 / 6}, {20, 0.05 / 4}} {
		b := boundaryFor(schedule{min: c.n, max: c.n, every: 1, rho: 1}, c.level)
		want := studentQuantile(1-c.level, c.n-1)
		if got := b.crit[0]; math.Abs(got/want-1) > 0.02 {
			t.Errorf("n %d, level %.4f: calibrated %.4f, Student t %.4f", c.n, c.level, got, want)
		}
		if b.final[0] != b.crit[0] {
			t.Errorf("a single look is also the last: final %v, crit %v", b.final[0], b.crit[0])
		}
	}
}

// The boundary holds its level over all looks when nothing stops the job
// early: P(Lower_n > 0 for some n ≤ 20) = α/K on fresh normal A/A data
// with drift between pairs (4× the run noise), and looking without the
// boundary does not.
func TestSeqBoundaryHoldsLevelAcrossLooks(t *testing.T) {
	d := SeqDesign{}
	w := pairWorld{cv: 0.03, drift: 0.12}
	for _, c := range []struct {
		k    int
		jobs int
	}{{1, 20_000}, {6, 40_000}} {
		level := DefaultSeqAlpha / float64(c.k)
		got := crossingRate(uint64(c.k), c.jobs, d, w, 0, c.k, 1)
		naive := naiveRate(uint64(c.k), c.jobs/4, d, w, level)
		t.Logf("K=%d: lower bound ever above 0 in %.2f %% of %d A/A jobs (level %.2f %%); a fixed-sample t test at that level after every pair: %.1f %%",
			c.k, 100*got, c.jobs, 100*level, 100*naive)
		if got < 0.8*level || got > 1.2*level {
			t.Errorf("K=%d: crossing rate %.3f %%, want %.3f %% ± 20 %%", c.k, 100*got, 100*level)
		}
		if naive < 2*level {
			t.Errorf("K=%d: naive repeated testing %.2f %% should inflate the level %.2f %% (the reason for a boundary)", c.k, 100*naive, 100*level)
		}
	}
}

func TestSeqLookReasons(t *testing.T) {
	d := SeqDesign{}
	around := func(mean, spread float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = mean + spread*float64(1-2*(i%2)) // ±spread, mean exactly when n is even
		}
		return out
	}
	cases := []struct {
		name    string
		diffs   []float64
		final   bool
		outcome SeqOutcome
		reason  SeqReason
	}{
		{"too few", around(0.2, 0.01, 3), false, SeqContinue, ReasonTooFewBlocks},
		{"too few, time is up", around(0.2, 0.01, 3), true, SeqInconclusive, ReasonTooFewBlocks},
		{"20 % worse, quiet", around(0.2, 0.01, 4), false, SeqRegression, ReasonBeyond},
		{"no change, quiet", around(0, 0.005, 4), false, SeqPass, ReasonBelow},
		{"20 % better", around(-0.2, 0.01, 4), false, SeqPass, ReasonImproved},
		{"2 % worse, below min_effect", around(0.02, 0.005, 20), false, SeqPass, ReasonChangedWithin},
		{"unclear at 6", around(0.03, 0.08, 6), false, SeqContinue, ReasonUndecided},
		{"unclear at the budget", around(0.03, 0.08, 20), false, SeqInconclusive, ReasonBudget},
		{"unclear when time is up", around(0.03, 0.08, 10), true, SeqInconclusive, ReasonBudget},
		{"beyond min_effect, unclear at the budget", around(0.055, 0.15, 20), false, SeqInconclusive, ReasonBudget},
		{"at half of min_effect at the budget, very noisy", around(minEffect5/2, 0.3, 20), false, SeqInconclusive, ReasonBudgetAtThreshold},
		{"4.5 % worse, beyond half of min_effect", around(0.045, 0.01, 16), false, SeqRegression, ReasonBeyond},
	}
	for _, c := range cases {
		look := d.Look
		if c.final {
			look = d.Final
		}
		dec, err := look(c.diffs, minEffect5, resolution, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if dec.Outcome != c.outcome || dec.Reason != c.reason {
			t.Errorf("%s: %s (%s), est %.4f [%.4f, %.4f]; want %s (%s)", c.name, dec.Outcome, dec.Reason,
				dec.Estimate, dec.Lower, dec.Upper, c.outcome, c.reason)
		}
		if dec.Blocks != len(c.diffs) || dec.Threshold != minEffect5 {
			t.Errorf("%s: pairs %d, threshold %v", c.name, dec.Blocks, dec.Threshold)
		}
		decided := dec.Outcome != SeqContinue
		if decided != dec.Decided() || (decided && math.IsNaN(dec.Detectable)) {
			t.Errorf("%s: a decided look states what it could detect: %+v", c.name, dec)
		}
		if (dec.Outcome == SeqInconclusive) != (dec.MoreBlocks > 0 || dec.Reason == ReasonBudgetAtThreshold) {
			t.Errorf("%s: more pairs %d with outcome %s (%s)", c.name, dec.MoreBlocks, dec.Outcome, dec.Reason)
		}
		if !math.IsNaN(dec.Lower) && !(dec.Lower <= dec.Estimate && dec.Estimate <= dec.Upper) {
			t.Errorf("%s: estimate %v outside its bounds [%v, %v]", c.name, dec.Estimate, dec.Lower, dec.Upper)
		}
	}
	// The bound rule waits for the lower bound to pass min_effect itself.
	if dec, _ := (SeqDesign{Rule: RuleBoundBeyond}).Look(around(0.045, 0.01, 16), minEffect5, resolution, 1); dec.Outcome != SeqContinue || dec.Reason != ReasonChangedNotBeyond {
		t.Errorf("4.5 %% worse under the bound rule: %s (%s), want continue (%s)", dec.Outcome, dec.Reason, ReasonChangedNotBeyond)
	}
	// Between planned looks the design continues without bounds.
	dec, _ := SeqDesign{Every: 2}.Look(around(0.2, 0.01, 5), minEffect5, resolution, 1)
	if dec.Outcome != SeqContinue || dec.Reason != ReasonBetweenLooks || !math.IsNaN(dec.Lower) {
		t.Errorf("5 pairs with looks at 4, 6, …: %+v", dec)
	}
	// The unclear case at the budget projects a plausible number of pairs.
	dec, _ = d.Look(around(0.03, 0.08, 20), minEffect5, resolution, 1)
	if dec.MoreBlocks < 20 || dec.MoreBlocks > maxPairsAdvice {
		t.Errorf("estimate 3 %% ± 8 %% at 20 pairs: %d more pairs projected", dec.MoreBlocks)
	}
}

// A rate metric that never moves (0 errors everywhere) passes at the first
// look: the spread is floored at the resolution, not taken as zero.
func TestSeqZeroDifferencesPassAtFirstLook(t *testing.T) {
	dec, err := SeqDesign{}.Look(make([]float64, 4), 1, 0.1, 6)
	if err != nil || dec.Outcome != SeqPass || dec.Spread != 0.1 {
		t.Errorf("four pairs of 0 pp: %+v, %v; want a pass with spread 0.1", dec, err)
	}
	// Identical nonzero differences are a clear regression, not a division by zero.
	dec, _ = SeqDesign{}.Look([]float64{2, 2, 2, 2}, 1, 0.1, 6)
	if dec.Outcome != SeqRegression {
		t.Errorf("four pairs of +2 pp: %+v", dec)
	}
}

func TestSeqMirror(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	d := SeqDesign{Beta: DefaultSeqAlpha} // the two bounds at one level
	for range 200 {
		n := 4 + rng.IntN(17)
		x := make([]float64, n)
		for i := range x {
			x[i] = 0.05*rng.NormFloat64() + 0.03*rng.Float64()
		}
		neg := make([]float64, n)
		for i, v := range x {
			neg[i] = -v
		}
		a, _ := d.Look(x, minEffect5, resolution, 1)
		b, _ := d.Look(neg, minEffect5, resolution, 1)
		if math.Abs(a.Lower+b.Upper) > 1e-12 || math.Abs(a.Upper+b.Lower) > 1e-12 {
			t.Fatalf("bounds of −d should mirror those of d: %+v vs %+v", a, b)
		}
	}
}

func TestSeqBadInput(t *testing.T) {
	good := []float64{0.1, 0.2, 0.1, 0.2}
	for name, f := range map[string]func() (SeqDecision, error){
		"NaN difference":       func() (SeqDecision, error) { return SeqDesign{}.Look([]float64{0.1, math.NaN()}, 0.05, 0.01, 1) },
		"beyond the budget":    func() (SeqDecision, error) { return SeqDesign{MaxBlocks: 4}.Look(append(good, 0.1), 0.05, 0.01, 1) },
		"two pairs first look": func() (SeqDecision, error) { return SeqDesign{MinBlocks: 2}.Look(good, 0.05, 0.01, 1) },
		"budget below minimum": func() (SeqDecision, error) { return SeqDesign{MinBlocks: 8, MaxBlocks: 6}.Look(good, 0.05, 0.01, 1) },
		"negative cadence":     func() (SeqDecision, error) { return SeqDesign{Every: -1}.Look(good, 0.05, 0.01, 1) },
		"alpha 1":              func() (SeqDecision, error) { return SeqDesign{Alpha: 1}.Look(good, 0.05, 0.01, 1) },
		"negative min_effect":  func() (SeqDecision, error) { return SeqDesign{}.Look(good, -0.05, 0.01, 1) },
		"no threshold":         func() (SeqDecision, error) { return SeqDesign{}.Look(good, 0, 0, 1) },
		"unknown rule":         func() (SeqDecision, error) { return SeqDesign{Rule: 7}.Look(good, 0.05, 0.01, 1) },
	} {
		if _, err := f(); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	if _, err := (SeqDesign{}).Detectable(math.NaN(), 0.05, 0.01, 1); err == nil {
		t.Error("Detectable with a NaN spread: want an error")
	}
}

func TestCombineSeq(t *testing.T) {
	dec := func(o SeqOutcome) SeqDecision { return SeqDecision{Outcome: o} }
	for _, c := range []struct {
		in   []SeqOutcome
		want SeqOutcome
	}{
		{[]SeqOutcome{SeqPass, SeqPass}, SeqPass},
		{[]SeqOutcome{SeqPass, SeqContinue}, SeqContinue},
		{[]SeqOutcome{SeqContinue, SeqRegression}, SeqRegression},
		{[]SeqOutcome{SeqInconclusive, SeqPass}, SeqInconclusive},
		{[]SeqOutcome{SeqInconclusive, SeqContinue}, SeqContinue},
		{nil, SeqPass},
	} {
		var ds []SeqDecision
		for _, o := range c.in {
			ds = append(ds, dec(o))
		}
		if got := CombineSeq(ds); got != c.want {
			t.Errorf("CombineSeq(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

// The detectable effect the report prints is what the design catches 80 %
// of the time, measured on fresh jobs.
func TestSeqDetectableMatchesSimulation(t *testing.T) {
	d := SeqDesign{}
	for _, cv := range []float64{0.02, 0.05, 0.10} {
		x, err := d.Detectable(math.Sqrt2*cv, minEffect5, resolution, 6)
		if err != nil {
			t.Fatal(err)
		}
		c := gateCase{world: pairWorld{cv: cv, drift: 4 * cv}, effect: x, minEffect: minEffect5, resolution: resolution}
		got := runJobs(31, 3000, d, []gateCase{c}, 6)
		power := got.rate(got.regression)
		t.Logf("run CV %2.0f %%: with up to 20 pairs the gate detects ≥ %.1f %%; simulated: caught %.1f %% of 3000 jobs", 100*cv, 100*math.Expm1(x), 100*power)
		if math.Abs(power-Power) > 0.03 {
			t.Errorf("CV %.0f %%: detectable %.4f caught %.1f %% of jobs, want 80 %% ± 3", 100*cv, x, 100*power)
		}
	}
	// The rule calls a mean beyond half of min_effect: a quiet metric
	// detects less than min_effect, never half of it or less.
	if x, _ := d.Detectable(0, minEffect5, resolution, 6); !(x > minEffect5/2 && x < minEffect5) {
		t.Errorf("a noiseless metric detects between half of min_effect and min_effect: %v", x)
	}
}

// A time budget that stops every job at 10 of 20 pairs, whatever the
// data: planned looks up to 9, then Final's boundary at 10, hold α.
func TestSeqFinalHoldsLevel(t *testing.T) {
	d := SeqDesign{}.WithDefaults()
	low, _ := d.boundaries(1)
	const stop = 10
	got := rejectionRate(41, 20_000, d, pairWorld{cv: 0.03, drift: 0.12}, 0, 1, func(units []float64) bool {
		n := len(units)
		c := low.crit[n-d.MinBlocks]
		if n == stop {
			c = low.final[n-d.MinBlocks]
		}
		return n <= stop && bound(Mean(units), -c, SampleSD(units), n) > 0
	})
	t.Logf("stopped by time at %d of %d pairs: lower bound ever above 0 in %.2f %% of A/A jobs (α 5 %%)", stop, d.MaxBlocks, 100*got)
	if got < 0.85*DefaultSeqAlpha || got > 1.15*DefaultSeqAlpha {
		t.Errorf("time-budget stop: level %.2f %%, want 5 %% ± 15 %%", 100*got)
	}
}

// The calibration is seeded, and only planned looks have a boundary.
func TestSeqDeterministic(t *testing.T) {
	sch := schedule{min: 4, max: 12, every: 2, rho: 1.5}
	a := calibrate(sch, 0.01)
	b := calibrate(sch, 0.01)
	if !slices.Equal(a.crit, b.crit) || !slices.Equal(a.final, b.final) {
		t.Error("calibration is not deterministic")
	}
	for i, c := range a.crit {
		if n := sch.min + i; sch.isLook(n) == math.IsInf(c, 1) {
			t.Errorf("n %d: look %v, critical value %v", n, sch.isLook(n), c)
		}
	}
}

// BenchmarkSeqCalibrate is the one-off cost of a design's boundary at one
// level (a job needs two: α/K and β).
func BenchmarkSeqCalibrate(b *testing.B) {
	sch := SeqDesign{}.WithDefaults().schedule()
	for b.Loop() {
		calibrate(sch, 0.05/6)
	}
}

// BenchmarkSeqLook is a look that decides (Detectable included) on cached
// boundaries.
func BenchmarkSeqLook(b *testing.B) {
	diffs := []float64{0.11, 0.09, 0.13, 0.10, 0.12, 0.08}
	d := SeqDesign{}
	d.Look(diffs, minEffect5, resolution, 6)
	for b.Loop() {
		d.Look(diffs, minEffect5, resolution, 6)
	}
}

// Replay keeps a metric's first decision: it agrees with a caller that
// looked after every pair and stopped looking at the first decision, and
// the final look of a job cut short spends what is left.
func TestSeqReplayKeepsTheFirstDecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 1))
	d := SeqDesign{}.WithDefaults()
	for trial := range 300 {
		effect := []float64{0, logPct(0.05), logPct(0.15)}[trial%3]
		n := 1 + rng.IntN(d.MaxBlocks)
		diffs := make([]float64, n)
		for i := range diffs {
			diffs[i] = effect + 0.04*rng.NormFloat64()
		}
		final := trial%4 == 0
		var want SeqDecision
		for m := 1; m <= n; m++ {
			var err error
			if m == n && final {
				want, err = d.Final(diffs[:m], minEffect5, resolution, 6)
			} else {
				want, err = d.Look(diffs[:m], minEffect5, resolution, 6)
			}
			if err != nil {
				t.Fatal(err)
			}
			if want.Decided() {
				break
			}
		}
		got, err := d.Replay(diffs, minEffect5, resolution, 6, final)
		if err != nil {
			t.Fatal(err)
		}
		if got.Outcome != want.Outcome || got.Reason != want.Reason || got.Blocks != want.Blocks || !sameFloat(got.Lower, want.Lower) {
			t.Fatalf("%d pairs (final %v): Replay %+v, looking pair by pair %+v", n, final, got, want)
		}
		if !math.IsNaN(got.Detectable) {
			t.Fatalf("Replay priced the detectable effect: %+v", got)
		}
	}
	if _, err := d.Replay(make([]float64, d.MaxBlocks+1), minEffect5, resolution, 6, false); err == nil {
		t.Error("Replay accepted more pairs than the budget")
	}
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// A budget that ends with no practical number of pairs likely to decide is
// reached by a noisy estimate far from min_effect too (json-server on a
// loaded machine: +6.9 % against 5 %, bounds −106 % … +40 %): the reason
// blames the spread, not a closeness to min_effect it may not have.
func TestBudgetAtThresholdReasonDoesNotClaimClosenessAlone(t *testing.T) {
	t.Parallel()
	d := SeqDesign{MinBlocks: 4, MaxBlocks: 8}
	diffs := []float64{0.9, -0.8, 0.95, -0.75, 0.85, -0.7}
	dec, err := d.Final(diffs, minEffect5, resolution, 1)
	if err != nil {
		t.Fatal(err)
	}
	if dec.Outcome != SeqInconclusive || dec.MoreBlocks != 0 {
		t.Fatalf("outcome %v, %d more pairs: want inconclusive with no practical number of pairs", dec.Outcome, dec.MoreBlocks)
	}
	if got := dec.Reason.String(); got == "budget spent; the estimate sits at min_effect" {
		t.Errorf("reason %q claims the estimate is at min_effect (estimate %.3f, threshold %.3f)", got, dec.Estimate, dec.Threshold)
	}
}
