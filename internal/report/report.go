// Package report owns the presentation of a verdict: the terminal report, the Markdown of PR comments and job
// summaries, the HTML report (figures by report/figure) and report.json (docs/report-json.md). It owns the one rule for
// showing text tailgate did not write (inert.go). It computes nothing statistical.
package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
	pl "github.com/tailgate-ci/tailgate/internal/plural"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

type Input struct {
	Name           string // benchmark name
	Mode           string // "check", "compare", "ab", "demo"
	BaselineSource string // where the baseline came from ("baselines/api.json at origin/main")
	Verdict        gate.Verdict
	// Head holds the head runs: their figures for the charts, per-step figures, error classes and latency histograms.
	Head []result.Run
	// Base holds the runs head was judged against, where the caller has
	// them (A/B: in pair order); nil without a base side.
	Base []result.Run
	// BaseOrigins says where each run of Base came from; nil without.
	BaseOrigins []Origin
	Notes       []string // caller's notes (fork PR fallback, …)
	// AB is how an A/B job ran, which the report words after the caller's notes; nil for other jobs.
	AB *ABRun
	// TargetLog names the files holding the output of the targets tailgate
	// started for the runs; empty where it started none.
	TargetLog TargetLogs
	// TriggerRun is the address of the workflow run whose report this is (from the runner's
	// environment, never the report): the one link the Markdown writes, if it passes runLink.
	TriggerRun string
	// TrendURL is the address of the trend page of main's history (the
	// trend_url input), linked when it passes trendLink's allow-list.
	TrendURL string
	// statements, when set, are the statement changes of a report read
	// back (ReadJSON), whose runs no longer carry their statements.
	statements []statementChange
}

// Origin is where one baseline sample was recorded.
type Origin struct {
	Commit, Ref, Job string
	Time             time.Time
}

// headline is the one-line verdict with every label and message shown
// through show (mdText for Markdown, plainText for the terminal).
func headline(in Input, show func(string) string) string {
	v := in.Verdict
	switch {
	case v.Outcome == gate.Regression:
		return "regression in " + strings.Join(gatedLabels(v, gate.MetricRegression, show, func(f gate.Finding) string { return " (" + formatChange(f) + ")" }), ", ")
	case v.Outcome != gate.Inconclusive && v.HasWarning(gate.WarnNoBaseline):
		return "pass (no baseline yet)"
	case v.Outcome != gate.Inconclusive:
		return "pass: no gated metric regressed beyond its noise floor"
	case v.Sequential != nil && !v.Sequential.Done:
		return "undecided so far: " + show(StopReason(v.Sequential))
	case v.HasWarning(gate.WarnDefinitionChanged):
		return "inconclusive: benchmark changed, re-record the baseline"
	}
	if labels := gatedLabels(v, gate.MetricInconclusive, show, func(gate.Finding) string { return "" }); len(labels) > 0 {
		return "inconclusive: could not judge " + strings.Join(labels, ", ")
	}
	if len(v.Warnings) > 0 {
		return "inconclusive: " + show(Warnings(v)[len(v.Warnings)-1])
	}
	return "inconclusive: nothing to judge"
}

// gatedLabels are the labels of the gated findings of outcome o, each through show and then with.
func gatedLabels(v gate.Verdict, o gate.MetricOutcome, show func(string) string, with func(gate.Finding) string) []string {
	var out []string
	for _, f := range v.Findings {
		if f.Gated && f.Outcome == o {
			out = append(out, show(f.Label)+with(f))
		}
	}
	return out
}

// plainText shows text as it is: the terminal report's way.
func plainText(s string) string { return s }

// detectLine is the sentence saying what the comparison can see, with every label shown through show.
func detectLine(v gate.Verdict, show func(string) string) string {
	var parts, blind []string
	for _, d := range v.Detect {
		if !d.Possible {
			blind = append(blind, show(d.Label))
			continue
		}
		parts = append(parts, detectText(d, show)+" in "+show(d.Label))
	}
	if len(parts) == 0 && len(blind) == 0 {
		return ""
	}
	s := fmt.Sprintf("With %d %s against %d baseline %s this gate ", v.HeadRuns, plural(v.HeadRuns, "run", "runs"),
		v.BaseRuns, plural(v.BaseRuns, "sample", "samples"))
	if q := v.Sequential; q != nil {
		s = fmt.Sprintf("With up to %d %s this gate ", q.MaxBlocks, q.UnitWord(q.MaxBlocks))
		if q.Budget > 0 {
			s = fmt.Sprintf("With the %d %s that ab.max_time allows at this job's pace this gate ", q.Budget, q.UnitWord(q.Budget))
		}
	}
	if len(parts) > 0 {
		s += "detects " + joinAnd(parts) + " (80 % power)"
	}
	if len(blind) > 0 {
		s += map[bool]string{true: "; it "}[len(parts) > 0] + "cannot reliably detect a regression of " + joinAnd(blind)
	}
	return s + "."
}

// detectText is the least regression a comparison detects: "a rise of ≥ 5.0 %".
func detectText(d gate.Detectable, show func(string) string) string {
	return fmt.Sprintf("a %s of ≥ %s", show(d.Direction), formatEffect(d.Effect, d.Unit))
}

func joinAnd(xs []string) string {
	if len(xs) <= 1 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// plural and count are package plural's, by report's short names.
var plural, count = pl.Of, pl.Count

func outcomeWord(o gate.MetricOutcome) string {
	return cmp.Or(map[gate.MetricOutcome]string{gate.MetricRegression: "REGRESSION", gate.WithinNoise: "changed, within noise",
		gate.WithinMinEffect: "changed, within min_effect", gate.SetByLoad: "set by the load", gate.Undecided: "undecided so far",
		gate.NotAvailable: "not available", gate.NotGated: "reported only"}[o], string(o))
}

// formatValue prints a median with its unit and a precision that suits its magnitude; "n/a" when missing.
func formatValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	s := fixed(v, 1000, 100, 0)
	if a := math.Abs(v); a > 0 && a < 1 {
		s = fmt.Sprintf("%.3g", v)
	}
	return s + map[bool]string{true: unit, false: " " + unit}[unit == "" || unit == "/s"]
}

// fixed prints v with fewer decimals the larger it is: none from at[0]
// on, one from at[1] on, …, len(at) below the last.
func fixed(v float64, at ...float64) string {
	d := slices.IndexFunc(at, func(a float64) bool { return math.Abs(v) >= a })
	if d < 0 {
		d = len(at)
	}
	return strconv.FormatFloat(v, 'f', d, 64)
}

func formatChange(f gate.Finding) string {
	if math.IsNaN(f.Change) {
		return "—"
	}
	return formatDiff(f.Change, f.Percent)
}

// formatDiff prints a signed change in percent or, for a rate (pp), percentage points: "+1.5 %", "−0.20 pp".
func formatDiff(v float64, pp bool) string {
	if math.IsInf(v, 0) {
		return signed(v, "")
	}
	return signed(v, changeFormat(pp)) + " " + changeUnit(pp)
}

// changeFormat and changeUnit are how a change is printed: in percent
// to a tenth, or for a rate in percentage points to a hundredth.
func changeFormat(pp bool) string { return map[bool]string{false: "%.1f", true: "%.2f"}[pp] }
func changeUnit(pp bool) string   { return map[bool]string{false: "%", true: "pp"}[pp] }

// signed prints a number with an explicit sign, using a real minus sign; an infinity is "+∞" or "−∞".
func signed(v float64, format string) string {
	s := fmt.Sprintf(format, math.Abs(v))
	switch {
	case math.IsInf(v, 0):
		s = "∞"
	case s == fmt.Sprintf(format, 0.0):
		return "±" + s
	}
	if v < 0 {
		return "−" + s
	}
	return "+" + s
}

func formatFloor(f gate.Finding) string {
	if math.IsNaN(f.Floor) {
		return "—"
	}
	return formatEffect(f.Floor, changeUnit(f.Percent)) + " (" + string(f.FloorSource) + ")"
}

func formatEffect(v float64, unit string) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fixed(v, 10, 1) + " " + unit
}

func formatP(p float64) string {
	switch {
	case math.IsNaN(p):
		return "—"
	case p < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// shownNotes are the notes beside a report's table: the findings' (with the tests named says are worth naming; a note
// of white space is none), notesOf, then the target logs'.
func shownNotes(in Input, fs []gate.Finding, named func(test string) bool) []string {
	var out []string
	for _, f := range fs {
		if note := noteOf(f, named); strings.TrimSpace(note) != "" {
			out = append(out, f.Label+": "+note)
		}
	}
	return slices.Concat(out, notesOf(in), targetLogNotes(in))
}

// judgedLines are the sequential A/B's line and what the gate can detect, where there is one.
func judgedLines(v gate.Verdict, show func(string) string) []string {
	return slices.DeleteFunc([]string{sequentialLine(v.Sequential, show), detectLine(v, show)}, func(s string) bool { return s == "" })
}

// noteOf is a finding's note, naming its test where named says it is worth naming.
func noteOf(f gate.Finding, named func(test string) bool) string {
	switch note := findingNote(f); {
	case !named(f.Test):
		return note
	case note == "":
		return "test: " + f.Test
	default:
		return "test: " + f.Test + "; " + note
	}
}

// notExact reports a test the terminal names: any but the exact ones (the sequential line names that one).
func notExact(test string) bool {
	return test != "" && test != stats.TestExact && test != stats.TestSequential && test != stats.TestExactCount
}

// lowConfidence reports whether a test is worth naming in a PR comment or
// the HTML report: any but the exact ones (the paired A/B test is exact).
func lowConfidence(test string) bool { return notExact(test) && test != stats.TestSignedRank }

// contextLine says what was compared, with the mode and the baseline's source shown through show.
func contextLine(in Input, show func(string) string) string {
	v := in.Verdict
	compared := fmt.Sprintf("%d head %s vs %d baseline %s", v.HeadRuns, plural(v.HeadRuns, "run", "runs"), v.BaseRuns, plural(v.BaseRuns, "sample", "samples"))
	if s := v.Sequential; s != nil {
		compared = fmt.Sprintf("%d %s of base and head", s.Blocks, s.UnitWord(s.Blocks))
	}
	parts := []string{"mode " + show(in.Mode), "baseline " + show(in.BaselineSource), compared}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "mode " || p == "baseline " }), " · ")
}

// baseName is what the report calls the base side: "base" for an A/B job's base target, else "baseline".
func baseName(in Input) string {
	return map[bool]string{true: "base", false: "baseline"}[in.Mode == "ab"]
}

func splitGated(findings []gate.Finding) (gated, reported []gate.Finding) {
	for _, f := range findings {
		if f.Gated {
			gated = append(gated, f)
		} else {
			reported = append(reported, f)
		}
	}
	return gated, reported
}

// fromTo is "baseline → head" of a finding's medians, or in a sequential A/B the centres its paired change is made of.
func fromTo(f gate.Finding) string {
	b, h := sides(f)
	return formatValue(b, f.Unit) + " → " + formatValue(h, f.Unit)
}

// sides are the figures shown beside a finding's change: the centres of
// a paired estimate where it has them, else the medians.
func sides(f gate.Finding) (base, head float64) {
	if f.Center != "" && !math.IsNaN(f.BaseCenter) && !math.IsNaN(f.HeadCenter) {
		return f.BaseCenter, f.HeadCenter
	}
	return f.BaseMedian, f.HeadMedian
}

// columns are a table's two judging columns: floor and p, or min_effect
// and the repeated confidence bounds of a sequential A/B.
type columns struct {
	limitHead, testHead string
	limit, test         func(gate.Finding) string
}

func columnsOf(v gate.Verdict) columns {
	if v.Sequential != nil {
		return columns{limitHead: "min_effect", testHead: "bounds",
			limit: func(f gate.Finding) string { return formatEffect(f.Floor, changeUnit(f.Percent)) }, test: formatBounds}
	}
	return columns{limitHead: "floor", testHead: "p", limit: formatFloor, test: func(f gate.Finding) string { return formatP(f.P) }}
}

// formatBounds is a sequential finding's bounds on head against base: "[−13.1 … −9.9] %". They are
// turned for a metric where lower is worse, so that no bound is below −100 %.
func formatBounds(f gate.Finding) string {
	if f.Test == stats.TestExactCount { // no noise, so no bounds: the change column is the difference
		return "exact count"
	}
	if math.IsNaN(f.Lower) || math.IsNaN(f.Upper) {
		return "—"
	}
	lo, hi := headBounds(f)
	format := changeFormat(f.Percent)
	return fmt.Sprintf("[%s … %s] %s", signed(lo, format), signed(hi, format), changeUnit(f.Percent))
}

// headBounds turns a finding's bounds, in the bad direction, into bounds on head against base.
func headBounds(f gate.Finding) (lo, hi float64) {
	if m, ok := result.Lookup(f.Key); ok && m.Better == result.HigherIsBetter {
		return -f.Upper, -f.Lower
	}
	return f.Lower, f.Upper
}

// centreNote says what the base and head columns of a sequential A/B table are, when the findings have centres.
func centreNote(v gate.Verdict) string {
	if v.Sequential == nil || !slices.ContainsFunc(v.Findings, func(f gate.Finding) bool { return f.Center != "" }) {
		return ""
	}
	return "base and head are the geometric means of the judged " + v.Sequential.UnitWord(2) + " (means for rates); change is the paired estimate, corrected for the look that stopped the job (median-unbiased), so it can differ slightly from their ratio."
}

// runWord is what the head's runs are, in the plural when n is not 1:
// runs, or an A/B job's blocks (a block's run is its windows together).
func runWord(in Input, n int) string {
	if s := in.Verdict.Sequential; s != nil {
		return s.UnitWord(n)
	}
	return plural(n, "run", "runs")
}

// sequentialLine says how many units a sequential A/B ran and why it stopped; empty for a fixed-sample comparison.
func sequentialLine(s *gate.Sequential, show func(string) string) string {
	if s == nil {
		return ""
	}
	windows := map[bool]string{true: fmt.Sprintf(" of %d window pairs", s.RunPairs)}[s.RunPairs > s.Blocks]
	line := fmt.Sprintf("Sequential A/B: %d %s%s (first look at %d, budget %d)", s.Blocks, s.UnitWord(s.Blocks), windows, s.MinBlocks, s.MaxBlocks)
	if r := StopReason(s); r != "" {
		line += ": " + show(r)
	}
	if !s.Done {
		line += "; not final"
	}
	if s.MoreBlocks > 0 {
		line += fmt.Sprintf("; about %d more %s would likely decide", s.MoreBlocks, s.UnitWord(s.MoreBlocks))
	}
	return line + "."
}

// capitalize capitalizes the first letter of tailgate's own words (never empty).
func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
