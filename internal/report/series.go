package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report/figure"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// series is one gated metric's per-run values on both sides, as the comment's chart and the page's plots show them.
type series struct {
	Finding gate.Finding
	Meta    result.Metric
	// Base and Head are the per-run values in run order; runs that did not measure the metric are left out.
	Base, Head []float64
	// Paired: Diffs are each pair's change head against base (% or pp), Base and Head the pairs' values.
	Paired bool
	Diffs  []float64
	// Unit is what each of Diffs is a change of: "pair", or "block" in the block designs of A/B.
	Unit string
}

func (s series) units() string { return s.Unit + "s" }

// seriesOf builds the series of every gated metric that was compared (values on both sides), in the verdict's order.
func seriesOf(in Input) []series {
	var out []series
	for _, f := range in.Verdict.Findings {
		meta, known := result.Lookup(f.Key)
		if !f.Gated || !known {
			continue
		}
		s := series{Finding: f, Meta: meta, Unit: "pair"}
		if seq := in.Verdict.Sequential; seq != nil && seq.Unit != "" {
			s.Unit = seq.Unit
		}
		// judged on pairs: an A/B job's runs, one of each side per pair
		if f.Test == stats.TestSignedRank || f.Test == stats.TestSequential || f.Test == stats.TestExactCount ||
			(in.Mode == "ab" && len(in.Base) == len(in.Head) && len(in.Base) > 0) {
			s.Paired = true
			s.Base, s.Head = pairs(in.Base, in.Head, f.Key)
			for i := range s.Base {
				// as the gate states a change: percent, or percentage points for rates
				s.Diffs = append(s.Diffs, map[bool]float64{false: 100 * (s.Head[i]/s.Base[i] - 1), true: s.Head[i] - s.Base[i]}[points(meta)])
			}
		} else {
			s.Base, s.Head = result.Values(in.Base, f.Key), result.Values(in.Head, f.Key)
		}
		if len(s.Base) > 0 && len(s.Head) > 0 {
			out = append(out, s)
		}
	}
	return out
}

func pairs(base, head []result.Run, key string) (b, h []float64) {
	for i := range min(len(base), len(head)) {
		bv, okB := base[i].Value(key)
		hv, okH := head[i].Value(key)
		if okB && okH {
			b, h = append(b, bv), append(h, hv)
		}
	}
	return b, h
}

func (s series) worseSign() float64 {
	return map[bool]float64{true: -1, false: 1}[s.Meta.Better == result.HigherIsBetter]
}

func (s series) hasFloor() bool { return !math.IsNaN(s.Finding.Floor) }

// threshold is the value a head median must pass to exceed the floor; NaN without a floor.
func (s series) threshold() float64 {
	f := s.Finding // a NaN floor gives NaN
	if points(s.Meta) {
		return f.BaseMedian + s.worseSign()*f.Floor
	}
	return f.BaseMedian * (1 + s.worseSign()*f.Floor/100)
}

// estimate is the sequential test's estimate and bounds of a paired series, head against base; nil without one.
func (s series) estimate() *figure.Interval {
	f := s.Finding
	if !s.Paired || math.IsNaN(f.Estimate) {
		return nil
	}
	lo, hi := headBounds(f)
	return &figure.Interval{Mid: s.worseSign() * f.Estimate, Lo: lo, Hi: hi}
}

func (s series) minEffectFloor() bool { return s.Finding.FloorSource == gate.FromMinEffect }

// diffThreshold is the pair change that exceeds the floor, in the
// finding's change units (signed: negative for a throughput drop).
func (s series) diffThreshold() float64 { return s.worseSign() * s.Finding.Floor }

// decisive ranks the series: those that regressed, then by how near
// their limit they came; one flat at one value last (its chart is empty).
func decisive(all []series) []series {
	rank := func(s series) int {
		switch {
		case s.Finding.Outcome == gate.MetricRegression:
			return 0
		case s.flat():
			return 2
		}
		return 1
	}
	ranked := slices.Clone(all)
	slices.SortStableFunc(ranked, func(a, b series) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(pull(b.Finding), pull(a.Finding)))
	})
	return ranked
}

// flat reports whether the series' chart would be one flat line: every change, or every value, the same.
func (s series) flat() bool {
	vs := s.Diffs
	if !s.Paired {
		vs = append(slices.Clone(s.Base), s.Head...)
	}
	return len(vs) == 0 || slices.Min(vs) == slices.Max(vs)
}

// pull is how far a metric moved towards its floor: the change in the bad
// direction over the floor (or the change itself without a floor).
func pull(f gate.Finding) float64 {
	w := f.Worse
	if math.IsNaN(w) {
		return math.Inf(-1)
	}
	if f.Floor > 0 {
		return w / f.Floor
	}
	return w
}

// maxChartRuns and maxChartPairs bound the comment chart's x axis: more labels crowd it at a comment's width.
const (
	maxChartRuns  = 15
	maxChartPairs = 30
)

// chartColors are mid-tones that read on GitHub's light and dark themes; the directive sets nothing else.
const chartColors = `%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "#3b82f6, #8b949e, #e5534b"}}}}%%`

// mermaidChart is the comment's chart of one series (xychart-beta, which draws no legend, so the
// caption says what it shows). Labels go through mermaidText; numbers are plain decimals.
func mermaidChart(s series) (string, string) {
	if label := mermaidText(s.Finding.Label); s.Paired {
		return pairedChart(s, label)
	}
	label := mermaidText(s.Finding.Label)
	base, head := lastN(s.Base, maxChartRuns), lastN(s.Head, maxChartRuns)
	xs := append(lastLabels("b", len(base), len(s.Base)), lastLabels("h", len(head), len(s.Head))...)
	plots := []plot{{"bar", "runs", append(slices.Clone(base), head...)}, {"line", "baseline median", constant(s.Finding.BaseMedian, len(xs))}}
	if s.hasFloor() {
		plots = append(plots, plot{"line", "floor limit", constant(s.threshold(), len(xs))})
	}
	_, hi := extent(plots)
	unit := "(" + s.Meta.Unit + ")" // spelled for a Mermaid label, which must hold no "%"
	switch s.Meta.Unit {
	case "%":
		unit = "(percent)"
	case "", "/s":
		unit = ""
	}
	block := mermaidXY(label+" of each run: baseline samples b, head runs h", "", xs,
		strings.TrimSpace(label+" "+mermaidText(unit)), 0, niceRound(hi*1.1, math.Ceil), plots)
	caption := fmt.Sprintf("Bars: %s of each baseline sample (b) and head run (h); lines: the baseline median", mdText(s.Finding.Label)) +
		map[bool]string{true: fmt.Sprintf(" and the floor's limit (a %s beyond it is a regression)", badMove(s))}[s.hasFloor()]
	if len(base) < len(s.Base) {
		caption += fmt.Sprintf("; the last %d of %d baseline samples", len(base), len(s.Base))
	}
	return block, caption + "."
}

func pairedChart(s series, label string) (string, string) {
	diffs := lastN(s.Diffs, maxChartPairs)
	xs := lastLabels("", len(diffs), len(s.Diffs))
	plots := []plot{{"line", s.units(), diffs}, {"line", "no change", constant(0, len(xs))}}
	if s.hasFloor() {
		plots = append(plots, plot{"line", "floor limit", constant(s.diffThreshold(), len(xs))})
	}
	lo, hi := extent(plots)
	pad := math.Max((hi-lo)*0.1, 0.5)
	unit := map[bool]string{false: "percent", true: "points"}[s.Finding.Percent]
	block := mermaidXY(fmt.Sprintf("%s change of head against base in each %s", label, s.Unit), s.Unit, xs, "change ("+unit+")", niceRound(lo-pad, math.Floor), niceRound(hi+pad, math.Ceil), plots)
	caption := fmt.Sprintf("The jagged line: each %s's change of %s, head against base (%s); flat lines: no change", s.Unit, mdText(s.Finding.Label), unit)
	est := s.estimate()
	switch {
	case s.hasFloor() && s.minEffectFloor() && est != nil:
		caption += fmt.Sprintf(" and min_effect. The sequential test's estimate of the change is %s", formatDiff(est.Mid, s.Finding.Percent))
		if !math.IsNaN(est.Lo) && !math.IsNaN(est.Hi) {
			caption += fmt.Sprintf(", bounds %s … %s", formatDiff(est.Lo, s.Finding.Percent), formatDiff(est.Hi, s.Finding.Percent))
		}
		caption += fmt.Sprintf(": a regression when it is beyond half of min_effect and both bounds are %s zero", badSide(s))
	case s.hasFloor():
		caption += fmt.Sprintf(" and the floor's limit (a %s beyond it is a regression)", badMove(s))
	}
	if len(diffs) < len(s.Diffs) {
		caption += fmt.Sprintf("; the last %d of %d %s", len(diffs), len(s.Diffs), s.units())
	}
	return block, caption + "."
}

type plot struct {
	kind, name string
	values     []float64
}

func extent(plots []plot) (lo, hi float64) {
	all := slices.Concat(mapped(plots, func(p plot) []float64 { return p.values })...)
	return slices.Min(all), slices.Max(all)
}

// mermaidXY is a Mermaid xychart block: title, x axis (titled where xTitle
// is set), y axis from lo to hi, then the plots.
func mermaidXY(title, xTitle string, xs []string, yTitle string, lo, hi float64, plots []plot) string {
	var b strings.Builder
	b.WriteString("```mermaid\n" + chartColors + "\nxychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s\"\n", title)
	if xTitle != "" {
		xTitle = `"` + xTitle + `" `
	}
	fmt.Fprintf(&b, "    x-axis %s[%s]\n", xTitle, strings.Join(mapped(xs, func(x string) string { return `"` + mermaidText(x) + `"` }), ", "))
	fmt.Fprintf(&b, "    y-axis \"%s\" %s --> %s\n", yTitle, mermaidNumber(lo), mermaidNumber(hi))
	for _, p := range plots {
		fmt.Fprintf(&b, "    %s \"%s\" [%s]\n", p.kind, p.name, strings.Join(mapped(p.values, mermaidNumber), ", "))
	}
	return b.String() + "```\n"
}

// badMove names the bad direction of the series' metric, badSide where a change in it lies on a chart of changes.
func badMove(s series) string { return map[bool]string{true: "drop", false: "rise"}[s.worseSign() < 0] }
func badSide(s series) string {
	return map[bool]string{true: "below", false: "above"}[s.worseSign() < 0]
}

func lastN(xs []float64, n int) []float64 { return xs[max(0, len(xs)-n):] }

// lastLabels are the x labels of the last n of all values: prefix and the value's number from 1.
func lastLabels(prefix string, n, all int) []string {
	xs := make([]string, n)
	for i := range xs {
		xs[i] = prefix + strconv.Itoa(all-n+i+1)
	}
	return xs
}

func constant(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }

// mermaidNumber prints v as Mermaid reads a number: plain decimal, at
// most four decimals, no "-0"; 0 for a value not finite.
func mermaidNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	s := fixed(v, 1000, 100, 1, 1) // four decimals below 1
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// niceRound rounds an axis end outwards (round: math.Ceil or math.Floor) to two significant digits, so that the axis
// reads as round numbers.
func niceRound(v float64, round func(float64) float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	step := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-1)
	return round(v/step) * step
}
