package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// detect is the smallest regression this comparison catches with 80 %
// probability (stats.md §6.6), given its floor: the closed form, or for
// n+m ≤ 10, where the closed form is optimistic, a Monte Carlo run of the
// same test and floor.
func (in Input) detect(floor float64) Detectable {
	if in.Paired {
		return in.detectPairs(floor)
	}
	n, m, alpha := len(in.Head), len(in.Base), in.Alpha
	dt := Detectable{Effect: math.NaN(), Method: MethodFormula}
	nz, ok := in.noise()
	if !ok {
		dt.Note = needRuns(m, alpha)
		return dt
	}
	if in.Noise == nil && nz.SigmaW < noVariation && (in.Scale == Ratio || in.Floor == FloorSpread) {
		dt.Note = noVariationNote
		return dt
	}
	se := SE(nz, n, m, in.BaseJobs, in.SameJob)
	var x float64
	if n+m <= monteCarloMaxRuns {
		dt.Method = MethodMonteCarlo
		x, ok = in.simulateMDE(nz, floor, se)
	} else {
		x = MDE(MDEInput{SigmaW: nz.SigmaW, SE: se, Floor: floor, N: n, M: m, Alpha: alpha})
		ok = !math.IsInf(x, 0) && !math.IsNaN(x)
	}
	if !ok {
		dt.Note = "no regression is detected reliably with these samples"
		if MinP(n, m) > alpha && in.Noise == nil && n < 2 && m < 2 {
			dt.Note = needRuns(m, alpha)
		}
		return dt
	}
	dt.Possible, dt.Effect = true, x
	return dt
}

// noVariation is a spread (comparison scale) that is rounding, not noise:
// below it no detectable effect is claimed, as a floor measured from it
// would be 0 and a metric that never varies is likely fixed by the load.
const noVariation = 1e-9

const noVariationNote = "every run measured the same value: no noise to size the detectable effect from (a figure the load fixes cannot show a regression)"

// simulateMDE runs this comparison's own decision on synthetic samples.
func (in Input) simulateMDE(nz Noise, floor, se float64) (float64, bool) {
	sim := Simulation{Noise: nz, N: len(in.Head), M: len(in.Base), BaseJobs: in.BaseJobs, SameJob: in.SameJob,
		Seed: monteCarloSeed, Trials: monteCarloTrials}
	maxShift := floor + maxShiftNoises*math.Max(se, 1e-6)
	if math.IsInf(maxShift, 0) || math.IsNaN(maxShift) {
		return math.NaN(), false
	}
	decide := func(head, base []float64) bool {
		return in.detects(in.fromWorse(head), in.fromWorse(base), floor)
	}
	return MonteCarloMDE(sim, maxShift, decide)
}

// detects is Compare's detection on raw values: an effect beyond the
// floor that the same test finds significant in the worse direction.
func (in Input) detects(head, base []float64, floor float64) bool {
	if !(in.effect(head, base) > floor) {
		return false
	}
	hs, err1 := in.Scale.Values(head)
	bs, err2 := in.Scale.Values(base)
	if err1 != nil || err2 != nil {
		return false
	}
	pw, _, err := in.oneSided(head, base, hs, bs, in.Direction)
	return err == nil && pw <= in.Alpha
}

// fromWorse maps comparison-scale values (higher is worse) to raw values.
func (in Input) fromWorse(v []float64) []float64 {
	d := in.Direction.Sign()
	out := make([]float64, len(v))
	for i, x := range v {
		if in.Scale == Points {
			out[i] = d * x
		} else {
			out[i] = math.Exp(d * x)
		}
	}
	return out
}

// detectPairs is the detectable effect of paired samples, from the spread
// of their differences σ_d: max(A, B) with
// A = (z(1−α) + z(.8))·σ_d·sqrt(π/3)/sqrt(n) for the signed-rank test
// (efficiency 3/π against t) and B = L + z(.8)·σ_d·sqrt(c_n/n) for the floor.
func (in Input) detectPairs(floor float64) Detectable {
	dt := Detectable{Effect: math.NaN(), Method: MethodPairs}
	d, err := PairDifferences(in.Head, in.Base, in.Scale, in.Direction)
	if err != nil || len(d) < 2 {
		dt.Note = "too few pairs to measure their spread"
		return dt
	}
	sd := math.Sqrt(stat.Variance(d, nil))
	if sd < noVariation {
		dt.Note = noVariationNote
		return dt
	}
	n := float64(len(d))
	zp, za := distuv.UnitNormal.Quantile(Power), distuv.UnitNormal.Quantile(1-in.Alpha)
	a := (za + zp) * sd * math.Sqrt(math.Pi/3) / math.Sqrt(n)
	b := floor + zp*sd*math.Sqrt(MedianFactor(len(d))/n)
	x := math.Max(a, b)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		dt.Note = "no regression is detected reliably with these pairs"
		return dt
	}
	dt.Possible, dt.Effect = true, x
	return dt
}
