package stats

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
)

// Change points of a series of jobs (one value each, oldest first, on the
// comparison scale: a job's runs share its drift): E-divisive means
// (Matteson & James, 2014) with its permutation test, then a merge of
// steps below a floor. Nothing is split unless the first test rejects at
// Alpha, so a clean series gets a change point with probability ≤ Alpha.

// ChangePointOptions tune ChangePoints; zero values take the defaults.
type ChangePointOptions struct {
	Alpha float64 // each permutation test's level
	// Permutations per test: p ≥ 1/(Permutations+1), so it must exceed 1/Alpha − 1.
	Permutations int
	MinSize      int // the fewest points of a segment
	// MinStep merges away smaller steps (neighbour medians' difference); 0 keeps all.
	MinStep    float64
	Confidence float64 // of the step's bootstrap bounds (0.95)
	Resamples  int
	Seed       uint64 // makes the permutations and the bootstrap repeatable
}

// Defaults of ChangePointOptions.
const (
	DefaultChangeAlpha  = 0.01
	DefaultPermutations = 499
	DefaultMinSegment   = 4
	DefaultResamples    = 999
)

// ChangePoint is one shift of a series' level.
type ChangePoint struct {
	Index int     // the first point of the new level
	P     float64 // the split's permutation p when it was found
	// Step is median(after) − median(before) of the neighbouring segments
	// (of sizes Before and After); Lo and Hi its bootstrap bounds.
	Step, Lo, Hi  float64
	Before, After int
	// First…Last bound Index at about 95 % (a likelihood-ratio location set).
	First, Last int
}

// ChangePoints finds the change points of x (oldest first), in order. A
// series too short to hold two segments has none.
func ChangePoints(x []float64, o ChangePointOptions) ([]ChangePoint, error) {
	o = o.withDefaults()
	if err := cmp.Or(o.check(), CheckFinite(x)); err != nil {
		return nil, err
	}
	found := divide(x, o, rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15)))
	cuts, found := relocate(x, merge(x, found, o.MinStep), found)
	return describeCuts(x, cuts, found, o), nil
}

func (o ChangePointOptions) withDefaults() ChangePointOptions {
	o.Alpha, o.Confidence = cmp.Or(o.Alpha, DefaultChangeAlpha), cmp.Or(o.Confidence, 0.95)
	o.Permutations, o.MinSize = cmp.Or(o.Permutations, DefaultPermutations), cmp.Or(o.MinSize, DefaultMinSegment)
	o.Resamples = cmp.Or(o.Resamples, DefaultResamples)
	return o
}

func (o ChangePointOptions) check() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("change points: alpha %v is not in (0, 1)", o.Alpha)
	case float64(o.Permutations+1)*o.Alpha < 1:
		return fmt.Errorf("change points: %d permutations cannot reach p ≤ %v", o.Permutations, o.Alpha)
	case o.MinSize < 2:
		return errors.New("change points: a segment needs at least 2 points")
	case !(o.Confidence > 0 && o.Confidence < 1):
		return fmt.Errorf("change points: confidence %v is not in (0, 1)", o.Confidence)
	case o.MinStep < 0 || math.IsNaN(o.MinStep):
		return fmt.Errorf("change points: floor %v is negative", o.MinStep)
	}
	return nil
}

// divide is hierarchical E-divisive: split the strongest segment while the
// permutation test rejects; it returns the splits with their p-values.
func divide(x []float64, o ChangePointOptions, rng *rand.Rand) map[int]float64 {
	found := map[int]float64{}
	var ws workspace
	for {
		cuts := slices.Sorted(maps.Keys(found))
		best, q := bestSplit(x, cuts, o.MinSize, &ws)
		if best < 0 {
			return found
		}
		p := permutationP(x, cuts, q, o, rng, &ws)
		if p > o.Alpha {
			return found
		}
		found[best] = p
	}
}

// bestSplit is the split with the largest statistic over every segment
// that cuts make of x; −1 when no segment can be split.
func bestSplit(x []float64, cuts []int, minSize int, ws *workspace) (int, float64) {
	best, bestQ := -1, math.Inf(-1)
	forSegments(len(x), cuts, func(s, e int) {
		if tau, q := ws.split(x[s:e], minSize); tau >= 0 && q > bestQ {
			best, bestQ = s+tau, q
		}
	})
	return best, bestQ
}

// permutationP is the share of permutations (each segment's values shuffled
// within it) whose best statistic is at least q, counting the observed
// series as one. It stops once p can no longer be ≤ Alpha.
func permutationP(x []float64, cuts []int, q float64, o ChangePointOptions, rng *rand.Rand, ws *workspace) float64 {
	perm := slices.Clone(x)
	limit := int(math.Floor(o.Alpha * float64(o.Permutations+1)))
	exceed := 0
	for r := 0; r < o.Permutations; r++ {
		forSegments(len(perm), cuts, func(s, e int) {
			seg := perm[s:e]
			rng.Shuffle(len(seg), func(i, j int) { seg[i], seg[j] = seg[j], seg[i] })
		})
		if _, qp := bestSplit(perm, cuts, o.MinSize, ws); qp >= q {
			exceed++
			if exceed >= limit {
				return float64(exceed+1) / float64(r+2)
			}
		}
	}
	return float64(exceed+1) / float64(o.Permutations+1)
}

type workspace struct{ rows []float64 } // one segment's distance sums, reused

// split returns the best split τ of seg (the first index of the second
// part, each part at least minSize long) and its statistic: the largest
// Q(τ, κ) = mn/(m+n)·Ê over κ, where Ê is the energy distance between
// seg[:τ] and seg[τ:κ] with exponent 1. −1 when seg is too short.
func (ws *workspace) split(seg []float64, minSize int) (int, float64) {
	n := len(seg)
	if n < 2*minSize {
		return -1, 0
	}
	prefix := ws.prefixSums(seg)
	row := func(i, j int) float64 { return prefix[i*(n+1)+j] } // Σ_{k<j} |seg[i]−seg[k]|
	best, bestQ := -1, math.Inf(-1)
	var withinX float64 // Σ over pairs in seg[:tau]
	for tau := 1; tau <= n-minSize; tau++ {
		withinX += row(tau-1, tau-1)
		if tau < minSize {
			continue
		}
		var between, withinY float64
		for kappa := tau; kappa < n; kappa++ {
			between += row(kappa, tau)
			withinY += row(kappa, kappa) - row(kappa, tau)
			m, k := float64(tau), float64(kappa+1-tau)
			if kappa+1-tau < minSize {
				continue
			}
			e := 2*between/(m*k) - withinX/(m*(m-1)/2) - withinY/(k*(k-1)/2)
			if q := m * k / (m + k) * e; q > bestQ {
				best, bestQ = tau, q
			}
		}
	}
	return best, bestQ
}

// prefixSums fills the running sums Σ_{k<j} |seg[i]−seg[k]|, j = 0…n.
func (ws *workspace) prefixSums(seg []float64) []float64 {
	n := len(seg)
	size := n * (n + 1)
	if cap(ws.rows) < size {
		ws.rows = make([]float64, size)
	}
	rows := ws.rows[:size]
	for i, xi := range seg {
		base := i * (n + 1)
		rows[base] = 0
		for j, xj := range seg {
			rows[base+j+1] = rows[base+j] + math.Abs(xi-xj)
		}
	}
	return rows
}

// merge removes, weakest first, the splits whose step between their
// neighbouring segments (recomputed after each removal) is below minStep.
func merge(x []float64, found map[int]float64, minStep float64) []int {
	cuts := slices.Sorted(maps.Keys(found))
	for len(cuts) > 0 {
		weakest, size := -1, math.Inf(1)
		for i := range cuts {
			before, after := segmentsAround(x, cuts, i)
			if s := math.Abs(Median(after) - Median(before)); s < size {
				weakest, size = i, s
			}
		}
		if size >= minStep {
			break
		}
		cuts = slices.Delete(cuts, weakest, weakest+1)
	}
	return cuts
}

// relocate moves each cut to its neighbouring segments' least-squares
// split (each side ≥ minLevel points): the energy statistic weighs the
// parts' sizes (mn/(m+n)) and, with 3 jobs before a step, split one late.
func relocate(x []float64, cuts []int, found map[int]float64) ([]int, map[int]float64) {
	moved := map[int]float64{}
	for i, c := range cuts {
		before, after := segmentsAround(x, cuts, i)
		start, best := c-len(before), c
		if tau := bestLevelSplit(x[start : c+len(after)]); tau > 0 {
			best = start + tau
		}
		cuts[i], moved[best] = best, found[c]
	}
	return cuts, moved
}

const minLevel = 2 // the fewest points a level may hold when a cut is relocated

// bestLevelSplit is the least-squares split of seg into two levels (each
// at least minLevel long); −1 when seg is too short.
func bestLevelSplit(seg []float64) int {
	gains := splitGains(seg)
	best, most := -1, math.Inf(-1)
	for tau := minLevel; tau <= len(seg)-minLevel; tau++ {
		if gains[tau] > most {
			best, most = tau, gains[tau]
		}
	}
	return best
}

// splitGains is the squared error a split at each tau of y saves (0 at 0).
func splitGains(y []float64) []float64 {
	n := len(y)
	gains := make([]float64, n)
	var total, left float64
	for _, v := range y {
		total += v
	}
	for tau := 1; tau < n; tau++ {
		left += y[tau-1]
		l, r := left/float64(tau), (total-left)/float64(n-tau)
		gains[tau] = float64(tau) * float64(n-tau) * (l - r) * (l - r) / float64(n)
	}
	return gains
}

// segmentsAround returns the segments before and after cuts[i].
func segmentsAround(x []float64, cuts []int, i int) (before, after []float64) {
	b := append(append([]int{0}, cuts...), len(x))
	return x[b[i]:b[i+1]], x[b[i+1]:b[i+2]]
}

func describeCuts(x []float64, cuts []int, found map[int]float64, o ChangePointOptions) []ChangePoint {
	out := make([]ChangePoint, len(cuts))
	for i, c := range cuts {
		before, after := segmentsAround(x, cuts, i)
		lo, hi := bootstrapStep(before, after, o, uint64(c))
		first, last := locationRange(before, after)
		start := c - len(before)
		out[i] = ChangePoint{Index: c, P: found[c], Step: Median(after) - Median(before), Lo: lo, Hi: hi,
			Before: len(before), After: len(after), First: min(start+first, c), Last: max(start+last, c)}
	}
	return out
}

// bootstrapStep is median(after) − median(before)'s percentile interval.
func bootstrapStep(before, after []float64, o ChangePointOptions, stream uint64) (float64, float64) {
	rng := rand.New(rand.NewPCG(o.Seed, stream+1))
	steps := make([]float64, o.Resamples)
	b, a := make([]float64, len(before)), make([]float64, len(after))
	for r := range steps {
		resample(rng, before, b)
		resample(rng, after, a)
		steps[r] = Median(a) - Median(b)
	}
	slices.Sort(steps)
	tail := (1 - o.Confidence) / 2
	return quantileSorted(steps, tail), quantileSorted(steps, 1-tail)
}

// locationLR is the likelihood-ratio bound on where a shift in level
// happened: a split whose squared error exceeds the least by at most this
// many noise variances stays possible. Two-sided, sup_s W(s) − |s|/2 of a
// Brownian motion is the larger of two Exp(1) variables, so the
// likelihood-ratio statistic at the true split is below 2·3.676 with
// probability 0.95 (Siegmund's approximation for a change in mean).
const locationLR = 10.6

// locationRange is the range of splits of before ++ after (first points of
// the new level) locationLR allows, the noise variance pooled from both sides.
func locationRange(before, after []float64) (int, int) {
	y := append(slices.Clone(before), after...)
	n := len(y)
	gains := splitGains(y)
	variance := (sumSquares(before) + sumSquares(after)) / float64(max(n-2, 1))
	most := slices.Max(gains)
	first, last := len(before), len(before)
	for tau := 1; tau < n; tau++ {
		if variance > 0 && (most-gains[tau])/variance <= locationLR {
			first, last = min(first, tau), max(last, tau)
		}
	}
	return first, last
}

func resample(rng *rand.Rand, from, into []float64) {
	for i := range into {
		into[i] = from[rng.IntN(len(from))]
	}
}

// quantileSorted is the q quantile of sorted s by linear interpolation.
func quantileSorted(s []float64, q float64) float64 {
	pos := q * float64(len(s)-1)
	i := int(math.Floor(pos))
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}

// forSegments calls f with [s, e) of each segment cuts make of n points.
func forSegments(n int, cuts []int, f func(s, e int)) {
	s := 0
	for _, c := range cuts {
		f(s, c)
		s = c
	}
	f(s, n)
}

// Reach is what a change-point search over a series can show: a step
// with s points on its shorter side has a permutation p ≥ 2/C(n, s), so a
// few jobs cannot show any step, and the search says so.
type Reach struct {
	Side   int // the fewest points a step needs on each side; 0: none shown
	Needed int // the fewest points a series needs to show a step
	// Step is the smallest step shown with 80 % power mid-series at Noise,
	// the SD from neighbouring points' differences; +Inf when Side is 0.
	Step, Noise float64
}

// ReachOf is what a search at alpha with segments of at least minSize
// points can show in x.
func ReachOf(x []float64, alpha float64, minSize int) Reach {
	n := len(x)
	r := Reach{Side: shortestSide(n, alpha, minSize), Step: math.Inf(1), Noise: neighbourNoise(x)}
	for m := 2 * minSize; m < 10000; m++ {
		if shortestSide(m, alpha, minSize) > 0 {
			r.Needed = m
			break
		}
	}
	if r.Side == 0 {
		return r
	}
	// A split tested at each admissible place: Bonferroni over them bounds
	// the maximum the permutation test calibrates.
	places := float64(max(n-2*r.Side+1, 1))
	half := float64(n) / 2
	r.Step = (zUpper(alpha/places) + zUpper(1-Power)) * r.Noise * math.Sqrt(2/half)
	return r
}

// shortestSide is the fewest points s ≥ minSize on the shorter side of a
// step in n points with 2/C(n, s) ≤ alpha/2 (0 for none): the half is
// headroom, so that "can show" means a step is found, not just reachable.
func shortestSide(n int, alpha float64, minSize int) int {
	for s := minSize; 2*s <= n; s++ {
		if 4/choose(n, s) <= alpha {
			return s
		}
	}
	return 0
}

// neighbourNoise is the standard deviation of x's noise from the median
// absolute difference of neighbouring points (a normal's MAD is 0.6745 σ,
// a difference of two points has variance 2σ²). A step moves one
// difference only, so it barely moves the median.
func neighbourNoise(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	d := make([]float64, len(x)-1)
	for i := range d {
		d[i] = math.Abs(x[i+1] - x[i])
	}
	return Median(d) / 0.6745 / math.Sqrt2
}

// LevelStep is the best split of x into two levels (least squares, each
// at least minLevel points) whether or not a test confirms it: the step
// the eye sees in a figure. Index is the first point of the new level; Z
// the step over its standard error from the noise between neighbours.
type LevelStep struct {
	Index         int
	Step, Z       float64
	Before, After int
}

// BestLevelStep is x's LevelStep; ok is false when x is too short.
func BestLevelStep(x []float64) (LevelStep, bool) {
	tau := bestLevelSplit(x)
	if tau < 0 {
		return LevelStep{}, false
	}
	s := LevelStep{Index: tau, Step: Median(x[tau:]) - Median(x[:tau]), Before: tau, After: len(x) - tau}
	diff := math.Abs(Mean(x[tau:]) - Mean(x[:tau]))
	switch se := neighbourNoise(x) * math.Sqrt(1/float64(tau)+1/float64(len(x)-tau)); {
	case se > 0:
		s.Z = diff / se
	case diff > 0:
		s.Z = math.Inf(1)
	}
	return s, true
}
