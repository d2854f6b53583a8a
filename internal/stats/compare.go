package stats

import (
	"errors"
	"fmt"
	"math"

	"github.com/tailgate-ci/tailgate/internal/plural"
)

// Test names, as reports print them.
const (
	TestExact       = "mann-whitney exact"
	TestApprox      = "mann-whitney (normal approx.)"
	TestZ           = "z-test (calibrated σ)"
	TestTPrediction = "t prediction (low confidence)"
	TestSignedRank  = "wilcoxon signed-rank exact (pairs)"
	TestSequential  = "sequential t (pairs)" // SeqDesign's repeated confidence bounds
)

// FloorRule says where the floor of an unpaired comparison comes from
// (paired samples carry their own): FloorFixed is Input.FixedFloor (NaN
// for none), FloorCalibrated t(1−α/K, df)·SE under Input.Noise (df its
// calibration's), FloorSpread t(1−α/K, n+m−2)·σ̂·sqrt(c_n/n + c_m/m) with
// σ̂ pooled within the sides.
type FloorRule int

const (
	FloorFixed FloorRule = iota
	FloorCalibrated
	FloorSpread
)

// Input is what the caller has for one metric: the raw samples, how they
// were taken, and the question asked of them. Floors are on the
// comparison scale.
type Input struct {
	Head, Base []float64
	Direction  Direction
	Scale      Scale
	// Paired: Head[i] and Base[i] are a pair (A/B runs in ABBA order),
	// judged on their differences when the signed-rank test can reach α.
	Paired bool
	Noise  *Noise // calibrated; nil for none (then no z-test)
	// BaseJobs is S_b, the jobs Base comes from (< 1 counts as 1);
	// SameJob: both sides ran in one job, so the between-job noise cancels.
	BaseJobs int
	SameJob  bool
	// Alpha is the one-sided level, shared by K gated metrics (floors use α/K).
	Alpha float64
	K     int
	// Floor is an unpaired comparison's floor rule, FixedFloor FloorFixed's
	// value; LeastFloor the least floor measured noise may set (a short
	// benchmark's resolution), MinEffect the least floor of any rule.
	Floor                             FloorRule
	FixedFloor, LeastFloor, MinEffect float64
	Detect                            bool // asks for the smallest regression detected
}

// Comparison is what Compare found. Effects and floors are on the
// comparison scale, oriented so that bigger is worse.
type Comparison struct {
	Test string // the test behind the p-values; "" when none ran
	// Effect is what the test judged: d·ln(median(head)/median(base)) for
	// Ratio, d·(median(head) − median(base)) for Points, the pairs' median
	// difference for the signed-rank test; PairEffect that median for any
	// paired samples (NaN otherwise).
	Effect, PairEffect float64
	// PWorse and PBetter are the one-sided p-values of "head is worse"
	// and "better"; NaN when no test ran. Floor is NaN without one.
	PWorse, PBetter, Floor float64
	Detectable             Detectable // when Input.Detect asked
	Warnings               []Warning  // what limits the comparison
}

// Detectable is the smallest regression detected with 80 % probability.
type Detectable struct {
	Effect   float64 // on the comparison scale; NaN unless Possible
	Method   string  // MethodFormula, MethodMonteCarlo or MethodPairs
	Possible bool
	Note     string // why it is not possible
}

// Methods of the detectable effect.
const (
	MethodFormula    = "formula"
	MethodMonteCarlo = "monte carlo"
	MethodPairs      = "formula (pairs)"
	MethodSequential = "sequential (pairs)" // SeqDesign.Detectable: within the pair budget
)

// Settings of the Monte Carlo MDE, used where the closed form is optimistic.
const (
	monteCarloMaxRuns = 10 // n+m at or below which the MDE is simulated
	monteCarloTrials  = 1000
	monteCarloSeed    = 20261129
	maxShiftNoises    = 20 // the largest simulated effect, in standard errors beyond the floor
)

// Compare judges head against base as the samples allow (stats.md §6.4):
// pairs by the exact signed-rank test when it can reach α; else the U-test
// when it can reach α, else the z-test with calibrated noise, else a t
// prediction test when a side has two values, else none. It returns effect,
// p-values, floor, warnings and, when asked, the detectable effect; what
// they mean is the caller's policy.
func Compare(in Input) Comparison {
	c := Comparison{Effect: math.NaN(), PairEffect: math.NaN(), PWorse: math.NaN(), PBetter: math.NaN(), Floor: in.floor()}
	if d, err := PairDifferences(in.Head, in.Base, in.Scale, in.Direction); in.Paired && err == nil {
		c.PairEffect = Median(d)
	}
	in.test(&c)
	if in.floorBelowNoise(c.Floor) {
		c.Warnings = append(c.Warnings, Warn(WarnFloorBelowNoise, "the floor is below the run-to-run noise these samples show"))
	}
	if in.Detect {
		c.Detectable = in.detect(c.Floor)
	}
	return c
}

// Tested reports whether a test ran.
func (c Comparison) Tested() bool {
	return !HasWarning(c.Warnings, WarnCannotCompare) && !HasWarning(c.Warnings, WarnTooFewSamples)
}

// ReportedP is the one-sided p in the direction the evidence points: the
// significant one at alpha, else the one the effect leans to.
func (c Comparison) ReportedP(alpha float64) float64 {
	switch {
	case c.PWorse <= alpha:
		return c.PWorse
	case c.PBetter <= alpha:
		return c.PBetter
	case c.Effect > 0:
		return c.PWorse
	default:
		return c.PBetter
	}
}

// test picks and runs the test, filling c's test, effect and p-values.
func (in Input) test(c *Comparison) {
	hs, err := in.Scale.Values(in.Head)
	if err != nil {
		c.cannot(fmt.Errorf("head: %w", err))
		return
	}
	bs, err := in.Scale.Values(in.Base)
	if err != nil {
		c.cannot(fmt.Errorf("baseline: %w", err))
		return
	}
	n, m, alpha := len(in.Head), len(in.Base), in.Alpha
	if in.Paired && math.Ldexp(1, -n) <= alpha { // the pairs' median difference, by the exact signed-rank test
		d, err := PairDifferences(in.Head, in.Base, in.Scale, in.Direction)
		if err == nil {
			c.Effect, c.Test = Median(d), TestSignedRank
			c.PWorse, c.PBetter, err = SignedRankTest(d)
		}
		if err != nil {
			c.cannot(err)
		}
		return
	}
	c.Effect = in.effect(in.Head, in.Base)
	c.PWorse, c.Test, err = in.oneSided(in.Head, in.Base, hs, bs, in.Direction)
	if err == nil {
		c.PBetter, _, err = in.oneSided(in.Head, in.Base, hs, bs, -in.Direction)
	}
	switch {
	case c.Test == TestTPrediction:
		c.Warnings = append(c.Warnings, Warn(WarnLowConfidence, "low confidence: t prediction test on few samples"))
	case c.Test == "" && err == nil:
		c.Warnings = append(c.Warnings, Warn(WarnTooFewSamples, needRuns(m, alpha)))
	}
	if err != nil {
		c.cannot(err)
	}
}

// oneSided is the p of "head is worse in direction d" by Compare's unpaired
// order of tests (hs, bs on the comparison scale); test "", p NaN: none ran.
func (in Input) oneSided(head, base, hs, bs []float64, d Direction) (p float64, test string, err error) {
	n, m := len(head), len(base)
	switch {
	case MinP(n, m) <= in.Alpha:
		r, err := UTest(head, base, d)
		switch {
		case err != nil:
			return math.NaN(), "", err
		case r.Exact:
			return r.P, TestExact, nil
		}
		return r.P, TestApprox, nil
	case in.Noise != nil:
		p, err = ZTest(hs, bs, d, *in.Noise, in.BaseJobs, in.SameJob)
		return p, TestZ, err
	case n >= 2 || m >= 2:
		p, err = TPrediction(hs, bs, d)
		return p, TestTPrediction, err
	}
	return math.NaN(), "", nil
}

// cannot records that the values could not be compared.
func (c *Comparison) cannot(err error) {
	c.PWorse, c.PBetter = math.NaN(), math.NaN()
	c.Warnings = append(c.Warnings, Warn(WarnCannotCompare, "cannot compare: "+err.Error()))
}

// effect is w = d·ln(median(head)/median(base)) for Ratio metrics and
// d·(median(head) − median(base)) for Points (stats.md §6.2, §6.7).
func (in Input) effect(head, base []float64) float64 {
	d := in.Direction.Sign()
	if in.Scale == Points {
		return d * (Median(head) - Median(base))
	}
	return d * math.Log(Median(head)/Median(base))
}

// PairDifferences are the differences of pairs (head[k], base[k]) on the
// comparison scale s, bigger is worse: d_k = dir·(s(head_k) − s(base_k)).
// It fails when the sides differ in length or a value does not fit s.
func PairDifferences(head, base []float64, s Scale, dir Direction) ([]float64, error) {
	if len(head) != len(base) {
		return nil, errors.New("pairs need as many head as base values")
	}
	hs, err := s.Values(head)
	if err != nil {
		return nil, fmt.Errorf("head: %w", err)
	}
	bs, err := s.Values(base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	d := make([]float64, len(hs))
	for i := range hs {
		d[i] = dir.Sign() * (hs[i] - bs[i])
	}
	return d, nil
}

func needRuns(m int, alpha float64) string {
	if n := RunsNeeded(m, alpha); n > 0 {
		return fmt.Sprintf("too few samples: need ≥ %d head runs against %s (or calibrate the noise)", n, plural.Count(m, "baseline sample", "baseline samples"))
	}
	return "too few samples for any test (calibrate the noise)"
}
