package stats

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// PoolNoise pools one metric's spreads in earlier jobs into a sequential
// look's prior (SeqDesign.Prior): the variances averaged by their degrees
// of freedom, with as many degrees of freedom as the jobs' agreement
// supports, not their sum: a job beside a busy neighbour has twice the
// spread (issue 19). The log variances vary by τ² beyond sampling, and
// 2/ν = τ² + 2/Σν_j: agreeing jobs keep Σν_j, jobs 2× apart in SD about 4.
// Jobs with a zero spread count in the variance, not in τ².
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
	out := SeqPrior{SD: math.Sqrt(ss / float64(df)), DF: df, Summed: df}
	if tau2 := logVarianceHeterogeneity(spread); tau2 > 0 {
		out.DF = min(df, int(2/(tau2+2/float64(df))))
	}
	return out
}

// logVarianceHeterogeneity is the DerSimonian–Laird estimate of τ²
// (Controlled Clinical Trials 7(3), 1986): each job's log sample variance
// corrected by its bias ψ(ν/2) − ln(ν/2) and weighted by the inverse of
// its variance ψ′(ν/2); 0 when fewer than two jobs.
func logVarianceHeterogeneity(jobs []SeqPrior) float64 {
	if len(jobs) < 2 {
		return 0
	}
	ys, ws := make([]float64, len(jobs)), make([]float64, len(jobs))
	var sw, sw2, swy float64
	for i, j := range jobs {
		half := float64(j.DF) / 2
		ys[i] = 2*math.Log(j.SD) - (mathext.Digamma(half) - math.Log(half))
		ws[i] = 1 / mathext.Zeta(2, half) // the trigamma ψ′(x) is the Hurwitz ζ(2, x)
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
