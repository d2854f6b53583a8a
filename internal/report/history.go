package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/gate"
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

// WriteHistoryText writes the terminal report of a history.
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
	var regressed []string
	if len(lv.Changed) > 0 {
		regressed = append(regressed, strings.Join(currentLines(in, lv.Changed), "; "))
	}
	if len(lv.Culprit) > 0 {
		regressed = append(regressed, strings.Join(chainCurrentLines(in, lv.Culprit), "; "))
	}
	crept := creepLines(in, lv.Crept)
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
		why := "its p is above the search's α"
		if m.TooFew() {
			why = "too few jobs"
		}
		return fmt.Sprintf("%s %s since %s (%s)", m.Meta.Label, metricStep(m.Meta, m.Seen.Change), jobName(in.Jobs[m.Seen.At]), why)
	})
}

// reachText says what a metric's jobs can show: "these 12 jobs show steps
// of ≥ 4.2 % with ≥ 3 jobs on each side".
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

// countJobs is "1 job", "these 12 jobs".
func countJobs(n int) string {
	if n == 1 {
		return "1 job"
	}
	return fmt.Sprintf("these %d jobs", n)
}

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

// minuteFormat is how the history reports date a job.
const minuteFormat = "2006-01-02 15:04"

func writeHistoryMetric(b *strings.Builder, in HistoryInput, m gate.HistoryMetric) {
	fmt.Fprintf(b, "%s (%s): ", m.Meta.Label, count(len(m.Values), "job", "jobs"))
	switch {
	case len(m.Changes) == 0 && m.Note != "" && m.Alpha == 0:
		fmt.Fprintf(b, "not analysed: %s\n", m.Note)
	case len(m.Changes) == 0 && m.Side == 0:
		fmt.Fprintf(b, "no change point can be shown (%s)\n  %s\n", historyRule(m), reachText(m))
	case len(m.Changes) == 0:
		fmt.Fprintf(b, "no change point (%s)\n  %s\n", historyRule(m), reachText(m))
	default:
		fmt.Fprintf(b, "%s (%s)\n", count(len(m.Changes), "change point", "change points"), historyRule(m))
	}
	also := func(c gate.HistoryChange) {
		for _, e := range c.Environment {
			fmt.Fprintf(b, "      also changed: %s\n", visible(e, maxShownRunes))
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
	before := 0
	for _, j := range m.Jobs {
		if j < c.At {
			before++
		}
	}
	after := len(m.Jobs) - before
	switch {
	case m.Side == 0:
		return fmt.Sprintf("too few jobs (%d before it, %d from it on; a step needs %d jobs or more)", before, after, m.Needed)
	case min(before, after) < m.Side:
		return fmt.Sprintf("too few jobs (%d before it, %d from it on; a step needs %d on each side)", before, after, m.Side)
	}
	return "its permutation p is above α"
}

// historyRule says what the search counted as a change.
func historyRule(m gate.HistoryMetric) string {
	return fmt.Sprintf("α %.3g a test, steps under %g %s ignored", m.Alpha, m.Floor, changeUnit(points(m.Meta)))
}

// levels are a step's levels before and after: "12.0 ms → 13.1 ms".
func levels(m gate.HistoryMetric, c gate.HistoryChange) string {
	return formatValue(c.Before, m.Meta.Unit) + " → " + formatValue(c.After, m.Meta.Unit)
}

// changeWord names a change point for what it means.
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
	jobs := fmt.Sprintf("job #%d", c.First+1)
	if c.First != c.Last {
		jobs = fmt.Sprintf("one of jobs #%d–#%d, most likely #%d %s", c.First+1, c.Last+1, c.At+1, jobName(in.Jobs[c.At]))
	}
	if c.First == 0 {
		return fmt.Sprintf("commits up to %s (%s)", jobName(last), jobs)
	}
	return fmt.Sprintf("commits %s..%s (%s)", jobName(in.Jobs[c.First-1]), jobName(last), jobs)
}

// jobName is a job's commit, short, as inert text; its job id without one.
func jobName(j gate.HistoryJob) string {
	if j.Commit == "" {
		return "job " + visible(j.Job, 40)
	}
	return shortName(j.Commit)
}

// currentLines name each metric main sits at a regressed level of.
func currentLines(in HistoryInput, cur []gate.HistoryMetric) []string {
	view := "" // the absolute view named where the A/B chain is a second one
	if len(in.Chain.Links) > 0 {
		view = " (a change point of the jobs)"
	}
	return mapped(cur, func(m gate.HistoryMetric) string {
		c := m.Changes[len(m.Changes)-1]
		return fmt.Sprintf("%s %s since %s%s", m.Meta.Label, metricStep(m.Meta, c.Change), jobName(in.Jobs[c.At]), view)
	})
}

// writeChain writes the A/B view: per gated metric its culprits, whether
// main is still at their level, and the creep.
func writeChain(b *strings.Builder, in HistoryInput) {
	c := in.Chain
	n := len(c.Links)
	if n == 0 {
		return // no A/B view yet: the report is the absolute jobs'
	}
	first, last := c.Links[0], c.Links[n-1]
	fmt.Fprintf(b, "A/B chain of main: %s, each judged against its parent side by side, %s … %s\n", count(n, "commit", "commits"),
		first.Time.UTC().Format(time.DateOnly), last.Time.UTC().Format(time.DateOnly))
	for _, m := range movedFirst(c.Metrics, chainMoved) {
		fmt.Fprintf(b, "  %s: ", m.Meta.Label)
		if len(m.Culprits) == 0 {
			b.WriteString("no commit's own A/B found it regressed\n")
		} else {
			b.WriteString("regressed by " + strings.Join(culpritTexts(in, m), "; ") + "\n")
			lv := m.Level
			fmt.Fprintf(b, "    %s: %s since, over %s\n", levelState(m), creepStep(m.Meta, lv), count(lv.Links, "commit", "commits"))
		}
		fmt.Fprintf(b, "    creep since %s (%s): %s%s%s\n", visible(c.From, 40), count(m.Creep.Links, "commit", "commits"), creepStep(m.Meta, m.Creep), flaggedText(m.Meta, m.Creep), spanText(m.Meta, m.Creep))
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

// culpritTexts name each culprit link: "1034de6 on 2026-11-04 (its own
// A/B: +55.2 %, 95 % bounds +50.1 … +60.3 %)".
func culpritTexts(in HistoryInput, m gate.ChainMetric) []string {
	return mapped(m.Culprits, func(i int) string {
		l := in.Chain.Links[i]
		lm := l.Metrics[m.Meta.Key]
		return fmt.Sprintf("%s on %s (its own A/B: %s, 95 %% bounds %s … %s)", shortName(l.Commit), l.Time.UTC().Format(time.DateOnly),
			metricStep(m.Meta, lm.Change), boundStep(m.Meta, lm.Lo), boundStep(m.Meta, lm.Hi))
	})
}

// chainCurrentLines name each metric the chain says main still sits at a
// regressed level of, by its latest culprit.
func chainCurrentLines(in HistoryInput, cur []gate.ChainMetric) []string {
	return mapped(cur, func(m gate.ChainMetric) string {
		l := in.Chain.Links[m.Culprits[len(m.Culprits)-1]]
		if m.Level.Worse {
			return fmt.Sprintf("%s %s since %s (its own A/B on %s)", m.Meta.Label, metricStep(m.Meta, m.Level.Change), shortName(l.Commit), l.Time.UTC().Format(time.DateOnly))
		}
		return fmt.Sprintf("%s %s by %s (its own A/B on %s), which no later commit undid", m.Meta.Label, metricStep(m.Meta, l.Metrics[m.Meta.Key].Change),
			shortName(l.Commit), l.Time.UTC().Format(time.DateOnly))
	})
}

// creepLines name each metric whose creep the chain flags.
func creepLines(in HistoryInput, crept []gate.ChainMetric) []string {
	return mapped(crept, func(m gate.ChainMetric) string {
		how := ""
		if m.Creep.Span != nil {
			how = " (one A/B against " + shortName(m.Creep.Span.Parent) + ")"
		}
		return fmt.Sprintf("creep since %s: %s %s over %s%s", visible(in.Chain.From, 40), m.Meta.Label, creepStep(m.Meta, m.Creep), count(m.Creep.Links, "commit", "commits"), how)
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

// spanText says how a creep measured by one A/B of a span was measured,
// and what the commits' own A/Bs multiply to beside it.
func spanText(m result.Metric, c gate.Creep) string {
	if c.Span == nil {
		return ""
	}
	s := fmt.Sprintf("; measured by one A/B of %s against %s on %s", shortName(c.Span.Commit), shortName(c.Span.Parent), c.Span.Time.UTC().Format(time.DateOnly))
	if after := c.Links - c.SpanLinks; after > 0 {
		s += " and the " + count(after, "commit", "commits") + " after it"
	}
	if c.Chained != nil {
		s += "; the commits' own A/Bs multiply to " + creepStep(m, *c.Chained)
	}
	return s
}

func flaggedText(m result.Metric, c gate.Creep) string {
	if c.Worse {
		return fmt.Sprintf(", flagged: worse than the %s floor with its bounds clear of zero", strings.TrimPrefix(metricStep(m, c.Floor), "+"))
	}
	return ""
}

// metricStep is a change of metric m: "+1.5 %" or "+0.20 pp".
func metricStep(m result.Metric, v float64) string { return formatDiff(v, points(m)) }

// points reports whether m's changes are in percentage points (a rate).
func points(m result.Metric) bool { return m.Scale == result.Percent }

// shortName is a commit from the history file, short and inert.
func shortName(c string) string { return visible(c[:min(len(c), 12)], 40) }

// chainSaw says what the A/B chain saw of a change point's commits: the
// commits whose own A/B saw it, or that it judged them and saw none (the
// level moved from outside the code); "" when it judged none.
func chainSaw(in HistoryInput, m gate.HistoryMetric, c gate.HistoryChange) string {
	var commits []string
	for j := c.First; j <= c.Last; j++ {
		commits = append(commits, in.Jobs[j].Commit)
	}
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
