package report

import (
	"fmt"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// aaNoiseMetrics are the metrics whose noise an A/A job reports.
var aaNoiseMetrics = []string{result.IterationsPerSec, result.RequestsPerSec, result.LatencyP95, result.CPUPerIteration}

// aaNotes are an A/A job's notes: per noise metric how much each side's units varied and the change
// as the table shows it; then whether the gate cried wolf.
func aaNotes(v gate.Verdict, base, head []result.Run) []string {
	in := Input{Verdict: v}
	units := runWord(in, 2)
	var notes []string
	for _, key := range aaNoiseMetrics {
		a, b := result.Values(base, key), result.Values(head, key)
		if len(a) < 2 || len(b) < 2 {
			continue
		}
		m, _ := result.Lookup(key)
		note := fmt.Sprintf("A/A noise of %s: the %s of each side vary by %s (base) and %s (head), coefficient of variation",
			m.Label, units, percentOf(stats.CV(a)), percentOf(stats.CV(b)))
		if f, ok := findingOf(v, key); ok && formatChange(f) != "—" {
			note += "; change head against base " + formatChange(f) + ", as in the table"
		}
		notes = append(notes, note)
	}
	if v.Outcome != gate.Regression {
		return append(notes, "A/A: no false alarm")
	}
	var labels []string
	for _, f := range v.Findings {
		if f.Gated && f.Outcome == gate.MetricRegression {
			labels = append(labels, f.Label)
		}
	}
	return append(notes, fmt.Sprintf("A/A: a false alarm in %s: the same build on both sides was called a regression; widen min_effect or look at the noise above",
		strings.Join(labels, ", ")))
}

// findingOf is the verdict's finding of metric key.
func findingOf(v gate.Verdict, key string) (gate.Finding, bool) {
	for _, f := range v.Findings {
		if f.Key == key {
			return f, true
		}
	}
	return gate.Finding{}, false
}

// percentOf prints a share as a percentage: "3.1 %".
func percentOf(share float64) string { return fmt.Sprintf("%.1f %%", 100*share) }
