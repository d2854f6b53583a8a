package report

import (
	"cmp"
	"math"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report/figure"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// series is one gated metric's per-run values on both sides, as the
// comment's chart and the page's plots show them.
type series struct {
	Finding gate.Finding
	Meta    result.Metric
	// Base and Head are the per-run values in run order; runs that did
	// not measure the metric are left out.
	Base, Head []float64
	// Paired: Diffs are each pair's change head against base (% or pp),
	// Base and Head the pairs' values.
	Paired bool
	Diffs  []float64
	// Unit is what each of Diffs is a change of: "pair", or "block" in the block designs of A/B.
	Unit string
}

// units is the plural of the series' unit.
func (s series) units() string { return s.Unit + "s" }

// seriesOf builds the series of every gated metric that was compared
// (values on both sides), in the verdict's order.
func seriesOf(in Input) []series {
	var out []series
	for _, f := range in.Verdict.Findings {
		meta, known := result.Lookup(f.Key)
		if !f.Gated || !known {
			continue
		}
		s := series{Finding: f, Meta: meta, Unit: "pair"}
		if seq := in.Verdict.Sequential; seq != nil && seq.Unit != "" {
			s.Unit = seq.Unit
		}
		if pairedJudged(in, f) {
			s.Paired = true
			s.Base, s.Head = pairs(in.Base, in.Head, f.Key)
			for i := range s.Base {
				s.Diffs = append(s.Diffs, changeOf(meta, s.Head[i], s.Base[i]))
			}
		} else {
			s.Base, s.Head = result.Values(in.Base, f.Key), result.Values(in.Head, f.Key)
		}
		if len(s.Base) > 0 && len(s.Head) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// pairedJudged reports whether the gate judged f on pairs: an A/B job's
// runs, one of each side per pair.
func pairedJudged(in Input, f gate.Finding) bool {
	return f.Test == stats.TestSignedRank || f.Test == stats.TestSequential || f.Test == stats.TestExactCount ||
		(in.Mode == "ab" && len(in.Base) == len(in.Head) && len(in.Base) > 0)
}

// pairs returns the values of key of the pairs whose runs both measured it.
func pairs(base, head []result.Run, key string) (b, h []float64) {
	for i := range min(len(base), len(head)) {
		bv, okB := base[i].Value(key)
		hv, okH := head[i].Value(key)
		if okB && okH {
			b, h = append(b, bv), append(h, hv)
		}
	}
	return b, h
}

// changeOf is head against base as the gate states a change: percent for
// ratio metrics, percentage points for rates.
func changeOf(m result.Metric, head, base float64) float64 {
	if points(m) {
		return head - base
	}
	return 100 * (head/base - 1)
}

// worseSign is +1 when a higher value of the metric is worse, else −1.
func (s series) worseSign() float64 {
	if s.Meta.Better == result.HigherIsBetter {
		return -1
	}
	return 1
}

// hasFloor reports whether the finding has a floor to draw.
func (s series) hasFloor() bool { return !math.IsNaN(s.Finding.Floor) }

// threshold is the value a head median must pass to exceed the floor; NaN without a floor.
func (s series) threshold() float64 {
	f := s.Finding
	if !s.hasFloor() {
		return math.NaN()
	}
	if points(s.Meta) {
		return f.BaseMedian + s.worseSign()*f.Floor
	}
	return f.BaseMedian * (1 + s.worseSign()*f.Floor/100)
}

// estimate is the sequential test's estimate and bounds of a paired
// series, head against base; nil without one.
func (s series) estimate() *figure.Interval {
	f := s.Finding
	if !s.Paired || math.IsNaN(f.Estimate) {
		return nil
	}
	lo, hi := headBounds(f)
	return &figure.Interval{Mid: s.worseSign() * f.Estimate, Lo: lo, Hi: hi}
}

// minEffectFloor reports whether the floor is min_effect (sequential A/B), not a noise floor.
func (s series) minEffectFloor() bool { return s.Finding.FloorSource == gate.FromMinEffect }

// diffThreshold is the pair change that exceeds the floor, in the
// finding's change units (signed: negative for a throughput drop).
func (s series) diffThreshold() float64 { return s.worseSign() * s.Finding.Floor }

// decisive ranks the series: those that regressed, then by how near
// their limit they came; one flat at one value last (its chart is empty).
func decisive(all []series) []series {
	rank := func(s series) int {
		switch {
		case s.Finding.Outcome == gate.MetricRegression:
			return 0
		case s.flat():
			return 2
		}
		return 1
	}
	ranked := slices.Clone(all)
	slices.SortStableFunc(ranked, func(a, b series) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(pull(b.Finding), pull(a.Finding)))
	})
	return ranked
}

// flat reports whether the series' chart would be one flat line: every
// change, or every value, the same.
func (s series) flat() bool {
	vs := s.Diffs
	if !s.Paired {
		vs = append(slices.Clone(s.Base), s.Head...)
	}
	return len(vs) == 0 || slices.Min(vs) == slices.Max(vs)
}

// pull is how far a metric moved towards its floor: the change in the bad
// direction over the floor (or the change itself without a floor).
func pull(f gate.Finding) float64 {
	w := f.Worse
	if math.IsNaN(w) {
		return math.Inf(-1)
	}
	if f.Floor > 0 {
		return w / f.Floor
	}
	return w
}
