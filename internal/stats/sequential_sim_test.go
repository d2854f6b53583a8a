package stats

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// pairOrder is the order of the two runs inside a pair.
type pairOrder int

const (
	orderAlternate pairOrder = iota // AB, BA, AB, …
	orderRandom                     // a fair coin per pair
	orderFixed                      // AB every time: head always second
)

// pairWorld is the simulated machine of a same-runner A/B job, on the log
// scale of one metric (or in percentage points for a rate):
//
//	run = level(side) + drift(pair) + bias(side, process) + order + noise
//
// drift is shared by both runs of a pair and cancels in their difference;
// bias is the level of one process of a build, redrawn for both sides
// when the processes restart every `restart` pairs (0: never), so the two
// sides differ by a process bias of standard deviation `bias`.
type pairWorld struct {
	cv          float64   // per-run noise (log-sd ≈ CV)
	drift       float64   // sd of the per-pair offset shared by both runs
	bias        float64   // sd of the difference between two processes' levels
	restart     int       // pairs between restarts of both processes; 0 never
	tails       int       // Student-t degrees of freedom of the run noise, 0 normal
	outlier     float64   // probability that a run is hit by a hiccup
	hiccup      float64   // a hiccup's size (worse by this much)
	order       pairOrder // order of the runs in a pair
	orderEffect float64   // the second run of a pair is worse by this much
	// requests > 0 makes the metric an error rate in percent: each run
	// counts Poisson errors among `requests` at a rate of baseRate % (times
	// the pair's drift factor exp(drift)), plus the effect in percentage
	// points on the head side; cv and the other terms are then unused.
	requests int
	baseRate float64
}

// pairSource draws one job's pair differences, bigger is worse.
type pairSource struct {
	w          pairWorld
	rng        *rand.Rand
	effect     float64
	k          int
	biasHead   float64
	biasBase   float64
	biasFreshK int
}

func (w pairWorld) job(rng *rand.Rand, effect float64) *pairSource {
	return &pairSource{w: w, rng: rng, effect: effect}
}

// next returns d_k = head_k − base_k of the next pair.
func (s *pairSource) next() float64 {
	w := s.w
	if w.requests > 0 {
		return s.nextRate()
	}
	if s.k == 0 || (w.restart > 0 && s.k%w.restart == 0) {
		s.biasHead = w.bias / math.Sqrt2 * s.rng.NormFloat64()
		s.biasBase = w.bias / math.Sqrt2 * s.rng.NormFloat64()
	}
	drift := w.drift * s.rng.NormFloat64()
	headSecond := s.k%2 == 0
	switch w.order {
	case orderRandom:
		headSecond = s.rng.IntN(2) == 0
	case orderFixed:
		headSecond = true
	}
	head := s.effect + drift + s.biasHead + s.run()
	base := drift + s.biasBase + s.run()
	if headSecond {
		head += w.orderEffect
	} else {
		base += w.orderEffect
	}
	s.k++
	return head - base
}

// nextRate is next for an error-rate metric in percentage points.
func (s *pairSource) nextRate() float64 {
	w := s.w
	rate := w.baseRate * math.Exp(w.drift*s.rng.NormFloat64())
	s.k++
	return s.errorPct(rate+s.effect) - s.errorPct(rate)
}

// errorPct is one run's measured error rate in percent at a true rate of
// pct percent: Poisson errors (by inversion) among w.requests.
func (s *pairSource) errorPct(pct float64) float64 {
	lambda := float64(s.w.requests) * pct / 100
	u, p := s.rng.Float64(), math.Exp(-lambda)
	count, cdf := 0, p
	for u > cdf && count < 10*s.w.requests {
		count++
		p *= lambda / float64(count)
		cdf += p
	}
	return 100 * float64(count) / float64(s.w.requests)
}

// run is one run's own noise: normal or Student-t scaled to sd cv, plus a
// hiccup now and then.
func (s *pairSource) run() float64 {
	w := s.w
	e := s.rng.NormFloat64()
	if w.tails > 2 {
		var chi2 float64
		for range w.tails {
			z := s.rng.NormFloat64()
			chi2 += z * z
		}
		nu := float64(w.tails)
		e = e / math.Sqrt(chi2/nu) * math.Sqrt((nu-2)/nu)
	}
	v := w.cv * e
	if w.outlier > 0 && s.rng.Float64() < w.outlier {
		v += w.hiccup
	}
	return v
}

// gateCase is one metric of a simulated gate.
type gateCase struct {
	world      pairWorld
	effect     float64 // true effect, bigger is worse
	minEffect  float64
	resolution float64
}

// seqResult is one simulated job.
type seqResult struct {
	outcome SeqOutcome
	pairs   int
	metrics []SeqDecision
}

// simulateJob runs one sequential job over the cases' metrics, each judged
// as one of k gated metrics (k ≥ len(cases): the others are not simulated):
// pairs are added one at a time, every undecided metric looks after each
// pair, a decided metric keeps its decision, and the job stops at the
// first regression or when every metric has decided.
func simulateJob(rng *rand.Rand, d SeqDesign, cases []gateCase, k int) seqResult {
	return simulateJobBy(rng, d, cases, k, nil)
}

// simulateJobBy is simulateJob with each look re-decided by redecide
// (final: the budget's look), a rule other than the design's; nil keeps it.
func simulateJobBy(rng *rand.Rand, d SeqDesign, cases []gateCase, k int, redecide func(dec *SeqDecision, final bool)) seqResult {
	d = d.WithDefaults()
	sources := make([]*pairSource, len(cases))
	diffs := make([][]float64, len(cases))
	decs := make([]SeqDecision, len(cases))
	for i, c := range cases {
		sources[i] = c.world.job(rng, c.effect)
	}
	for n := 1; n <= d.MaxBlocks; n++ {
		for i, c := range cases {
			diffs[i] = append(diffs[i], sources[i].next())
			if decs[i].Decided() {
				continue
			}
			dec, err := d.look(diffs[i], c.minEffect, c.resolution, k, false, false)
			if err != nil {
				panic(err) // the simulation only makes valid input
			}
			if redecide != nil {
				redecide(&dec, n == d.MaxBlocks)
			}
			decs[i] = dec
		}
		if out := CombineSeq(decs); out != SeqContinue {
			return seqResult{outcome: out, pairs: n, metrics: decs}
		}
	}
	panic("the budget look must decide")
}

// tally summarises many jobs of one setting.
type tally struct {
	jobs                   int
	regression, pass, inco int
	pairs                  []int
}

func (t *tally) add(r seqResult) {
	t.jobs++
	t.pairs = append(t.pairs, r.pairs)
	switch r.outcome {
	case SeqRegression:
		t.regression++
	case SeqPass:
		t.pass++
	default:
		t.inco++
	}
}

func (t tally) rate(n int) float64 { return float64(n) / float64(t.jobs) }

func (t tally) meanPairs() float64 {
	s := 0
	for _, p := range t.pairs {
		s += p
	}
	return float64(s) / float64(len(t.pairs))
}

func (t tally) pairRange() (int, int) { return slices.Min(t.pairs), slices.Max(t.pairs) }

// runJobs simulates jobs of one setting with a fixed seed.
func runJobs(seed uint64, jobs int, d SeqDesign, cases []gateCase, k int) tally {
	return runJobsBy(seed, jobs, d, cases, k, nil)
}

// runJobsBy is runJobs with looks re-decided (simulateJobBy).
func runJobsBy(seed uint64, jobs int, d SeqDesign, cases []gateCase, k int, redecide func(*SeqDecision, bool)) tally {
	rng := newRand(seed)
	var t tally
	for range jobs {
		t.add(simulateJobBy(rng, d, cases, k, redecide))
	}
	return t
}

// repeat is k copies of one metric case (independent noise each).
func repeat(c gateCase, k int) []gateCase {
	out := make([]gateCase, k)
	for i := range out {
		out[i] = c
	}
	return out
}

// logPct converts a relative change (0.05 = 5 %) to the log scale.
func logPct(f float64) float64 { return math.Log1p(f) }

// rejectionRate is the share of jobs in which reject fires at some n from
// the design's first look to its budget; reject sees the units so far. If
// block > 1, consecutive pairs are averaged into blocks of that many and
// the design counts blocks (the analysis when processes restart every
// block pairs).
func rejectionRate(seed uint64, jobs int, d SeqDesign, w pairWorld, effect float64, block int, reject func(units []float64) bool) float64 {
	d = d.WithDefaults()
	block = max(block, 1)
	rng := rand.New(rand.NewPCG(seed, 0xc055))
	hits := 0
	units := make([]float64, 0, d.MaxBlocks)
	for range jobs {
		src := w.job(rng, effect)
		units = units[:0]
		for n := 1; n <= d.MaxBlocks; n++ {
			var sum float64
			for range block {
				sum += src.next()
			}
			units = append(units, sum/float64(block))
			if n >= d.MinBlocks && reject(units) {
				hits++
				break
			}
		}
	}
	return float64(hits) / float64(jobs)
}

// crossingRate is the share of jobs whose lower bound ever exceeds 0
// within the budget when sampling never stops for a pass: the level the
// boundary itself holds for one of k metrics (α/k under normal noise).
func crossingRate(seed uint64, jobs int, d SeqDesign, w pairWorld, effect float64, k, block int) float64 {
	d = d.WithDefaults()
	low, _ := d.boundaries(k)
	sch := d.schedule()
	return rejectionRate(seed, jobs, d, w, effect, block, func(units []float64) bool {
		n := len(units)
		return sch.isLook(n) && bound(Mean(units), -low.crit[n-d.MinBlocks], SampleSD(units), n) > 0
	})
}

// naiveRate is the false-alarm rate of the fixed-sample one-sided t test
// at level a repeated after every pair from the design's first look on:
// what looking without a sequential boundary does.
func naiveRate(seed uint64, jobs int, d SeqDesign, w pairWorld, a float64) float64 {
	d = d.WithDefaults()
	quantiles := make([]float64, d.MaxBlocks+1)
	for n := d.MinBlocks; n <= d.MaxBlocks; n++ {
		quantiles[n] = studentQuantile(1-a, n-1)
	}
	return rejectionRate(seed, jobs, d, w, 0, 1, func(units []float64) bool {
		n := len(units)
		return Mean(units)*math.Sqrt(float64(n))/SampleSD(units) > quantiles[n]
	})
}

func studentQuantile(p float64, df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(p)
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5e9)) }
