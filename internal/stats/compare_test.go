package stats

import (
	"math"
	"strings"
	"testing"
)

// throughput is a lower-is-worse ratio metric's input with α = 0.05.
func throughput(head, base []float64) Input {
	return Input{Head: head, Base: base, Direction: LowerIsWorse, Scale: Ratio, Alpha: 0.05, K: 1, FixedFloor: ToScale(Ratio, LowerIsWorse, 6.7)}
}

func seq(n int, from, step float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = from + step*float64(i)
	}
	return out
}

// Compare picks the test the samples allow, in the order of stats.md §6.4.
func TestCompareSelectsTheTest(t *testing.T) {
	t.Parallel()
	nz := &Noise{SigmaW: 0.03, SigmaB: 0.01, Jobs: 10, Runs: 5}
	for _, tt := range []struct {
		name   string
		in     Input
		test   string
		tested bool
		warn   WarningCode
	}{
		// 1/C(20,1) = 0.05: the exact test can just reach α.
		{"1 vs 19", throughput([]float64{80}, seq(19, 100, 1)), TestExact, true, ""},
		// 1/C(19,1) > α and no noise: the t prediction test, flagged.
		{"1 vs 18", throughput([]float64{80}, seq(18, 100, 1)), TestTPrediction, true, WarnLowConfidence},
		// The calibrated z-test stands in where the rank test cannot reach α.
		{"1 vs 1 calibrated", func() Input { in := throughput([]float64{70}, []float64{100}); in.Noise = nz; return in }(), TestZ, true, ""},
		// Nothing can judge one value against one without noise.
		{"1 vs 1", throughput([]float64{70}, []float64{100}), "", false, WarnTooFewSamples},
		// 2⁻⁵ ≤ α: five pairs go to the signed-rank test.
		{"5 pairs", func() Input { in := throughput(seq(5, 90, 1), seq(5, 100, 1)); in.Paired = true; return in }(), TestSignedRank, true, ""},
		// 2⁻⁴ > α: four pairs cannot reach α on their signs; the U-test can.
		{"4 pairs", func() Input { in := throughput(seq(4, 90, 1), seq(4, 100, 1)); in.Paired = true; return in }(), TestExact, true, ""},
		// A zero throughput has no logarithm.
		{"bad values", throughput([]float64{100, 0, 100}, seq(3, 100, 1)), "", false, WarnCannotCompare},
	} {
		c := Compare(tt.in)
		if c.Test != tt.test || c.Tested() != tt.tested || (tt.warn != "" && !HasWarning(c.Warnings, tt.warn)) {
			t.Errorf("%s: test %q tested %v warnings %v; want %q, %v, %q", tt.name, c.Test, c.Tested(), c.Warnings, tt.test, tt.tested, tt.warn)
		}
		if c.Tested() == math.IsNaN(c.PWorse) {
			t.Errorf("%s: tested %v but p(worse) = %v", tt.name, c.Tested(), c.PWorse)
		}
	}
}

func TestCompareEffectAndPValues(t *testing.T) {
	t.Parallel()
	c := Compare(throughput([]float64{80}, seq(19, 100, 1)))
	// The head is below every base value: p(worse) is the least the exact
	// test can reach, and the effect is −ln(80/109).
	if c.PWorse != 0.05 || c.PBetter != 1 || math.Abs(c.Effect-math.Log(109.0/80)) > 1e-12 {
		t.Errorf("p %v / %v, effect %v", c.PWorse, c.PBetter, c.Effect)
	}
	if got := c.ReportedP(0.05); got != c.PWorse {
		t.Errorf("ReportedP = %v, want p(worse) %v", got, c.PWorse)
	}
	// Rates compare in percentage points.
	rate := Compare(Input{Head: []float64{5, 5, 5, 5, 5}, Base: make([]float64, 30), Direction: HigherIsWorse, Scale: Points, Alpha: 0.05, K: 1, FixedFloor: 1})
	if rate.Effect != 5 || rate.PWorse > 0.05 || rate.Floor != 1 {
		t.Errorf("0 → 5 %%: effect %v pp, p %v, floor %v; want 5, significant, 1", rate.Effect, rate.PWorse, rate.Floor)
	}
	pairs := throughput(seq(5, 90, 1), seq(5, 100, 1))
	pairs.Paired = true
	if c := Compare(pairs); math.Abs(c.PairEffect-c.Effect) > 1e-15 || !(c.PairEffect > 0) {
		t.Errorf("pairs: effect %v, pair effect %v; want the same positive median difference", c.Effect, c.PairEffect)
	}
}

func TestCompareFloorRules(t *testing.T) {
	t.Parallel()
	head, base := seq(5, 90, 0.5), seq(10, 100, 0.5)
	fixed := throughput(head, base)
	if c := Compare(fixed); c.Floor != fixed.FixedFloor {
		t.Errorf("fixed floor %v, want %v", c.Floor, fixed.FixedFloor)
	}
	fixed.MinEffect = 0.5
	if c := Compare(fixed); c.Floor != 0.5 {
		t.Errorf("min effect: floor %v, want 0.5", c.Floor)
	}
	cal := throughput(head, base)
	cal.Floor, cal.Noise, cal.LeastFloor = FloorCalibrated, &Noise{}, 0.01
	if c := Compare(cal); c.Floor != 0.01 {
		t.Errorf("a calibration without noise: floor %v, want the least floor 0.01", c.Floor)
	}
	cal.Noise = &Noise{SigmaW: 0.05, SigmaB: 0.02}
	if c, want := Compare(cal), CalibratedFloor(*cal.Noise, 5, 10, 0, false, 0.05, 1, 0.01); c.Floor != want {
		t.Errorf("calibrated floor %v, want CalibratedFloor's %v", c.Floor, want)
	}
	spread := throughput([]float64{90}, []float64{100})
	spread.Floor = FloorSpread
	if c := Compare(spread); !math.IsInf(c.Floor, 1) {
		t.Errorf("a spread floor without a spread: %v, want +Inf", c.Floor)
	}
}

// An uncalibrated floor smaller than the noise the samples show is called
// out: it would cry wolf.
func TestCompareWarnsOfAFloorBelowTheNoise(t *testing.T) {
	t.Parallel()
	noisy := throughput([]float64{80, 120, 70, 130, 100}, []float64{75, 125, 90, 110, 100})
	noisy.FixedFloor = ToScale(Ratio, LowerIsWorse, 1)
	if c := Compare(noisy); !HasWarning(c.Warnings, WarnFloorBelowNoise) {
		t.Errorf("a 1 %% floor on ±25 %% runs: warnings %v", c.Warnings)
	}
	noisy.FixedFloor = ToScale(Ratio, LowerIsWorse, 60)
	if c := Compare(noisy); HasWarning(c.Warnings, WarnFloorBelowNoise) {
		t.Errorf("a 60 %% floor: warnings %v", c.Warnings)
	}
}

func TestCompareDetectable(t *testing.T) {
	t.Parallel()
	small := throughput(seq(3, 100, 1), seq(5, 100, 1))
	small.Detect = true
	if d := Compare(small).Detectable; d.Method != MethodMonteCarlo || !d.Possible || !(d.Effect > small.FixedFloor) {
		t.Errorf("3 vs 5 runs: %+v; want a simulated effect beyond the floor", d)
	}
	large := throughput(seq(10, 100, 1), seq(30, 100, 1))
	large.Detect = true
	if d := Compare(large).Detectable; d.Method != MethodFormula || !d.Possible {
		t.Errorf("10 vs 30 runs: %+v; want the formula", d)
	}
	pairs := throughput(seq(8, 100, 1), seq(8, 100, 1.1))
	pairs.Paired, pairs.Detect = true, true
	if d := Compare(pairs).Detectable; d.Method != MethodPairs || !d.Possible {
		t.Errorf("8 pairs: %+v", d)
	}
	one := throughput([]float64{100}, []float64{100})
	one.Detect = true
	if d := Compare(one).Detectable; d.Possible || !strings.Contains(d.Note, "need ≥ 19 head runs") {
		t.Errorf("1 vs 1: %+v; want impossible, with advice", d)
	}
	if d := Compare(throughput(seq(3, 100, 1), seq(5, 100, 1))).Detectable; d.Method != "" {
		t.Errorf("not asked for, the detectable effect was computed: %+v", d)
	}
}

func TestScaleConversionsInvert(t *testing.T) {
	t.Parallel()
	for _, s := range []Scale{Ratio, Points} {
		for _, d := range []Direction{LowerIsWorse, HigherIsWorse} {
			for _, x := range []float64{0, 1, 6.7, 51, 90} {
				if got := FromScale(s, d, ToScale(s, d, x)); math.Abs(got-x) > 1e-9 {
					t.Errorf("scale %d direction %d: %v → %v", s, d, x, got)
				}
			}
		}
	}
	if got := ToScale(Ratio, LowerIsWorse, 100); !math.IsInf(got, 1) {
		t.Errorf("a 100 %% drop is %v on the log scale, want +Inf", got)
	}
}

func TestCV(t *testing.T) {
	t.Parallel()
	if got := CV([]float64{90, 100, 110}); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("CV = %v, want 0.1", got)
	}
	if CV([]float64{5}) != 0 || CV([]float64{-1, 1}) != 0 {
		t.Error("CV of one value or a zero mean should be 0")
	}
}

// A sample without any variation has no noise to size a detectable effect
// from: an open-loop rate that is exactly the offered rate in every run
// must not be claimed as "detects a drop of ≥ 6.7 %", nor a floor measured
// from zero spread. A rate at 0 % in every run, judged by a fixed floor in
// percentage points, keeps its claim: the floor, not the noise, sizes it.
func TestDetectClaimsNothingWithoutVariation(t *testing.T) {
	t.Parallel()
	fixed := func(n int, v float64) []float64 { return seq(n, v, 0) }
	constant := throughput(fixed(5, 30), fixed(30, 30))
	constant.Detect = true
	if d := Compare(constant).Detectable; d.Possible || !strings.Contains(d.Note, "same value") {
		t.Errorf("a throughput at exactly 30/s in every run: %+v, want no claim", d)
	}
	paired := throughput(fixed(8, 30), fixed(8, 30))
	paired.Paired, paired.Detect = true, true
	if d := Compare(paired).Detectable; d.Possible {
		t.Errorf("pairs that never differ: %+v, want no claim", d)
	}
	errs := Input{Head: fixed(5, 0), Base: fixed(30, 0), Direction: HigherIsWorse, Scale: Points, Alpha: 0.05, K: 1, FixedFloor: 1, Detect: true}
	if d := Compare(errs).Detectable; !d.Possible || d.Effect != 1 {
		t.Errorf("errors at 0 %% with a 1 pp floor: %+v, want a claim of 1 pp", d)
	}
	errs.Floor = FloorSpread
	if d := Compare(errs).Detectable; d.Possible {
		t.Errorf("errors at 0 %% with a floor measured from their zero spread: %+v, want no claim", d)
	}
	moving := throughput(seq(5, 29, 0.5), seq(30, 29, 0.1))
	moving.Detect = true
	if d := Compare(moving).Detectable; !d.Possible {
		t.Errorf("a throughput that varies: %+v, want a claim", d)
	}
}
