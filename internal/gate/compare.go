package gate

import (
	"fmt"
	"math"

	"github.com/tailgate-ci/tailgate/internal/stats"
)

// comparison is the statistical part of a finding.
type comparison struct {
	w       float64 // effect on the comparison scale, bigger is worse
	pWorse  float64
	pBetter float64
	test    string
	note    string
	err     error // the values cannot be compared
	small   bool  // no test can reach α with these sizes
}

// Test names, as reports print them.
const (
	TestExact       = "mann-whitney exact"
	TestApprox      = "mann-whitney (normal approx.)"
	TestZ           = "z-test (calibrated σ)"
	TestTPrediction = "t prediction (low confidence)"
	TestSignedRank  = "wilcoxon signed-rank exact (pairs)"
)

// scale puts raw values on the comparison scale: logs for ratio metrics.
func (pl plan) scale(x []float64) ([]float64, error) {
	if pl.percent() {
		return x, stats.CheckFinite(x)
	}
	return stats.Logs(x)
}

// compare runs the decision tree of stats.md §6.4 on raw values: the exact
// U-test when it can reach α, else the z-test with calibrated noise, else a
// t prediction test when one side has 2 values, else nothing.
func (pl plan) compare(head, base []float64, p Policy) comparison {
	hs, err := pl.scale(head)
	if err != nil {
		return comparison{err: fmt.Errorf("head: %w", err)}
	}
	bs, err := pl.scale(base)
	if err != nil {
		return comparison{err: fmt.Errorf("baseline: %w", err)}
	}
	if pl.paired && math.Ldexp(1, -len(head)) <= p.alpha() {
		return pl.comparePairs(head, base)
	}
	d := pl.direction()
	c := comparison{w: pl.effect(head, base)}
	n, m, alpha := len(head), len(base), p.alpha()
	switch {
	case stats.MinP(n, m) <= alpha:
		c.pWorse, c.pBetter, c.test, c.err = uTests(head, base, d)
	case pl.noise != nil:
		c.test = TestZ
		c.pWorse, c.err = stats.ZTest(hs, bs, d, *pl.noise, p.BaselineJobs, p.SameJob)
		if c.err == nil {
			c.pBetter, c.err = stats.ZTest(hs, bs, -d, *pl.noise, p.BaselineJobs, p.SameJob)
		}
	case n >= 2 || m >= 2:
		c.test = TestTPrediction
		c.pWorse, c.err = stats.TPrediction(hs, bs, d)
		if c.err == nil {
			c.pBetter, c.err = stats.TPrediction(hs, bs, -d)
		}
	default:
		c.small = true
		c.pWorse, c.pBetter = math.NaN(), math.NaN()
		c.note = needRuns(m, alpha)
	}
	return c
}

// comparePairs judges A/B pairs on their differences: the effect is the
// median difference, the test the exact signed-rank test.
func (pl plan) comparePairs(head, base []float64) comparison {
	d, err := pl.differences(base, head)
	if err != nil {
		return comparison{err: err}
	}
	c := comparison{w: stats.Median(d), test: TestSignedRank}
	c.pWorse, c.pBetter, c.err = stats.SignedRankTest(d)
	return c
}

func uTests(head, base []float64, d stats.Direction) (pWorse, pBetter float64, test string, err error) {
	worse, err := stats.UTest(head, base, d)
	if err != nil {
		return math.NaN(), math.NaN(), "", err
	}
	better, err := stats.UTest(head, base, -d)
	if err != nil {
		return math.NaN(), math.NaN(), "", err
	}
	test = TestExact
	if !worse.Exact {
		test = TestApprox
	}
	return worse.P, better.P, test, nil
}

// effect is w = d·ln(median(head)/median(base)) for ratio metrics and
// d·(median(head) − median(base)) for rates (stats.md §6.2, §6.7).
func (pl plan) effect(head, base []float64) float64 {
	d := pl.direction().Sign()
	if pl.percent() {
		return d * (stats.Median(head) - stats.Median(base))
	}
	return d * math.Log(stats.Median(head)/stats.Median(base))
}

func needRuns(m int, alpha float64) string {
	if n := stats.RunsNeeded(m, alpha); n > 0 {
		samples := "samples"
		if m == 1 {
			samples = "sample"
		}
		return fmt.Sprintf("too few samples: need ≥ %d head runs against %d baseline %s (or calibrate the noise)", n, m, samples)
	}
	return "too few samples for any test (calibrate the noise)"
}

// outcome applies the rule of DESIGN.md §4 to a gated metric: regression ⇔
// p ≤ α and w > L; significant inside the floor is "within noise";
// significant and beyond the floor the good way is an improvement.
func outcome(c comparison, floor, alpha float64) MetricOutcome {
	switch {
	case c.err != nil || c.small:
		return MetricInconclusive
	case c.pWorse <= alpha && c.w > floor:
		return MetricRegression
	case c.pWorse <= alpha:
		return WithinNoise
	case c.pBetter <= alpha && -c.w > floor:
		return Improvement
	case c.pBetter <= alpha:
		return WithinNoise
	default:
		return MetricPass
	}
}

// reportedP is the one-sided p in the direction the evidence points.
func (c comparison) reportedP(alpha float64) float64 {
	switch {
	case c.pWorse <= alpha:
		return c.pWorse
	case c.pBetter <= alpha:
		return c.pBetter
	case c.w > 0:
		return c.pWorse
	default:
		return c.pBetter
	}
}

// regresses is the verdict "regression" alone, for simulations: the cheap
// effect check first, then only the test in the worse direction. It agrees
// with outcome(pl.compare(...)) == MetricRegression.
func (pl plan) regresses(head, base []float64, floor float64, p Policy) bool {
	if !(pl.effect(head, base) > floor) {
		return false
	}
	hs, err1 := pl.scale(head)
	bs, err2 := pl.scale(base)
	if err1 != nil || err2 != nil {
		return false
	}
	d, n, m := pl.direction(), len(head), len(base)
	var pw float64
	var err error
	switch {
	case stats.MinP(n, m) <= p.alpha():
		var r stats.UResult
		r, err = stats.UTest(head, base, d)
		pw = r.P
	case pl.noise != nil:
		pw, err = stats.ZTest(hs, bs, d, *pl.noise, p.BaselineJobs, p.SameJob)
	case n >= 2 || m >= 2:
		pw, err = stats.TPrediction(hs, bs, d)
	default:
		return false
	}
	return err == nil && pw <= p.alpha()
}
