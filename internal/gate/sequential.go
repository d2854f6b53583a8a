package gate

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

type SeqOptions struct {
	// Windows, when set, are the blocks' windows (base[i], head[i] are block
	// i's runs, windows concatenated): the window pairs' spread within
	// blocks, scaled to a block, is pooled while the blocks show no sign of
	// differing beyond it. Nil: every pair of runs is a unit.
	Windows *result.WindowPairs
	// Prior is, per metric key, the spread of the units of earlier jobs
	// (a noise file), pooled at each look where it agrees (stats.SeqPrior).
	Prior map[string]stats.SeqPrior
	// Budget, in (0, d.MaxBlocks), is the units a time budget allows at the
	// job's pace: the detectable effect is priced for it, no decision moves.
	Budget int
}

// JudgeSequential judges the pairs so far of a sequential A/B job (base[i],
// head[i] is pair i) under design d, after each pair until Sequential.Done;
// final: no more pairs will come (a time budget ran out). Each gated metric
// not set by the load is judged by stats.SeqDesign on its pairs'
// differences against max(min_effect, resolution), as one of K (the gated
// metrics measured, less the inert), its looks replayed over the prefixes
// so it keeps its first decision; a metric missing from a pair, on the
// pairs before that gap (the lack may be the regression). d's zero fields
// take stats' defaults, its Alpha the policy's; p's floors and noise do not apply.
func JudgeSequential(base, head []result.Run, p Policy, d stats.SeqDesign, final bool, o SeqOptions) Verdict {
	p.SameJob, p.Paired = true, true
	if d.Alpha == 0 && p.Level() == p.Alpha { // gate.alpha given; else the A/B's own default
		d.Alpha = p.Alpha
	}
	d = d.WithDefaults()
	units := min(len(base), len(head))
	seq := &Sequential{Blocks: units, MinBlocks: d.MinBlocks, MaxBlocks: d.MaxBlocks, Unit: blockUnit, RunPairs: o.runPairs(units)}
	v := Verdict{HeadRuns: units, BaseRuns: units, Sequential: seq, Outcome: Inconclusive, Warnings: setupWarnings(p)}
	if err := d.Validate(); err != nil {
		v.Warnings = append(v.Warnings, stats.Warn(WarnBadDesign, "sequential design: "+err.Error()))
		seq.Done, seq.Why = true, Why{Stop: StopBadDesign}
		return v
	}
	if len(base) != len(head) {
		v.Warnings = append(v.Warnings, stats.Warn(WarnUnpaired, fmt.Sprintf("%d base and %d head runs: only the first %d %s are judged", len(base), len(head), units, seq.UnitWord(units))))
	}
	if units > d.MaxBlocks {
		v.Warnings = append(v.Warnings, stats.Warn(WarnUnpaired, fmt.Sprintf("%d %s exceed the budget of %d: only the first %d are judged", units, seq.UnitWord(units), d.MaxBlocks, d.MaxBlocks)))
		units = d.MaxBlocks
		seq.Blocks, v.HeadRuns, v.BaseRuns, seq.RunPairs = units, units, units, o.runPairs(units)
	}
	base, head = base[:units], head[:units]
	final = final || units == d.MaxBlocks
	if units == 0 {
		v.Warnings = append(v.Warnings, fixedWarning(WarnNoHeadRuns))
		seq.Done, seq.Why = final, Why{Stop: StopNoBlocks}
		return v
	}

	policies, warnings := metricPolicies(base, head, p)
	v.Warnings = append(v.Warnings, warnings...)
	// K: the gated metrics some pair measured, less those the first look found inert.
	k := countGated(policies, func(key string) bool { return hasKey(base, key) || hasKey(head, key) })
	looks := v.judgeEach(policies, base, head, d, k, final, o)
	if n := inert(looks, d); n > 0 && n < k {
		k -= n
		looks = v.judgeEach(policies, base, head, d, k, final, o)
	}
	v.Outcome, v.Regressions = overall(v.Findings)
	v.Warnings = append(v.Warnings, findingWarnings(v.Findings, nil, Context{})...)
	v.Warnings = append(v.Warnings, gapWarnings(looks)...)
	if !p.AllowMissing {
		v.Incomplete = lost(looks)
	}
	if seq.Done, seq.Why, seq.MoreBlocks = stopping(v, looks, final, d); seq.Done {
		v.finish(looks, d, k, o.Budget)
	}
	return v
}

// inert counts the gated metrics their first look decided without the
// level: exactly, or a pass with every pair's difference 0 (no errors on
// either side). Kept decisions cannot regress later, and a test that
// cannot reject needs no share of α (Tarone, Biometrics 46, 1990); which
// they are does not depend on K (a pass reads the upper bound, at β).
func inert(looks []seqLook, d stats.SeqDesign) (n int) {
	for _, l := range looks {
		dec := l.dec
		if l.judged && dec.Decided() && dec.Blocks <= d.MinBlocks &&
			(l.exact || dec.Outcome == stats.SeqPass && dec.OwnSpread == 0 && dec.Estimate == 0) {
			n++
		}
	}
	return n
}

func (o SeqOptions) runPairs(units int) int {
	if o.Windows != nil {
		return o.Windows.InBlocks(units)
	}
	return units
}

// finish ends a verdict the job stops at: the undecided metrics inconclusive, the estimates adjusted, and what each
// metric could detect priced at the time budget's units (budget) when it binds.
func (v *Verdict) finish(looks []seqLook, d stats.SeqDesign, k, budget int) {
	seq := v.Sequential
	for i, l := range looks {
		if f := &v.Findings[i]; f.Outcome == Undecided {
			f.Outcome, f.Look.Stopped = MetricInconclusive, seq
		}
		l.reportAdjusted(&v.Findings[i], k)
	}
	if budget > 0 && budget < d.MaxBlocks {
		seq.Budget = max(budget, d.MinBlocks)
	}
	v.Detect = detectables(looks, d, seq.Budget, k)
}

// reportAdjusted reports the estimate corrected for stopping at the look
// that decided (the mean over-reads an effect that stopped the job early);
// the decision itself read the mean.
func (l seqLook) reportAdjusted(f *Finding, k int) {
	if !l.judged || l.exact || !l.dec.Decided() {
		return
	}
	f.Estimate = l.mp.fromScale(l.design.MedianUnbiased(l.dec, k))
	f.Worse, f.Change = f.Estimate, f.Estimate*l.mp.direction().Sign()
}

// detectables prices each judged metric's detectable effect (at the time
// budget's units when set) and says of each a gap cut that it was not judged.
func detectables(looks []seqLook, d stats.SeqDesign, budget, k int) []Detectable {
	var out []Detectable
	for _, l := range looks {
		switch {
		case l.judged:
			dd := l.design
			if budget > 0 {
				dd.MaxBlocks = budget
			}
			out = append(out, l.detectable(dd, k))
		case l.cut:
			dt := l.mp.detectable(stats.Detectable{Method: stats.MethodSequential}, d.MaxBlocks, d.MaxBlocks, l.finding)
			dt.Cut = &l.gaps
			out = append(out, dt)
		}
	}
	return out
}

// judgeEach looks at each metric with its stored noise, keeping each judged
// one's spread (the noise file's next entry) and the prior it used.
func (v *Verdict) judgeEach(policies []metricPolicy, base, head []result.Run, d stats.SeqDesign, k int, final bool, o SeqOptions) []seqLook {
	looks := make([]seqLook, len(policies))
	v.Findings, v.Noise, v.PriorUsed = nil, map[string]stats.SeqPrior{}, map[string]int{}
	for i, mp := range policies {
		md := d
		md.Prior = o.Prior[mp.meta.Key]
		l := mp.judgeBlocks(base, head, md, k, final, o.Windows)
		looks[i] = l
		v.Findings = append(v.Findings, l.finding)
		if l.units >= 2 && (l.judged || l.cut) {
			v.Noise[mp.meta.Key] = stats.SeqPrior{SD: l.dec.OwnSpread, DF: l.units - 1}
		}
		if l.dec.PriorDF > 0 && (l.judged || l.cut) {
			v.PriorUsed[mp.meta.Key] = l.dec.PriorDF
		}
	}
	return looks
}

type seqLook struct {
	mp      metricPolicy
	finding Finding
	// judged: the rule judged the metric (before its first gap) and dec
	// is its decision. cut: a gated metric a gap left undecided.
	judged, cut bool
	dec         stats.SeqDecision
	gaps        Gaps
	// spread (the differences' SD, at least the resolution), minEffect
	// and resolution are on the comparison scale.
	spread, minEffect, resolution float64
	exact, within                 bool // exact: stats.SeqDesign.ExactLook decided; within: the spread within blocks was pooled
	// windowsSD is the part of the deciding look's spread its blocks' windows explain (withinNoise); 0: unknown.
	windowsSD float64
	units     int
	design    stats.SeqDesign
}

// withinNoise is, for the look at each block count up to units, the spread
// of a block's difference its windows explain: the delete-one-window-pair
// jackknife variance (WindowPairs.LeaveOneOut) averaged over the blocks,
// with window pairs less one per block as df. Nil without windows, or when
// some replicate lacks the metric.
func (mp metricPolicy) withinNoise(w *result.WindowPairs, units int) []stats.SeqPrior {
	if w == nil {
		return nil
	}
	key := mp.meta.Key
	var out []stats.SeqPrior
	sumVar, df, blocks := 0.0, 0, 0
	for b := 0; b < units; b++ {
		lb, lh := w.LeaveOneOut(b)
		p := stats.SeqPrior{Within: true}
		if m := len(lb); m >= 2 {
			bv, hv := make([]float64, m), make([]float64, m)
			for i := range lb {
				var bok, hok bool
				bv[i], bok = lb[i].Metrics[key]
				hv[i], hok = lh[i].Metrics[key]
				if !bok || !hok {
					return nil
				}
			}
			theta, err := stats.PairDifferences(hv, bv, mp.scale(), mp.direction())
			if err != nil {
				return nil
			}
			mean, ss := stats.Mean(theta), 0.0
			for _, x := range theta {
				ss += (x - mean) * (x - mean)
			}
			sumVar += float64(m-1) / float64(m) * ss
			df += m - 1
			blocks++
		}
		if df > 0 {
			p.SD, p.DF = math.Sqrt(sumVar/float64(blocks)), df
		}
		out = append(out, p)
	}
	return out
}

// cannotCompareNote says why units could not be paired: a count of 0 in
// some unit (no disk write) is real, but a ratio of it has no meaning.
func cannotCompareNote(err error) string {
	var ve *stats.ValueError
	if errors.As(err, &ve) && ve.Value == 0 {
		return fmt.Sprintf("not compared: 0 in some %ss, where a ratio has no meaning", blockUnit)
	}
	return "cannot compare: " + err.Error()
}

const blockUnit = "block" // of window pairs, or one pair of whole runs where windows cannot run

func (mp metricPolicy) judgeBlocks(base, head []result.Run, d stats.SeqDesign, k int, final bool, windows *result.WindowPairs) seqLook {
	key := mp.meta.Key
	bv, hv := result.Values(base, key), result.Values(head, key)
	l := seqLook{mp: mp, finding: mp.finding(bv, hv), gaps: gapsOf(base, head, key), design: d}
	f := &l.finding
	if mp.gated {
		f.FloorSource = FromMinEffect
	}
	f.N, f.M = len(hv), len(bv)
	complete := l.gaps.first() - 1 // the pairs before the first gap
	switch {
	case len(bv) == 0 && len(hv) == 0:
		f.Outcome, f.Note = NotAvailable, joinNotes(missingNote(mp.meta, 0, 0), mp.note)
		return l
	case complete < 0:
		complete = len(base)
	case complete == 0 || (!mp.gated && !l.gaps.tail()):
		return l.missing()
	}
	bv, hv = result.Values(base[:complete], key), result.Values(head[:complete], key)
	diffs, err := stats.PairDifferences(hv, bv, mp.scale(), mp.direction())
	if err != nil {
		f.Outcome, f.Note = MetricInconclusive, joinNotes(cannotCompareNote(err), mp.note)
		if !mp.gated {
			f.Outcome = NotGated
		}
		return l
	}
	l.units = len(diffs)
	f.Center, f.BaseCenter, f.HeadCenter = mp.centers(bv, hv) // before a look, over every unit
	f.Worse = mp.fromScale(stats.Mean(diffs))
	f.Change = f.Worse * mp.direction().Sign()
	if mp.setByLoad || !mp.gated {
		f.Outcome = NotGated
		if mp.setByLoad {
			f.Outcome = SetByLoad
		}
		return l
	}
	if err := l.look(d, bv, hv, diffs, k, final, windows); err != nil { // the design was validated and the differences are finite
		f.Outcome, f.Note, f.Test = MetricInconclusive, joinNotes("cannot judge: "+err.Error(), mp.note), ""
		return l
	}
	l.decided(bv, hv, l.units, complete, d.MaxBlocks)
	return l
}

// look decides the metric: a count that does not vary within either side
// exactly at the first look, anything else by the sequential t rule. Past
// a gap the stop is not the data-free one final allows, so the last look
// is an ordinary one.
func (l *seqLook) look(d stats.SeqDesign, bv, hv, diffs []float64, k int, final bool, windows *result.WindowPairs) (err error) {
	mp := l.mp
	l.minEffect, l.resolution = mp.seqMinEffect(), leastFloor(mp.meta)
	l.spread = math.Max(stats.SampleSD(diffs), l.resolution)
	l.finding.Test = stats.TestSequential
	if dec, ok := d.ExactLook(hv, bv, mp.direction(), l.minEffect, l.resolution); mp.scale() == stats.Ratio && ok {
		l.dec, l.exact, l.finding.Test = dec, true, stats.TestExactCount
	} else {
		within := mp.withinNoise(windows, len(diffs))
		l.dec, err = d.ReplayWithin(diffs, l.minEffect, l.resolution, k, final && !l.gaps.any(), within)
		if n := l.dec.Blocks; n > 0 && n <= len(within) {
			l.windowsSD = within[n-1].SD
		}
	}
	l.within = l.dec.PriorDF > 0 && d.Prior.DF == 0
	return err
}

// decided fills the finding from the look's decision (complete: the units
// before the metric's first gap).
func (l *seqLook) decided(bv, hv []float64, used, complete, maxUnits int) {
	mp, f := l.mp, &l.finding
	f.Floor = mp.fromScale(l.dec.Threshold)
	f.Estimate, f.Lower, f.Upper = mp.fromScale(l.dec.Estimate), mp.boundFromScale(l.dec.Lower), mp.boundFromScale(l.dec.Upper)
	f.Worse, f.Change = f.Estimate, f.Estimate*mp.direction().Sign()
	if n := l.dec.Blocks; n > 0 && !math.IsNaN(l.dec.Spread) {
		f.StdErr, f.DF = l.dec.Spread/math.Sqrt(float64(n)), l.dec.PriorDF+n-1
		if l.exact {
			f.StdErr = 0 // counts that do not vary: no noise to carry
		}
	}
	if at := l.dec.Blocks; at < used { // the look that decided saw fewer
		f.Center, f.BaseCenter, f.HeadCenter = mp.centers(bv[:at], hv[:at])
	}
	f.Note, f.Look = mp.note, &Look{Dec: l.dec, Exact: l.exact, Change: f.Change, Sign: mp.direction().Sign(), MaxBlocks: maxUnits, Complete: complete, Gaps: l.gaps,
		WindowsSD: l.windowsSD}
	if l.gaps.any() && !l.dec.Decided() {
		l.cut, f.Outcome, f.Look.Cut = true, MetricInconclusive, true
		return
	}
	l.judged, f.Outcome = true, seqOutcome(l.dec)
	if l.dec.Decided() {
		f.DecidedAt = l.dec.Blocks
	}
}

// missing is the look of a metric pair 1 already lacks: a gated one is
// inconclusive (never a pass), any other one not available.
func (l seqLook) missing() seqLook {
	f := &l.finding
	if !l.mp.gated {
		f.Outcome, f.Note = NotAvailable, joinNotes(missingPairsNote(l.mp.meta, f.M, f.N), l.mp.note)
		return l
	}
	l.cut, f.Outcome, f.Note, f.Look = true, MetricInconclusive, l.mp.note, &Look{Cut: true, Gaps: l.gaps}
	return l
}

func (mp metricPolicy) seqMinEffect() float64 {
	if !mp.minEffectSet {
		return mp.toScale(defaultMinEffect(mp.meta.Key))
	}
	return mp.toScale(mp.minEffect)
}

// boundFromScale is fromScale keeping a bound's ±Inf (a look bounding nothing).
func (mp metricPolicy) boundFromScale(w float64) float64 {
	if math.IsInf(w, 0) {
		return w
	}
	return mp.fromScale(w)
}

// seqOutcome is a decision's outcome; a pass is an improvement or a change within min_effect when the look says so.
func seqOutcome(dec stats.SeqDecision) MetricOutcome {
	if o, ok := map[stats.SeqOutcome]MetricOutcome{stats.SeqRegression: MetricRegression, stats.SeqInconclusive: MetricInconclusive, stats.SeqContinue: Undecided}[dec.Outcome]; ok {
		return o
	}
	return cmp.Or(map[stats.SeqReason]MetricOutcome{stats.ReasonImproved: Improvement, stats.ReasonChangedWithin: WithinMinEffect}[dec.Reason], MetricPass)
}

// practical: n more units are practical advice (three budgets at most).
func practical(n, budget int) bool { return n > 0 && n <= 3*budget }

func missingPairsNote(meta result.Metric, m, n int) string {
	if m == 0 || n == 0 {
		return missingNote(meta, m, n)
	}
	return fmt.Sprintf("not measured in every block (%d base, %d head runs have it)", m, n)
}

// detectable is what the design catches (80 %) in its budget at the pairs' spread.
func (l seqLook) detectable(d stats.SeqDesign, k int) Detectable {
	dt := l.mp.detectable(stats.Detectable{Method: stats.MethodSequential}, d.MaxBlocks, d.MaxBlocks, l.finding)
	if l.exact { // no noise: any change beyond the rule's mean (ExactLook's Detectable) is seen at the first look
		dt.Possible, dt.Effect = true, l.mp.fromScale(l.dec.Detectable)
		return dt
	}
	x, err := d.Detectable(l.spread, l.minEffect, l.resolution, k)
	switch {
	case err != nil:
		dt.Note = err.Error()
	case math.IsNaN(x):
		dt.Note = fmt.Sprintf("at the spread of these blocks no regression is caught reliably within %d blocks", d.MaxBlocks)
	default:
		dt.Possible, dt.Effect = true, l.mp.fromScale(x)
	}
	return dt
}

// stopping says whether the job is done, why, and, ending undecided, how
// many more pairs would likely decide.
func stopping(v Verdict, looks []seqLook, final bool, d stats.SeqDesign) (done bool, why Why, more int) {
	var undecided, hopeless []string
	var judged int
	for _, l := range looks {
		switch {
		case l.cut:
			why.Missing = append(why.Missing, l.finding.Label)
		case l.judged:
			judged++
			if !l.dec.Decided() || l.dec.Outcome == stats.SeqInconclusive {
				undecided = append(undecided, l.finding.Label)
				more = max(more, l.dec.MoreBlocks)
				if !practical(l.dec.MoreBlocks, d.MaxBlocks) {
					hopeless = append(hopeless, l.finding.Label)
				}
			}
		}
	}
	n := v.Sequential.Blocks
	switch why.Labels = undecided; {
	case len(v.Regressions) > 0:
		return true, Why{Stop: StopRegression, Labels: labelsOf(v.Findings, v.Regressions)}, 0
	case n < d.MinBlocks && !final:
		return false, Why{Stop: StopFirstLook, Missing: why.Missing}, 0
	case judged == 0:
		return true, Why{Stop: StopNoneMeasured, Missing: why.Missing}, 0
	case len(undecided) == 0:
		return true, Why{Stop: StopDecided, Missing: why.Missing}, 0
	case n < d.MaxBlocks && !final:
		why.Stop = StopUndecided
		return false, why, 0
	case n < d.MaxBlocks:
		why.Stop = StopFinal
	default:
		why.Stop = StopBudget
	}
	// At the end: "N more" only when every undecided metric would likely
	// decide within a practical number more; else say which would not.
	if why.Hopeless = hopeless; len(hopeless) > 0 {
		more = 0
	}
	return true, why, more
}

func labelsOf(findings []Finding, keys []string) []string {
	var out []string
	for _, f := range findings {
		if slices.Contains(keys, f.Key) {
			out = append(out, f.Label)
		}
	}
	return out
}
