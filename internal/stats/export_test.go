package stats

// The sequential design's test API: one look, the final look and the
// replay of every look, as the job loop (gate) makes them through
// ReplayWithin, and the outcome of a job's metrics together.

func (o SeqOutcome) String() string {
	switch o {
	case SeqRegression:
		return "regression"
	case SeqPass:
		return "pass"
	case SeqInconclusive:
		return "inconclusive"
	default:
		return "continue"
	}
}

// Look judges the pair differences so far (all of them, in order; bigger
// is worse) for one of k gated metrics. minEffect and resolution are on
// the comparison scale and the threshold is the larger; the spread is
// never taken below the resolution. Call it after every pair: between
// planned looks it continues, at MaxBlocks it never does. Look keeps no
// state; once a metric has decided, keep that decision (CombineSeq) rather
// than looking again.
func (d SeqDesign) Look(diffs []float64, minEffect, resolution float64, k int) (SeqDecision, error) {
	return d.look(diffs, minEffect, resolution, k, false, true)
}

// Final is the last look when the job must stop at len(diffs) pairs
// before the budget: it spends the level left and never continues. The
// reason to stop must not come from the differences (a time budget that
// ran out, not a look that "almost" decided), or the level is not held.
func (d SeqDesign) Final(diffs []float64, minEffect, resolution float64, k int) (SeqDecision, error) {
	return d.look(diffs, minEffect, resolution, k, true, true)
}

// Replay is the decision of one metric of a job that looked after every
// pair, for a caller that keeps no state and is handed all pairs so far:
// the first of the looks at diffs[:1], diffs[:2], … that decided, else
// the look at all of diffs (Final when final is set). A metric keeps its
// first decision, as CombineSeq requires. Every look uses k, so a caller
// whose k changes between calls replays the earlier looks at the new k.
// Detectable is not filled: price it once, with Detectable, when the job
// is done.
func (d SeqDesign) Replay(diffs []float64, minEffect, resolution float64, k int, final bool) (SeqDecision, error) {
	return d.ReplayWithin(diffs, minEffect, resolution, k, final, nil)
}

// CombineSeq is the job's outcome from its gated metrics' latest looks:
// a regression in any metric ends the job as a regression; otherwise the
// job continues while any metric continues; otherwise it is inconclusive
// if any metric is, else a pass. A metric's decision is final: once it
// has decided, keep its decision instead of looking again.
func CombineSeq(ds []SeqDecision) SeqOutcome {
	out := SeqPass
	for _, dec := range ds {
		switch dec.Outcome {
		case SeqRegression:
			return SeqRegression
		case SeqContinue:
			out = SeqContinue
		case SeqInconclusive:
			if out != SeqContinue {
				out = SeqInconclusive
			}
		}
	}
	return out
}
