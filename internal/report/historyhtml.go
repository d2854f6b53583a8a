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
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report/figure"
)

//go:embed history.tmpl
var historyTemplate string

var historyPageTemplate = template.Must(template.New("history").Parse(historyTemplate))

// WriteHistoryHTML writes the self-contained trend page of a history
// (no network request, no script). Untrusted text goes through visible
// and html/template; figures carry tailgate's labels and short commits.
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
	// Chain is the A/B view: a row and a figure per gated metric.
	Chain        []historyChainRow
	ChainFigures []htmlFigure
	ChainSpan    string
	Notes        []string
	Jobs         []historyJobRow
	Links        []historyLinkRow
}

type historyChangeRow struct {
	Metric, Kind, Step, Levels, Range, Class string
	Environment                              []string
	// Chain says what the A/B chain saw of the change's commits.
	Chain string
}

type historyChainRow struct {
	Metric, Culprits, Level, Creep, Class string
}

// historyLinkRow is one commit of the A/B chain: what its own A/B said of
// each gated metric that moved.
type historyLinkRow struct {
	N                                 int
	Commit, Parent, Time, Job, Change string
	Class                             string
}

type historyJobRow struct {
	N                                        int
	Commit, Ref, Time, Runs, Machine, Runner string
}

func newHistoryPage(in HistoryInput) (historyPage, error) {
	p := historyPage{Name: pageText(in.Name), Context: unpathed(historySpan(in)), Headline: historyHeadline(in)}
	p.Outcome, p.Class = historyBadge(in)
	p.Title = visible(fmt.Sprintf("tailgate history · %s: %s", in.Name, p.Outcome), maxShownRunes)
	var alphas []string
	for _, m := range changedFirst(in.Verdict.Metrics, in.Chain) {
		if m.Alpha > 0 && len(alphas) == 0 {
			alphas = append(alphas, strconv.FormatFloat(m.Alpha, 'g', 3, 64))
		}
		for _, c := range m.Changes {
			p.Changes = append(p.Changes, changeRow(in, m, c, false))
		}
		if m.Seen != nil {
			p.Changes = append(p.Changes, changeRow(in, m, *m.Seen, true))
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
	if err := p.addChain(in); err != nil {
		return historyPage{}, err
	}
	for i, j := range in.Jobs {
		p.Jobs = append(p.Jobs, historyJobRow{N: i + 1, Commit: jobName(j), Ref: pageText(j.Ref), Time: j.Time.UTC().Format(minuteFormat),
			Runs: strconv.Itoa(len(j.Runs)), Machine: pageText(j.Machine), Runner: pageText(orDash(j.Runner))})
	}
	return p, nil
}

// historyBadge is the page's badge and class, read as the headline is.
func historyBadge(in HistoryInput) (string, string) {
	v, chain := in.Verdict, in.Chain
	switch lv := gate.Level(v, chain); {
	case len(lv.Regressed) > 0:
		return "regressed", "regressed"
	case len(lv.Crept) > 0:
		return "crept", "regressed"
	case slices.ContainsFunc(v.Metrics, func(m gate.HistoryMetric) bool { return m.Seen != nil }):
		return "step not confirmed", "inconclusive" // either way: the eye sees it
	case len(in.Jobs) == 0 && len(chain.Links) == 0:
		return "nothing recorded", "inconclusive"
	case len(in.Jobs) == 0:
		return "no commit regressed", "steady"
	}
	for _, m := range v.Metrics {
		if m.TooFew() {
			return "too few jobs", "inconclusive"
		}
	}
	return "steady", "steady"
}

// changedFirst orders the metrics that moved in either view first.
func changedFirst(ms []gate.HistoryMetric, chain gate.ChainVerdict) []gate.HistoryMetric {
	moved := map[string]bool{}
	for _, m := range chain.Metrics {
		moved[m.Meta.Key] = chainMoved(m)
	}
	return movedFirst(ms, func(m gate.HistoryMetric) bool { return len(m.Changes) > 0 || m.Seen != nil || moved[m.Meta.Key] })
}

// chainMoved reports a chain metric with a culprit or creep flagged.
func chainMoved(m gate.ChainMetric) bool { return len(m.Culprits) > 0 || m.Creep.Worse }

// movedFirst orders the xs that moved before the others, each group in its order.
func movedFirst[T any](xs []T, moved func(T) bool) []T {
	out := slices.Clone(xs)
	slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(b2i(!moved(a)), b2i(!moved(b))) })
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// changeRow is the table's row of a change point, or of the step the
// values show unconfirmed (m.Seen).
func changeRow(in HistoryInput, m gate.HistoryMetric, c gate.HistoryChange, seen bool) historyChangeRow {
	row := historyChangeRow{Metric: m.Meta.Label, Kind: changeWord(c), Step: historyStep(m, c), Levels: levels(m, c),
		Range: strings.TrimPrefix(commitRange(in, c), "commits "), Environment: shown(c.Environment), Chain: orDash(chainSaw(in, m, c))}
	switch {
	case seen:
		row.Kind, row.Step, row.Class = "step not confirmed: "+seenReason(m), metricStep(m.Meta, c.Change), "unconfirmed"
		row.Range = fmt.Sprintf("%s..%s (job #%d)", jobName(in.Jobs[m.Jobs[slices.Index(m.Jobs, c.At)-1]]), jobName(in.Jobs[c.At]), c.At+1)
	case c.Regression():
		row.Class = "regression"
	case !c.Worse:
		row.Class = "improvement"
	}
	return row
}

// addChain adds the A/B view: per gated metric a row and a figure of the chain's running product
// (one note for those flat at 0), then the links with what each one's A/B said.
func (p *historyPage) addChain(in HistoryInput) error {
	c := in.Chain
	if len(c.Links) == 0 {
		return nil
	}
	first, last := c.Links[0], c.Links[len(c.Links)-1]
	p.ChainSpan = fmt.Sprintf("%s, each judged against its parent side by side, %s … %s; creep counted since %s.", count(len(c.Links), "commit", "commits"),
		first.Time.UTC().Format(time.DateOnly), last.Time.UTC().Format(time.DateOnly), visible(c.From, 40))
	var flat []string
	var shown []gate.ChainMetric
	for _, m := range movedFirst(c.Metrics, chainMoved) {
		if flatChain(c.Links, m.Meta.Key) {
			flat = append(flat, m.Meta.Label)
			continue
		}
		shown = append(shown, m)
		row := historyChainRow{Metric: m.Meta.Label, Culprits: "none", Level: "—", Creep: creepStep(m.Meta, m.Creep) + flaggedText(m.Meta, m.Creep) + spanText(m.Meta, m.Creep)}
		if len(m.Culprits) > 0 {
			row.Culprits = strings.Join(culpritTexts(in, m), "; ")
			row.Level = levelState(m) + ": " + creepStep(m.Meta, m.Level)
			if !m.Undone {
				row.Class = "regression"
			}
		}
		if m.Creep.Worse {
			row.Class = "regression"
		}
		p.Chain = append(p.Chain, row)
		fig, err := chainFigure(in, m)
		if err != nil {
			return err
		}
		p.ChainFigures = append(p.ChainFigures, fig)
	}
	if len(flat) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%s: every commit's A/B measured no change, with bounds of 0 (the rate was the same, as 0, in every block of both sides); not drawn.", strings.Join(flat, ", ")))
	}
	for i, l := range c.Links {
		row := historyLinkRow{N: i + 1, Commit: shortName(l.Commit), Parent: shortName(l.Parent), Time: l.Time.UTC().Format(minuteFormat), Job: pageText(orDash(l.Job))}
		var changes []string
		for _, m := range shown {
			lm, ok := l.Metrics[m.Meta.Key]
			if !ok {
				continue
			}
			text := m.Meta.Label + " " + metricStep(m.Meta, lm.Change)
			if lm.Outcome == gate.MetricRegression {
				text, row.Class = text+" (regression)", "regression"
			}
			changes = append(changes, text)
		}
		row.Change = orDash(strings.Join(changes, "; "))
		p.Links = append(p.Links, row)
	}
	return nil
}

// flatChain reports whether every link that estimated metric key
// estimated exactly no change, bounds and all.
func flatChain(links []gate.ChainLink, key string) bool {
	for _, l := range links {
		if lm, ok := l.Metrics[key]; ok && (lm.Change != 0 || lm.Lo != 0 || lm.Hi != 0) {
			return false
		}
	}
	return true
}

// chainFigure draws a metric's running product of the chain's changes
// with its 95 % bounds as dots and each culprit as a labelled line.
func chainFigure(in HistoryInput, m gate.ChainMetric) (htmlFigure, error) {
	c := in.Chain
	links := c.Links[min(c.Since, len(c.Links)):]
	h := figure.History{Title: m.Meta.Label + " · A/B chain", YLabel: "change since " + orDash(axisCommit(firstParent(links))) + " (" + changeUnit(points(m.Meta)) + ")"}
	var from int
	h.Medians, h.Runs, from = chainPoints(links, m, c.Since)
	for _, l := range links {
		h.Commits = append(h.Commits, axisCommit(l.Commit))
	}
	for _, ci := range m.Culprits {
		if at := ci - c.Since; at >= 0 {
			h.Changes = append(h.Changes, figure.Change{At: at, First: at, Last: at, Regression: true,
				Label: "culprit " + metricStep(m.Meta, c.Links[ci].Metrics[m.Meta.Key].Change)})
		}
	}
	spanLine := ""
	if sp := m.Creep.Span; sp != nil {
		// The creep a span measured, drawn from its commit on: where the
		// links' product (the line) and one A/B of the whole stretch part.
		at := slices.IndexFunc(links, func(l gate.ChainLink) bool { return l.Commit == sp.Commit })
		if at >= 0 {
			h.Levels = append(h.Levels, figure.Level{From: at, To: len(links) - 1, Value: m.Creep.Change})
			spanLine = fmt.Sprintf(", the creep one A/B of %s against %s measured (bold line from that commit on)", shortName(sp.Commit), shortName(sp.Parent))
		}
	}
	svg, err := h.SVG()
	bounds := "its 95 % bounds (dots)"
	if from < len(links) {
		bounds = fmt.Sprintf("its 95 %% bounds (dots; from the latest culprit %s on, the bounds of the level since it, %s, as the verdict reads them)",
			shortName(links[from].Commit), creepStep(m.Meta, m.Level))
	}
	caption := fmt.Sprintf("%s along the A/B chain: the product of each commit's change against its parent since %s (line), %s%s, culprits dashed red. Creep %s.",
		m.Meta.Label, visible(c.From, 40), bounds, spanLine, creepStep(m.Meta, m.Creep)+flaggedText(m.Meta, m.Creep)+spanText(m.Meta, m.Creep))
	return drawn(svg, err, caption)
}

// chainPoints are the running product of the links' changes of m with
// its 95 % bounds; from the latest culprit on (from) the bounds are the
// level's since it, which the verdict reads. since is links[0]'s index.
func chainPoints(links []gate.ChainLink, m gate.ChainMetric, since int) (line []float64, bounds [][]float64, from int) {
	from = len(links)
	if n := len(m.Culprits); n > 0 && m.Culprits[n-1] >= since {
		from = m.Culprits[n-1] - since
	}
	before := gate.ChainProduct(links[:from], m.Meta)
	for i := range links {
		run := gate.ChainProduct(links[:i+1], m.Meta)
		line, bounds = append(line, run.Change), append(bounds, []float64{run.Lo, run.Hi})
		if i >= from {
			level := gate.ChainProduct(links[from:i+1], m.Meta)
			bounds[i] = []float64{gate.Compose(m.Meta, before.Change, level.Lo), gate.Compose(m.Meta, before.Change, level.Hi)}
		}
	}
	return line, bounds, from
}

func firstParent(links []gate.ChainLink) string {
	if len(links) == 0 {
		return ""
	}
	return links[0].Parent
}

// axisCommit is a commit's first 7 hex digits; anything else (the field is untrusted) is not drawn.
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
	h := figure.History{Title: m.Meta.Label, YLabel: axisLabel(m.Meta), Runs: make([][]float64, n), Medians: make([]float64, n)}
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
	caption := fmt.Sprintf("%s over %s: %s.", m.Meta.Label, count(len(m.Values), "job", "jobs"), count(len(m.Changes), "change point", "change points"))
	if c := m.Seen; c != nil {
		caption = fmt.Sprintf("%s over %s: no change point confirmed; the values step %s at %s (dashed grey), not confirmed: %s.",
			m.Meta.Label, count(len(m.Values), "job", "jobs"), metricStep(m.Meta, c.Change), jobName(in.Jobs[c.At]), seenReason(m))
	}
	return drawn(svg, err, caption)
}
