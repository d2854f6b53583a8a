package figure

import (
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// History is one metric over main's jobs, oldest first: runs as dots, medians as a line, each level
// between change points bold, each change point dashed where the new level begins (red for a
// regression) over a band of the jobs it may be.
type History struct {
	Title, YLabel string
	// Runs are each job's run values; Medians the jobs' medians.
	Runs    [][]float64
	Medians []float64
	// Commits name each job on the x axis (short commit hashes); the
	// caller passes only text safe to draw. Empty: the jobs are numbered.
	Commits []string
	Levels  []Level
	Changes []Change
}

// Level is a segment's median from job From to To (0-based, inclusive); an unconfirmed one is dashed and thin.
type Level struct {
	From, To    int
	Value       float64
	Unconfirmed bool
}

// Change is a change point: its first job at the new level, the jobs it
// may be, whether it regressed; an unconfirmed one is muted.
type Change struct {
	At, First, Last int
	Regression      bool
	Unconfirmed     bool
	// Label, when set, is written beside the line's top ("culprit +10.1
	// %"), so that the line says what it marks without the caption.
	Label string
}

// SVG draws the plot.
func (h History) SVG() (string, error) {
	xLabel := "recorded job of main (#), oldest first"
	if len(h.Commits) > 0 {
		xLabel = "commit of main, oldest first"
	}
	p := newPlot(h.Title, xLabel, h.YLabel)
	n, all := len(h.Medians), finite(slices.Concat(h.Runs...))
	for _, c := range h.Changes {
		if c.Last > c.First && len(all) > 0 { // the jobs it may be
			p.Add(band(float64(c.First)+0.5, float64(c.Last)+1.5, slices.Min(all), slices.Max(all)))
		}
	}
	for _, c := range h.Changes {
		r := map[bool]role{true: limitColor, false: baseColor}[c.Regression]
		if c.Unconfirmed {
			r = mutedColor
		}
		p.Add(vertical{x: float64(c.At) + 0.5, role: r, label: c.Label})
	}
	var dots plotter.XYs
	for j, runs := range h.Runs {
		for _, v := range finite(runs) {
			dots = append(dots, plotter.XY{X: float64(j + 1), Y: v})
		}
	}
	small := scatter(dots, draw.CircleGlyph{}, mutedColor)
	small.GlyphStyle.Radius = vg.Points(1.6)
	p.Add(small)
	if medians := indexed(h.Medians, 1); len(medians) > 1 {
		p.Add(&plotter.Line{XYs: medians, LineStyle: draw.LineStyle{Color: baseColor.color(), Width: vg.Points(1)}})
	}
	for _, lv := range h.Levels {
		l := hline(float64(lv.From)+0.5, float64(lv.To)+1.5, lv.Value, fg, lv.Unconfirmed)
		if !lv.Unconfirmed {
			l.Width = vg.Points(2.2)
		}
		p.Add(l)
	}
	p.X.Min, p.X.Max = 0.5, float64(n)+0.5
	p.X.Tick.Marker = h.ticks()
	if len(h.Commits) > 0 {
		// Hashes stand upright below their jobs, so that a dozen fit.
		p.X.Tick.Label.Rotation = math.Pi / 2
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	pad(&p.Y, 0.08)
	if p.Y.Min < 0 && (len(all) == 0 || slices.Min(all) >= 0) {
		p.Y.Min = 0 // the padding must not draw a share or a time below zero
	}
	return svg(p, h.Title)
}

// ticks name the jobs at a round step, by commit (at most about 16) or number (about 7), and always
// a change point's first job, so that the culprit reads off the axis.
func (h History) ticks() plot.ConstantTicks {
	n, most := len(h.Medians), 7
	if len(h.Commits) > 0 {
		most = 16
	}
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000} {
		step = s
		if n/s <= most {
			break
		}
	}
	named := map[int]bool{1: true}
	for j := step; j <= n; j += step {
		named[j] = true
	}
	for _, c := range h.Changes {
		named[c.At+1] = true
	}
	var ticks plot.ConstantTicks
	for j := 1; j <= n; j++ {
		label := strconv.Itoa(j)
		if j <= len(h.Commits) && h.Commits[j-1] != "" {
			label = h.Commits[j-1]
		}
		if named[j] {
			ticks = append(ticks, plot.Tick{Value: float64(j), Label: label})
		}
	}
	return ticks
}

// vertical is a dashed vertical line over the plot's height with its
// label at the top: a plot.Plotter, as it needs the axis range.
type vertical struct {
	x     float64
	role  role
	label string
}

func (v vertical) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.x)
	c.StrokeLine2(draw.LineStyle{Color: v.role.color(), Width: vg.Points(1.4), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}},
		x, c.Min.Y, x, c.Max.Y)
	if v.label == "" {
		return
	}
	sty := text.Style{Color: v.role.color(), Font: font.From(sans, 10), XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	at := vg.Point{X: x + 3, Y: c.Max.Y - 2}
	if x > (c.Min.X+c.Max.X)/2 { // past the middle: the label to the line's left
		sty.XAlign, at.X = draw.XRight, x-3
	}
	c.FillText(sty, at, v.label)
}
