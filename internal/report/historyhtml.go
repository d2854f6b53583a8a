package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
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
	p := historyPage{Name: pageText(in.Name), Context: historySpan(in), Headline: historyHeadline(in)}
	p.Outcome, p.Class = historyBadge(in.Verdict)
	p.Title = visible(fmt.Sprintf("tailgate history · %s: %s", in.Name, p.Outcome), maxShownRunes)
	var alphas []string
	for _, m := range changedFirst(in.Verdict.Metrics) {
		if m.Alpha > 0 && len(alphas) == 0 {
			alphas = append(alphas, strconv.FormatFloat(m.Alpha, 'g', 3, 64))
		}
		for _, c := range m.Changes {
			p.Changes = append(p.Changes, changeRow(in, m, c))
		}
		if m.Seen != nil {
			p.Changes = append(p.Changes, seenRow(in, m))
		}
		if m.Note != "" {
			p.Notes = append(p.Notes, m.Meta.Label+": "+m.Note)
		} else if len(m.Changes) == 0 {
			p.Notes = append(p.Notes, m.Meta.Label+": "+reachText(m))
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

// historyBadge is the page's badge and its class, from the same reading as
// the headline: a step the values show is never "steady".
func historyBadge(v gate.HistoryVerdict) (string, string) {
	switch {
	case len(v.Current()) > 0:
		return "regressed", "regressed"
	case len(v.Unconfirmed()) > 0:
		return "step not confirmed", "inconclusive"
	}
	for _, m := range v.Metrics {
		if m.TooFew() {
			return "too few jobs", "inconclusive"
		}
	}
	return "steady", "steady"
}

// changedFirst orders the metrics with a change point or a step their
// values show before the others, each group in catalogue order.
func changedFirst(ms []gate.HistoryMetric) []gate.HistoryMetric {
	out := slices.Clone(ms)
	slices.SortStableFunc(out, func(a, b gate.HistoryMetric) int {
		return cmp.Compare(quiet(a), quiet(b))
	})
	return out
}

func quiet(m gate.HistoryMetric) int {
	if len(m.Changes) > 0 || m.Seen != nil {
		return 0
	}
	return 1
}

// seenRow is the table's row of a step the values show unconfirmed.
func seenRow(in HistoryInput, m gate.HistoryMetric) historyChangeRow {
	c := *m.Seen
	row := historyChangeRow{Metric: m.Meta.Label, Kind: "step not confirmed: " + seenReason(m), Step: stepText(m, c.Change),
		Levels: formatValue(c.Before, m.Meta.Unit) + " → " + formatValue(c.After, m.Meta.Unit), Class: "unconfirmed"}
	row.Range = fmt.Sprintf("%s..%s (job #%d)", jobName(in.Jobs[m.Jobs[slices.Index(m.Jobs, c.At)-1]]), jobName(in.Jobs[c.At]), c.At+1)
	for _, e := range c.Environment {
		row.Environment = append(row.Environment, pageText(e))
	}
	return row
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

// axisCommit is a commit as the figure's axis names it: its first 7 hex
// digits. Anything else in the history file's commit field (it is
// untrusted) is not drawn; the job keeps its number.
func axisCommit(c string) string {
	if len(c) < 7 {
		return ""
	}
	for _, r := range c {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return ""
		}
	}
	return c[:7]
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
	for _, j := range in.Jobs {
		h.Commits = append(h.Commits, axisCommit(j.Commit))
	}
	changes, unconfirmed := m.Changes, false
	if m.Seen != nil {
		changes, unconfirmed = []gate.HistoryChange{*m.Seen}, true
	}
	from := m.Jobs[0]
	for _, c := range changes {
		h.Levels = append(h.Levels, figure.Level{From: from, To: c.At - 1, Value: c.Before, Unconfirmed: unconfirmed})
		h.Changes = append(h.Changes, figure.Change{At: c.At, First: c.First, Last: c.Last, Regression: c.Regression(), Unconfirmed: unconfirmed})
		from = c.At
	}
	if len(changes) > 0 {
		h.Levels = append(h.Levels, figure.Level{From: from, To: m.Jobs[len(m.Jobs)-1], Value: changes[len(changes)-1].After, Unconfirmed: unconfirmed})
	}
	svg, err := h.SVG()
	if err != nil {
		return htmlFigure{}, err
	}
	caption := fmt.Sprintf("%s over %s: %s.", m.Meta.Label, count(len(m.Values), "job", "jobs"), count(len(m.Changes), "change point", "change points"))
	if c := m.Seen; c != nil {
		caption = fmt.Sprintf("%s over %s: no change point confirmed; the values step %s at %s (dashed grey), not confirmed: %s.",
			m.Meta.Label, count(len(m.Values), "job", "jobs"), stepText(m, c.Change), jobName(in.Jobs[c.At]), seenReason(m))
	}
	return htmlFigure{SVG: template.HTML(svg), Caption: caption}, nil
}

// unitLabel is a metric's axis title.
func unitLabel(m gate.HistoryMetric) string {
	if m.Meta.Unit == "" || m.Meta.Unit == "/s" {
		return m.Meta.Label
	}
	return m.Meta.Label + " (" + m.Meta.Unit + ")"
}
