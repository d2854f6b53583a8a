package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSignedRankExactValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		d             []float64
		worse, better float64
	}{
		// All 8 positive: only 1 of 2⁸ sign patterns is as extreme.
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8}, 1.0 / 256, 1},
		// Ranks 1..3, positive rank sum 5 (2+3): P(W+ ≥ 5) = 2/8 (sums 5, 6).
		{[]float64{-1, 2, 3}, 2.0 / 8, 7.0 / 8},
		// Zeros are dropped; all zero is no change.
		{[]float64{0, 0, 0}, 1, 1},
		{[]float64{0, 1, 2}, 1.0 / 4, 1},
		// Ties share a mid-rank: |d| = 1,1 → ranks 1.5, 1.5; W+ = 1.5 of 3.
		{[]float64{1, -1}, 3.0 / 4, 3.0 / 4},
	}
	for _, c := range cases {
		w, b, err := SignedRankTest(c.d)
		if err != nil || math.Abs(w-c.worse) > 1e-12 || math.Abs(b-c.better) > 1e-12 {
			t.Errorf("SignedRankTest(%v) = %v, %v, %v; want %v, %v", c.d, w, b, err, c.worse, c.better)
		}
	}
	if _, _, err := SignedRankTest(nil); err == nil {
		t.Error("no pairs: want an error")
	}
}

// Under the null (symmetric differences) the test holds its level.
func TestSignedRankLevel(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	const trials = 4000
	reject := 0
	for range trials {
		d := make([]float64, 10)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		if p, _, _ := SignedRankTest(d); p <= 0.05 {
			reject++
		}
	}
	if rate := float64(reject) / trials; rate > 0.06 || rate < 0.03 {
		t.Errorf("null rejection rate %.3f, want about 0.05 (exact test, discrete)", rate)
	}
}
