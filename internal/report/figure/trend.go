package figure

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// Trend is a stored baseline's window, oldest first, then the head
// runs, with the baseline median and the floor's limit.
type Trend struct {
	Title, YLabel string
	Base          []float64
	// Marks label the samples where a commit's runs start (at most a few are drawn).
	Marks []Mark
	Head  []float64
	// BaseMedian is the window's median; Limit the floor's limit (NaN without a floor).
	BaseMedian, Limit float64
}

// Mark labels sample Index (0-based in Base).
type Mark struct {
	Index int
	Label string
}

// maxMarks bounds the commit labels on the x axis.
const maxMarks = 5

// SVG draws the plot.
func (t Trend) SVG() (string, error) {
	p := newPlot(t.Title, "baseline samples, oldest first · head", t.YLabel)
	m := len(t.Base)
	headAt := float64(m + 2) // one empty slot between the window and the head
	end := headAt + float64(len(t.Head))
	if !math.IsNaN(t.BaseMedian) {
		p.Add(hline(0.5, end, t.BaseMedian, fg, false))
	}
	if !math.IsNaN(t.Limit) {
		p.Add(hline(0.5, end, t.Limit, limitColor, true))
	}
	p.Add(scatter(indexed(t.Base, 1), draw.CircleGlyph{}, baseColor), scatter(indexed(t.Head, headAt), draw.PyramidGlyph{}, headColor))
	var ticks plot.ConstantTicks
	step := max(1, (len(t.Marks)+maxMarks-1)/maxMarks)
	for i := 0; i < len(t.Marks); i += step {
		ticks = append(ticks, plot.Tick{Value: float64(t.Marks[i].Index + 1), Label: t.Marks[i].Label})
	}
	if len(t.Head) > 0 {
		ticks = append(ticks, plot.Tick{Value: headAt + float64(len(t.Head)-1)/2, Label: "head"})
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = 0, end
	pad(&p.Y, 0.08)
	return svg(p, t.Title)
}

// indexed places values at x = from, from+1, …
func indexed(values []float64, from float64) plotter.XYs {
	var xys plotter.XYs
	for i, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			xys = append(xys, plotter.XY{X: from + float64(i), Y: v})
		}
	}
	return xys
}
