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
// (0.2 %), at which a metric counts as exact. A count per iteration moves by a few hundredths
// of a percent from block to block (a counter read is itself a statement,
// divided by a varying number of iterations); the least noise a timed
// metric shows on a quiet machine is about 1 %, and the chance that three
// values of each side at 1 % noise all fall within 0.2 % is below 10⁻⁵.
// The tolerance is never above a tenth of the threshold, so a tolerance
// can never hide an effect worth failing for.
const ExactTolerance = 0.002

// ExactLook is the rule for exact counts (ratio metrics: a rate in
// percent that is 0 on both sides already passes the t rule's first look),
// decided at the first look: when the first MinPairs values of each side
// lie within the tolerance of each other (ln(max/min)), the difference between the sides is
// known without noise, and the metric is a regression when the mean of the
// pairs' differences is beyond the threshold max(minEffect, resolution),
// else a pass. Lower and Upper are the smallest and largest difference of
// those pairs. ok is false (and the caller judges the metric by the
// sequential t rule) with fewer than MinPairs pairs or when either side
// varies.
//
// It adds no false alarm to the t rule: when both sides are this constant
// their differences are too, and the t rule, whose spread is never below
// the resolution, calls the same difference beyond a threshold above ten
// tolerances a regression at its first look as well. What it changes is
// the other case: identical counts pass at once instead of waiting for
// bounds that the resolution keeps wide.
func (d SeqDesign) ExactLook(head, base []float64, dir Direction, minEffect, resolution float64) (dec SeqDecision, ok bool) {
	d = d.withDefaults()
	m := d.MinPairs
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
	dec.Detectable = thr
	switch {
	case dec.Estimate > thr:
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
