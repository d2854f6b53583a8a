package figure

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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

// SVG draws the plot.
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
		l := &plotter.Line{XYs: xys}
		l.LineStyle = draw.LineStyle{Color: baseColor.color(), Width: vg.Points(2)}
		if c.Head {
			l.LineStyle.Color = headColor.color()
		} else {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
	}
	p.X.Min, p.X.Max = 2, 10000
	p.Y.Min = 0
	pad(&p.Y, 0.04)
	p.Y.Min = 0
	return svg(p, pc.Title)
}
