package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxChartRuns and maxChartPairs bound the comment chart's x axis: more
// labels crowd it at a comment's width.
const (
	maxChartRuns  = 15
	maxChartPairs = 30
)

// chartColors are mid-tones that read on GitHub's light and dark themes;
// the directive sets nothing else.
const chartColors = `%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "#3b82f6, #8b949e, #e5534b"}}}}%%`

// mermaidChart is the comment's chart of one series (xychart-beta, which draws no legend, so the
// caption says what it shows). Labels go through mermaidText; numbers are plain decimals.
func mermaidChart(s series) (block, caption string) {
	label := mermaidText(s.Finding.Label)
	if s.Paired {
		return pairedChart(s, label)
	}
	return runsChart(s, label)
}

func runsChart(s series, label string) (string, string) {
	base, head := lastN(s.Base, maxChartRuns), lastN(s.Head, maxChartRuns)
	var xs []string
	for i := range base {
		xs = append(xs, fmt.Sprintf("b%d", len(s.Base)-len(base)+i+1))
	}
	for i := range head {
		xs = append(xs, fmt.Sprintf("h%d", len(s.Head)-len(head)+i+1))
	}
	values := append(slices.Clone(base), head...)
	lines := [][]float64{constant(s.Finding.BaseMedian, len(xs))}
	if s.hasFloor() {
		lines = append(lines, constant(s.threshold(), len(xs)))
	}
	hi := slices.Max(values)
	for _, l := range lines {
		hi = math.Max(hi, l[0])
	}
	unit := mermaidText(unitWord(s.Meta.Unit))
	var b strings.Builder
	b.WriteString("```mermaid\n" + chartColors + "\nxychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s of each run: baseline samples b, head runs h\"\n", label)
	fmt.Fprintf(&b, "    x-axis [%s]\n", quotedList(xs))
	fmt.Fprintf(&b, "    y-axis \"%s\" 0 --> %s\n", strings.TrimSpace(label+" "+unit), mermaidNumber(niceCeil(hi*1.1)))
	fmt.Fprintf(&b, "    bar \"runs\" [%s]\n", numberList(values))
	fmt.Fprintf(&b, "    line \"baseline median\" [%s]\n", numberList(lines[0]))
	if s.hasFloor() {
		fmt.Fprintf(&b, "    line \"floor limit\" [%s]\n", numberList(lines[1]))
	}
	b.WriteString("```\n")
	caption := fmt.Sprintf("Bars: %s of each baseline sample (b) and head run (h); lines: the baseline median", mdText(s.Finding.Label))
	if s.hasFloor() {
		caption += fmt.Sprintf(" and the floor's limit (a %s beyond it is a regression)", badMove(s))
	}
	if len(base) < len(s.Base) {
		caption += fmt.Sprintf("; the last %d of %d baseline samples", len(base), len(s.Base))
	}
	return b.String(), caption + "."
}

func pairedChart(s series, label string) (string, string) {
	diffs := lastN(s.Diffs, maxChartPairs)
	var xs []string
	for i := range diffs {
		xs = append(xs, strconv.Itoa(len(s.Diffs)-len(diffs)+i+1))
	}
	lines := [][]float64{constant(0, len(xs))}
	if s.hasFloor() {
		lines = append(lines, constant(s.diffThreshold(), len(xs)))
	}
	lo, hi := slices.Min(diffs), slices.Max(diffs)
	for _, l := range lines {
		lo, hi = math.Min(lo, l[0]), math.Max(hi, l[0])
	}
	pad := math.Max((hi-lo)*0.1, 0.5)
	unit := "percent"
	if s.Finding.Percent {
		unit = "points"
	}
	var b strings.Builder
	b.WriteString("```mermaid\n" + chartColors + "\nxychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s change of head against base in each %s\"\n", label, s.Unit)
	fmt.Fprintf(&b, "    x-axis \"%s\" [%s]\n", s.Unit, quotedList(xs))
	fmt.Fprintf(&b, "    y-axis \"change (%s)\" %s --> %s\n", unit, mermaidNumber(niceFloor(lo-pad)), mermaidNumber(niceCeil(hi+pad)))
	fmt.Fprintf(&b, "    line \"%s\" [%s]\n", s.units(), numberList(diffs))
	fmt.Fprintf(&b, "    line \"no change\" [%s]\n", numberList(lines[0]))
	if s.hasFloor() {
		fmt.Fprintf(&b, "    line \"floor limit\" [%s]\n", numberList(lines[1]))
	}
	b.WriteString("```\n")
	caption := fmt.Sprintf("The jagged line: each %s's change of %s, head against base (%s); flat lines: no change", s.Unit, mdText(s.Finding.Label), unit)
	est := s.estimate()
	switch {
	case s.hasFloor() && s.minEffectFloor() && est != nil:
		caption += fmt.Sprintf(" and min_effect. The sequential test's estimate of the change is %s", formatDiff(est.Mid, s.Finding.Percent))
		if !math.IsNaN(est.Lo) && !math.IsNaN(est.Hi) {
			caption += fmt.Sprintf(", bounds %s … %s", formatDiff(est.Lo, s.Finding.Percent), formatDiff(est.Hi, s.Finding.Percent))
		}
		caption += fmt.Sprintf(": a regression when it is beyond min_effect and both bounds are %s zero", badSide(s))
	case s.hasFloor():
		caption += fmt.Sprintf(" and the floor's limit (a %s beyond it is a regression)", badMove(s))
	}
	if len(diffs) < len(s.Diffs) {
		caption += fmt.Sprintf("; the last %d of %d %s", len(diffs), len(s.Diffs), s.units())
	}
	return b.String(), caption + "."
}

// badMove names the bad direction of the series' metric, badSide where a
// change in it lies on a chart of changes.
func badMove(s series) string { return map[bool]string{true: "drop", false: "rise"}[s.worseSign() < 0] }
func badSide(s series) string {
	return map[bool]string{true: "below", false: "above"}[s.worseSign() < 0]
}

// unitWord spells a unit for a Mermaid label, which must hold no "%".
func unitWord(unit string) string {
	switch unit {
	case "%":
		return "(percent)"
	case "", "/s":
		return ""
	}
	return "(" + unit + ")"
}

func lastN(xs []float64, n int) []float64 { return xs[max(0, len(xs)-n):] }

func constant(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }

func quotedList(xs []string) string {
	return strings.Join(mapped(xs, func(x string) string { return `"` + mermaidText(x) + `"` }), ", ")
}

func numberList(vs []float64) string { return strings.Join(mapped(vs, mermaidNumber), ", ") }

// mermaidNumber prints v as Mermaid reads a number: plain decimal, at
// most four decimals, no "-0"; 0 for a value not finite.
func mermaidNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	decimals := 4
	switch a := math.Abs(v); {
	case a >= 1000:
		decimals = 0
	case a >= 100:
		decimals = 1
	case a >= 1:
		decimals = 2
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// niceCeil and niceFloor round an axis end outwards to two significant
// digits, so that the axis reads as round numbers.
func niceCeil(v float64) float64  { return niceRound(v, math.Ceil) }
func niceFloor(v float64) float64 { return niceRound(v, math.Floor) }

func niceRound(v float64, round func(float64) float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	step := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-1)
	return round(v/step) * step
}
