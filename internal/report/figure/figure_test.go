package figure

import (
	"encoding/xml"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// svgFacts parses an inline figure as XML and returns its root attributes,
// the text it shows and the colours it uses.
func svgFacts(t *testing.T, svg string) (root map[string]string, texts []string, colours []string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	root = map[string]string{}
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the figure is not well-formed XML: %v\n%.400s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "svg" {
				for _, a := range tok.Attr {
					root[a.Name.Local] = a.Value
				}
			}
			inText = tok.Name.Local == "text"
			for _, a := range tok.Attr {
				if a.Name.Local == "style" {
					colours = append(colours, colourIn.FindAllString(a.Value, -1)...)
				}
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(tok))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return root, texts, colours
}

var colourIn = regexp.MustCompile(`(fill|stroke):[^;"]+`)

// wantInline checks what every figure promises a page: an <svg> element
// with a viewBox and no fixed size, an accessible name, no prolog, and
// colours only as the page's custom properties (none of the sentinels).
func wantInline(t *testing.T, name, svg string, labels ...string) {
	t.Helper()
	if !strings.HasPrefix(svg, "<svg") {
		t.Errorf("%s: does not start with <svg: %.40q", name, svg)
	}
	root, texts, colours := svgFacts(t, svg)
	if root["viewBox"] != "0 0 360 250" || root["width"] != "" || root["height"] != "" || root["aria-label"] == "" || root["role"] != "img" {
		t.Errorf("%s: root attributes %v", name, root)
	}
	for _, c := range colours {
		if !strings.Contains(c, "var(--") && !strings.HasSuffix(c, ":none") {
			t.Errorf("%s: colour %q is not a page property", name, c)
		}
	}
	shown := strings.Join(texts, "|")
	for _, l := range labels {
		if !strings.Contains(shown, l) {
			t.Errorf("%s: the figure does not show %q (it shows %q)", name, l, shown)
		}
	}
}

func TestRuns(t *testing.T) {
	t.Parallel()
	svg, err := Runs{Title: "iterations/s: REGRESSION", YLabel: "iterations/s (/s)", BaseName: "baseline (30)", HeadName: "head (5)",
		Base: []float64{99, 100, 101, 98, 102, 100}, Head: []float64{80, 81, 79, math.NaN()}, BaseMedian: 100, HeadMedian: 80, Limit: 93.3}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	wantInline(t, "runs", svg, "iterations/s: REGRESSION", "baseline (30)", "head (5)", "iterations/s (/s)")
	for _, role := range []string{"var(--band)", "var(--limit)", "var(--base)", "var(--head)"} {
		if !strings.Contains(svg, role) {
			t.Errorf("the dot plot draws nothing in %s", role)
		}
	}
	// One glyph per finite run: the base circles and head triangles.
	if got := strings.Count(svg, "fill:var(--base)"); got != 6 {
		t.Errorf("%d base glyphs, want 6", got)
	}
	if got := strings.Count(svg, "fill:var(--head)"); got != 3 {
		t.Errorf("%d head glyphs, want 3 (the NaN run is left out)", got)
	}
	noFloor, err := Runs{Title: "t", Base: []float64{1, 2}, Head: []float64{3}, BaseMedian: 1.5, HeadMedian: 3, Limit: math.NaN()}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(noFloor, "var(--band)") || strings.Contains(noFloor, "var(--limit)") {
		t.Error("a metric without a floor is drawn with a floor band")
	}
}

func TestPairs(t *testing.T) {
	t.Parallel()
	svg, err := Pairs{Title: "latency p95: pass", YLabel: "change (%)", Diffs: []float64{1, 2, -1, 3, 0.5}, Limit: 4.5}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	wantInline(t, "pairs", svg, "latency p95: pass", "pair", "change (%)", "1", "5")
	if got := strings.Count(svg, "fill:var(--head)"); got != 5 {
		t.Errorf("%d pair glyphs, want 5", got)
	}
}

// A test's estimate and bounds replace the median change: a bar labelled
// "bounds" right of the pairs, spanning the bounds, and the estimate's
// line; without finite bounds there is no bar.
func TestPairsWithEstimate(t *testing.T) {
	t.Parallel()
	diffs := []float64{1, 2, -1, 3, 0.5}
	svg, err := Pairs{Title: "CPU/iteration: REGRESSION", YLabel: "change (%)", Diffs: diffs, Limit: 5,
		Estimate: &Interval{Mid: 1.1, Lo: -0.4, Hi: 9}}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	wantInline(t, "pairs with estimate", svg, "bounds", "5")
	// The y axis grows to hold the upper bound (9), far above the pairs (≤ 3).
	_, texts, _ := svgFacts(t, svg)
	plain, err := Pairs{Title: "t", YLabel: "change (%)", Diffs: diffs, Limit: 2}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	_, plainTexts, _ := svgFacts(t, plain)
	if top, plainTop := slices.Max(numbers(texts)), slices.Max(numbers(plainTexts)); top < 8 || plainTop > 5 {
		t.Errorf("the highest tick is %g with bounds up to 9 and %g without: the bar does not fit the axis", top, plainTop)
	}
	if got := strings.Count(svg, "fill:var(--head)"); got != 5 {
		t.Errorf("%d pair glyphs, want 5", got)
	}
	// A bound that bounds nothing runs the bar off the plot; a bound not
	// known yet draws no bar.
	for _, tc := range []struct {
		iv  Interval
		bar bool
	}{{Interval{Mid: 1.1, Lo: -0.4, Hi: math.Inf(1)}, true}, {Interval{Mid: 1.1, Lo: math.NaN(), Hi: math.NaN()}, false},
		{Interval{Mid: 1.1, Lo: math.Inf(-1), Hi: math.Inf(1)}, false}} {
		svg, err := Pairs{Title: "t", YLabel: "change (%)", Diffs: diffs, Limit: 5, Estimate: &tc.iv}.SVG()
		if err != nil {
			t.Fatalf("%+v: %v", tc.iv, err)
		}
		if _, texts, _ := svgFacts(t, svg); slices.Contains(texts, "bounds") != tc.bar {
			t.Errorf("%+v: a bar drawn %v, want %v", tc.iv, !tc.bar, tc.bar)
		}
	}
}

// numbers are the texts that read as numbers (the tick labels).
func numbers(texts []string) []float64 {
	var out []float64
	for _, s := range texts {
		if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			out = append(out, v)
		}
	}
	return out
}

func TestPercentiles(t *testing.T) {
	t.Parallel()
	qs := []float64{0.5, 0.9, 0.99, 0.999, 0.9999}
	svg, err := Percentiles{Title: "latency by percentile", Curves: []Curve{
		{Quantiles: qs, Millis: []float64{5, 9, 20, 40, 41}}, {Head: true, Quantiles: qs, Millis: []float64{6, 11, 25, 60, 80}}}}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	wantInline(t, "percentiles", svg, "50%", "90%", "99%", "99.9%", "99.99%", "percentile", "latency (ms)")
	if !strings.Contains(svg, "stroke:var(--base)") || !strings.Contains(svg, "stroke:var(--head)") || !strings.Contains(svg, "stroke-dasharray") {
		t.Error("the two sides' curves are not both drawn (base dashed, head solid)")
	}
}

func TestTrend(t *testing.T) {
	t.Parallel()
	svg, err := Trend{Title: "iterations/s over the baseline window", YLabel: "iterations/s", Base: []float64{100, 101, math.NaN(), 99, 98, 102},
		Marks: []Mark{{0, "a1b2c3d"}, {3, "e4f5a6b"}}, Head: []float64{80, 82}, BaseMedian: 100, Limit: 93}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	wantInline(t, "trend", svg, "a1b2c3d", "e4f5a6b", "head")
	if got := strings.Count(svg, "fill:var(--base)"); got != 5 {
		t.Errorf("%d samples drawn, want the 5 measured", got)
	}
}

// Text a figure is given is escaped as XML text, never markup.
func TestFigureTextIsEscaped(t *testing.T) {
	t.Parallel()
	svg, err := Trend{Title: "t", Base: []float64{1, 2}, Marks: []Mark{{0, "<a&b>"}}, Head: []float64{3}, BaseMedian: 1.5, Limit: math.NaN()}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(svg, "<a&b>") || !strings.Contains(svg, "&lt;a&amp;b&gt;") {
		t.Error("a mark's label is not escaped")
	}
	wantInline(t, "escaped", svg, "<a&b>")
}
