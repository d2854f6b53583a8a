package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// priorJob simulates one sequential job whose units are normal with the
// given effect and a noise that varies from job to job (log-sd 0.15 around
// sigma), judged with a prior measured in an earlier job of its own noise
// (30 units): the machine class's noise is learned, not known.
func priorJob(rng *rand.Rand, d SeqDesign, effect, sigma, thr float64, withPrior bool) SeqDecision {
	jobSigma := func() float64 { return sigma * math.Exp(0.15*rng.NormFloat64()) }
	if withPrior {
		earlier := make([]float64, 30)
		s := jobSigma()
		for i := range earlier {
			earlier[i] = s * rng.NormFloat64()
		}
		d.Prior = SeqPrior{SD: SampleSD(earlier), DF: len(earlier) - 1}
	}
	s := jobSigma()
	diffs := make([]float64, 0, d.MaxBlocks)
	for n := 1; n <= d.MaxBlocks; n++ {
		diffs = append(diffs, effect+s*rng.NormFloat64())
		dec, err := d.look(diffs, thr, 0.001, 1, false, false)
		if err != nil {
			panic(err)
		}
		if dec.Decided() {
			return dec
		}
	}
	panic("the budget always decides")
}

// TestSeqPriorHoldsLevelAndDecidesSooner: pooling a learned noise keeps the
// false-alarm rate at α over A/A jobs whose noise differs from the
// prior's job, and decides a clear effect in fewer units than the job's
// own t (whose first looks have 2 or 3 degrees of freedom).
func TestSeqPriorHoldsLevelAndDecidesSooner(t *testing.T) {
	d := SeqDesign{MinBlocks: 3, MaxBlocks: 12}.WithDefaults()
	const jobs, sigma, thr = 4000, 0.06, 0.05
	rng := rand.New(rand.NewPCG(19, 3))
	alarms := 0
	for i := 0; i < jobs; i++ {
		if priorJob(rng, d, 0, sigma, thr, true).Outcome == SeqRegression {
			alarms++
		}
	}
	// α = 0.05; the Monte Carlo error of 4,000 jobs is ±0.7 points (2σ).
	rate := float64(alarms) / jobs
	t.Logf("A/A false-alarm rate with a learned prior: %.4f (%d of %d jobs)", rate, alarms, jobs)
	if rate > 0.057 {
		t.Errorf("A/A false-alarm rate with a learned prior %.3f, want ≤ 0.05 (+MC error)", rate)
	}
	units := func(withPrior bool, effect float64) (mean float64, caught int) {
		rng := rand.New(rand.NewPCG(19, 4))
		for i := 0; i < 1000; i++ {
			dec := priorJob(rng, d, effect, sigma, thr, withPrior)
			mean += float64(dec.Blocks) / 1000
			if dec.Outcome == SeqRegression {
				caught++
			}
		}
		return mean, caught
	}
	own, ownCaught := units(false, 2*thr)
	pooled, pooledCaught := units(true, 2*thr)
	t.Logf("effect 2× min_effect at noise %.0f %%: %.2f units (%d of 1000 caught) own spread, %.2f units (%d caught) with the prior",
		100*sigma, own, ownCaught, pooled, pooledCaught)
	if !(pooled < own-0.5) || pooledCaught < ownCaught {
		t.Errorf("the prior should decide sooner and catch at least as often: %.2f vs %.2f units, %d vs %d caught", pooled, own, pooledCaught, ownCaught)
	}
	aaOwn, _ := units(false, 0)
	aaPooled, _ := units(true, 0)
	t.Logf("A/A: %.2f units own spread, %.2f with the prior", aaOwn, aaPooled)
	if !(aaPooled < aaOwn) {
		t.Errorf("the prior should pass clean jobs sooner: %.2f vs %.2f units", aaPooled, aaOwn)
	}
}

// TestSeqPriorInconsistentIsNotPooled: a stored noise far from the job's
// (a poisoned cache, another machine) is not pooled, either way.
func TestSeqPriorInconsistentIsNotPooled(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 5))
	diffs := make([]float64, 6)
	for i := range diffs {
		diffs[i] = 0.05 * rng.NormFloat64()
	}
	own := SampleSD(diffs)
	for _, tc := range []struct {
		prior SeqPrior
		want  int
	}{
		{SeqPrior{SD: own, DF: 30}, 16},
		{SeqPrior{SD: own, DF: 200}, 64},
		{SeqPrior{SD: own, DF: 3}, 0},
		{SeqPrior{SD: 10 * own, DF: 30}, 0},
		{SeqPrior{SD: own / 10, DF: 30}, 0},
		{SeqPrior{SD: math.NaN(), DF: 30}, 0},
	} {
		d := SeqDesign{MinBlocks: 3, MaxBlocks: 12, Prior: tc.prior}
		dec, err := d.Look(diffs, 0.05, 0.001, 1)
		if err != nil {
			t.Fatal(err)
		}
		if dec.PriorDF != tc.want {
			t.Errorf("prior %+v against own spread %.4f: pooled df %d, want %d", tc.prior, own, dec.PriorDF, tc.want)
		}
		if tc.want == 0 && dec.Spread != math.Max(own, 0.001) {
			t.Errorf("prior %+v not pooled, yet the spread is %.4f, not the job's %.4f", tc.prior, dec.Spread, own)
		}
	}
}
