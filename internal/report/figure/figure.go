// Package figure owns the HTML report's plots: SVG drawn by gonum/plot from plain numbers, knowing
// nothing of verdicts. Each is an inline <svg> with a viewBox (the page sets the width) whose
// colours are CSS custom properties, so that one drawing reads in a light and a dark theme.
package figure

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Width and Height are every figure's drawing size, in points; the fonts below stay readable down to a phone's width.
const (
	Width  vg.Length = 360
	Height vg.Length = 250
)

// FontFamily places the figures' text. The page embeds no font (it would
// be 90 % of the page): FontStack's fallbacks share its metrics.
const FontFamily = "Liberation Sans"

const FontStack = `'Liberation Sans', Arial, Helvetica, sans-serif`

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Roles are the colours a figure draws with. Each is drawn in a sentinel
// colour that svg replaces by a CSS custom property of the page.
type role int

const (
	fg role = iota
	grid
	baseColor
	headColor
	bandColor
	limitColor
	mutedColor
)

// roleNames are the roles' CSS custom properties, in role order.
var roleNames = []string{"fg", "grid", "base", "head", "band", "limit", "muted"}

func (r role) color() color.Color {
	return color.NRGBA{uint8(0x10 * r), uint8(0x10 * r), uint8(0x10 * r), 0xff}
}

// cssColors maps each sentinel, as vgsvg writes it, to its property, and the font vgsvg names to FontStack.
var cssColors = func() *strings.Replacer {
	var pairs []string
	for r, name := range roleNames {
		pairs = append(pairs, fmt.Sprintf("#%02X%02X%02X", 0x10*r, 0x10*r, 0x10*r), "var(--"+name+")")
	}
	pairs = append(pairs, "font-family:"+FontFamily+";", "font-family:"+FontStack+";")
	return strings.NewReplacer(pairs...)
}()

// newPlot returns a plot in the figures' style: no background,
// Liberation Sans, the foreground role for text and axes, a light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil
	p.Title.Text, p.Title.Padding = title, 6
	p.Title.TextStyle.Font, p.Title.TextStyle.Color = font.From(sans, 12.5), fg.color()
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font, ax.Tick.Label.Font = font.From(sans, 11), font.From(sans, 11)
		ax.Color, ax.Label.TextStyle.Color, ax.Tick.Label.Color, ax.Tick.Color = fg.color(), fg.color(), fg.color(), fg.color()
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Y.Tick.Marker = tidyTicks{}
	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = grid.color(), grid.color()
	g.Vertical.Width = 0
	p.Add(g)
	return p
}

// tidyTicks are gonum's default ticks, labelled without trailing zeros ("250", not "250.00").
type tidyTicks struct{}

func (tidyTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// svg draws p and returns it as an inline <svg> element with the given accessible label.
func svg(p *plot.Plot, label string) (_ string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing %q: %v", label, r)
		}
	}()
	c := vgsvg.New(Width, Height)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("writing %q: %w", label, err)
	}
	return inline(buf.String(), label), nil
}

var (
	prolog  = regexp.MustCompile(`(?s)^.*?<svg`)
	sizeAtt = regexp.MustCompile(`\s(width|height)="[^"]*"`)
)

// inline turns vgsvg's document into an element for a page: no prolog,
// no fixed size, an accessible name, colour roles as CSS properties.
func inline(doc, label string) string {
	doc = prolog.ReplaceAllString(doc, "<svg")
	open := strings.Index(doc, ">")
	head := sizeAtt.ReplaceAllString(doc[:open], "")
	head += fmt.Sprintf(` class="plot" role="img" aria-label="%s"`, html.EscapeString(label))
	return cssColors.Replace(head + doc[open:])
}

// pad widens an axis range by a share of its span on both ends (and by a
// little around a single value), so that no point sits on the frame.
func pad(ax *plot.Axis, share float64) {
	span := ax.Max - ax.Min
	if span == 0 || math.IsInf(span, 0) || math.IsNaN(span) {
		span = math.Max(math.Abs(ax.Max), 1)
	}
	ax.Min -= share * span
	ax.Max += share * span
}

func finite(vs []float64) []float64 {
	return slices.DeleteFunc(slices.Clone(vs), func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) })
}
