package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// stoppedEstimates runs jobs of design d (k gated metrics) on
// normal units of mean effect and spread sd, each stopping at its first
// deciding look, and returns the raw means and the adjusted estimates of
// every job, whatever it decided.
func stoppedEstimates(t *testing.T, d SeqDesign, seed uint64, jobs int, effect, sd, minEffect float64, k int) (raw, adj []float64, looks []int) {
	t.Helper()
	d = d.WithDefaults()
	rng := rand.New(rand.NewPCG(seed, 0xe57))
	diffs := make([]float64, d.MaxBlocks)
	for range jobs {
		for i := range diffs {
			diffs[i] = effect + sd*rng.NormFloat64()
		}
		dec, err := d.Replay(diffs, minEffect, 0, k, true)
		if err != nil {
			t.Fatal(err)
		}
		raw, adj, looks = append(raw, dec.Estimate), append(adj, d.MedianUnbiased(dec, k)), append(looks, dec.Blocks)
	}
	return raw, adj, looks
}

// Over the jobs of an arm, the adjusted estimate's median lands on the
// effect (issue 46's bar: within ±2 points of the independent effect;
// held here to 1). The raw mean's median over-reads it where jobs stop at
// different looks (+10 % at 16 % block noise: about +0.4 points with this
// design at α 5 %, whose early looks spend little; at the default 2 % fewer
// jobs stop early and the over-read is about half); the adjustment moves it down
// by most of that. Where every job stops at the first look there is
// nothing to correct (+30 % at 5 %).
func TestMedianUnbiasedLandsOnTheEffect(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		effect, sd float64
		minShift   float64 // points the adjustment must take off the raw median
	}{
		{"+30% at 5% noise", math.Log(1.30), 0.05, 0},
		{"+10% at 8% noise", math.Log(1.10), 0.08, 0},
		{"+5% at 8% noise", math.Log(1.05), 0.08, 0.05},
		{"+10% at 16% noise", math.Log(1.10), 0.16, 0.2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			raw, adj, looks := stoppedEstimates(t, SeqDesign{Alpha: 0.05}, 46, 200, c.effect, c.sd, math.Log(1.03), 4)
			pts := func(w float64) float64 { return 100 * (math.Exp(w) - 1) }
			truth := pts(c.effect)
			rawMed, adjMed := pts(Median(raw)), pts(Median(adj))
			t.Logf("truth %+.2f %%: raw median %+.2f, adjusted %+.2f, median stop at %v units", truth, rawMed, adjMed, Median(floats(looks)))
			if math.Abs(adjMed-truth) > 1 {
				t.Errorf("adjusted median %+.2f %% is more than 1 point from the effect %+.2f %%", adjMed, truth)
			}
			if rawMed-adjMed < c.minShift {
				t.Errorf("the adjustment took %.2f points off the raw median %+.2f %%, want at least %.2f", rawMed-adjMed, rawMed, c.minShift)
			}
		})
	}
}

// A look at which no earlier look could have stopped the job leaves the
// mean as it is, and the adjusted estimate never leaves the bounds.
func TestMedianUnbiasedKeepsWhatNeedsNoCorrection(t *testing.T) {
	t.Parallel()
	d := SeqDesign{}.WithDefaults()
	first := SeqDecision{Blocks: d.MinBlocks, Estimate: 0.2, Lower: 0.05, Upper: 0.3, Spread: 0.05, Threshold: 0.03}
	if got := d.MedianUnbiased(first, 1); got != first.Estimate {
		t.Errorf("at the first look: %v, want the mean %v", got, first.Estimate)
	}
	later := first
	later.Blocks, later.Lower = 12, 0.19
	if got := d.MedianUnbiased(later, 1); got < later.Lower || got > later.Upper {
		t.Errorf("adjusted %v outside the bounds %v … %v", got, later.Lower, later.Upper)
	}
	noSpread := later
	noSpread.Spread = math.NaN()
	if got := d.MedianUnbiased(noSpread, 1); got != later.Estimate {
		t.Errorf("without a spread: %v, want the mean", got)
	}
}

func floats(x []int) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	slices.Sort(out)
	return out
}

// The correction is computed once per metric a report shows: a job of
// the default budget that stopped at its last look.
func BenchmarkMedianUnbiased(b *testing.B) {
	d := SeqDesign{}.WithDefaults()
	dec := SeqDecision{Blocks: d.MaxBlocks, Estimate: 0.08, Lower: 0.01, Upper: 0.15, Spread: 0.1, Threshold: 0.03}
	for b.Loop() {
		d.MedianUnbiased(dec, 4)
	}
}
