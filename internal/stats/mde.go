package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
)

// Power is the probability of detection the MDE promises.
const Power = 0.80

// MDEInput is a comparison for the closed-form MDE, on the comparison scale.
type MDEInput struct {
	SigmaW float64 // within-job noise (drives the rank test)
	SE     float64 // standard error of the effect estimate (see SE)
	Floor  float64 // the floor L the effect must exceed
	N, M   int     // head runs, base values
	Alpha  float64 // level of the rank test
}

// MDE is the smallest effect (comparison scale) detected with 80 %
// probability, stats.md §6.6: max(A, B) with
// A = (z(1−α) + z(.8))·σ_w·sqrt(π/3)·sqrt(1/n + 1/m) for the rank test
// (its efficiency relative to t is 3/π) and B = L + z(.8)·SE for the floor.
// The formula is optimistic for n+m ≤ 10: use MonteCarloMDE there.
func MDE(in MDEInput) float64 {
	if in.N <= 0 || in.M <= 0 {
		return math.NaN()
	}
	zp := zUpper(1 - Power)
	a := (zUpper(in.Alpha) + zp) * in.SigmaW * math.Sqrt(math.Pi/3) * math.Sqrt(1/float64(in.N)+1/float64(in.M))
	b := in.Floor + zp*in.SE
	return math.Max(a, b)
}

// Simulation describes MonteCarloMDE's synthetic comparisons: base values
// from BaseJobs jobs, head values from one, with Noise (σ_b dropped when
// SameJob), on the comparison scale.
type Simulation struct {
	Noise    Noise
	N, M     int
	BaseJobs int
	SameJob  bool
	Seed     uint64
	Trials   int // default 1000
}

// Decider reports whether the gate calls a regression on head and base
// (comparison scale, higher is worse).
type Decider func(head, base []float64) bool

// bisectionSteps: 10 halvings resolve the effect to 0.1 % of maxShift.
const bisectionSteps = 10

// MonteCarloMDE bisects for the smallest shift in (0, maxShift] that
// decide detects in ≥ 80 % of sim.Trials synthetic comparisons, each
// probe on the same seeded noise; ok is false when maxShift is not.
func MonteCarloMDE(sim Simulation, maxShift float64, decide Decider) (shift float64, ok bool) {
	if sim.N <= 0 || sim.M <= 0 || !(maxShift > 0) {
		return math.NaN(), false
	}
	draws := sim.draw(cmp.Or(max(sim.Trials, 0), 1000))
	if power(draws, maxShift, decide) < Power {
		return math.NaN(), false
	}
	lo, hi := 0.0, maxShift
	for range bisectionSteps {
		mid := (lo + hi) / 2
		if power(draws, mid, decide) >= Power {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

type draw struct{ head, base []float64 }

func (sim Simulation) draw(trials int) []draw {
	rng := rand.New(rand.NewPCG(sim.Seed, 0x7a11_6a7e))
	jobs := max(sim.BaseJobs, 1)
	sb := sim.Noise.SigmaB
	if sim.SameJob {
		sb = 0
	}
	out := make([]draw, trials)
	for t := range out {
		d := draw{head: make([]float64, sim.N), base: make([]float64, sim.M)}
		headOffset := sb * rng.NormFloat64()
		for i := range d.head {
			d.head[i] = headOffset + sim.Noise.SigmaW*rng.NormFloat64()
		}
		offsets := make([]float64, jobs)
		for j := range offsets {
			offsets[j] = sb * rng.NormFloat64()
		}
		for i := range d.base {
			d.base[i] = offsets[i%jobs] + sim.Noise.SigmaW*rng.NormFloat64()
		}
		out[t] = d
	}
	return out
}

func power(draws []draw, shift float64, decide Decider) float64 {
	hits := 0
	head := make([]float64, 0, 64)
	for _, d := range draws {
		head = head[:0]
		for _, v := range d.head {
			head = append(head, v+shift)
		}
		if decide(head, d.base) {
			hits++
		}
	}
	return float64(hits) / float64(len(draws))
}
