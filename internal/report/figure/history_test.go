package figure

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// The trend figure numbers its jobs, draws a regression's change point in
// the limit colour and an improvement's in the base colour, and never
// draws a share below zero.
func TestHistoryFigure(t *testing.T) {
	t.Parallel()
	h := History{Title: "CPU/iteration", YLabel: "ms", Runs: make([][]float64, 40), Medians: make([]float64, 40)}
	for j := range 40 {
		v := 2.0
		if j >= 20 {
			v = 2.4
		}
		h.Runs[j], h.Medians[j] = []float64{v * 0.99, v, v * 1.01}, v
	}
	h.Medians[3] = math.NaN() // a job that did not measure it
	h.Levels = []Level{{From: 0, To: 19, Value: 2}, {From: 20, To: 39, Value: 2.4}}
	h.Changes = []Change{{At: 20, First: 18, Last: 21, Regression: true}}
	svg, err := h.SVG()
	if err != nil {
		t.Fatal(err)
	}
	root, texts, colours := svgFacts(t, svg)
	if root["aria-label"] != "CPU/iteration" || root["width"] != "" {
		t.Errorf("root %v: want an accessible name and no fixed size", root)
	}
	for _, want := range []string{"1", "10", "20", "40", "recorded job of main (#), oldest first"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no text %q in %q", want, texts)
		}
	}
	if !uses(colours, "var(--limit)") || !uses(colours, "var(--band)") {
		t.Errorf("colours %v: want the regression in var(--limit) and its range in var(--band)", colours)
	}

	h.Changes[0].Regression = false
	svg, _ = h.SVG()
	if _, _, colours := svgFacts(t, svg); uses(colours, "var(--limit)") {
		t.Error("an improvement was drawn in the regression colour")
	}

	zero := History{Title: "request errors", Runs: [][]float64{{0}, {0}, {0}}, Medians: []float64{0, 0, 0}}
	svg, _ = zero.SVG()
	if _, texts, _ := svgFacts(t, svg); slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, "-") }) {
		t.Errorf("a rate of 0 drawn with negative ticks: %q", texts)
	}
}

// uses reports whether any of the styles names the colour.
func uses(styles []string, colour string) bool {
	return slices.ContainsFunc(styles, func(s string) bool { return strings.Contains(s, colour) })
}

// With commits, the axis names jobs by them (at most about sixteen, at a
// round step) and always names a change point's first job, even off the
// step; an unconfirmed step is drawn in the muted colour, not the limit's.
func TestHistoryFigureNamesCommits(t *testing.T) {
	t.Parallel()
	n := 40
	h := History{Title: "CPU/iteration", YLabel: "ms", Runs: make([][]float64, n), Medians: make([]float64, n)}
	for j := range n {
		v := 2.0
		if j >= 23 {
			v = 2.4
		}
		h.Runs[j], h.Medians[j] = []float64{v}, v
		h.Commits = append(h.Commits, fmt.Sprintf("c%06d", j+1))
	}
	h.Changes = []Change{{At: 23, First: 23, Last: 23, Regression: true}}
	svg, err := h.SVG()
	if err != nil {
		t.Fatal(err)
	}
	_, texts, _ := svgFacts(t, svg)
	var named []string
	for _, s := range texts {
		if strings.HasPrefix(s, "c0") {
			named = append(named, s)
		}
	}
	if !slices.Contains(named, "c000024") || !slices.Contains(named, "c000001") || len(named) > 17 || slices.Contains(texts, "recorded job of main (#), oldest first") {
		t.Errorf("axis names %q: want the change point's c000024 and c000001, at most 17, and the commit axis title", named)
	}
	h.Changes[0].Unconfirmed = true
	svg, _ = h.SVG()
	if _, _, colours := svgFacts(t, svg); uses(colours, "var(--limit)") {
		t.Error("an unconfirmed step was drawn in the regression colour")
	}
}
