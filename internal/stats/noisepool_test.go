package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// jobSpreads draws the sample SDs of jobs with df degrees of freedom each,
// job i's true SD sds[i%len(sds)].
func jobSpreads(rng *rand.Rand, n, df int, sds ...float64) []SeqPrior {
	out := make([]SeqPrior, n)
	for i := range out {
		ss := 0.0
		for range df {
			z := rng.NormFloat64()
			ss += z * z
		}
		out[i] = SeqPrior{SD: sds[i%len(sds)] * math.Sqrt(ss/float64(df)), DF: df}
	}
	return out
}

func TestPoolNoiseKeepsTheDegreesOfFreedomOfAgreeingJobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	kept := 0
	for range 200 {
		p := PoolNoise(jobSpreads(rng, 10, 3, 0.04))
		if p.DF == 30 {
			kept++
		}
		if p.DF > 30 || math.Abs(p.SD-0.04) > 0.02 {
			t.Fatalf("10 jobs of 3 df at SD 4 %%: pooled %+v", p)
		}
	}
	// τ² is estimated 0 whenever the jobs' disagreement is no more than
	// sampling explains (Q ≤ k−1): about half the time, and the rest of
	// the time a little above.
	t.Logf("equal noise: all 30 df kept in %d of 200 pools", kept)
	if kept < 80 {
		t.Errorf("equal noise: all 30 df kept in %d of 200 pools, want ≥ 80", kept)
	}
}

func TestPoolNoiseShrinksTheDegreesOfFreedomOfDisagreeingJobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2))
	var dfs []int
	for range 200 {
		// quiet and busy jobs, SDs 2× apart, as a CPU hog beside every
		// other job made them
		p := PoolNoise(jobSpreads(rng, 10, 3, 0.03, 0.06))
		dfs = append(dfs, p.DF)
		if p.Summed != 30 { // what the report calls their degrees of freedom
			t.Fatalf("summed df %d, want the jobs' 30", p.Summed)
		}
	}
	// τ² = Var ln σ² = (ln 4)²/4 ≈ 0.48: about 4 df for the next job;
	// 10 jobs of 3 df estimate it roughly, so half of the pools at most
	// 8 (a look's prior grid: 4, 8, 16, 32) where 30 claimed it known.
	slices.Sort(dfs)
	t.Logf("noise 2× apart: pooled df quartiles %d %d %d", dfs[50], dfs[100], dfs[150])
	if dfs[100] > 8 {
		t.Errorf("noise 2× apart: median pooled df %d, want ≤ 8", dfs[100])
	}
}

func TestPoolNoiseEdges(t *testing.T) {
	if p := PoolNoise(nil); p.DF != 0 {
		t.Errorf("no jobs: %+v, want no prior", p)
	}
	if p := PoolNoise([]SeqPrior{{SD: math.NaN(), DF: 3}, {SD: 0.1, DF: 0}}); p.DF != 0 {
		t.Errorf("no usable job: %+v, want no prior", p)
	}
	// an exact count: zero spread in every job is a zero prior, which a
	// look does not use (SeqPrior.usable)
	if p := PoolNoise([]SeqPrior{{SD: 0, DF: 3}, {SD: 0, DF: 5}}); p.SD != 0 || p.DF != 8 {
		t.Errorf("zero spreads: %+v, want SD 0 with 8 df", p)
	}
	// one job with a spread, one without: the variance averages both,
	// and τ² needs two logs
	if p := PoolNoise([]SeqPrior{{SD: 0, DF: 2}, {SD: 0.04, DF: 2}}); p.DF != 4 || math.Abs(p.SD-0.04/math.Sqrt2) > 1e-12 {
		t.Errorf("one zero spread: %+v", p)
	}
}
