package stats

// Evidence for the default rule's estimate threshold (issue 46, "+5 %
// caught"): Lower > 0 and the mean beyond half of min_effect, against the
// rule it replaced (the mean beyond min_effect itself) on the same seeded
// jobs. `go test -run TestRule -v ./internal/stats` prints the tables.

import (
	"fmt"
	"math"
	"testing"
)

// meanBeyondMinEffect re-decides a look by the replaced rule: a
// regression needed a mean beyond min_effect, so an effect of exactly
// min_effect was caught about half the time whatever the noise.
func meanBeyondMinEffect(dec *SeqDecision, final bool) {
	if math.IsNaN(dec.Lower) { // before the first look or between looks
		return
	}
	switch {
	case dec.Lower > 0 && dec.Estimate > dec.Threshold:
		dec.Outcome = SeqRegression
	case dec.Upper < dec.Threshold:
		dec.Outcome = SeqPass
	case final:
		dec.Outcome = SeqInconclusive
	default:
		dec.Outcome = SeqContinue
	}
}

// ruleRates simulates one setting under the new rule and the replaced one.
func ruleRates(seed uint64, d SeqDesign, cases []gateCase, k int) (now, old tally) {
	return runJobsBy(seed, evidenceGates, d, cases, k, nil), runJobsBy(seed, evidenceGates, d, cases, k, meanBeyondMinEffect)
}

func rulePct(t tally, n int) string { return fmt.Sprintf("%5.1f %%", 100*t.rate(n)) }

// abDesign is the design of `tailgate ab` at its defaults (config's
// ab.min_blocks 3, ab.max_blocks 12).
var abDesign = SeqDesign{MinBlocks: 3, MaxBlocks: 12}

// blockCase is a ratio metric whose blocks' head−base differences have
// standard deviation spread (the "block spread" reports print).
func blockCase(spread, effect float64) gateCase {
	return ratioCase(spread/math.Sqrt2, effect, 0.05)
}

// A/A: the half threshold changes nothing of the α control, which is the
// lower bound's (Lower > 0) alone.
func TestRuleHalfMinEffectHoldsAlpha(t *testing.T) {
	for i, k := range []int{gateMetrics, 1} {
		for j, spread := range []float64{0.02, 0.05, 0.10} {
			now, old := ruleRates(uint64(4600+10*i+j), abDesign, repeat(blockCase(spread, 0), k), k)
			t.Logf("A/A, K = %d, block spread %2.0f %%: false alarms new %s, old %s; passed new %s, old %s",
				k, 100*spread, rulePct(now, now.regression), rulePct(old, old.regression), rulePct(now, now.pass), rulePct(old, old.pass))
			if fa := now.rate(now.regression); !atMost(fa, DefaultSeqAlpha, now.jobs) {
				t.Errorf("K = %d, spread %.0f %%: %.2f %% false alarms, above α = 5 %%", k, 100*spread, 100*fa)
			}
		}
	}
}

// The bar: +5 % (= min_effect) caught within a 12-block budget (at the
// A/B's α of 2 %: 100 % at 1.5 % block spread, 89 % at 3 %; at α 5 %, 96 %
// at 3 %, for four times the false alarms). The
// replaced rule could not pass about half of such jobs' means, so it
// caught at most about half whatever the noise.
func TestRuleHalfMinEffectCatchesMinEffect(t *testing.T) {
	for i, spread := range []float64{0.015, 0.03, 0.05} {
		now, old := ruleRates(uint64(4700+i), abDesign, []gateCase{blockCase(spread, 0.05)}, gateMetrics)
		t.Logf("+5 %% (min_effect 5 %%), 1 of %d, ≤ 12 blocks, block spread %.1f %%: caught new %s in %.1f blocks, old %s; passed new %s, old %s",
			gateMetrics, 100*spread, rulePct(now, now.regression), now.meanPairs(), rulePct(old, old.regression), rulePct(now, now.pass), rulePct(old, old.pass))
		if p := now.rate(now.regression); p <= old.rate(old.regression) || (spread <= 0.015 && p < 0.99) || (spread <= 0.03 && p < 0.85) {
			t.Errorf("spread %.1f %%: +5 %% caught in %.1f %% of jobs (old rule %.1f %%), want ≥ 99 %% at 1.5 %%, ≥ 85 %% at 3 %% and above the old rule",
				100*spread, 100*p, 100*old.rate(old.regression))
		}
		if p := now.rate(now.pass); !atMost(p, DefaultSeqBeta, now.jobs) {
			t.Errorf("spread %.1f %%: +5 %% passed in %.1f %% of jobs, above β", 100*spread, 100*p)
		}
	}
}

// The cost: a constant lean of head with no effect (a process bias that
// restarts do not redraw) is called a regression as soon as the bounds
// exclude 0 and it lies beyond half of min_effect. Below half it passes
// given the blocks, at or above it the new rule fails it.
func TestRuleHalfMinEffectUnderALean(t *testing.T) {
	for i, spread := range []float64{0.015, 0.05} {
		for j, lean := range []float64{0.01, 0.02, 0.03} {
			now, old := ruleRates(uint64(4800+10*i+j), abDesign, []gateCase{blockCase(spread, lean)}, gateMetrics)
			t.Logf("lean +%.0f %%, no effect, 1 of %d, ≤ 12 blocks, block spread %.1f %%: regression new %s, old %s; passed new %s, old %s",
				100*lean, gateMetrics, 100*spread, rulePct(now, now.regression), rulePct(old, old.regression), rulePct(now, now.pass), rulePct(old, old.pass))
			if lean <= 0.01 && !atMost(now.rate(now.regression), DefaultSeqAlpha, now.jobs) {
				t.Errorf("lean +1 %%, spread %.1f %%: %.1f %% regressions; a lean of a fifth of min_effect should stay near α", 100*spread, 100*now.rate(now.regression))
			}
		}
	}
}

// The median-unbiased estimate reads the same rule's stopping regions:
// over jobs at the default min_effect it lands on +5 % and +10 %.
func TestMedianUnbiasedUnderHalfMinEffect(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ effect, sd float64 }{{0.05, 0.03}, {0.05, 0.05}, {0.10, 0.05}, {0.10, 0.08}} {
		raw, adj, looks := stoppedEstimates(t, abDesign, 47, 200, math.Log1p(c.effect), c.sd, math.Log1p(0.05), gateMetrics)
		pts := func(w float64) float64 { return 100 * math.Expm1(w) }
		t.Logf("+%.0f %% at spread %.0f %%: raw median %+.2f, adjusted %+.2f, median stop at %v blocks",
			100*c.effect, 100*c.sd, pts(Median(raw)), pts(Median(adj)), Median(floats(looks)))
		if d := pts(Median(adj)) - 100*c.effect; math.Abs(d) > 1 {
			t.Errorf("+%.0f %% at %.0f %%: adjusted median %+.2f points off", 100*c.effect, 100*c.sd, d)
		}
	}
}

// K counts the gated metrics that can still regress after the first look
// (gate's inert ones, the error rates at 0 on both sides, take no share):
// a job of the default metrics whose three rates are inert is one of 3
// tests, not 6. +5 % is then caught sooner and more often, and an A/A job
// of three noisy metrics still fails at most α.
func TestThreeMetricsThatCanRegressOfSix(t *testing.T) {
	for i, spread := range []float64{0.03, 0.05} {
		c := []gateCase{blockCase(spread, 0.05)}
		three := runJobsBy(uint64(4900+i), evidenceGates, abDesign, c, 3, nil)
		six := runJobsBy(uint64(4900+i), evidenceGates, abDesign, c, gateMetrics, nil)
		aa := runJobsBy(uint64(4910+i), evidenceGates, abDesign, repeat(blockCase(spread, 0), 3), 3, nil)
		t.Logf("+5 %% at block spread %.0f %%: caught %s in %.2f blocks as one of 3, %s in %.2f as one of 6; passed %s, %s; A/A of 3 false alarms %s",
			100*spread, rulePct(three, three.regression), three.meanPairs(), rulePct(six, six.regression), six.meanPairs(),
			rulePct(three, three.pass), rulePct(six, six.pass), rulePct(aa, aa.regression))
		if three.rate(three.regression) <= six.rate(six.regression) || three.meanPairs() >= six.meanPairs() {
			t.Errorf("spread %.0f %%: one of 3 should catch +5 %% more often and sooner than one of 6", 100*spread)
		}
		if !atMost(aa.rate(aa.regression), DefaultSeqAlpha, aa.jobs) || !atMost(three.rate(three.pass), DefaultSeqBeta, three.jobs) {
			t.Errorf("spread %.0f %%: A/A false alarms %.2f %% (α 2 %%), +5 %% passed %.2f %% (β 5 %%)",
				100*spread, 100*aa.rate(aa.regression), 100*three.rate(three.pass))
		}
	}
}
