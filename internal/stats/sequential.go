// Sequential same-runner A/B (DESIGN.md §4): SeqDesign decides, after
// each pair of runs, whether head regressed, passed or needs more pairs,
// holding the false-alarm rate across the looks.
//
// The unit is one pair's difference on the comparison scale, bigger is
// worse: d_k = dir·(ln head_k − ln base_k), or points for rates. Drift
// between pairs cancels in d_k; a bias between two processes does not,
// unless both restart every pair (sequential_evidence_test.go).
//
// Method: a group-sequential one-sample t test read as repeated confidence
// bounds (Jennison & Turnbull, Biometrika 78(1), 1991, and "Group
// Sequential Methods", 2000, ch. 7 and 9).
//   - At looks n = MinBlocks, MinBlocks+Every, …, MaxBlocks, T_n =
//     √n·(mean_n − θ)/sd_n. Under normal differences the law of (T_n) is
//     free of σ, so critical values calibrated once by a seeded Monte Carlo
//     hold the level up to its error (±3.5 %), whatever the noise; a
//     mixture SPRT with the sample variance as σ fails 3–4× too often at
//     α/6 (sequential_tables_test.go).
//   - The level is spent by the Kim–DeMets power family a·(n/N)^ρ; a time
//     budget that ends the job before N is a last look spending the rest.
//   - Lower_n = mean − c_n(α/K)·sd/√n and Upper_n = mean + c_n(β)·sd/√n
//     hold θ at every look whatever stops the job, so every decision read
//     off them keeps the false-alarm bound, for K metrics by Bonferroni.
//   - Regression: RuleChangeBeyond (default) ⇔ Lower > 0 and mean > half
//     the threshold max(min_effect, resolution) (regressionMean);
//     RuleBoundBeyond ⇔ Lower > threshold. Pass ⇔ Upper < threshold.
//     Inconclusive at the budget. A change of the threshold is caught
//     with the test's power, one of half of it or less passes given the
//     pairs; between, either may happen.
//   - Robustness: A/A differences are symmetric when the sides are
//     exchangeable, and under symmetric heavy tails t is lighter tailed
//     than under normality (Efron, JASA 64, 1969): measured, t noise with
//     3 or 5 df keeps the level. Correlated pairs (a shared process bias,
//     a run-order effect) break it (measured).
package stats

import (
	"cmp"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Defaults of SeqDesign, by the tables of sequential_tables_test.go (6
// metrics, run CV 3 %): a look every pair stops soonest; a first look at 4
// ends +20 % in 5.3 pairs (6.0 at 6); ρ = 2 beats ρ = 1 by +5 points of
// power at CV 10 % for +0.7 pairs; 20 pairs catch +10 % at ≤ 5 % pair noise
// (12 catch +20 % at CV 10 % 85 % of the time; +10 % at CV 10 % needs 40).
//
// α is 0.02, not gate.alpha's 0.05 of stored-baseline checks: with the
// regression rule's half threshold a job's false alarms come near α
// itself (3.6–4.9 % of A/A jobs at 5–10 % block spread at 0.05, 0.9–1.1 %
// at 0.02), while +5 % at a 3 % block spread is still caught in 89 % of
// jobs (sequential_rule_test.go). gate.alpha, when given, replaces it.
const (
	DefaultSeqAlpha     = 0.02
	DefaultSeqBeta      = 0.05
	DefaultSeqMinBlocks = 4
	DefaultSeqMaxBlocks = 20
	DefaultSeqEvery     = 1
	DefaultSeqRho       = 2
)

// Limits of a design (also config's ab.min_blocks, ab.max_blocks): t needs
// 2 degrees of freedom at the first look; calibration grows with the budget.
const (
	SeqFirstLookMin = 3
	SeqBudgetMax    = 500
)

// maxPairsAdvice bounds "more pairs would likely decide".
const maxPairsAdvice = 1000

// SeqRule says what counts as a regression (the package doc's rules).
type SeqRule int

const (
	RuleChangeBeyond SeqRule = iota
	RuleBoundBeyond
)

type SeqOutcome int // what a look decides

const (
	SeqContinue SeqOutcome = iota
	SeqRegression
	SeqPass
	SeqInconclusive
)

type SeqReason int // why a look decided what it did

const (
	ReasonTooFewBlocks SeqReason = iota
	ReasonBetweenLooks
	ReasonUndecided
	ReasonChangedNotBeyond
	ReasonBeyond
	ReasonBelow
	ReasonChangedWithin
	ReasonImproved
	ReasonBudget
	ReasonBudgetAtThreshold
)

var seqReasonText = [...]string{
	ReasonTooFewBlocks:      "fewer pairs than the first look",
	ReasonBetweenLooks:      "between looks",
	ReasonUndecided:         "not yet clear",
	ReasonChangedNotBeyond:  "changed, not yet clear by how much",
	ReasonBeyond:            "worse, estimate beyond half of min_effect",
	ReasonBelow:             "confidently below min_effect",
	ReasonChangedWithin:     "changed, but confidently below min_effect",
	ReasonImproved:          "improved",
	ReasonBudget:            "budget spent",
	ReasonBudgetAtThreshold: "budget spent; no practical number of pairs would likely decide at this spread",
}

func (r SeqReason) String() string {
	if r >= 0 && int(r) < len(seqReasonText) {
		return seqReasonText[r]
	}
	return "unknown"
}

// SeqDesign is a sequential A/B design. Zero fields take the defaults.
type SeqDesign struct {
	// Alpha is the one-sided false-alarm rate over all looks, Alpha/k per
	// gated metric; Beta, per metric, the largest probability of passing
	// an effect exactly at the threshold.
	Alpha, Beta float64
	// MinBlocks is the first look; MaxBlocks the budget; Every the look
	// cadence in pairs (the budget is always a look).
	MinBlocks, MaxBlocks, Every int
	// Rho shapes the spending α·(n/MaxBlocks)^ρ: 1 spends evenly.
	Rho  float64
	Rule SeqRule
	// Prior (DF > 0): earlier jobs' spread, pooled at a look whose own
	// spread agrees, with t critical values at the pooled df.
	Prior SeqPrior
}

// SeqPrior is earlier jobs' units' SD (comparison scale) and its degrees
// of freedom. Within marks one from inside the job (window pairs within
// blocks, scaled to a block): it is pooled only while the blocks' spread
// shows no sign of exceeding it (one-sided, at the lenient withinPretest).
type SeqPrior struct {
	SD     float64 `json:"sd"`
	DF     int     `json:"df"`
	Within bool    `json:"-"`
	// Summed is the jobs' degrees of freedom before their disagreement
	// discounted them (PoolNoise), so that a report can say which made
	// DF small: few earlier blocks, or jobs unlike each other.
	Summed int `json:"-"`
}

// Prior degrees of freedom are rounded down to this grid (a boundary per
// value is slow to calibrate; down is conservative) and capped: beyond 64
// t is nearly normal, and the cap bounds old jobs' weight.
var priorGrid = []int{4, 8, 16, 32, 64}

// priorConsistency is the two-sided level of the F test a look's spread
// must pass for the prior to be pooled: an unlike job uses its own.
const priorConsistency = 0.05

// withinPretest is the level of the test that blocks differ beyond their
// windows' spread: pooling a within-block spread that hides a process bias
// makes false alarms, so a bias is assumed at its first hint (the blocks'
// variance above the median the windows imply). Measured (400 A/A jobs per
// cell, 8 blocks of 3 windows, window noise 3 %, bias 5 % per block): 5.25 %
// false alarms (9.8 % always pooled, 4.75 % at 0.75); with no bias pooling
// saved 0.2 blocks on A/A and 0.2–0.5 on +15 %.
const withinPretest = 0.5

// UsableDF is the prior's degrees of freedom on the grid; 0: unusable.
func (p SeqPrior) UsableDF() int {
	if !(p.SD > 0) || math.IsInf(p.SD, 1) {
		return 0
	}
	df := 0
	for _, g := range priorGrid {
		if p.DF >= g {
			df = g
		}
	}
	return df
}

// Consistent reports whether a spread sd of n units agrees with the prior
// (the variance ratio inside its F's central 1 − priorConsistency).
func (p SeqPrior) Consistent(sd float64, n int) bool {
	df := p.UsableDF()
	if df == 0 || n < 2 || !(sd >= 0) {
		return false
	}
	f := distuv.F{D1: float64(n - 1), D2: float64(df)}
	ratio := sd * sd / (p.SD * p.SD)
	if p.Within {
		return ratio <= f.Quantile(1-withinPretest)
	}
	return ratio >= f.Quantile(priorConsistency/2) && ratio <= f.Quantile(1-priorConsistency/2)
}

// SeqDecision is one look's verdict for one metric. Values are on the
// comparison scale (logs, or percentage points), bigger is worse.
type SeqDecision struct {
	Outcome SeqOutcome
	Reason  SeqReason
	Blocks  int // judged
	// Estimate is the mean difference; Lower and Upper its repeated
	// confidence bounds (levels α/k and β); NaN before the first look and
	// between looks, ±Inf at a look that spends nothing.
	Estimate, Lower, Upper float64
	Threshold              float64 // max(min_effect, resolution)
	// Spread is the standard deviation used (at least the resolution, the
	// prior of PriorDF degrees of freedom pooled in), OwnSpread the job's
	// own; NaN with fewer than 2 pairs.
	Spread, OwnSpread float64
	PriorDF           int
	// Detectable is the smallest effect caught (80 %) within MaxBlocks at
	// Spread, set when the look decides; NaN: not computed or none.
	Detectable float64
	// MoreBlocks, when inconclusive: about how many more pairs would likely
	// (80 %) decide if estimate and spread are the truth.
	MoreBlocks int
}

func (s SeqDecision) Decided() bool { return s.Outcome != SeqContinue }

func (d SeqDesign) WithDefaults() SeqDesign {
	d.Alpha, d.Beta = cmp.Or(d.Alpha, DefaultSeqAlpha), cmp.Or(d.Beta, DefaultSeqBeta)
	d.MinBlocks = cmp.Or(d.MinBlocks, DefaultSeqMinBlocks)
	d.MaxBlocks = cmp.Or(d.MaxBlocks, max(DefaultSeqMaxBlocks, d.MinBlocks))
	d.Every, d.Rho = cmp.Or(d.Every, DefaultSeqEvery), cmp.Or(d.Rho, DefaultSeqRho)
	return d
}

func (d SeqDesign) Validate() error {
	d = d.WithDefaults()
	switch {
	case !(d.Alpha > 0 && d.Alpha < 0.5):
		return fmt.Errorf("sequential alpha %g is not in (0, 0.5)", d.Alpha)
	case !(d.Beta > 0 && d.Beta < 0.5):
		return fmt.Errorf("sequential beta %g is not in (0, 0.5)", d.Beta)
	case d.MinBlocks < SeqFirstLookMin:
		return fmt.Errorf("minimum pairs %d is below %d (the spread needs 2 degrees of freedom)", d.MinBlocks, SeqFirstLookMin)
	case d.MaxBlocks < d.MinBlocks || d.MaxBlocks > SeqBudgetMax:
		return fmt.Errorf("pair budget %d is not between the minimum %d and %d", d.MaxBlocks, d.MinBlocks, SeqBudgetMax)
	case d.Every < 1:
		return fmt.Errorf("look cadence %d is not ≥ 1 pair", d.Every)
	case !(d.Rho > 0 && d.Rho <= 10):
		return fmt.Errorf("spending shape rho %g is not in (0, 10]", d.Rho)
	case d.Rule != RuleChangeBeyond && d.Rule != RuleBoundBeyond:
		return fmt.Errorf("unknown regression rule %d", d.Rule)
	}
	return nil
}

func (d SeqDesign) schedule() schedule {
	return schedule{min: d.MinBlocks, max: d.MaxBlocks, every: d.Every, rho: d.Rho, prior: d.Prior.UsableDF()}
}

// ReplayWithin is one metric's decision from all units so far: the first
// look at diffs[:1], diffs[:2], … that decided, else the look at all
// (spending the level left when final). Every look uses k, so a changed k
// replays the earlier looks. Without a Prior of d's own the look at n
// units may pool within[n−1] (the window pairs' spread within blocks).
// Detectable is not filled.
func (d SeqDesign) ReplayWithin(diffs []float64, minEffect, resolution float64, k int, final bool, within []SeqPrior) (SeqDecision, error) {
	d = d.WithDefaults()
	if err := d.check(diffs, minEffect, resolution); err != nil {
		return SeqDecision{}, err
	}
	at := func(n int) SeqDesign {
		dn := d
		if d.Prior.UsableDF() == 0 && n-1 < len(within) {
			dn.Prior = within[n-1]
		}
		return dn
	}
	for n := d.MinBlocks; n < len(diffs); n++ {
		dec, err := at(n).look(diffs[:n], minEffect, resolution, k, false, false)
		if err != nil || dec.Decided() {
			return dec, err
		}
	}
	return at(len(diffs)).look(diffs, minEffect, resolution, k, final, false)
}

// look is one look (final: spends the level left, never continues); detect
// fills Detectable when it decides (half a millisecond; simulations skip it).
func (d SeqDesign) look(diffs []float64, minEffect, resolution float64, k int, final, detect bool) (SeqDecision, error) {
	d = d.WithDefaults()
	if err := d.check(diffs, minEffect, resolution); err != nil {
		return SeqDecision{}, err
	}
	k, n := max(k, 1), len(diffs)
	final = final || n == d.MaxBlocks
	dec := summarize(diffs, minEffect, resolution)
	switch {
	case n < d.MinBlocks && final:
		dec.Outcome, dec.Reason, dec.MoreBlocks = SeqInconclusive, ReasonTooFewBlocks, d.MinBlocks-n
	case n < d.MinBlocks:
		dec.Reason = ReasonTooFewBlocks
	case !final && !d.schedule().isLook(n):
		dec.Reason = ReasonBetweenLooks
	default:
		if !d.Prior.Consistent(dec.OwnSpread, n) { // the prior only while the look's own spread agrees
			d.Prior = SeqPrior{}
		}
		if p, df := d.Prior, d.Prior.UsableDF(); df > 0 { // the look's spread pooled with the prior
			pooled := math.Sqrt((float64(n-1)*dec.OwnSpread*dec.OwnSpread + float64(df)*p.SD*p.SD) / float64(n-1+df))
			dec.Spread, dec.PriorDF = math.Max(pooled, resolution), df
		}
		d.judge(&dec, k, final)
	}
	if detect && dec.Decided() && !math.IsNaN(dec.Spread) {
		dec.Detectable = d.detectable(dec.Spread, dec.Threshold, resolution, k)
	}
	return dec, nil
}

// summarize is a decision before its look: estimate and spread only.
func summarize(diffs []float64, minEffect, resolution float64) SeqDecision {
	dec := SeqDecision{Blocks: len(diffs), Threshold: math.Max(minEffect, resolution),
		Estimate: Mean(diffs), Lower: math.NaN(), Upper: math.NaN(), Spread: math.NaN(), OwnSpread: math.NaN(), Detectable: math.NaN()}
	if len(diffs) >= 2 {
		dec.OwnSpread = SampleSD(diffs)
		dec.Spread = math.Max(dec.OwnSpread, resolution)
	}
	return dec
}

// judge sets the bounds at a look and decides.
func (d SeqDesign) judge(dec *SeqDecision, k int, final bool) {
	cLow, cUp := d.critical(dec.Blocks, k, final)
	dec.Lower = bound(dec.Estimate, -cLow, dec.Spread, dec.Blocks)
	dec.Upper = bound(dec.Estimate, cUp, dec.Spread, dec.Blocks)
	d.decide(dec, final)
	if dec.Outcome == SeqInconclusive {
		dec.MoreBlocks = d.moreBlocks(*dec, cLow, cUp)
		if dec.MoreBlocks == 0 {
			dec.Reason = ReasonBudgetAtThreshold
		}
	}
}

func (d SeqDesign) check(diffs []float64, minEffect, resolution float64) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if len(diffs) > d.MaxBlocks {
		return fmt.Errorf("%d pairs exceed the budget of %d", len(diffs), d.MaxBlocks)
	}
	if !(minEffect >= 0) || math.IsInf(minEffect, 1) || !(resolution >= 0) || math.IsInf(resolution, 1) {
		return fmt.Errorf("min_effect %g and resolution %g must be finite and ≥ 0", minEffect, resolution)
	}
	if minEffect == 0 && resolution == 0 {
		return errors.New("a sequential pass needs a threshold: min_effect or resolution must be > 0")
	}
	return CheckFinite(diffs)
}

// critical returns the critical values of the lower bound (level α/k) and
// the upper bound (level β) at n.
func (d SeqDesign) critical(n, k int, final bool) (float64, float64) {
	i := n - d.MinBlocks
	low, up := d.boundaries(k)
	if final {
		return low.final[i], up.final[i]
	}
	return low.crit[i], up.crit[i]
}

// boundaries are the cached boundaries of the two bounds.
func (d SeqDesign) boundaries(k int) (low, up *tBoundary) {
	return boundaryFor(d.schedule(), d.Alpha/float64(k)), boundaryFor(d.schedule(), d.Beta)
}

// bound is mean + c·sd/√n, with c = ±Inf giving ±Inf even at sd 0.
func bound(mean, c, sd float64, n int) float64 {
	if math.IsInf(c, 0) {
		return c
	}
	return mean + c*sd/math.Sqrt(float64(n))
}

// regressionMean is the least mean a regression needs at threshold thr.
// RuleChangeBeyond: half of it, the midpoint at which the estimate is
// nearer the threshold than no change (the evidence favours δ = thr over
// δ = 0); at thr itself a change of exactly min_effect would be caught
// only half the time whatever the noise. RuleBoundBeyond: thr (its
// Lower > thr implies it). decide, ExactLook, criticalShift, moreBlocks
// and earlierStops all read the rule's mean here.
func (d SeqDesign) regressionMean(thr float64) float64 {
	if d.Rule == RuleChangeBeyond {
		return thr / 2
	}
	return thr
}

func (d SeqDesign) decide(dec *SeqDecision, final bool) {
	thr := dec.Threshold
	regression := dec.Lower > thr
	if d.Rule == RuleChangeBeyond {
		regression = dec.Lower > 0 && dec.Estimate > d.regressionMean(thr)
	}
	switch {
	case regression:
		dec.Outcome, dec.Reason = SeqRegression, ReasonBeyond
	case dec.Upper < thr:
		dec.Outcome, dec.Reason = SeqPass, ReasonBelow
		if dec.Upper < 0 {
			dec.Reason = ReasonImproved
		} else if dec.Lower > 0 {
			dec.Reason = ReasonChangedWithin
		}
	case final:
		dec.Outcome, dec.Reason = SeqInconclusive, ReasonBudget
	case dec.Lower > 0:
		dec.Reason = ReasonChangedNotBeyond
	default:
		dec.Reason = ReasonUndecided
	}
}

// Detectable is the smallest effect (comparison scale) called a regression
// with 80 % probability within MaxBlocks at normal pair differences of SD
// sigma; NaN when none is caught that often. The report's planning figure
// "with up to N pairs this gate detects ≥ X".
func (d SeqDesign) Detectable(sigma, minEffect, resolution float64, k int) (float64, error) {
	d = d.WithDefaults()
	if err := d.check(nil, minEffect, resolution); err != nil {
		return math.NaN(), err
	}
	if !(sigma >= 0) || math.IsInf(sigma, 1) {
		return math.NaN(), fmt.Errorf("pair spread %g is not finite and ≥ 0", sigma)
	}
	return d.detectable(math.Max(sigma, resolution), math.Max(minEffect, resolution), resolution, max(k, 1)), nil
}

// The detectable effect (half a millisecond per gated metric) is priced
// at the spread rounded to a geometric 0.5 % grid (less than its Monte
// Carlo error), and the last detectableMemoSize prices are kept.
const (
	detectableGrid     = 0.005
	detectableMemoSize = 4096
)

type detectableKey struct {
	d                   SeqDesign
	k                   int
	sigma, thr, resolve float64
}

var detectableMemo = memo[detectableKey, float64]{size: detectableMemoSize}

func (d SeqDesign) detectable(sigma, thr, resolution float64, k int) float64 {
	if !(sigma > 0) {
		return thr
	}
	step := math.Log1p(detectableGrid)
	sigma = math.Exp(math.Round(math.Log(sigma)/step) * step)
	return detectableMemo.get(detectableKey{d: d, k: k, sigma: sigma, thr: thr, resolve: resolution},
		func() float64 { return d.priceDetectable(sigma, thr, resolution, k) })
}

func (d SeqDesign) priceDetectable(sigma, thr, resolution float64, k int) float64 {
	paths := standardPathsFor(d.schedule())
	low, up := d.boundaries(k)
	var looks []lookTerm
	for n := d.MinBlocks; n <= d.MaxBlocks; n++ {
		if i := n - d.MinBlocks; d.schedule().isLook(n) {
			looks = append(looks, lookTerm{i: i, low: low.crit[i], up: up.crit[i], invSqrt: 1 / math.Sqrt(float64(n))})
		}
	}
	critical := make([]float64, len(paths.mean))
	for p := range paths.mean {
		critical[p] = d.criticalShift(paths.mean[p], paths.sd[p], looks, thr/sigma, resolution/sigma)
	}
	// The Power quantile: the shift that Power of the paths are caught at.
	x := selectDescending(critical, len(critical)-int(math.Ceil(Power*float64(len(critical)))))
	if math.IsInf(x, 1) {
		return math.NaN()
	}
	return math.Max(x, 0) * sigma
}

// lookTerm is one planned look: index n − MinBlocks, the bounds' critical
// values, and 1/√n.
type lookTerm struct {
	i                int
	low, up, invSqrt float64
}

// criticalShift is the smallest shift δ (in σ) at which the design calls
// the standard path (running mean, sd) a regression within the budget.
// Raising δ only brings a regression sooner and a pass later, so that is
// δ above min over looks n of max(r_n, max_{m<n} q_m), the regression rule
// holding at n for δ > r_n and the pass rule at m for δ < q_m; the power
// at δ is the share of paths below it. Hot: if, not math.Max (sd > 0, no
// NaN), and it stops once no later look can lower the minimum.
func (d SeqDesign) criticalShift(mean, sd []float64, looks []lookTerm, thr, floor float64) float64 {
	best, passBelow := math.Inf(1), math.Inf(-1)
	changeBeyond, need := d.Rule == RuleChangeBeyond, d.regressionMean(thr)
	for _, l := range looks {
		m, s := mean[l.i], sd[l.i]
		if floor > s {
			s = floor
		}
		se := s * l.invSqrt
		r := thr + l.low*se - m // δ beyond which Lower > thr
		if changeBeyond {
			r = l.low*se - m
			if t := need - m; t > r {
				r = t
			}
		}
		if passBelow > r {
			r = passBelow
		}
		if r < best {
			best = r
		}
		if q := thr - l.up*se - m; q > passBelow {
			passBelow = q
		}
		if passBelow >= best { // later looks only ever give more than passBelow
			break
		}
	}
	return best
}

// moreBlocks projects, taking estimate and spread as the truth, the pairs
// beyond those done a fixed look at these critical values needs to decide
// with 80 % probability; 0 beyond maxPairsAdvice.
func (d SeqDesign) moreBlocks(dec SeqDecision, cLow, cUp float64) int {
	zp := distuv.UnitNormal.Quantile(Power)
	est, sd, thr := dec.Estimate, dec.Spread, dec.Threshold
	need := math.Inf(1)
	if est < thr {
		need = sq((cUp + zp) * sd / (thr - est))
	}
	if least := d.regressionMean(thr); est > least {
		reg := sq((cLow + zp) * sd / (est - thr))
		if d.Rule == RuleChangeBeyond {
			reg = math.Max(sq((cLow+zp)*sd/est), sq(zp*sd/(est-least)))
		}
		need = math.Min(need, reg)
	}
	if !(need <= maxPairsAdvice) {
		return 0
	}
	return max(int(math.Ceil(need))-dec.Blocks, 1)
}

func sq(x float64) float64 { return x * x }
