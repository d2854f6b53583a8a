package stats

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// PoolNoise pools the spreads of one metric in earlier jobs into the prior
// a sequential look uses (SeqDesign.Prior): the variances averaged
// weighted by their degrees of freedom, and as many degrees of freedom as
// the jobs' agreement supports.
//
// Adding the jobs' degrees of freedom claims that every job had the same
// noise. On a shared machine they did not: a job beside a busy neighbour
// has twice the spread of a quiet one (issue 19: blocks' throughput SD
// 3.7 % quiet, 6–10 % beside a CPU hog), and a busy job judged with the
// quiet jobs' noise at 16 degrees of freedom is sure too early (a false
// alarm after 3 blocks whose own spread agreed with the prior). So the
// jobs' noise levels are taken as varying around the pooled one, with a
// variance τ² of their logs that the jobs' disagreement estimates beyond
// what their own sampling explains (heterogeneity); the prior for the next
// job is a scaled χ² whose log has that uncertainty: 2/ν = τ² + 2/Σν_j
// (Var ln χ²_ν/ν ≈ 2/ν). Agreeing jobs keep Σν_j; jobs 2× apart in SD
// (τ² ≈ 0.5 for half of each) keep about 4, which the look then needs its
// own blocks to add to. Jobs with a zero spread (exact counts) take part
// in the variance but not in τ² (their log is −∞).
func PoolNoise(jobs []SeqPrior) SeqPrior {
	var ss float64
	df := 0
	var spread []SeqPrior
	for _, j := range jobs {
		if !(j.SD >= 0) || math.IsInf(j.SD, 1) || j.DF < 1 {
			continue
		}
		ss += float64(j.DF) * j.SD * j.SD
		df += j.DF
		if j.SD > 0 {
			spread = append(spread, j)
		}
	}
	if df == 0 {
		return SeqPrior{}
	}
	out := SeqPrior{SD: math.Sqrt(ss / float64(df)), DF: df}
	if tau2 := logVarianceHeterogeneity(spread); tau2 > 0 {
		out.DF = min(df, int(2/(tau2+2/float64(df))))
	}
	return out
}

// logVarianceHeterogeneity is the DerSimonian–Laird estimate of τ², the
// variance across jobs of their log variances beyond sampling error
// (DerSimonian & Laird, Controlled Clinical Trials 7(3), 1986). A job's
// log sample variance with ν degrees of freedom estimates its log variance
// with bias ψ(ν/2) − ln(ν/2) and variance ψ′(ν/2) (the log of a scaled
// χ²_ν), so each is corrected and weighted by the inverse of that
// variance; 0 when fewer than two jobs.
func logVarianceHeterogeneity(jobs []SeqPrior) float64 {
	if len(jobs) < 2 {
		return 0
	}
	ys, ws := make([]float64, len(jobs)), make([]float64, len(jobs))
	var sw, sw2, swy float64
	for i, j := range jobs {
		half := float64(j.DF) / 2
		ys[i] = 2*math.Log(j.SD) - (mathext.Digamma(half) - math.Log(half))
		ws[i] = 1 / trigamma(half)
		sw += ws[i]
		sw2 += ws[i] * ws[i]
		swy += ws[i] * ys[i]
	}
	mean := swy / sw
	q := 0.0
	for i := range ys {
		q += ws[i] * (ys[i] - mean) * (ys[i] - mean)
	}
	return math.Max(0, (q-float64(len(jobs)-1))/(sw-sw2/sw))
}

// trigamma is ψ′(x) = ζ(2, x), the Hurwitz zeta function at 2.
func trigamma(x float64) float64 { return mathext.Zeta(2, x) }
