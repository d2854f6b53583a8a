package report

import (
	"cmp"
	"embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/report/figure"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

//go:embed html.tmpl history.tmpl
var pageFiles embed.FS

var pageTemplates = template.Must(template.ParseFS(pageFiles, "*.tmpl"))

// page is what the template shows; every string in it is plain text.
type page struct {
	Title, Outcome, Name, Headline, Context string
	Gated, Reported                         []htmlFinding
	Detect, Sequential                      string
	Runs, Trends                            []htmlFigure
	Distribution                            *htmlFigure
	DistributionNote                        string
	Noise                                   []htmlNoise
	Steps                                   []htmlStep
	BaseSteps                               bool   // the steps show base → head with the change
	StepsTitle                              string // what the figures of both sides are
	BaseName                                string // "base" (A/B) or "baseline"
	LimitHead, TestHead                     string // "floor", "p"; in A/B "min_effect", "bounds"
	PairsJudged                             bool   // a sequential A/B verdict: min_effect and bounds, no p column
	Unit                                    string // what the A/B verdict judged: pair or block
	Errors                                  []htmlError
	Warnings, Notes                         []string
	// Statements are the database statements whose work changed most, with their title.
	Statements      []string
	StatementsTitle string
}

type htmlFinding struct {
	Label, FromTo, Change, Floor, P, Verdict, Note, Class string
}

type htmlFigure struct {
	SVG     template.HTML // drawn by package figure from numbers and tailgate's own labels
	Caption string
}

type htmlNoise struct {
	Label, Noise, Floor, Detects, Observed string
}

// htmlStep is a per-step row: p50, p95, p99 and error rate, each base →
// head with its change where the base has step figures, else the head's.
type htmlStep struct {
	Name, Requests, Failed string
	Cells                  []struct{ Value, Change string }
}

type htmlError struct {
	Side, Class, Step, Count, Sample string
}

func pageText(s string) string { return visible(s, maxShownRunes) }

// WriteHTML writes the self-contained HTML report (no network request, no script), light and dark,
// readable at a phone's width. Untrusted text goes through visible, then html/template.
func WriteHTML(w io.Writer, in Input) error {
	v := in.Verdict
	p := page{
		Title:   visible(fmt.Sprintf("tailgate · %s: %s", in.Name, v.Outcome), maxShownRunes),
		Outcome: string(v.Outcome), Name: pageText(in.Name),
		Headline: headline(in, pageText), Context: contextLine(in, pageText),
		Detect: detectLine(v, pageText), Sequential: sequentialLine(v.Sequential, pageText),
		Warnings: shown(warningsOf(in)),
	}
	gated, reported := splitGated(v.Findings)
	c := columnsOf(in.Verdict)
	p.LimitHead, p.TestHead, p.PairsJudged, p.Unit = c.limitHead, c.testHead, v.Sequential != nil, v.Sequential.UnitWord(1)
	p.Gated, p.Reported = htmlFindings(gated, c), htmlFindings(reported, c)
	p.Notes = shown(shownNotes(in, gated, lowConfidence))
	p.Statements, p.StatementsTitle = statementLines(in, htmlStatements, clipped(htmlQueryRunes)), statementsTitle(in)
	all, base := seriesOf(in), baseName(in)
	var errs [3]error
	p.Runs, errs[0] = runFigures(all, base)
	p.Trends, errs[1] = trendFigures(in, all)
	if p.Distribution, p.DistributionNote, errs[2] = distribution(in); cmp.Or(errs[:]...) != nil {
		return cmp.Or(errs[:]...)
	}
	p.Noise = noiseRows(v, all, base)
	cs := stepChanges(in.Base, in.Head)
	p.BaseSteps, p.BaseName = hasBaseSteps(cs), base
	p.Steps = htmlSteps(cs, p.BaseSteps)
	p.StepsTitle = capitalize(strings.TrimPrefix(stepsTitle(in), "Per step, ")) // under the heading "Per step"
	for i, runs := range [][]result.Run{in.Head, in.Base} {
		for _, e := range errorClasses(runs) {
			p.Errors = append(p.Errors, htmlError{Side: []string{"head", p.BaseName}[i], Class: pageText(e.Class), Step: pageText(e.Step), Count: fmt.Sprint(e.Count), Sample: pageText(e.Sample)})
		}
	}
	return pageTemplates.ExecuteTemplate(w, "html.tmpl", p)
}

// runFigures draw each compared gated metric's runs (or, paired, its pairs' changes), the decisive first.
func runFigures(all []series, base string) ([]htmlFigure, error) {
	var figs figures
	for _, s := range decisiveFirst(all) {
		title := fmt.Sprintf("%s: %s", s.Meta.Label, outcomeWord(s.Finding.Outcome))
		var svg, caption string
		var err error
		if s.Paired {
			est := s.estimate()
			svg, err = figure.Pairs{Title: title, YLabel: "change, head vs base (" + changeUnit(s.Finding.Percent) + ")", XLabel: s.Unit, Diffs: s.Diffs, Limit: s.diffThreshold(),
				Estimate: est}.SVG()
			dashed := "the median change"
			if est != nil {
				dashed = "the sequential test's estimate of the change, " + formatDiff(est.Mid, s.Finding.Percent)
			}
			if est != nil && est.Bar() {
				dashed += fmt.Sprintf("; the bar at the right: its bounds, %s … %s", formatDiff(est.Lo, s.Finding.Percent), formatDiff(est.Hi, s.Finding.Percent))
			}
			caption = fmt.Sprintf("▲ each %s's change of %s, head against base; dashed: %s", s.Unit, s.Meta.Label, dashed)
		} else {
			svg, err = figure.Runs{Title: title, YLabel: axisLabel(s.Meta),
				BaseName: fmt.Sprintf("%s (%d)", base, len(s.Base)), HeadName: fmt.Sprintf("head (%d)", len(s.Head)),
				Base: s.Base, Head: s.Head, BaseMedian: s.Finding.BaseMedian, HeadMedian: s.Finding.HeadMedian,
				Limit: s.threshold()}.SVG()
			caption = fmt.Sprintf("● %s runs, ▲ head runs, thick bars: the medians", base)
		}
		figs.add(svg, err, caption+floorText(s)+".")
	}
	return figs.out, figs.err
}

// htmlSteps are the per-step rows: each figure base → head with its change where the base has step figures
// (baseSteps), else the head's.
func htmlSteps(cs []stepChange, baseSteps bool) []htmlStep {
	return mapped(cs, func(c stepChange) htmlStep {
		row := htmlStep{Name: pageText(c.Name), Requests: map[bool]string{true: requestsCell(c), false: fmt.Sprint(c.Head.Requests)}[baseSteps],
			Failed: fmt.Sprint(c.Head.Failed)}
		for i, sp := range []sidePair{c.P50, c.P95, c.P99, c.Errors} {
			cell := struct{ Value, Change string }{formatValue(sp.Head, [4]string{"ms", "ms", "ms", "%"}[i]), changeText(sp, false)}
			switch {
			case sp.none():
				cell.Value, cell.Change = "none", ""
			case baseSteps:
				cell.Value = sp.fromTo([4]string{"ms", "ms", "ms", "%"}[i])
			}
			row.Cells = append(row.Cells, cell)
		}
		return row
	})
}

func shown(items []string) []string { return mapped(items, pageText) }

func htmlFindings(fs []gate.Finding, c columns) []htmlFinding {
	return mapped(fs, func(f gate.Finding) htmlFinding {
		return htmlFinding{Label: pageText(f.Label), FromTo: fromTo(f), Change: formatChange(f), Floor: c.limit(f),
			P: c.test(f), Verdict: outcomeWord(f.Outcome), Note: pageText(noteOf(f, lowConfidence)), Class: string(f.Outcome)}
	})
}

// figures collects figures, each an SVG drawn by package figure from numbers and tailgate's own labels with its
// caption, and the first error drawing one.
type figures struct {
	out []htmlFigure
	err error
}

func (f *figures) add(svg string, err error, caption string) {
	f.out, f.err = append(f.out, htmlFigure{SVG: template.HTML(svg), Caption: caption}), cmp.Or(f.err, err)
}

// axisLabel is a metric's axis title: its label and unit (a rate per second says its unit already).
func axisLabel(m result.Metric) string {
	if u := unitSuffix(m); u != "" {
		return m.Label + " (" + u[1:] + ")"
	}
	return m.Label
}

// decisiveFirst orders the series as the comment ranks them: those that
// regressed, else the one charted, first; then catalogue order.
func decisiveFirst(all []series) []series {
	ranked := decisive(all)
	n := 1
	for n < len(ranked) && ranked[n].Finding.Outcome == gate.MetricRegression {
		n++
	}
	out := slices.Clone(ranked[:min(n, len(ranked))])
	for _, s := range all {
		if !slices.ContainsFunc(out, func(f series) bool { return f.Finding.Key == s.Finding.Key }) {
			out = append(out, s)
		}
	}
	return out
}

// floorText says what a figure's shaded band and red dashed line are.
func floorText(s series) string {
	switch {
	case !s.hasFloor():
		return "; no floor: reported only"
	case !s.minEffectFloor():
		return fmt.Sprintf("; shaded: the noise floor, %s; a %s past the red dashed line is a regression", formatFloor(s.Finding), badMove(s))
	}
	text := fmt.Sprintf("; shaded: min_effect, %s; ", formatEffect(s.Finding.Floor, changeUnit(s.Finding.Percent)))
	switch est := s.estimate(); {
	case est == nil:
		return text + fmt.Sprintf("a %s past the red dashed line is a regression", badMove(s))
	case est.Bar():
		return text + fmt.Sprintf("a regression when the estimate is past the red dashed line and the whole bar %s zero", badSide(s))
	}
	return text + fmt.Sprintf("a regression when the estimate is past the red dashed line and both its bounds %s zero (none yet)", badSide(s))
}

// trendFigures show a stored baseline's window over its commits, one per
// compared gated metric; none when the base runs have no origins.
func trendFigures(in Input, all []series) ([]htmlFigure, error) {
	if len(in.BaseOrigins) != len(in.Base) || len(in.Base) == 0 {
		return nil, nil
	}
	var marks []figure.Mark // where each commit's (or job's) samples start
	prev := ""
	for i, o := range in.BaseOrigins {
		if id := cmp.Or(o.Commit, o.Job); id != prev {
			prev, marks = id, append(marks, figure.Mark{Index: i, Label: visible(id, 7)})
		}
	}
	var figs figures
	for _, s := range all {
		if s.Paired {
			continue
		}
		base := mapped(in.Base, func(r result.Run) float64 {
			if v, ok := r.Value(s.Finding.Key); ok {
				return v
			}
			return math.NaN()
		})
		svg, err := figure.Trend{Title: s.Meta.Label + " over the baseline window", YLabel: axisLabel(s.Meta),
			Base: base, Marks: marks, Head: s.Head, BaseMedian: s.Finding.BaseMedian, Limit: s.threshold()}.SVG()
		figs.add(svg, err, "● baseline samples in the order they were recorded, labelled by commit; ▲ head runs; solid: the baseline median; dashed: the floor's limit.")
	}
	return figs.out, figs.err
}

// distributionQuantiles are the quantiles of the percentile plot: evenly spaced on the 1/(1−p) axis from p50 to p99.99.
var distributionQuantiles = func() []float64 {
	const n = 120
	qs := make([]float64, n)
	for i := range qs {
		qs[i] = 1 - 1/(2*math.Pow(5000, float64(i)/(n-1)))
	}
	return qs
}()

// distribution is the latency percentile distribution of each side's
// merged runs, and a note for a side without histograms.
func distribution(in Input) (*htmlFigure, string, error) {
	var curves []figure.Curve
	var missing []string
	for i, runs := range [][]result.Run{in.Base, in.Head} {
		var h *hist.Histogram // the runs' latency histograms merged
		for _, r := range runs {
			if r.Latency != nil && r.Latency.Count() > 0 {
				if h == nil {
					h = hist.New()
				}
				h.Merge(r.Latency)
			}
		}
		if h != nil {
			ms := mapped(h.Quantiles(distributionQuantiles...), func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) })
			curves = append(curves, figure.Curve{Head: i == 1, Quantiles: distributionQuantiles, Millis: ms})
		} else if len(runs) > 0 || i == 1 {
			missing = append(missing, []string{baseName(in), "head"}[i])
		}
	}
	note := ""
	if len(missing) > 0 {
		note = fmt.Sprintf("No latency histograms for the %s side: ", strings.Join(missing, " and ")) + map[bool]string{
			true:  "a stored baseline keeps each sample's figures, not its histograms, so only the head runs' distribution can be drawn.",
			false: "the result files (or their importer) carry percentile figures only."}[in.Mode == "check" || in.Mode == "demo"]
	}
	if len(curves) == 0 {
		return nil, note, nil
	}
	caption := "Solid orange: head" + map[bool]string{true: "; dashed blue: " + baseName(in)}[len(curves) == 2]
	svg, err := figure.Percentiles{Title: "Request latency by percentile (merged runs)", Curves: curves}.SVG()
	return &htmlFigure{SVG: template.HTML(svg), Caption: caption + ". The latency at each percentile of all the requests of a side's runs, merged."}, note, err
}

// noiseRows say, per compared gated metric, how noisy the runs were (the SD of the pairs' changes in A/B, else each side's
// CV, SD in points for rates), the floor, the smallest regression the comparison detects, and what it saw.
func noiseRows(v gate.Verdict, all []series, base string) []htmlNoise {
	return mapped(all, func(s series) htmlNoise {
		spread := func(x []float64) string {
			switch {
			case len(x) < 2:
				return "—"
			case s.Finding.Percent || s.Paired:
				return fmt.Sprintf(changeFormat(s.Finding.Percent)+" %s", stats.SampleSD(x), changeUnit(s.Finding.Percent))
			}
			return percentOf(stats.CV(x))
		}
		row := htmlNoise{Label: pageText(s.Finding.Label), Floor: formatFloor(s.Finding), Observed: formatChange(s.Finding), Detects: "—",
			Noise: base + " " + spread(s.Base) + " · head " + spread(s.Head)}
		if s.Paired {
			row.Noise = fmt.Sprintf("SD of the %s' changes %s", s.units(), spread(s.Diffs))
		}
		if i := slices.IndexFunc(v.Detect, func(d gate.Detectable) bool { return d.Key == s.Finding.Key }); i >= 0 {
			row.Detects = map[bool]string{true: detectText(v.Detect[i], plainText), false: "not reliably"}[v.Detect[i].Possible]
		}
		return row
	})
}
