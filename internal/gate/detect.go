package gate

import (
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
	"math"

	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Settings of the Monte Carlo MDE, used when the closed form is optimistic.
const (
	monteCarloMaxRuns = 10 // n+m at or below which the MDE is simulated
	monteCarloTrials  = 1000
	monteCarloSeed    = 20261129
	maxShiftNoises    = 20 // the largest simulated effect, in standard errors beyond the floor
)

// detect states the smallest regression of a gated metric this comparison
// catches with 80 % probability (stats.md §6.6).
func (pl plan) detect(base, head []float64, k int, p Policy) Detectable {
	n, m := len(head), len(base)
	dt := Detectable{Key: pl.meta.Key, Label: pl.meta.Label, N: n, M: m, Effect: math.NaN(),
		Unit: "%", Direction: "rise", Method: "formula"}
	if pl.percent() {
		dt.Unit = "pp"
	}
	if pl.direction() == stats.LowerIsWorse {
		dt.Direction = "drop"
	}
	if pl.paired {
		return pl.detectPairs(dt, base, head, k, p)
	}
	nz, ok := pl.noiseFor(base, head)
	if !ok {
		dt.Note = needRuns(m, p.alpha())
		return dt
	}
	floor := pl.logFloor(base, head, k, p)
	se := stats.SE(nz, n, m, p.BaselineJobs, p.SameJob)
	var x float64
	if n+m <= monteCarloMaxRuns {
		dt.Method = "monte carlo"
		x, ok = pl.simulateMDE(nz, n, m, floor, se, p)
	} else {
		x = stats.MDE(stats.MDEInput{SigmaW: nz.SigmaW, SE: se, Floor: floor, N: n, M: m, Alpha: p.alpha()})
		ok = !math.IsInf(x, 0) && !math.IsNaN(x)
	}
	if !ok {
		dt.Note = "no regression is detected reliably with these samples"
		if stats.MinP(n, m) > p.alpha() && pl.noise == nil && n < 2 && m < 2 {
			dt.Note = needRuns(m, p.alpha())
		}
		return dt
	}
	dt.Possible, dt.Effect = true, pl.fromScale(x)
	return dt
}

// noiseFor is the calibrated noise, or else the spread the samples show
// (pooled within each side; between-job drift unknown). ok is false when
// neither exists or the values cannot be put on the comparison scale.
func (pl plan) noiseFor(base, head []float64) (stats.Noise, bool) {
	if pl.noise != nil {
		return *pl.noise, true
	}
	hs, err1 := pl.scale(head)
	bs, err2 := pl.scale(base)
	if err1 != nil || err2 != nil {
		return stats.Noise{}, false
	}
	s, ok := pooledSD(hs, bs)
	return stats.Noise{SigmaW: s}, ok
}

// pooledSD is the within-side standard deviation pooled over both sides.
func pooledSD(a, b []float64) (float64, bool) {
	var ss float64
	df := 0
	for _, x := range [][]float64{a, b} {
		if len(x) < 2 {
			continue
		}
		mean := stats.Mean(x)
		for _, v := range x {
			ss += (v - mean) * (v - mean)
		}
		df += len(x) - 1
	}
	if df == 0 {
		return math.NaN(), false
	}
	return math.Sqrt(ss / float64(df)), true
}

// simulateMDE runs the gate's own decision on synthetic comparisons.
func (pl plan) simulateMDE(nz stats.Noise, n, m int, floor, se float64, p Policy) (float64, bool) {
	sim := stats.Simulation{Noise: nz, N: n, M: m, BaseJobs: p.BaselineJobs, SameJob: p.SameJob,
		Seed: monteCarloSeed, Trials: monteCarloTrials}
	maxShift := floor + maxShiftNoises*math.Max(se, 1e-6)
	if math.IsInf(maxShift, 0) || math.IsNaN(maxShift) {
		return math.NaN(), false
	}
	decide := func(head, base []float64) bool {
		return pl.regresses(pl.fromWorse(head), pl.fromWorse(base), floor, p)
	}
	return stats.MonteCarloMDE(sim, maxShift, decide)
}

// fromWorse maps comparison-scale values oriented "higher is worse" back to
// raw metric values.
func (pl plan) fromWorse(v []float64) []float64 {
	d := pl.direction().Sign()
	out := make([]float64, len(v))
	for i, x := range v {
		if pl.percent() {
			out[i] = d * x
		} else {
			out[i] = math.Exp(d * x)
		}
	}
	return out
}

// floorBelowNoise is the online sanity check of stats.md §6.3: an
// uncalibrated floor smaller than z(1−α/K)·σ̂·sqrt(c_n/n + c_m/m), i.e.
// smaller than the noise of the estimate itself.
func (pl plan) floorBelowNoise(base, head []float64, k int, p Policy) bool {
	if pl.noise != nil || len(base) < 2 || len(head) < 2 {
		return false
	}
	nz, ok := pl.noiseFor(base, head)
	if !ok {
		return false
	}
	visible := stats.Floor(stats.Noise{SigmaW: nz.SigmaW}, len(head), len(base), 1, true, p.alpha(), k)
	return pl.logFloor(base, head, k, p) < visible
}

// detectPairs is the detectable effect of a paired A/B comparison, from the
// spread of the pairs' differences σ_d: max(A, B) with
// A = (z(1−α) + z(.8))·σ_d·sqrt(π/3)/sqrt(n) for the signed-rank test
// (efficiency 3/π against t) and B = L + z(.8)·σ_d·sqrt(c_n/n) for the floor.
func (pl plan) detectPairs(dt Detectable, base, head []float64, k int, p Policy) Detectable {
	dt.Method = "formula (pairs)"
	d, err := pl.differences(base, head)
	if err != nil || len(d) < 2 {
		dt.Note = "too few pairs to measure their spread"
		return dt
	}
	sd := math.Sqrt(stat.Variance(d, nil))
	n := float64(len(d))
	zp, za := distuv.UnitNormal.Quantile(stats.Power), distuv.UnitNormal.Quantile(1-p.alpha())
	a := (za + zp) * sd * math.Sqrt(math.Pi/3) / math.Sqrt(n)
	b := pl.logFloor(base, head, k, p) + zp*sd*math.Sqrt(stats.MedianFactor(len(d))/n)
	x := math.Max(a, b)
	if math.IsInf(x, 0) || math.IsNaN(x) {
		dt.Note = "no regression is detected reliably with these pairs"
		return dt
	}
	dt.Possible, dt.Effect = true, pl.fromScale(x)
	return dt
}
