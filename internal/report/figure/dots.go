package figure

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/tailgate-ci/tailgate/internal/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Runs is a dot plot of one metric's runs, base against head, each side's median as a bar and the
// floor as a band from the base median to the limit a head median must pass in the bad direction.
type Runs struct {
	Title, YLabel      string
	BaseName, HeadName string // the columns' labels
	Base, Head         []float64
	BaseMedian         float64
	HeadMedian         float64
	// Limit is the floor's limit; NaN when the metric has no floor.
	Limit float64
}

func (r Runs) SVG() (string, error) {
	p := newPlot(r.Title, "", r.YLabel)
	if !math.IsNaN(r.Limit) {
		p.Add(band(-0.5, 1.5, r.BaseMedian, r.Limit), hline(-0.5, 1.5, r.Limit, limitColor, true, 1.2))
	}
	p.Add(column(0, finite(r.Base), draw.CircleGlyph{}, baseColor), column(1, finite(r.Head), draw.PyramidGlyph{}, headColor))
	for i, m := range []float64{r.BaseMedian, r.HeadMedian} {
		if !math.IsNaN(m) {
			p.Add(hline(float64(i)-0.32, float64(i)+0.32, m, fg, false, 2))
		}
	}
	pad(&p.Y, 0.08)
	p.X.Min, p.X.Max = -0.6, 1.6
	p.X.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: r.BaseName}, {Value: 1, Label: r.HeadName}}
	p.X.Tick.Length = 0
	return svg(p, r.Title)
}

// Pairs is a dot plot of an A/B job's pair changes, head against base,
// with zero, the median change (or Estimate) and the floor as a band.
type Pairs struct {
	Title, YLabel string
	// XLabel names what each dot is a change of: "pair" when empty, or "block" (the block designs of A/B).
	XLabel string
	Diffs  []float64
	// Limit is the change that exceeds the floor (negative for a drop); NaN when the metric has no floor.
	Limit float64
	// Estimate, when set, replaces the median change: a test's estimate,
	// its bounds a bar right of the pairs (uncapped where infinite).
	Estimate *Interval
}

// Interval is an estimate and its bounds, Lo ≤ Mid ≤ Hi; a bound may be
// infinite (it bounds nothing) or NaN (not known).
type Interval struct{ Mid, Lo, Hi float64 }

// Bar reports whether the interval is drawn as a bar: its estimate and bounds known, at least one bound finite.
func (iv Interval) Bar() bool {
	if math.IsNaN(iv.Mid) || math.IsInf(iv.Mid, 0) || math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) {
		return false
	}
	return !math.IsInf(iv.Lo, 0) || !math.IsInf(iv.Hi, 0)
}

func (pr Pairs) SVG() (string, error) {
	p := newPlot(pr.Title, cmp.Or(pr.XLabel, "pair"), pr.YLabel)
	n := float64(len(pr.Diffs))
	lo, hi := 0.5, n+0.5
	bar := pr.Estimate != nil && pr.Estimate.Bar()
	right := hi + map[bool]float64{true: 1}[bar] // room for the bounds' bar, at n+1
	if !math.IsNaN(pr.Limit) {
		p.Add(band(lo, right, 0, pr.Limit), hline(lo, right, pr.Limit, limitColor, true, 1.2))
	}
	p.Add(hline(lo, right, 0, fg, false, 1.2), scatter(indexed(pr.Diffs, 1), draw.PyramidGlyph{}, headColor))
	switch ds := finite(pr.Diffs); {
	case pr.Estimate != nil && len(finite([]float64{pr.Estimate.Mid})) == 1:
		p.Add(hline(lo, right, pr.Estimate.Mid, mutedColor, true, 1.2))
	case len(ds) > 0:
		p.Add(hline(lo, hi, stats.Median(ds), mutedColor, true, 1.2))
	}
	ticks := indexTicks(len(pr.Diffs), 0)
	if bar {
		p.Add(boundsBar(n+1, *pr.Estimate, append(finite(pr.Diffs), 0, pr.Limit))...)
		ticks = append(ticks, plot.Tick{Value: n + 1, Label: "bounds"})
	}
	pad(&p.Y, 0.08)
	p.X.Min, p.X.Max = lo, right
	p.X.Tick.Marker = ticks
	return svg(p, pr.Title)
}

// boundsBar draws iv at x: a bar from Lo to Hi, capped at a finite
// bound (an infinite one runs just past the others), and a mark at Mid.
func boundsBar(x float64, iv Interval, others []float64) []plot.Plotter {
	shown := finite(append(others, iv.Mid, iv.Lo, iv.Hi))
	reach := 0.05 * math.Max(slices.Max(shown)-slices.Min(shown), 1)
	line := func(x0, y0, x1, y1 float64) plot.Plotter {
		l := hline(x0, x1, y0, fg, false, 1.6)
		l.XYs[1].Y = y1
		return l
	}
	var out []plot.Plotter
	lo, hi := iv.Lo, iv.Hi
	if math.IsInf(lo, 0) {
		lo = slices.Min(shown) - reach
	} else {
		out = append(out, line(x-0.18, lo, x+0.18, lo)) // a cap
	}
	if math.IsInf(hi, 0) {
		hi = slices.Max(shown) + reach
	} else {
		out = append(out, line(x-0.18, hi, x+0.18, hi))
	}
	return append(out, line(x, lo, x, hi), scatter(plotter.XYs{{X: x, Y: iv.Mid}}, draw.CircleGlyph{}, fg))
}

// column places values at x, spread sideways by the golden-ratio sequence over their rank, so that
// close runs stay apart, the same on every drawing.
func column(x float64, values []float64, glyph draw.GlyphDrawer, r role) *plotter.Scatter {
	sorted := slices.Sorted(slices.Values(values))
	xys := make(plotter.XYs, len(sorted))
	for rank, v := range sorted {
		frac := math.Mod(float64(rank)*0.6180339887, 1)
		xys[rank] = plotter.XY{X: x + 0.44*(frac-0.5), Y: v}
	}
	return scatter(xys, glyph, r)
}

func scatter(xys plotter.XYs, glyph draw.GlyphDrawer, r role) *plotter.Scatter {
	s, err := plotter.NewScatter(xys)
	if err != nil { // only for NaN or infinite values, which callers drop
		s = &plotter.Scatter{}
	}
	s.GlyphStyle = draw.GlyphStyle{Color: r.color(), Radius: vg.Points(3.2), Shape: glyph}
	return s
}

// hline is a line at y from x0 to x1, width points wide.
func hline(x0, x1, y float64, r role, dashed bool, width float64) *plotter.Line {
	l := &plotter.Line{XYs: plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}}}
	l.LineStyle = draw.LineStyle{Color: r.color(), Width: vg.Points(width)}
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	return l
}

func band(x0, x1, y0, y1 float64) *plotter.Polygon {
	poly := &plotter.Polygon{XYs: []plotter.XYs{{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}}}
	poly.Color = bandColor.color()
	poly.LineStyle.Width = 0
	return poly
}

func indexTicks(n int, offset float64) plot.ConstantTicks {
	step := max(1, (n+9)/10)
	var ts plot.ConstantTicks
	for i := 1; i <= n; i += step {
		ts = append(ts, plot.Tick{Value: offset + float64(i), Label: strconv.Itoa(i)})
	}
	return ts
}

// Curve is one side's latency percentile distribution: the latency in ms
// at each quantile (0.5 … 0.9999) of its merged runs.
type Curve struct {
	Head      bool // the head side (else the base side)
	Quantiles []float64
	Millis    []float64
}

// Percentiles is latency against percentile on a log 1/(1−p) axis, so
// that 50 %, 90 %, 99 %, 99.9 % and 99.99 % are evenly apart.
type Percentiles struct {
	Title  string
	Curves []Curve
}

// percentileTicks are the x axis ticks at 1/(1−p).
var percentileTicks = plot.ConstantTicks{
	{Value: 2, Label: "50%"}, {Value: 10, Label: "90%"}, {Value: 100, Label: "99%"},
	{Value: 1000, Label: "99.9%"}, {Value: 10000, Label: "99.99%"},
}

func (pc Percentiles) SVG() (string, error) {
	p := newPlot(pc.Title, "percentile", "latency (ms)")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = percentileTicks
	for _, c := range pc.Curves {
		var xys plotter.XYs
		for i, q := range c.Quantiles {
			if q < 1 && i < len(c.Millis) && !math.IsNaN(c.Millis[i]) {
				xys = append(xys, plotter.XY{X: 1 / (1 - q), Y: c.Millis[i]})
			}
		}
		if len(xys) == 0 {
			continue
		}
		l := &plotter.Line{XYs: xys, LineStyle: draw.LineStyle{Color: headColor.color(), Width: vg.Points(2)}}
		if !c.Head {
			l.Color, l.Dashes = baseColor.color(), []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
	}
	p.X.Min, p.X.Max = 2, 10000
	p.Y.Min = 0
	pad(&p.Y, 0.04)
	p.Y.Min = 0
	return svg(p, pc.Title)
}

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

const maxMarks = 5

func (t Trend) SVG() (string, error) {
	p := newPlot(t.Title, "baseline samples, oldest first · head", t.YLabel)
	m := len(t.Base)
	headAt := float64(m + 2) // one empty slot between the window and the head
	end := headAt + float64(len(t.Head))
	if !math.IsNaN(t.BaseMedian) {
		p.Add(hline(0.5, end, t.BaseMedian, fg, false, 1.2))
	}
	if !math.IsNaN(t.Limit) {
		p.Add(hline(0.5, end, t.Limit, limitColor, true, 1.2))
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

func indexed(values []float64, from float64) plotter.XYs {
	var xys plotter.XYs
	for i, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			xys = append(xys, plotter.XY{X: from + float64(i), Y: v})
		}
	}
	return xys
}

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

func (h History) SVG() (string, error) {
	xLabel := map[bool]string{true: "commit of main, oldest first", false: "recorded job of main (#), oldest first"}[len(h.Commits) > 0]
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
		p.Add(hline(float64(lv.From)+0.5, float64(lv.To)+1.5, lv.Value, fg, lv.Unconfirmed, map[bool]float64{true: 1.2, false: 2.2}[lv.Unconfirmed]))
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
	n, most := len(h.Medians), map[bool]int{true: 16, false: 7}[len(h.Commits) > 0]
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
