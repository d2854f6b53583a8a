package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// medianFactors[k-1] is c_k = k·Var(median of k iid N(0,1)), by numerical
// integration of the order-statistic densities (stats.md §6.5's Monte
// Carlo table agrees); even k are smaller, the median averaging two.
var medianFactors = [...]float64{
	1.0000, 1.0000, 1.3460, 1.1932, 1.4342, 1.2885, 1.4731, 1.3454, 1.4949, 1.3833,
	1.5088, 1.4102, 1.5184, 1.4303, 1.5254, 1.4460, 1.5308, 1.4585, 1.5350, 1.4687,
	1.5385, 1.4773, 1.5413, 1.4845, 1.5437, 1.4906, 1.5457, 1.4960, 1.5474, 1.5007,
	1.5489, 1.5048, 1.5503, 1.5085, 1.5514, 1.5117, 1.5525, 1.5147, 1.5534, 1.5174,
	1.5543, 1.5198, 1.5551, 1.5220, 1.5558, 1.5240, 1.5564, 1.5259, 1.5570, 1.5276,
}

// MedianFactor returns c_k, the variance of a median of k values relative
// to a mean of k values. Beyond the table it returns the limit π/2, which
// slightly overstates the variance (a conservative floor).
func MedianFactor(k int) float64 {
	switch {
	case k <= 0:
		return math.NaN()
	case k <= len(medianFactors):
		return medianFactors[k-1]
	default:
		return math.Pi / 2
	}
}

// SE is the standard error of the log ratio of medians of n head runs and
// m base values from baseJobs jobs under the noise model:
// sqrt(σ_b²(1+1/S_b) + σ_w²(c_n/n + c_m/m)). sameJob (A/B in one job)
// drops the between-job term. baseJobs < 1 counts as 1 (conservative).
func SE(nz Noise, n, m, baseJobs int, sameJob bool) float64 {
	a, b := seCoefficients(n, m, baseJobs, sameJob)
	return math.Sqrt(a*nz.SigmaB*nz.SigmaB + b*nz.SigmaW*nz.SigmaW)
}

// seCoefficients are SE² = a·σ_b² + b·σ_w²'s a and b.
func seCoefficients(n, m, baseJobs int, sameJob bool) (a, b float64) {
	if n <= 0 || m <= 0 {
		return math.NaN(), math.NaN()
	}
	if !sameJob {
		a = 1 + 1/float64(max(baseJobs, 1))
	}
	return a, MedianFactor(n)/float64(n) + MedianFactor(m)/float64(m)
}

// Floor is the calibrated noise floor on the comparison scale, L = t(1−α/K,
// df)·SE: K gated metrics share the family-wise α (stats.md §0); with z for
// t, two gated under drift raised 6–7 % simulated A/A alarms, not 5 %.
func Floor(nz Noise, n, m, baseJobs int, sameJob bool, alpha float64, k int) float64 {
	a, b := seCoefficients(n, m, baseJobs, sameJob)
	return quantileUpper(alpha/float64(max(k, 1)), nz.df(a, b)) * SE(nz, n, m, baseJobs, sameJob)
}

// df is Satterthwaite's for SE² = a·σ_b² + b·σ_w² from the calibration's
// mean squares, MS_b on Jobs−1 df, MS_w on Jobs·(Runs−1), σ_b² = (MS_b −
// MS_w)/Runs, at least Jobs−1 (MS_w's coefficient b − a/Runs can be below
// 0, and Satterthwaite's df then below both); +Inf (z) for a noise that
// does not say how it was measured.
func (nz Noise) df(a, b float64) float64 {
	jobs, runs, msw := float64(nz.Jobs), float64(nz.Runs), nz.SigmaW*nz.SigmaW
	between, within := a/runs*(runs*nz.SigmaB*nz.SigmaB+msw), (b-a/runs)*msw
	if v := between + within; nz.Jobs >= minCalibrationJobs && nz.Runs >= minCalibrationRuns && v > 0 {
		return max(v*v/(between*between/(jobs-1)+within*within/(jobs*(runs-1))), jobs-1)
	}
	return math.Inf(1)
}

// quantileUpper is t(1−a) with df degrees of freedom; z(1−a) for df +Inf.
func quantileUpper(a, df float64) float64 {
	if math.IsInf(df, 1) {
		return zUpper(a)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - a)
}

// zUpper is the standard normal quantile z(1−a).
func zUpper(a float64) float64 { return distuv.UnitNormal.Quantile(1 - a) }

// RiseFloor converts a relative floor for a higher-is-worse metric (0.51 =
// a 51 % rise) to the log scale: ln(1+f).
func RiseFloor(f float64) float64 { return math.Log1p(f) }

// DropFloor converts a relative floor for a lower-is-worse metric (0.067 =
// a 6.7 % drop) to the log scale: −ln(1−f); +Inf for f ≥ 1.
func DropFloor(f float64) float64 {
	if f >= 1 {
		return math.Inf(1)
	}
	return -math.Log1p(-f)
}

// CalibratedFloor is Floor, but at least least (a short benchmark's
// resolution: a calibration that saw no noise leaves no zero floor).
func CalibratedFloor(nz Noise, n, m, baseJobs int, sameJob bool, alpha float64, k int, least float64) float64 {
	return math.Max(Floor(nz, n, m, baseJobs, sameJob, alpha, k), least)
}

// floor is the comparison's floor: the noise's, never below MinEffect.
func (in Input) floor() float64 {
	return math.Max(in.noiseFloor(), in.MinEffect)
}

// noiseFloor is the floor the noise alone sets: the pairs' spread, the
// calibrated noise, both sides' spread, or the caller's fixed floor.
func (in Input) noiseFloor() float64 {
	n, m := len(in.Head), len(in.Base)
	switch {
	case in.Paired:
		return math.Max(in.pairsFloor(), in.LeastFloor)
	case in.Floor == FloorCalibrated && in.Noise != nil:
		return CalibratedFloor(*in.Noise, n, m, in.BaseJobs, in.SameJob, in.Alpha, in.K, in.LeastFloor)
	case in.Floor == FloorSpread:
		return math.Max(in.spreadFloor(), in.LeastFloor)
	}
	return in.FixedFloor
}

// pairsFloor is the floor of paired samples, from the spread of their
// differences: t(1−α/K, n−1)·sd(d)·sqrt(c_n/n); +Inf without a spread.
func (in Input) pairsFloor() float64 {
	d, err := PairDifferences(in.Head, in.Base, in.Scale, in.Direction)
	if err != nil || len(d) < 2 {
		return math.Inf(1)
	}
	sd := math.Sqrt(stat.Variance(d, nil))
	n := len(d)
	return quantileUpper(in.Alpha/float64(max(in.K, 1)), float64(n-1)) * sd * math.Sqrt(MedianFactor(n)/float64(n))
}

// spreadFloor is the FloorSpread rule. Without two values on some side
// there is no spread to measure: +Inf, so that nothing is a regression.
func (in Input) spreadFloor() float64 {
	hs, err1 := in.Scale.Values(in.Head)
	bs, err2 := in.Scale.Values(in.Base)
	sd, ok := pooledSD(hs, bs)
	if err1 != nil || err2 != nil || !ok {
		return math.Inf(1)
	}
	n, m := len(in.Head), len(in.Base)
	t := quantileUpper(in.Alpha/float64(max(in.K, 1)), float64(n+m-2))
	return t * sd * math.Sqrt(MedianFactor(n)/float64(n)+MedianFactor(m)/float64(m))
}

// floorBelowNoise (stats.md §6.3): an uncalibrated floor below the
// estimate's own noise, z(1−α/K)·σ̂·sqrt(c_n/n + c_m/m).
func (in Input) floorBelowNoise(floor float64) bool {
	if in.Noise != nil || len(in.Base) < 2 || len(in.Head) < 2 {
		return false
	}
	nz, ok := in.noise()
	if !ok {
		return false
	}
	return floor < Floor(Noise{SigmaW: nz.SigmaW}, len(in.Head), len(in.Base), 1, true, in.Alpha, in.K)
}

// noise is the calibrated noise, else the samples' spread pooled within
// each side; ok is false when neither can be had.
func (in Input) noise() (Noise, bool) {
	if in.Noise != nil {
		return *in.Noise, true
	}
	hs, err1 := in.Scale.Values(in.Head)
	bs, err2 := in.Scale.Values(in.Base)
	if err1 != nil || err2 != nil {
		return Noise{}, false
	}
	s, ok := pooledSD(hs, bs)
	return Noise{SigmaW: s}, ok
}
