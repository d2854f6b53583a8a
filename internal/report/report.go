// Package report owns the presentation of a verdict: the terminal table,
// the Markdown of PR comments and job summaries (with the hidden marker of
// the sticky comment and truncation to GitHub's comment limit), and
// report.json (documented in docs/report-json.md). It computes nothing
// statistical; it formats a gate.Verdict and the head runs' details.
package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Input is everything a report shows.
type Input struct {
	Name           string // benchmark name
	Mode           string // "check", "compare", "ab", "demo"
	BaselineSource string // where the baseline came from ("baselines/api.json at origin/main")
	Verdict        gate.Verdict
	Head           []result.Run // the head runs, for per-step figures and error classes
	Notes          []string     // caller's notes (fork PR fallback, …)
}

// headline is the one-line verdict, without decoration.
func headline(in Input) string {
	v := in.Verdict
	switch v.Outcome {
	case gate.Regression:
		return fmt.Sprintf("regression in %s", strings.Join(regressionLabels(v), ", "))
	case gate.Inconclusive:
		if s := v.Sequential; s != nil && !s.Done {
			return "undecided so far: " + s.Reason
		}
		return "inconclusive: " + inconclusiveReason(v)
	default:
		if v.HasWarning(gate.WarnNoBaseline) {
			return "pass (no baseline yet)"
		}
		return "pass: no gated metric regressed beyond its noise floor"
	}
}

func regressionLabels(v gate.Verdict) []string {
	var out []string
	for _, f := range v.Findings {
		if f.Outcome == gate.MetricRegression && f.Gated {
			out = append(out, fmt.Sprintf("%s (%s)", f.Label, formatChange(f)))
		}
	}
	return out
}

func inconclusiveReason(v gate.Verdict) string {
	if v.HasWarning(gate.WarnDefinitionChanged) {
		return "benchmark changed, re-record the baseline"
	}
	var labels []string
	for _, f := range v.Findings {
		if f.Gated && f.Outcome == gate.MetricInconclusive {
			labels = append(labels, f.Label)
		}
	}
	if len(labels) > 0 {
		return "could not judge " + strings.Join(labels, ", ")
	}
	if len(v.Warnings) > 0 {
		return v.Warnings[len(v.Warnings)-1].Message
	}
	return "nothing to judge"
}

// detectLine is the sentence saying what the comparison can see.
func detectLine(v gate.Verdict) string {
	var parts, blind []string
	for _, d := range v.Detect {
		if !d.Possible {
			blind = append(blind, d.Label)
			continue
		}
		parts = append(parts, fmt.Sprintf("a %s of ≥ %s in %s", d.Direction, formatEffect(d.Effect, d.Unit), d.Label))
	}
	if len(parts) == 0 && len(blind) == 0 {
		return ""
	}
	s := fmt.Sprintf("With %d %s against %d baseline %s this gate ", v.HeadRuns, plural(v.HeadRuns, "run", "runs"),
		v.BaseRuns, plural(v.BaseRuns, "sample", "samples"))
	if v.Sequential != nil {
		s = fmt.Sprintf("With up to %d pairs this gate ", v.Sequential.MaxPairs)
	}
	if len(parts) > 0 {
		s += "detects " + joinAnd(parts) + " (80 % power)"
	}
	if len(blind) > 0 {
		if len(parts) > 0 {
			s += "; it "
		}
		s += "cannot reliably detect a regression of " + joinAnd(blind)
	}
	return s + "."
}

func joinAnd(xs []string) string {
	if len(xs) <= 1 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sequentialLine says how many pairs a sequential A/B job ran and why it
// stopped; "" for fixed-sample comparisons.
func sequentialLine(v gate.Verdict) string {
	s := v.Sequential
	if s == nil {
		return ""
	}
	line := fmt.Sprintf("Sequential A/B: %d %s (first look at %d, budget %d): %s", s.Pairs, plural(s.Pairs, "pair", "pairs"), s.MinPairs, s.MaxPairs, s.Reason)
	if s.MorePairs > 0 {
		line += fmt.Sprintf("; about %d more %s would likely decide", s.MorePairs, plural(s.MorePairs, "pair", "pairs"))
	}
	return line + "."
}

// outcomeWord is how a metric's outcome reads in a table.
func outcomeWord(o gate.MetricOutcome) string {
	switch o {
	case gate.MetricRegression:
		return "REGRESSION"
	case gate.WithinNoise:
		return "changed, within noise"
	case gate.WithinMinEffect:
		return "changed, within min_effect"
	case gate.SetByLoad:
		return "set by the load"
	case gate.Undecided:
		return "undecided so far"
	case gate.NotAvailable:
		return "not available"
	case gate.NotGated:
		return "reported only"
	default:
		return string(o)
	}
}

// formatValue prints a median with its unit and a precision that suits
// its magnitude; "n/a" when missing.
func formatValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	var s string
	switch a := math.Abs(v); {
	case a >= 1000:
		s = fmt.Sprintf("%.0f", v)
	case a >= 100:
		s = fmt.Sprintf("%.1f", v)
	case a >= 1 || a == 0:
		s = fmt.Sprintf("%.2f", v)
	default:
		s = fmt.Sprintf("%.3g", v)
	}
	switch unit {
	case "/s":
		return s + "/s"
	case "":
		return s
	}
	return s + " " + unit
}

func formatChange(f gate.Finding) string {
	if math.IsNaN(f.Change) {
		return "—"
	}
	if f.Percent {
		return signed(f.Change, "%.2f") + " pp"
	}
	return signed(f.Change, "%.1f") + " %"
}

// signed prints a number with an explicit sign, using a real minus sign.
func signed(v float64, format string) string {
	s := fmt.Sprintf(format, math.Abs(v))
	switch {
	case s == fmt.Sprintf(format, 0.0):
		return "±" + s
	case v < 0:
		return "−" + s
	}
	return "+" + s
}

func formatFloor(f gate.Finding) string {
	if math.IsNaN(f.Floor) {
		return "—"
	}
	return formatEffect(f.Floor, unitOf(f)) + " (" + string(f.FloorSource) + ")"
}

func unitOf(f gate.Finding) string {
	if f.Percent {
		return "pp"
	}
	return "%"
}

func formatEffect(v float64, unit string) string {
	if math.IsNaN(v) {
		return "—"
	}
	var s string
	switch a := math.Abs(v); {
	case a >= 10:
		s = fmt.Sprintf("%.0f", v)
	case a >= 1:
		s = fmt.Sprintf("%.1f", v)
	default:
		s = fmt.Sprintf("%.2f", v)
	}
	return s + " " + unit
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

// findingNotes lists what a reader needs beside the table: notes and
// low-confidence tests.
func findingNotes(v gate.Verdict) []string {
	var out []string
	for _, f := range v.Findings {
		note := f.Note
		if f.Test != "" && f.Test != stats.TestExact && f.Test != stats.TestSequential { // the sequential line names its test
			note = joinNote("test: "+f.Test, note)
		}
		if note != "" {
			out = append(out, f.Label+": "+note)
		}
	}
	return out
}

func joinNote(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}
