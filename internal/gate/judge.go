package gate

import (
	"fmt"
	"math"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Warning texts for the contexts the caller reports.
const (
	WarnDefinitionChanged = "benchmark changed since the baseline was recorded: metrics not compared; re-record the baseline"
	WarnNoBaseline        = "no baseline yet: record one (tailgate baseline record); this comparison passes"
	WarnNoHeadRuns        = "no head runs to judge"
)

// Judge compares head runs against baseline runs under policy p.
func Judge(base, head []result.Run, p Policy) Verdict {
	v := Verdict{HeadRuns: len(head), BaseRuns: len(base)}
	if p.Alpha != 0 && p.alpha() != p.Alpha {
		v.Warnings = append(v.Warnings, fmt.Sprintf("alpha %g is outside (0, 1); using %g", p.Alpha, DefaultAlpha))
	}
	switch {
	case p.Context.DefinitionChanged:
		v.Outcome = Inconclusive
		v.Warnings = append(v.Warnings, WarnDefinitionChanged)
		return v
	case len(head) == 0:
		v.Outcome = Inconclusive
		v.Warnings = append(v.Warnings, WarnNoHeadRuns)
		return v
	case p.Context.NoBaseline || len(base) == 0:
		v.Outcome = Pass
		v.Warnings = append(v.Warnings, WarnNoBaseline)
		v.Findings = headOnly(head, p)
		return v
	}
	if p.Context.EnvDiffers {
		v.Warnings = append(v.Warnings, envWarning(p.Context.EnvDiff))
	}
	plans, warnings := planMetrics(base, head, p)
	v.Warnings = append(v.Warnings, warnings...)
	for i := range plans {
		key := plans[i].meta.Key
		plans[i].paired = p.Paired && len(base) == len(head) &&
			len(values(base, key)) == len(base) && len(values(head, key)) == len(head)
	}
	k := comparedGated(plans, base, head)
	for _, pl := range plans {
		f := pl.judge(values(base, pl.meta.Key), values(head, pl.meta.Key), k, p)
		v.Findings = append(v.Findings, f)
		if f.Gated && f.Outcome != NotAvailable {
			v.Detect = append(v.Detect, pl.detect(values(base, pl.meta.Key), values(head, pl.meta.Key), k, p))
		}
	}
	v.Warnings = append(v.Warnings, findingWarnings(plans, v.Findings, base, head, k, p)...)
	v.Outcome, v.Regressions = overall(v.Findings)
	return v
}

func envWarning(diff string) string {
	w := "environment fingerprint differs from the baseline's: differences may come from the machine, not the code"
	if diff != "" {
		w += " (" + diff + ")"
	}
	return w
}

// comparedGated is K, the number of gated metrics present on both sides:
// the family-wise α is split among the comparisons actually made.
func comparedGated(plans []plan, base, head []result.Run) int {
	k := 0
	for _, pl := range plans {
		if pl.gated && hasKey(base, pl.meta.Key) && hasKey(head, pl.meta.Key) {
			k++
		}
	}
	return max(k, 1)
}

// judge produces the finding of one metric.
func (pl plan) judge(base, head []float64, k int, p Policy) Finding {
	f := Finding{
		Key: pl.meta.Key, Label: pl.meta.Label, Unit: pl.meta.Unit, Percent: pl.percent(),
		Gated: pl.gated, BaseMedian: stats.Median(base), HeadMedian: stats.Median(head),
		Change: math.NaN(), Worse: math.NaN(), P: math.NaN(), Floor: math.NaN(),
		FloorSource: pl.source, Note: pl.note, N: len(head), M: len(base),
	}
	if len(base) == 0 || len(head) == 0 {
		f.Outcome = NotAvailable
		f.Note = joinNotes(missingNote(len(base), len(head)), pl.note)
		return f
	}
	f.Change = pl.change(f.HeadMedian, f.BaseMedian)
	if pl.paired {
		if d, err := pl.differences(base, head); err == nil {
			f.Change = pl.direction().Sign() * pl.fromScale(stats.Median(d)) // the typical pair's change
		}
	}
	f.Worse = f.Change * pl.direction().Sign()
	floor := pl.logFloor(base, head, k, p)
	if pl.gated {
		f.Floor = pl.fromScale(floor)
	}
	c := pl.compare(head, base, p)
	f.Test = c.test
	if c.err == nil && !c.small {
		f.P = c.reportedP(p.alpha())
	}
	o := outcome(c, floor, p.alpha())
	switch {
	case c.err != nil:
		f.Note = joinNotes("cannot compare: "+c.err.Error(), pl.note)
	case c.small:
		f.Note = joinNotes(c.note, pl.note)
	case c.test == TestTPrediction && o == MetricRegression:
		f.Note = joinNotes("low confidence: t prediction test on few samples", pl.note)
	}
	f.Outcome = o
	if !pl.gated {
		f.Outcome = NotGated
		if o == MetricRegression || o == WithinNoise || o == Improvement {
			f.Note = joinNotes(f.Note, fmt.Sprintf("changed significantly (p = %.3g)", f.P))
		}
	}
	return f
}

// change is the signed relative change in percent, or the difference in
// percentage points for rates.
func (pl plan) change(head, base float64) float64 {
	if pl.percent() {
		return head - base
	}
	return 100 * (head/base - 1)
}

func missingNote(m, n int) string {
	switch {
	case m == 0 && n == 0:
		return "not measured on either side"
	case m == 0:
		return "not in the baseline"
	default:
		return "not in the head runs"
	}
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// headOnly lists the head medians when there is nothing to compare with.
func headOnly(head []result.Run, p Policy) []Finding {
	plans, _ := planMetrics(nil, head, p)
	var out []Finding
	for _, pl := range plans {
		f := pl.judge(nil, values(head, pl.meta.Key), 1, p)
		f.Note = "" // the no-baseline warning says it once
		out = append(out, f)
	}
	return out
}

// overall combines the gated findings: any regression fails; otherwise an
// inconclusive gated metric, or no gated metric compared at all, makes the
// verdict inconclusive.
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
		case MetricInconclusive:
			inconclusive = true
		case NotAvailable:
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

// findingWarnings are the warnings that follow from the findings: default
// floors, floors below the visible noise, metrics on one side only, and no
// gated metric compared.
func findingWarnings(plans []plan, findings []Finding, base, head []result.Run, k int, p Policy) []string {
	var defaults, oneSided, tight []string
	compared := 0
	for i, f := range findings {
		if f.Gated && f.FloorSource == FromDefault && f.Outcome != NotAvailable {
			defaults = append(defaults, fmt.Sprintf("%s %s", f.Label, formatFloor(f)))
		}
		if f.Outcome == NotAvailable && (f.N > 0 || f.M > 0) {
			oneSided = append(oneSided, f.Label)
		}
		if f.Gated && f.Outcome != NotAvailable {
			compared++
			if plans[i].floorBelowNoise(values(base, f.Key), values(head, f.Key), k, p) {
				tight = append(tight, f.Label)
			}
		}
	}
	var w []string
	if len(defaults) > 0 {
		w = append(w, "floors not calibrated: using defaults for "+strings.Join(defaults, ", ")+"; run tailgate calibrate to measure this machine's noise")
	}
	if len(tight) > 0 {
		w = append(w, "the floor of "+strings.Join(tight, ", ")+" is below the run-to-run noise these samples show: expect false alarms until calibrated")
	}
	if len(oneSided) > 0 {
		w = append(w, "measured on one side only, not compared: "+strings.Join(oneSided, ", "))
	}
	if compared == 0 {
		w = append(w, "no gated metric is present on both sides: nothing to judge")
	}
	return w
}

func formatFloor(f Finding) string {
	if f.Percent {
		return fmt.Sprintf("%g pp", f.Floor)
	}
	return fmt.Sprintf("%.3g %%", f.Floor)
}
