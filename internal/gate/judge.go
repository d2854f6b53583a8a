package gate

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Judge compares head runs against baseline runs under policy p.
func Judge(base, head []result.Run, p Policy) Verdict {
	v := Verdict{HeadRuns: len(head), BaseRuns: len(base)}
	if p.Alpha != 0 && p.Level() != p.Alpha {
		v.Warnings = append(v.Warnings, stats.Warn(WarnBadAlpha, fmt.Sprintf("alpha %g is outside (0, 1); using %g", p.Alpha, DefaultAlpha)))
	}
	v.Warnings = append(v.Warnings, setupWarnings(p)...)
	stop := func(o Outcome, code stats.WarningCode) Verdict {
		v.Outcome, v.Warnings = o, append(v.Warnings, fixedWarning(code))
		return v
	}
	switch {
	case p.Context.DefinitionChanged:
		return stop(Inconclusive, WarnDefinitionChanged)
	case len(head) == 0:
		return stop(Inconclusive, WarnNoHeadRuns)
	case p.Context.NoBaseline || len(base) == 0:
		v.Findings = headOnly(head, p)
		return stop(Pass, WarnNoBaseline)
	}
	if p.Context.EnvDiffers {
		v.Warnings = append(v.Warnings, envWarning(p.Context.EnvDiff))
	}
	policies, warnings := metricPolicies(base, head, p)
	v.Warnings = append(v.Warnings, warnings...)
	for i := range policies {
		key := policies[i].meta.Key
		policies[i].paired = p.Paired && len(base) == len(head) &&
			len(result.Values(base, key)) == len(base) && len(result.Values(head, key)) == len(head)
	}
	// K: the gated metrics present on both sides share the family-wise α;
	// not less those at 0 as in an A/B: under drift that slack keeps A/A
	// alarms at 2–3 % where two gated metrics alone reach 4.5–5.4 % (simulated).
	k := max(countGated(policies, func(key string) bool { return hasKey(base, key) && hasKey(head, key) }), 1)
	comparisons := make([]stats.Comparison, len(policies))
	for i, mp := range policies {
		f, c := mp.judge(result.Values(base, mp.meta.Key), result.Values(head, mp.meta.Key), k, p)
		v.Findings = append(v.Findings, f)
		comparisons[i] = c
		if f.Gated && f.Outcome != NotAvailable {
			v.Detect = append(v.Detect, mp.detectable(c.Detectable, len(head), len(base), f))
		}
	}
	v.Warnings = append(v.Warnings, findingWarnings(v.Findings, comparisons, p.Context)...)
	v.Warnings = append(v.Warnings, missingInRuns(v.Findings, len(base), len(head))...)
	v.Warnings = append(v.Warnings, calibrationWarnings(v.Findings, p.Context)...)
	v.Outcome, v.Regressions = overall(v.Findings)
	return v
}

// missingInRuns judges a gated metric some runs lack (never read as 0) on
// the runs that have it: a regression stands, else a head lacking it is
// inconclusive (the lack may be the regression). One warning names all.
func missingInRuns(findings []Finding, baseRuns, headRuns int) []stats.Warning {
	var cut []string
	for i := range findings {
		f := &findings[i]
		if !f.Gated || f.Outcome == NotAvailable || (f.N == headRuns && f.M == baseRuns) {
			continue
		}
		note := fmt.Sprintf("in %d of %d head runs and %d of %d baseline runs", f.N, headRuns, f.M, baseRuns)
		f.Note = joinNotes(f.Note, "measured "+note)
		if f.N < headRuns && f.Outcome != MetricRegression {
			f.Outcome = MetricInconclusive
			f.Note = joinNotes(f.Note, "inconclusive: what made a head run lack it may be the regression")
		}
		cut = append(cut, f.Key+" "+note)
	}
	if len(cut) == 0 {
		return nil
	}
	return []stats.Warning{stats.Warn(WarnMissingInRuns, "some runs lack a gated metric, judged on the runs that have it: "+strings.Join(cut, "; "))}
}

func countGated(policies []metricPolicy, present func(key string) bool) int {
	return len(slices.DeleteFunc(slices.Clone(policies), func(mp metricPolicy) bool { return !mp.gated || !present(mp.meta.Key) }))
}

// judge produces the finding of one metric, and the comparison behind it
// (the zero Comparison when a side has no values).
func (mp metricPolicy) judge(base, head []float64, k int, p Policy) (Finding, stats.Comparison) {
	f := mp.finding(base, head)
	if len(base) == 0 || len(head) == 0 {
		f.Outcome, f.Note = NotAvailable, joinNotes(missingNote(mp.meta, len(base), len(head)), mp.note)
		return f, stats.Comparison{}
	}
	f.Change = mp.change(f.HeadMedian, f.BaseMedian)
	if mp.setByLoad {
		f.Outcome, f.Worse = SetByLoad, f.Change*mp.direction().Sign()
		return f, stats.Comparison{}
	}
	c := stats.Compare(mp.input(base, head, k, p))
	if !math.IsNaN(c.PairEffect) {
		f.Change = mp.direction().Sign() * mp.fromScale(c.PairEffect) // the typical pair's change
	}
	f.Worse = f.Change * mp.direction().Sign()
	if mp.gated {
		f.Floor = mp.fromScale(c.Floor)
	}
	f.Test = c.Test
	if c.Tested() {
		f.P = c.ReportedP(p.Level())
	}
	o := outcome(c, p.Level())
	f.Note, f.Outcome = joinNotes(comparisonNote(c, o), mp.note), o
	if !mp.gated {
		f.Outcome = NotGated
		if o == MetricRegression || o == WithinNoise || o == Improvement {
			f.Note = joinNotes(f.Note, fmt.Sprintf("changed significantly (p = %.3g)", f.P))
		}
	}
	return f, c
}

// finding is the finding of a metric before it is judged: its description
// and medians, every figure still NaN.
func (mp metricPolicy) finding(base, head []float64) Finding {
	nan := math.NaN()
	return Finding{
		Key: mp.meta.Key, Label: mp.meta.Label, Unit: mp.meta.Unit, Percent: mp.percent(),
		Gated: mp.gated, BaseMedian: stats.Median(base), HeadMedian: stats.Median(head),
		Change: nan, Worse: nan, P: nan, Floor: nan, Estimate: nan, Lower: nan, Upper: nan, StdErr: nan, BaseCenter: nan, HeadCenter: nan,
		FloorSource: mp.source, Note: mp.note, N: len(head), M: len(base),
	}
}

// outcome applies the rule of DESIGN.md §4 to a metric: regression ⇔
// p ≤ α and w > L; significant inside the floor is "within noise";
// significant and beyond the floor the good way is an improvement.
func outcome(c stats.Comparison, alpha float64) MetricOutcome {
	switch {
	case !c.Tested():
		return MetricInconclusive
	case c.PWorse <= alpha && c.Effect > c.Floor:
		return MetricRegression
	case c.PWorse <= alpha:
		return WithinNoise
	case c.PBetter <= alpha && -c.Effect > c.Floor:
		return Improvement
	case c.PBetter <= alpha:
		return WithinNoise
	default:
		return MetricPass
	}
}

// comparisonNote is what the finding says about its comparison: why no
// test could judge it, or that a regression rests on a low-confidence test.
func comparisonNote(c stats.Comparison, o MetricOutcome) string {
	for _, w := range c.Warnings {
		if w.Code == stats.WarnCannotCompare || w.Code == stats.WarnTooFewSamples || (w.Code == stats.WarnLowConfidence && o == MetricRegression) {
			return w.Message
		}
	}
	return ""
}

func (mp metricPolicy) detectable(d stats.Detectable, n, m int, f Finding) Detectable {
	dt := Detectable{Key: mp.meta.Key, Label: mp.meta.Label, N: n, M: m, Effect: math.NaN(),
		Unit: "%", Direction: "rise", Method: d.Method, Possible: d.Possible, Note: d.Note}
	if mp.percent() {
		dt.Unit = "pp"
	}
	if mp.direction() == stats.LowerIsWorse {
		dt.Direction = "drop"
	}
	if d.Possible {
		dt.Effect = mp.fromScale(d.Effect)
	}
	return dt
}

// change is the signed relative change in percent, or the difference in
// percentage points for rates.
func (mp metricPolicy) change(head, base float64) float64 {
	if mp.percent() {
		return head - base
	}
	return 100 * (head/base - 1)
}

// missingNote says which side lacks metric meta, and for the metrics only
// some setups measure, which.
func missingNote(meta result.Metric, m, n int) string {
	switch {
	case m == 0 && n == 0:
		if hint, ok := measuredWhere[meta.Key]; ok {
			return "not measured on either side (" + hint + ")"
		}
		return "not measured on either side"
	case m == 0:
		return "not in the baseline"
	default:
		return "not in the head runs"
	}
}

func joinNotes(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// measuredWhere says where the default metrics some setups lack are measured.
var measuredWhere = map[string]string{
	result.CPUPerIteration: "measured where tailgate starts the target or reads its pid_file",
	result.DroppedPct:      "open model only",
}

func headOnly(head []result.Run, p Policy) []Finding {
	policies, _ := metricPolicies(nil, head, p)
	var out []Finding
	for _, mp := range policies {
		f, _ := mp.judge(nil, result.Values(head, mp.meta.Key), 1, p)
		f.Note = "" // the no-baseline warning says it once
		out = append(out, f)
	}
	return out
}

// overall combines the gated findings: any regression fails; else one
// inconclusive or lacking in head, or none compared, is inconclusive.
func overall(findings []Finding) (Outcome, []string) {
	var regressions []string
	inconclusive, compared := false, 0
	for _, f := range findings {
		if !f.Gated {
			continue
		}
		switch f.Outcome {
		case MetricRegression:
			regressions = append(regressions, f.Key)
		case MetricInconclusive, Undecided:
			inconclusive = true
		case NotAvailable:
			// A gated metric the baseline has and no head run measured
			// cannot be seen this time: never a pass. (One the baseline
			// lacks is told by a warning: the baseline predates it.)
			inconclusive = inconclusive || (f.M > 0 && f.N == 0)
			continue
		}
		compared++
	}
	switch {
	case len(regressions) > 0:
		return Regression, regressions
	case inconclusive || compared == 0:
		return Inconclusive, nil
	}
	return Pass, nil
}

// findingWarnings are the warnings that follow from the findings (and
// their comparisons, when given).
func findingWarnings(findings []Finding, comparisons []stats.Comparison, c Context) []stats.Warning {
	measure, _, _ := c.calibrateAdvice()
	var defaults, oneSided, tight []string
	compared := 0
	for i, f := range findings {
		if f.Gated && f.FloorSource == FromDefault && f.Outcome != NotAvailable {
			defaults = append(defaults, fmt.Sprintf("%s %s", f.Label, formatFloor(f)))
		}
		if f.Outcome == NotAvailable && (f.N > 0) != (f.M > 0) {
			oneSided = append(oneSided, f.Label)
		}
		if f.Gated && f.Outcome != NotAvailable {
			compared++
			if i < len(comparisons) && stats.HasWarning(comparisons[i].Warnings, stats.WarnFloorBelowNoise) {
				tight = append(tight, f.Label)
			}
		}
	}
	var w []stats.Warning
	if len(defaults) > 0 {
		w = append(w, stats.Warn(WarnDefaultFloors, "floors not calibrated: using defaults for "+strings.Join(defaults, ", ")+"; run "+measure+" to measure this machine's noise"))
	}
	if len(tight) > 0 {
		w = append(w, stats.Warn(stats.WarnFloorBelowNoise, "the floor of "+strings.Join(tight, ", ")+" is below the run-to-run noise these samples show: expect false alarms until calibrated"))
	}
	if len(oneSided) > 0 {
		w = append(w, stats.Warn(WarnOneSided, "measured on one side only, not compared: "+strings.Join(oneSided, ", ")))
	}
	if compared == 0 {
		w = append(w, stats.Warn(WarnNothingCompared, "no gated metric is present on both sides: nothing to judge"))
	}
	return w
}

func formatFloor(f Finding) string {
	if f.Percent {
		return fmt.Sprintf("%g pp", f.Floor)
	}
	return fmt.Sprintf("%.3g %%", f.Floor)
}

// setupWarnings are the caveats about how the runs were measured that
// every verdict carries, whatever it finds: a remote target's network.
func setupWarnings(p Policy) []stats.Warning {
	if p.Context.RemoteTarget {
		return []stats.Warning{fixedWarning(WarnRemoteTarget)}
	}
	return nil
}
