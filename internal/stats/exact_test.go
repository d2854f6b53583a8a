package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A count that is the same in every pair decides at the first look: a
// pass when the sides agree, a regression when they differ beyond the
// threshold, with the exact difference as estimate and bounds.
func TestExactLookDecidesAtTheFirstLook(t *testing.T) {
	d := SeqDesign{MinBlocks: 4}
	same := []float64{53, 53.01, 53, 53.005, 53} // the fifth is past the first look
	dec, ok := d.ExactLook(same, same, HigherIsWorse, math.Log(1.05), math.Log(1.01))
	if !ok || dec.Outcome != SeqPass || dec.Reason != ReasonBelow || dec.Blocks != 4 || dec.Estimate != 0 {
		t.Fatalf("53 = 53: %+v ok=%v; want a pass at 4 pairs with estimate 0", dec, ok)
	}
	grown := []float64{72.01, 72.01, 72, 72.01}
	dec, ok = d.ExactLook(grown, same, HigherIsWorse, math.Log(1.05), math.Log(1.01))
	want := math.Log(72.0075 / 53.00375)
	if !ok || dec.Outcome != SeqRegression || dec.Blocks != 4 || math.Abs(dec.Estimate-want) > 3e-4 ||
		!(dec.Lower <= dec.Estimate && dec.Estimate <= dec.Upper) || dec.Upper-dec.Lower > 2*ExactTolerance {
		t.Fatalf("53 → 72: %+v ok=%v; want a regression at 4 pairs, estimate %.4f within its exact bounds", dec, ok, want)
	}
	// Fewer statements: an improvement; 2 % more against a 5 % threshold:
	// changed, within it.
	fewer := []float64{40, 40, 40, 40}
	if dec, ok = d.ExactLook(fewer, same, HigherIsWorse, math.Log(1.05), 0); !ok || dec.Reason != ReasonImproved {
		t.Errorf("53 → 40: %+v ok=%v; want improved", dec, ok)
	}
	slightly := []float64{54.06, 54.06, 54.06, 54.06}
	if dec, ok = d.ExactLook(slightly, same, HigherIsWorse, math.Log(1.05), 0); !ok || dec.Outcome != SeqPass || dec.Reason != ReasonChangedWithin {
		t.Errorf("53 → 54.06: %+v ok=%v; want a pass, changed within", dec, ok)
	}
	// 3.5 % more against 5 %: beyond half of min_effect, as the t rule calls it.
	more := []float64{54.86, 54.86, 54.86, 54.86}
	if dec, ok = d.ExactLook(more, same, HigherIsWorse, math.Log(1.05), 0); !ok || dec.Outcome != SeqRegression || dec.Detectable != math.Log(1.05)/2 {
		t.Errorf("53 → 54.86: %+v ok=%v; want a regression, detectable half of min_effect", dec, ok)
	}
	// Throughput (lower is worse) that halved in every pair.
	if dec, ok = d.ExactLook([]float64{50, 50, 50, 50}, []float64{100, 100, 100, 100}, LowerIsWorse, math.Log(1.05), 0); !ok || dec.Outcome != SeqRegression {
		t.Errorf("throughput 100 → 50 in every pair: %+v ok=%v; want a regression", dec, ok)
	}
}

// The rule applies only where it is exact: not before the first look, not
// when a side varies beyond the tolerance, not at 0 (no ratio), and its
// tolerance shrinks below a tenth of a small threshold.
func TestExactLookRefusesWhatVaries(t *testing.T) {
	d := SeqDesign{MinBlocks: 4}
	flat := []float64{53, 53, 53, 53}
	cases := []struct {
		name       string
		head, base []float64
		minEffect  float64
	}{
		{"before the first look", flat[:3], flat[:3], 0.05},
		{"head varies by 0.5 %", []float64{53, 53.27, 53, 53}, flat, 0.05},
		{"base varies by 0.3 %", flat, []float64{53, 53, 53.16, 53}, 0.05},
		{"a zero", []float64{0, 0, 0, 0}, flat, 0.05},
		{"0.1 % spread under a 0.5 % threshold", []float64{53, 53.053, 53, 53}, flat, 0.005},
	}
	for _, c := range cases {
		if dec, ok := d.ExactLook(c.head, c.base, HigherIsWorse, c.minEffect, 0); ok {
			t.Errorf("%s: decided %+v; want the t rule to judge it", c.name, dec)
		}
	}
}

// Noisy metrics never take the exact rule: at 1 % noise per unit (less
// than CPU shows on any runner) 20,000 looks of 4 pairs never find both
// sides within the tolerance; at 0.05 % (a count divided by a varying
// number of iterations) every look does. Fixed seed.
func TestExactLookSeparatesCountsFromNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 3))
	d := SeqDesign{MinBlocks: 4}
	draw := func(cv float64) []float64 {
		out := make([]float64, 4)
		for i := range out {
			out[i] = 53 * math.Exp(cv*rng.NormFloat64())
		}
		return out
	}
	const looks = 20000
	noisy, counts := 0, 0
	for range looks {
		if _, ok := d.ExactLook(draw(0.01), draw(0.01), HigherIsWorse, math.Log(1.05), 0.01); ok {
			noisy++
		}
		if _, ok := d.ExactLook(draw(0.0002), draw(0.0002), HigherIsWorse, math.Log(1.05), 0.01); ok {
			counts++
		}
	}
	if noisy != 0 || counts != looks {
		t.Fatalf("exact rule taken by %d of %d noisy looks (want 0) and %d of %d near-exact counts (want all)", noisy, looks, counts, looks)
	}
}
