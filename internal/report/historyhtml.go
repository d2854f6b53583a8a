package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report/figure"
)

//go:embed history.tmpl
var historyTemplate string

var historyPageTemplate = template.Must(template.New("history").Parse(historyTemplate))

// WriteHistoryHTML writes the trend page of a history: one self-contained
// page (no network request, no script) with the change points of every
// gated metric, a figure of each metric over main's jobs with its levels
// and change points, and the list of jobs. Text from the history file
// (commits, refs, machines, runners) is made visible and then escaped by
// html/template; the figures carry tailgate's own labels and short
// commits only.
func WriteHistoryHTML(w io.Writer, in HistoryInput) error {
	page, err := newHistoryPage(in)
	if err != nil {
		return err
	}
	return historyPageTemplate.Execute(w, page)
}

type historyPage struct {
	Title, Name, Outcome, Class, Headline, Context, Alpha string
	Changes                                               []historyChangeRow
	Figures                                               []htmlFigure
	Notes                                                 []string
	Jobs                                                  []historyJobRow
}

type historyChangeRow struct {
	Metric, Kind, Step, Levels, Range, Class string
	Environment                              []string
}

type historyJobRow struct {
	N                                        int
	Commit, Ref, Time, Runs, Machine, Runner string
}

func newHistoryPage(in HistoryInput) (historyPage, error) {
	p := historyPage{Name: pageText(in.Name), Context: historySpan(in)}
	p.Outcome, p.Class, p.Headline = "steady", "steady", "main is at no regressed level of a gated metric"
	if cur := in.Verdict.Current(); len(cur) > 0 {
		p.Outcome, p.Class = "regressed", "regressed"
		p.Headline = "main is at a regressed level: " + strings.Join(currentLines(in, cur), "; ")
	}
	p.Title = visible(fmt.Sprintf("tailgate history · %s: %s", in.Name, p.Outcome), maxShownRunes)
	var alphas []string
	for _, m := range in.Verdict.Metrics {
		if m.Alpha > 0 && len(alphas) == 0 {
			alphas = append(alphas, strconv.FormatFloat(m.Alpha, 'g', 3, 64))
		}
		for _, c := range m.Changes {
			p.Changes = append(p.Changes, changeRow(in, m, c))
		}
		if m.Note != "" {
			p.Notes = append(p.Notes, m.Meta.Label+": "+m.Note)
		}
		if len(m.Values) == 0 {
			continue
		}
		fig, err := historyFigure(in, m)
		if err != nil {
			return historyPage{}, err
		}
		p.Figures = append(p.Figures, fig)
	}
	p.Alpha = strings.Join(alphas, ", ")
	for i, j := range in.Jobs {
		p.Jobs = append(p.Jobs, historyJobRow{N: i + 1, Commit: jobName(j), Ref: pageText(j.Ref), Time: j.Time.UTC().Format("2006-01-02 15:04"),
			Runs: strconv.Itoa(len(j.Runs)), Machine: pageText(j.Machine), Runner: pageText(orDash(j.Runner))})
	}
	return p, nil
}

func changeRow(in HistoryInput, m gate.HistoryMetric, c gate.HistoryChange) historyChangeRow {
	row := historyChangeRow{Metric: m.Meta.Label, Kind: changeWord(c), Step: historyStep(m, c),
		Levels: formatValue(c.Before, m.Meta.Unit) + " → " + formatValue(c.After, m.Meta.Unit), Range: strings.TrimPrefix(commitRange(in, c), "commits ")}
	switch {
	case c.Regression():
		row.Class = "regression"
	case !c.Worse:
		row.Class = "improvement"
	}
	for _, e := range c.Environment {
		row.Environment = append(row.Environment, pageText(e))
	}
	return row
}

// historyFigure draws one metric over every job of the history (NaN where
// a job did not measure it), so that its x positions are the jobs'.
func historyFigure(in HistoryInput, m gate.HistoryMetric) (htmlFigure, error) {
	n := len(in.Jobs)
	h := figure.History{Title: m.Meta.Label, YLabel: unitLabel(m), Runs: make([][]float64, n), Medians: make([]float64, n)}
	for i := range h.Medians {
		h.Medians[i] = math.NaN()
	}
	for i, j := range m.Jobs {
		h.Runs[j], h.Medians[j] = m.Runs[i], m.Values[i]
	}
	from := m.Jobs[0]
	for _, c := range m.Changes {
		h.Levels = append(h.Levels, figure.Level{From: from, To: c.At - 1, Value: c.Before})
		h.Changes = append(h.Changes, figure.Change{At: c.At, First: c.First, Last: c.Last, Regression: c.Regression()})
		from = c.At
	}
	if len(m.Changes) > 0 {
		h.Levels = append(h.Levels, figure.Level{From: from, To: m.Jobs[len(m.Jobs)-1], Value: m.Changes[len(m.Changes)-1].After})
	}
	svg, err := h.SVG()
	if err != nil {
		return htmlFigure{}, err
	}
	caption := fmt.Sprintf("%s over %s: %s.", m.Meta.Label, count(len(m.Values), "job", "jobs"), count(len(m.Changes), "change point", "change points"))
	return htmlFigure{SVG: template.HTML(svg), Caption: caption}, nil
}

// unitLabel is a metric's axis title.
func unitLabel(m gate.HistoryMetric) string {
	if m.Meta.Unit == "" || m.Meta.Unit == "/s" {
		return m.Meta.Label
	}
	return m.Meta.Label + " (" + m.Meta.Unit + ")"
}
