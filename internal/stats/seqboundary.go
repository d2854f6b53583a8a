package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Calibration sizes. calibrationPaths null paths put the Monte Carlo error
// of the overall level at about 1/sqrt(α·paths) relative (3.5 % at
// α = 0.05/6); powerPaths standardized paths price the detectable effect.
const (
	calibrationPaths = 100_000
	powerPaths       = 2_000
	calibrationSeed  = 0x5e9_7e57
	powerSeed        = 0x5e9_90e5
)

// tBoundary holds the critical values of T_n = √n·mean/sd at one one-sided
// level and schedule, by n − MinBlocks: crit at a planned look (+Inf at no
// look or one that spends nothing), final when n is the last look (a time
// budget ran out) and spends the level left.
type tBoundary struct {
	crit, final []float64
}

// schedule is what a boundary depends on besides its level; prior is the
// pooled earlier noise's degrees of freedom (0: none).
type schedule struct {
	min, max, every int
	rho             float64
	prior           int
}

func (s schedule) isLook(n int) bool {
	return n == s.max || (n >= s.min && (n-s.min)%s.every == 0)
}

// spent is the Kim–DeMets power-family spending a·(n/N)^ρ of level a.
func (s schedule) spent(a float64, n int) float64 {
	return a * math.Pow(float64(n)/float64(s.max), s.rho)
}

type boundaryKey struct {
	sch   schedule
	level float64
}

var (
	boundaries memo[boundaryKey, *tBoundary]
	pathSets   memo[schedule, *standardPaths]
)

// memo computes each value on first use under its lock; it starts afresh at size values (0: unbounded).
type memo[K comparable, V any] struct {
	sync.Mutex
	byKey map[K]V
	size  int
}

func (m *memo[K, V]) get(key K, compute func() V) V {
	m.Lock()
	defer m.Unlock()
	if v, ok := m.byKey[key]; ok {
		return v
	}
	if m.byKey == nil || m.size > 0 && len(m.byKey) >= m.size {
		m.byKey = map[K]V{}
	}
	v := compute()
	m.byKey[key] = v
	return v
}

// boundaryFor is the cached boundary, calibrated on first use (50 ms at 20 pairs; fixed seed).
func boundaryFor(sch schedule, level float64) *tBoundary {
	return boundaries.get(boundaryKey{sch, level}, func() *tBoundary { return calibrate(sch, level) })
}

// calibrate simulates calibrationPaths standard normal paths pair by pair;
// a look's critical value is the T exactly the newly allowed share of all
// paths exceeds among those not yet crossed (Lan and DeMets' recursion,
// simulated: the t statistics are not jointly normal).
func calibrate(sch schedule, level float64) *tBoundary {
	rng := rand.New(rand.NewPCG(calibrationSeed, math.Float64bits(level)))
	size := sch.max - sch.min + 1
	b := &tBoundary{crit: make([]float64, size), final: make([]float64, size)}
	mean := make([]float64, calibrationPaths)
	m2 := make([]float64, calibrationPaths) // Welford's sum of squared deviations
	prior := priorSums(rng, calibrationPaths, sch.prior)
	alive := make([]int, calibrationPaths) // paths that have not crossed
	for i := range alive {
		alive[i] = i
	}
	stat := make([]float64, calibrationPaths) // T of the alive paths, in their order
	work := make([]float64, calibrationPaths) // a copy that upperCut may reorder
	crossed, total := 0, float64(calibrationPaths)
	for n := 1; n <= sch.max; n++ {
		for i := range mean {
			x := rng.NormFloat64()
			delta := x - mean[i]
			mean[i] += delta / float64(n)
			m2[i] += delta * (x - mean[i])
		}
		if n < sch.min {
			continue
		}
		t := stat[:len(alive)]
		for j, i := range alive {
			t[j] = math.Sqrt(float64(n)) * mean[i] / pathSD(m2[i], n, prior[i], sch.prior)
		}
		idx := n - sch.min
		b.final[idx] = upperCut(append(work[:0], t...), int(math.Round(level*total))-crossed)
		b.crit[idx] = math.Inf(1)
		if !sch.isLook(n) {
			continue
		}
		b.crit[idx] = upperCut(append(work[:0], t...), int(math.Round(sch.spent(level, n)*total))-crossed)
		kept := alive[:0]
		for j, i := range alive {
			if t[j] > b.crit[idx] {
				crossed++
			} else {
				kept = append(kept, i)
			}
		}
		alive = kept
	}
	return b
}

// pathSD is a path's sd from its Welford sum m2 and prior sum of squares m20.
func pathSD(m2 float64, n int, m20 float64, priorDF int) float64 {
	return math.Sqrt((m2 + m20) / float64(n-1+priorDF))
}

// priorSums draws per path the sum of squares of a prior of df degrees of
// freedom (σ² = 1): zeros when df is 0.
func priorSums(rng *rand.Rand, paths, df int) []float64 {
	out := make([]float64, paths)
	for i := range out {
		for k := 0; k < df; k++ {
			x := rng.NormFloat64()
			out[i] += x * x
		}
	}
	return out
}

// upperCut returns a value exactly k of t exceed (halfway between the k-th
// and (k+1)-th largest; +Inf for k ≤ 0), reordering t.
func upperCut(t []float64, k int) float64 {
	if k <= 0 || len(t) == 0 {
		return math.Inf(1)
	}
	if k >= len(t) {
		return math.Inf(-1)
	}
	return (selectDescending(t, k-1) + slices.Max(t[k:])) / 2 // t[:k] holds the k largest
}

// selectDescending reorders t so that t[k] is the value of rank k in
// descending order, larger values before it and smaller after it
// (Hoare's quickselect, median-of-three pivot), and returns t[k].
func selectDescending(t []float64, k int) float64 {
	lo, hi := 0, len(t)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		pivot := median3(t[lo], t[mid], t[hi])
		i, j := lo, hi
		for i <= j {
			for t[i] > pivot {
				i++
			}
			for t[j] < pivot {
				j--
			}
			if i <= j {
				t[i], t[j] = t[j], t[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return t[k]
		}
	}
	return t[k]
}

func median3(a, b, c float64) float64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return math.Max(a, b)
}

// standardPaths are seeded N(0,1) paths summarised at every n of a
// schedule: mean[p][i] and sd[p][i] at n = MinBlocks+i. A path with shift
// δ and scale σ has mean σ(mean+δ) and sd σ·sd, so one set prices every
// effect and noise level (the detectable effect by common random numbers).
type standardPaths struct {
	mean, sd [][]float64
}

func standardPathsFor(sch schedule) *standardPaths {
	return pathSets.get(sch, func() *standardPaths { return simulatePaths(sch) })
}

func simulatePaths(sch schedule) *standardPaths {
	rng := rand.New(rand.NewPCG(powerSeed, uint64(sch.max)))
	p := &standardPaths{mean: make([][]float64, powerPaths), sd: make([][]float64, powerPaths)}
	prior := priorSums(rand.New(rand.NewPCG(powerSeed, uint64(sch.prior))), powerPaths, sch.prior)
	for i := range p.mean {
		p.mean[i], p.sd[i] = make([]float64, sch.max-sch.min+1), make([]float64, sch.max-sch.min+1)
		var mean, m2 float64
		for n := 1; n <= sch.max; n++ {
			x := rng.NormFloat64()
			delta := x - mean
			mean += delta / float64(n)
			m2 += delta * (x - mean)
			if n >= sch.min {
				p.mean[i][n-sch.min] = mean
				p.sd[i][n-sch.min] = pathSD(m2, n, prior[i], sch.prior)
			}
		}
	}
	return p
}
