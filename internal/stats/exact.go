package stats

import (
	"math"
	"slices"
)

// TestExactCount names the rule for a metric that does not vary within
// either side (a count of statements, rows or allocations per iteration):
// its difference is known exactly, so no test of noise is needed.
const TestExactCount = "exact count (no spread)"

// ExactTolerance is the largest spread within a side, on the log scale
// (0.2 %), at which a metric counts as exact: a count per iteration moves
// by hundredths of a percent, while three values of each side of a timed
// metric at 1 % noise all fall within 0.2 % with chance below 10⁻⁵. It is
// never above a tenth of the threshold, so it cannot hide an effect.
const ExactTolerance = 0.002

// ExactLook judges exact counts (each side's first MinBlocks values within
// the tolerance) at the first look: a regression when the pairs' mean
// difference is beyond the rule's (regressionMean), else a pass (bounds the
// least and largest difference); ok false: for the t rule. It adds no false
// alarm (t calls such a difference at once too) and lets identical counts pass.
func (d SeqDesign) ExactLook(head, base []float64, dir Direction, minEffect, resolution float64) (dec SeqDecision, ok bool) {
	d = d.WithDefaults()
	m := d.MinBlocks
	if len(head) < m || len(base) < m {
		return SeqDecision{}, false
	}
	head, base = head[:m], base[:m]
	thr := math.Max(minEffect, resolution)
	tol := math.Min(ExactTolerance, thr/10)
	if !(tol > 0) || !constant(head, tol) || !constant(base, tol) {
		return SeqDecision{}, false
	}
	diffs, err := PairDifferences(head, base, Ratio, dir)
	if err != nil {
		return SeqDecision{}, false
	}
	dec = summarize(diffs, minEffect, resolution)
	dec.Lower, dec.Upper = slices.Min(diffs), slices.Max(diffs)
	dec.Detectable = d.regressionMean(thr)
	switch {
	case dec.Estimate > dec.Detectable:
		dec.Outcome, dec.Reason = SeqRegression, ReasonBeyond
	case dec.Upper < -tol:
		dec.Outcome, dec.Reason = SeqPass, ReasonImproved
	case dec.Lower > tol:
		dec.Outcome, dec.Reason = SeqPass, ReasonChangedWithin
	default:
		dec.Outcome, dec.Reason = SeqPass, ReasonBelow
	}
	return dec, true
}

// constant reports whether the values span at most tol on the log scale
// (ln(max/min)); values of 0 or less, which have no ratio, are not.
func constant(x []float64, tol float64) bool {
	v, err := Ratio.Values(x)
	if err != nil || len(v) == 0 {
		return false
	}
	return slices.Max(v)-slices.Min(v) <= tol
}
