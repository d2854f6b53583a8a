package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report/figure"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// HistoryInput is what the history reports show. Every string of a job
// comes from the history file and is untrusted text.
type HistoryInput struct {
	Name, Source string
	Jobs         []gate.HistoryJob
	Verdict      gate.HistoryVerdict
	// Chain is the A/B view: each commit judged against its parent.
	Chain gate.ChainVerdict
}

func WriteHistoryText(w io.Writer, in HistoryInput) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tailgate history · %s: %s\n\n", visible(in.Name, maxShownRunes), historySpan(in))
	for _, m := range in.Verdict.Metrics {
		writeHistoryMetric(&b, in, m)
	}
	writeChain(&b, in)
	b.WriteString(historyHeadline(in) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// historyHeadline is the line the text report ends with and the page leads with, from both views: a
// regressed level first (with creep), then an unconfirmed step, then metrics too short to show any.
func historyHeadline(in HistoryInput) string {
	v, lv := in.Verdict, gate.Level(in.Verdict, in.Chain)
	view := map[bool]string{true: " (a change point of the jobs)"}[len(in.Chain.Links) > 0] // the absolute view named where the A/B chain is a second one
	regressed := mapped(lv.Changed, func(m gate.HistoryMetric) string {
		c := m.Changes[len(m.Changes)-1]
		return fmt.Sprintf("%s %s since %s%s", m.Meta.Label, metricStep(m.Meta, c.Change), jobName(in.Jobs[c.At]), view)
	})
	for _, m := range lv.Culprit { // the chain's, by the latest culprit
		l := in.Chain.Links[m.Culprits[len(m.Culprits)-1]]
		line := fmt.Sprintf("%s %s by %s (its own A/B on %s), which no later commit undid", m.Meta.Label, metricStep(m.Meta, l.Metrics[m.Meta.Key].Change),
			shortName(l.Commit), l.Time.UTC().Format(time.DateOnly))
		if m.Level.Worse {
			line = fmt.Sprintf("%s %s since %s (its own A/B on %s)", m.Meta.Label, metricStep(m.Meta, m.Level.Change), shortName(l.Commit), l.Time.UTC().Format(time.DateOnly))
		}
		regressed = append(regressed, line)
	}
	crept := mapped(lv.Crept, func(m gate.ChainMetric) string {
		how := ""
		if m.Creep.Span != nil {
			how = " (one A/B against " + shortName(m.Creep.Span.Parent) + ")"
		}
		return fmt.Sprintf("creep since %s: %s %s over %s%s", visible(in.Chain.From, 40), m.Meta.Label, creepStep(m.Meta, m.Creep), count(m.Creep.Links, "commit", "commits"), how)
	})
	switch {
	case len(regressed) > 0:
		line := "main is at a regressed level: " + strings.Join(regressed, "; ")
		if len(crept) > 0 {
			line += ". Creep " + strings.TrimPrefix(strings.Join(crept, "; "), "creep ")
		}
		return line
	case len(crept) > 0:
		return "main is at no regressed level any commit's A/B saw, but it crept: " + strings.Join(crept, "; ")
	}
	if seen := lv.Unconfirmed; len(seen) > 0 {
		return "main may be at a regressed level, not yet confirmed: " + strings.Join(seenLines(in, seen), "; ")
	}
	if better := slices.DeleteFunc(slices.Clone(v.Metrics), func(m gate.HistoryMetric) bool { return m.Seen == nil }); len(better) > 0 {
		return "main is at no regressed level of a gated metric; the values show steps the better way that no test confirmed: " + strings.Join(seenLines(in, better), "; ")
	}
	if short := slices.DeleteFunc(slices.Clone(v.Metrics), func(m gate.HistoryMetric) bool { return !m.TooFew() }); len(short) > 0 {
		return "main is at no regressed level these jobs can show; too few jobs to show a step of " + strings.Join(mapped(short, func(m gate.HistoryMetric) string { return m.Meta.Label }), ", ")
	}
	return "main is at no regressed level of a gated metric"
}

// seenLines name each metric whose values step unconfirmed, and why.
func seenLines(in HistoryInput, seen []gate.HistoryMetric) []string {
	return mapped(seen, func(m gate.HistoryMetric) string {
		why := map[bool]string{true: "too few jobs", false: "its p is above the search's α"}[m.TooFew()]
		return fmt.Sprintf("%s %s since %s (%s)", m.Meta.Label, metricStep(m.Meta, m.Seen.Change), jobName(in.Jobs[m.Seen.At]), why)
	})
}

// reachText says what a metric's jobs can show: "these 12 jobs show steps of ≥ 4.2 % with ≥ 3 jobs on each side".
func reachText(m gate.HistoryMetric) string {
	n := len(m.Values)
	if m.Side == 0 {
		return fmt.Sprintf("too few jobs: %s can show no step, a step needs %d jobs or more", countJobs(n), m.Needed)
	}
	if m.Meta.Scale != result.Percent && m.Visible > noisyVisible {
		return fmt.Sprintf("%s are too noisy to show a step under %g %% (a noise of the jobs', not a step's)", countJobs(n), noisyVisible)
	}
	return fmt.Sprintf("%s show steps of %s or more with %d jobs on each side", countJobs(n), strings.TrimPrefix(metricStep(m.Meta, m.Visible), "+"), m.Side)
}

// noisyVisible is the visible step, in percent, beyond which the jobs
// only spread: "10810 %" would read as a measurement.
const noisyVisible = 100.0

func countJobs(n int) string { return plural(n, "1 job", fmt.Sprintf("these %d jobs", n)) }

// historySpan says what the history holds and from when: its jobs, else
// its A/B links (all the Action's record mode keeps).
func historySpan(in HistoryInput) string {
	n, links, src := len(in.Jobs), in.Chain.Links, visible(in.Source, maxShownRunes)
	span := func(what string, t0, t1 time.Time, c0, c1, tail string) string {
		return fmt.Sprintf("%s from %s, %s (%s) … %s (%s)%s", what, src, t0.UTC().Format(minuteFormat), c0, t1.UTC().Format(minuteFormat), c1, tail)
	}
	switch {
	case n > 0:
		return span(count(n, "job", "jobs"), in.Jobs[0].Time, in.Jobs[n-1].Time, jobName(in.Jobs[0]), jobName(in.Jobs[n-1]), "")
	case len(links) > 0:
		first, last := links[0], links[len(links)-1]
		return span(count(len(links), "commit", "commits")+" judged by A/B", first.Time, last.Time, shortName(first.Commit), shortName(last.Commit), "; no absolute job")
	}
	return "nothing recorded in " + src
}

const minuteFormat = "2006-01-02 15:04"

func writeHistoryMetric(b *strings.Builder, in HistoryInput, m gate.HistoryMetric) {
	fmt.Fprintf(b, "%s (%s): ", m.Meta.Label, count(len(m.Values), "job", "jobs"))
	rule := fmt.Sprintf("α %.3g a test, steps under %g %s ignored", m.Alpha, m.Floor, changeUnit(points(m.Meta)))
	switch {
	case len(m.Changes) == 0 && m.Note != "" && m.Alpha == 0:
		fmt.Fprintf(b, "not analysed: %s\n", m.Note)
	case len(m.Changes) == 0:
		fmt.Fprintf(b, "no change point%s (%s)\n  %s\n", map[bool]string{true: " can be shown"}[m.Side == 0], rule, reachText(m))
	default:
		fmt.Fprintf(b, "%s (%s)\n", count(len(m.Changes), "change point", "change points"), rule)
	}
	also := func(c gate.HistoryChange) {
		for _, e := range c.Environment {
			fmt.Fprintf(b, "      also changed: %s\n", visible(EnvText(e), maxShownRunes))
		}
	}
	if c := m.Seen; c != nil {
		fmt.Fprintf(b, "  the values step %s at job #%d %s, %s, not confirmed: %s\n", metricStep(m.Meta, c.Change), c.At+1,
			jobName(in.Jobs[c.At]), levels(m, *c), seenReason(m))
		also(*c)
	}
	for _, c := range m.Changes {
		fmt.Fprintf(b, "  %s: %s, %s, %s\n", changeWord(c), historyStep(m, c), levels(m, c), commitRange(in, c))
		also(c)
		if saw := chainSaw(in, m, c); saw != "" {
			fmt.Fprintf(b, "      %s\n", saw)
		}
	}
	if m.Note != "" && m.Alpha != 0 {
		fmt.Fprintf(b, "  note: %s\n", m.Note)
	}
	b.WriteString("\n")
}

// seenReason says in full why a step the values show is not confirmed.
func seenReason(m gate.HistoryMetric) string {
	c := m.Seen
	before := sort.SearchInts(m.Jobs, c.At) // the jobs are in order
	after := len(m.Jobs) - before
	switch {
	case m.Side == 0:
		return fmt.Sprintf("too few jobs (%d before it, %d from it on; a step needs %d jobs or more)", before, after, m.Needed)
	case min(before, after) < m.Side:
		return fmt.Sprintf("too few jobs (%d before it, %d from it on; a step needs %d on each side)", before, after, m.Side)
	}
	return "its permutation p is above α"
}

func levels(m gate.HistoryMetric, c gate.HistoryChange) string {
	return formatValue(c.Before, m.Meta.Unit) + " → " + formatValue(c.After, m.Meta.Unit)
}

func changeWord(c gate.HistoryChange) string {
	switch {
	case c.Regression():
		return "regression"
	case c.Worse:
		return "worse, with the environment"
	}
	return "improvement"
}

// historyStep is the step with its bounds: "+8.1 % (95 % bounds +6.0 … +10.2 %)".
func historyStep(m gate.HistoryMetric, c gate.HistoryChange) string {
	return fmt.Sprintf("%s (95 %% bounds %s … %s)", metricStep(m.Meta, c.Change), boundText(c.Lo, changeFormat(points(m.Meta))), boundStep(m.Meta, c.Hi))
}

// commitRange names the commits the change came with: after the last
// job at the old level, up to the last that may be the first at the new.
func commitRange(in HistoryInput, c gate.HistoryChange) string {
	last := in.Jobs[c.Last]
	jobs := map[bool]string{true: fmt.Sprintf("job #%d", c.First+1),
		false: fmt.Sprintf("one of jobs #%d–#%d, most likely #%d %s", c.First+1, c.Last+1, c.At+1, jobName(in.Jobs[c.At]))}[c.First == c.Last]
	if c.First == 0 {
		return fmt.Sprintf("commits up to %s (%s)", jobName(last), jobs)
	}
	return fmt.Sprintf("commits %s..%s (%s)", jobName(in.Jobs[c.First-1]), jobName(last), jobs)
}

func jobName(j gate.HistoryJob) string {
	if j.Commit == "" {
		return "job " + visible(j.Job, 40)
	}
	return shortName(j.Commit)
}

// writeChain writes the A/B view: per gated metric its culprits, whether main is still at their level, and the creep.
func writeChain(b *strings.Builder, in HistoryInput) {
	c := in.Chain
	if len(c.Links) == 0 {
		return // no A/B view yet: the report is the absolute jobs'
	}
	fmt.Fprintf(b, "A/B chain of main: %s\n", chainSpan(c))
	for _, m := range movedFirst(c.Metrics, chainMoved) {
		fmt.Fprintf(b, "  %s: ", m.Meta.Label)
		if len(m.Culprits) == 0 {
			b.WriteString("no commit's own A/B found it regressed\n")
		} else {
			b.WriteString("regressed by " + strings.Join(culpritTexts(in, m), "; ") + "\n")
			fmt.Fprintf(b, "    %s: %s since, over %s\n", levelState(m), creepStep(m.Meta, m.Level), count(m.Level.Links, "commit", "commits"))
		}
		fmt.Fprintf(b, "    creep since %s (%s): %s\n", visible(c.From, 40), count(m.Creep.Links, "commit", "commits"), creepText(m))
	}
	if empty := len(slices.DeleteFunc(slices.Clone(c.Links), func(l gate.ChainLink) bool { return len(l.Metrics) > 0 })); empty > 0 {
		fmt.Fprintf(b, "  %s estimated no gated metric (too few blocks for bounds): counted as no change\n", plural(empty, "1 commit's A/B", fmt.Sprintf("%d commits' A/Bs", empty)))
	}
	for _, g := range c.Gaps {
		fmt.Fprintf(b, "  gap: %s's parent is %s, not the previous link's %s: the commits between were not judged\n",
			shortName(c.Links[g].Commit), shortName(c.Links[g].Parent), shortName(c.Links[g-1].Commit))
	}
	b.WriteString("\n")
}

// chainSpan is what the A/B chain holds: "12 commits, each judged against its parent side by side, D … D".
func chainSpan(c gate.ChainVerdict) string {
	return fmt.Sprintf("%s, each judged against its parent side by side, %s … %s", count(len(c.Links), "commit", "commits"),
		c.Links[0].Time.UTC().Format(time.DateOnly), c.Links[len(c.Links)-1].Time.UTC().Format(time.DateOnly))
}

// levelState says whether main sits at its latest culprit's level; later commits' noise soon bounds
// any level by zero, so a level nothing undid counts as current.
func levelState(m gate.ChainMetric) string {
	switch {
	case m.Level.Worse:
		return "main is still at that level"
	case m.Undone:
		return "main is no longer at that level"
	}
	return "no later commit undid it"
}

// culpritTexts name each culprit link: "1034de6 on 2026-11-04 (its own A/B: +55.2 %, 95 % bounds +50.1 … +60.3 %)".
func culpritTexts(in HistoryInput, m gate.ChainMetric) []string {
	return mapped(m.Culprits, func(i int) string {
		l := in.Chain.Links[i]
		lm := l.Metrics[m.Meta.Key]
		return fmt.Sprintf("%s on %s (its own A/B: %s, 95 %% bounds %s … %s)", shortName(l.Commit), l.Time.UTC().Format(time.DateOnly),
			metricStep(m.Meta, lm.Change), boundStep(m.Meta, lm.Lo), boundStep(m.Meta, lm.Hi))
	})
}

// creepStep is a product of changes with its bounds: "+16.1 % (95 % bounds +10.2 … +22.3 %)".
func creepStep(m result.Metric, c gate.Creep) string {
	return fmt.Sprintf("%s (95 %% bounds %s … %s)", metricStep(m, c.Change), boundStep(m, c.Lo), boundStep(m, c.Hi))
}

// boundStep is a bound as metricStep, but one that rounds to zero keeps
// its sign and first digit ("+0.03 %"): its side of zero is what it says.
func boundStep(m result.Metric, v float64) string {
	return boundText(v, changeFormat(points(m))) + " " + changeUnit(points(m))
}

// boundText is v signed in format, or, where that rounds to zero, to its first digit.
func boundText(v float64, format string) string {
	switch s := signed(v, format); {
	case !strings.HasPrefix(s, "±"):
		return s
	case v == 0:
		return "0"
	}
	return signed(v, "%.1g")
}

// creepText is a metric's creep with its bounds, whether it is flagged and how it was measured: by one A/B of a
// span, with what the commits' own A/Bs multiply to beside it.
func creepText(m gate.ChainMetric) string {
	s := creepStep(m.Meta, m.Creep) + map[bool]string{true: fmt.Sprintf(", flagged: worse than the %s floor with its bounds clear of zero", strings.TrimPrefix(metricStep(m.Meta, m.Creep.Floor), "+"))}[m.Creep.Worse]
	if c := m.Creep; c.Span != nil {
		s += fmt.Sprintf("; measured by one A/B of %s against %s on %s", shortName(c.Span.Commit), shortName(c.Span.Parent), c.Span.Time.UTC().Format(time.DateOnly))
		if after := c.Links - c.SpanLinks; after > 0 {
			s += " and the " + count(after, "commit", "commits") + " after it"
		}
		if c.Chained != nil {
			s += "; the commits' own A/Bs multiply to " + creepStep(m.Meta, *c.Chained)
		}
	}
	return s
}

func metricStep(m result.Metric, v float64) string { return formatDiff(v, points(m)) }

func points(m result.Metric) bool { return m.Scale == result.Percent }

func shortName(c string) string { return visible(shortSHA(c), 40) }

func shortSHA(s string) string { return s[:min(len(s), 12)] }

// chainSaw says what the A/B chain saw of a change point's commits: the commits whose own A/B saw it, or that it judged
// them and saw none (the level moved from outside the code); "" when it judged none.
func chainSaw(in HistoryInput, m gate.HistoryMetric, c gate.HistoryChange) string {
	commits := mapped(in.Jobs[c.First:c.Last+1], func(j gate.HistoryJob) string { return j.Commit })
	culprits, judged := in.Chain.Judged(m.Meta.Key, commits)
	switch {
	case len(culprits) > 0:
		return "the A/B chain names " + strings.Join(mapped(culprits, func(i int) string {
			l := in.Chain.Links[i]
			return fmt.Sprintf("%s (its own A/B on %s: %s)", shortName(l.Commit), l.Time.UTC().Format(time.DateOnly), metricStep(m.Meta, l.Metrics[m.Meta.Key].Change))
		}), ", ")
	case judged > 0:
		return fmt.Sprintf("the A/B chain judged %s and saw no regression: did it come from outside the code (runner, machine, a dependency outside the repository)?", plural(judged, "this commit", fmt.Sprintf("these %d commits", judged)))
	}
	return ""
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

// historyLinkRow is one commit of the A/B chain: what its own A/B said of each gated metric that moved.
type historyLinkRow struct {
	N                                 int
	Commit, Parent, Time, Job, Change string
	Class                             string
}

type historyJobRow struct {
	N                                        int
	Commit, Ref, Time, Runs, Machine, Runner string
}

// WriteHistoryHTML writes the self-contained trend page of a history (no network request, no script). Untrusted text
// goes through visible and html/template; figures carry tailgate's labels and short commits.
func WriteHistoryHTML(w io.Writer, in HistoryInput) error {
	p := historyPage{Name: pageText(in.Name), Context: unpathed(historySpan(in)), Headline: historyHeadline(in)}
	p.Outcome, p.Class = "steady", "steady" // the badge, read as the headline is
	switch lv := gate.Level(in.Verdict, in.Chain); {
	case len(lv.Regressed) > 0:
		p.Outcome, p.Class = "regressed", "regressed"
	case len(lv.Crept) > 0:
		p.Outcome, p.Class = "crept", "regressed"
	case slices.ContainsFunc(in.Verdict.Metrics, func(m gate.HistoryMetric) bool { return m.Seen != nil }):
		p.Outcome, p.Class = "step not confirmed", "inconclusive" // either way: the eye sees it
	case len(in.Jobs) == 0 && len(in.Chain.Links) == 0:
		p.Outcome, p.Class = "nothing recorded", "inconclusive"
	case len(in.Jobs) == 0:
		p.Outcome, p.Class = "no commit regressed", "steady"
	case slices.ContainsFunc(in.Verdict.Metrics, gate.HistoryMetric.TooFew):
		p.Outcome, p.Class = "too few jobs", "inconclusive"
	}
	p.Title = visible(fmt.Sprintf("tailgate history · %s: %s", in.Name, p.Outcome), maxShownRunes)
	var figs figures
	for _, m := range movedFirst(in.Verdict.Metrics, func(m gate.HistoryMetric) bool { // moved in either view
		return len(m.Changes) > 0 || m.Seen != nil || slices.ContainsFunc(in.Chain.Metrics, func(c gate.ChainMetric) bool { return c.Meta.Key == m.Meta.Key && chainMoved(c) })
	}) {
		if m.Alpha > 0 && p.Alpha == "" {
			p.Alpha = strconv.FormatFloat(m.Alpha, 'g', 3, 64)
		}
		p.Changes = append(p.Changes, mapped(m.Changes, func(c gate.HistoryChange) historyChangeRow { return changeRow(in, m, c, false) })...)
		if m.Seen != nil {
			p.Changes = append(p.Changes, changeRow(in, m, *m.Seen, true))
		}
		if m.Note != "" {
			p.Notes = append(p.Notes, m.Meta.Label+": "+m.Note)
		} else if len(m.Changes) == 0 {
			p.Notes = append(p.Notes, m.Meta.Label+": "+reachText(m))
		}
		if len(m.Values) > 0 {
			historyFigure(&figs, in, m)
		}
	}
	p.Figures = figs.out
	if err := cmp.Or(figs.err, p.addChain(in)); err != nil {
		return err
	}
	for i, j := range in.Jobs {
		p.Jobs = append(p.Jobs, historyJobRow{N: i + 1, Commit: jobName(j), Ref: pageText(j.Ref), Time: j.Time.UTC().Format(minuteFormat),
			Runs: strconv.Itoa(len(j.Runs)), Machine: pageText(j.Machine), Runner: pageText(orDash(j.Runner))})
	}
	return pageTemplates.ExecuteTemplate(w, "history.tmpl", p)
}

func chainMoved(m gate.ChainMetric) bool { return len(m.Culprits) > 0 || m.Creep.Worse }

// movedFirst orders the xs that moved before the others, each group in its order.
func movedFirst[T any](xs []T, moved func(T) bool) []T {
	out := slices.Clone(xs)
	slices.SortStableFunc(out, func(a, b T) int { return b2i(moved(b)) - b2i(moved(a)) })
	return out
}

func b2i(b bool) int { return map[bool]int{true: 1}[b] }

// changeRow is the table's row of a change point, or of the step the values show unconfirmed (m.Seen).
func changeRow(in HistoryInput, m gate.HistoryMetric, c gate.HistoryChange, seen bool) historyChangeRow {
	row := historyChangeRow{Metric: m.Meta.Label, Kind: changeWord(c), Step: historyStep(m, c), Levels: levels(m, c),
		Range: strings.TrimPrefix(commitRange(in, c), "commits "), Environment: shown(mapped(c.Environment, EnvText)), Chain: orDash(chainSaw(in, m, c))}
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
	p.ChainSpan = fmt.Sprintf("%s; creep counted since %s.", chainSpan(c), visible(c.From, 40))
	var flat []string
	var shown []gate.ChainMetric
	var figs figures
	for _, m := range movedFirst(c.Metrics, chainMoved) {
		if !slices.ContainsFunc(c.Links, func(l gate.ChainLink) bool { // flat: every link estimated exactly no change, bounds and all
			lm, ok := l.Metrics[m.Meta.Key]
			return ok && (lm.Change != 0 || lm.Lo != 0 || lm.Hi != 0)
		}) {
			flat = append(flat, m.Meta.Label)
			continue
		}
		shown = append(shown, m)
		row := historyChainRow{Metric: m.Meta.Label, Culprits: "none", Level: "—", Creep: creepText(m),
			Class: map[bool]string{true: "regression"}[(len(m.Culprits) > 0 && !m.Undone) || m.Creep.Worse]}
		if len(m.Culprits) > 0 {
			row.Culprits, row.Level = strings.Join(culpritTexts(in, m), "; "), levelState(m)+": "+creepStep(m.Meta, m.Level)
		}
		p.Chain = append(p.Chain, row)
		chainFigure(&figs, in, m)
	}
	p.ChainFigures = figs.out
	if len(flat) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%s: every commit's A/B measured no change, with bounds of 0 (the rate was the same, as 0, in every block of both sides); not drawn.", strings.Join(flat, ", ")))
	}
	for i, l := range c.Links {
		row := historyLinkRow{N: i + 1, Commit: shortName(l.Commit), Parent: shortName(l.Parent), Time: l.Time.UTC().Format(minuteFormat), Job: pageText(orDash(l.Job))}
		var changes []string
		for _, m := range shown {
			if lm, ok := l.Metrics[m.Meta.Key]; ok {
				text := m.Meta.Label + " " + metricStep(m.Meta, lm.Change)
				if lm.Outcome == gate.MetricRegression {
					text, row.Class = text+" (regression)", "regression"
				}
				changes = append(changes, text)
			}
		}
		row.Change = orDash(strings.Join(changes, "; "))
		p.Links = append(p.Links, row)
	}
	return figs.err
}

// chainFigure draws a metric's running product of the chain's changes
// with its 95 % bounds as dots and each culprit as a labelled line.
func chainFigure(figs *figures, in HistoryInput, m gate.ChainMetric) {
	c := in.Chain
	links := c.Links[min(c.Since, len(c.Links)):]
	since := ""
	if len(links) > 0 {
		since = links[0].Parent
	}
	h := figure.History{Title: m.Meta.Label + " · A/B chain", YLabel: "change since " + orDash(axisCommit(since)) + " (" + changeUnit(points(m.Meta)) + ")",
		Commits: mapped(links, func(l gate.ChainLink) string { return axisCommit(l.Commit) })}
	var from int
	h.Medians, h.Runs, from = chainPoints(links, m, c.Since)
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
		m.Meta.Label, visible(c.From, 40), bounds, spanLine, creepText(m))
	figs.add(svg, err, caption)
}

// chainPoints are the running product of the links' changes of m with its 95 % bounds; from the latest culprit on
// (from) the bounds are the level's since it, which the verdict reads. since is links[0]'s index.
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

// axisCommit is a commit's first 7 hex digits; anything else (the field is untrusted) is not drawn.
func axisCommit(c string) string {
	if len(c) < 7 || strings.Trim(c, "0123456789abcdef") != "" {
		return ""
	}
	return c[:7]
}

// historyFigure draws one metric over every job of the history (NaN where
// a job did not measure it), so that its x positions are the jobs'.
func historyFigure(figs *figures, in HistoryInput, m gate.HistoryMetric) {
	n := len(in.Jobs)
	h := figure.History{Title: m.Meta.Label, YLabel: axisLabel(m.Meta), Runs: make([][]float64, n), Medians: constant(math.NaN(), n),
		Commits: mapped(in.Jobs, func(j gate.HistoryJob) string { return axisCommit(j.Commit) })}
	for i, j := range m.Jobs {
		h.Runs[j], h.Medians[j] = m.Runs[i], m.Values[i]
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
	figs.add(svg, err, caption)
}
