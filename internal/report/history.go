package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// HistoryInput is what the history reports show: main's recorded jobs and
// the change points found in them. Every string of a job (commit, ref,
// runner, machine) comes from the history file and is untrusted text.
type HistoryInput struct {
	Name, Source string
	Jobs         []gate.HistoryJob
	Verdict      gate.HistoryVerdict
	// Chain is the A/B view: each commit judged against its parent.
	Chain gate.ChainVerdict
}

// WriteHistoryText writes the terminal report of a history: per gated
// metric, its change points with the commit range, the step with its
// bounds and what else changed in the range; then the metrics main sits at
// a regressed level of.
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

// historyHeadline is the one line the text report ends with and the page
// leads with, from both views: a regressed level either confirms (the
// change points', the A/B chain's) first, with creep the chain flags;
// then a step the values show that too few jobs confirm; then metrics too
// short to show any.
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
	var better []gate.HistoryMetric
	for _, m := range v.Metrics {
		if m.Seen != nil {
			better = append(better, m)
		}
	}
	if len(better) > 0 {
		return "main is at no regressed level of a gated metric; the values show steps the better way that no test confirmed: " + strings.Join(seenLines(in, better), "; ")
	}
	var short []string
	for _, m := range v.Metrics {
		if m.TooFew() {
			short = append(short, m.Meta.Label)
		}
	}
	if len(short) > 0 {
		return "main is at no regressed level these jobs can show; too few jobs to show a step of " + strings.Join(short, ", ")
	}
	return "main is at no regressed level of a gated metric"
}

// seenLines name each metric whose values step the bad way unconfirmed.
func seenLines(in HistoryInput, seen []gate.HistoryMetric) []string {
	out := make([]string, len(seen))
	for i, m := range seen {
		out[i] = fmt.Sprintf("%s %s since %s (%s)", m.Meta.Label, metricStep(m.Meta, m.Seen.Change), jobName(in.Jobs[m.Seen.At]), seenWhy(m))
	}
	return out
}

// seenWhy says why a step the values show was not confirmed.
func seenWhy(m gate.HistoryMetric) string {
	if m.TooFew() {
		return "too few jobs"
	}
	return "its p is above the search's α"
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

// noisyVisible is the smallest visible step, in percent, beyond which the
// figure says nothing but that the jobs spread: "10810 %" would read as a
// measurement.
const noisyVisible = 100.0

// countJobs is "1 job", "these 12 jobs".
func countJobs(n int) string {
	if n == 1 {
		return "1 job"
	}
	return fmt.Sprintf("these %d jobs", n)
}

// historySpan says what the history holds and from when: its absolute
// jobs, else its A/B links (a history the Action's record mode keeps holds
// only those).
func historySpan(in HistoryInput) string {
	n, src := len(in.Jobs), visible(in.Source, maxShownRunes)
	if n == 0 {
		links := in.Chain.Links
		if len(links) == 0 {
			return "nothing recorded in " + src
		}
		first, last := links[0], links[len(links)-1]
		return fmt.Sprintf("%s judged by A/B from %s, %s (%s) … %s (%s); no absolute job", count(len(links), "commit", "commits"), src,
			first.Time.UTC().Format("2006-01-02 15:04"), shortName(first.Commit), last.Time.UTC().Format("2006-01-02 15:04"), shortName(last.Commit))
	}
	first, last := in.Jobs[0], in.Jobs[n-1]
	return fmt.Sprintf("%s from %s, %s (%s) … %s (%s)", count(n, "job", "jobs"), src,
		first.Time.UTC().Format("2006-01-02 15:04"), jobName(first), last.Time.UTC().Format("2006-01-02 15:04"), jobName(last))
}

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
	if c := m.Seen; c != nil {
		fmt.Fprintf(b, "  the values step %s at job #%d %s, %s → %s, not confirmed: %s\n", metricStep(m.Meta, c.Change), c.At+1,
			jobName(in.Jobs[c.At]), formatValue(c.Before, m.Meta.Unit), formatValue(c.After, m.Meta.Unit), seenReason(m))
		for _, e := range c.Environment {
			fmt.Fprintf(b, "      also changed: %s\n", visible(e, maxShownRunes))
		}
	}
	for _, c := range m.Changes {
		fmt.Fprintf(b, "  %s: %s, %s → %s, %s\n", changeWord(c), historyStep(m, c), formatValue(c.Before, m.Meta.Unit),
			formatValue(c.After, m.Meta.Unit), commitRange(in, c))
		for _, e := range c.Environment {
			fmt.Fprintf(b, "      also changed: %s\n", visible(e, maxShownRunes))
		}
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
	unit := "%"
	if m.Meta.Scale == result.Percent {
		unit = "pp"
	}
	return fmt.Sprintf("α %.3g a test, steps under %g %s ignored", m.Alpha, m.Floor, unit)
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

// historyStep is the step with its bounds: "+8.1 % (+6.0 … +10.2 %)".
func historyStep(m gate.HistoryMetric, c gate.HistoryChange) string {
	format, unit := "%.1f", " %"
	if m.Meta.Scale == result.Percent {
		format, unit = "%.2f", " pp"
	}
	return fmt.Sprintf("%s%s (95 %% bounds %s … %s%s)", signed(c.Change, format), unit, boundText(c.Lo, format), boundText(c.Hi, format), unit)
}

// commitRange names the commits the change came with: those after the
// last job known at the old level, up to the last job that may be the
// first at the new one.
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
	return visible(shortSHA(j.Commit), 40)
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// currentLines name each metric main sits at a regressed level of.
func currentLines(in HistoryInput, cur []gate.HistoryMetric) []string {
	out := make([]string, len(cur))
	for i, m := range cur {
		c := m.Changes[len(m.Changes)-1]
		format, unit := "%.1f", " %"
		if m.Meta.Scale == result.Percent {
			format, unit = "%.2f", " pp"
		}
		out[i] = fmt.Sprintf("%s %s%s since %s%s", m.Meta.Label, signed(c.Change, format), unit, jobName(in.Jobs[c.At]), viewSuffix(in))
	}
	return out
}

// viewSuffix names the absolute view where the A/B chain is a second one.
func viewSuffix(in HistoryInput) string {
	if len(in.Chain.Links) == 0 {
		return ""
	}
	return " (a change point of the jobs)"
}

// writeChain writes the A/B view: per gated metric the commits whose own
// A/B found it regressed, whether main still sits at that level, and the
// creep since the chain's start.
func writeChain(b *strings.Builder, in HistoryInput) {
	c := in.Chain
	n := len(c.Links)
	if n == 0 {
		return // no A/B view yet: the report is the absolute jobs'
	}
	first, last := c.Links[0], c.Links[n-1]
	fmt.Fprintf(b, "A/B chain of main: %s, each judged against its parent side by side, %s … %s\n", count(n, "commit", "commits"),
		first.Time.UTC().Format("2006-01-02"), last.Time.UTC().Format("2006-01-02"))
	for _, m := range chainMovedFirst(c.Metrics) {
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
	if empty := emptyLinks(c); empty > 0 {
		fmt.Fprintf(b, "  %s estimated no gated metric (too few blocks for bounds): counted as no change\n", plural(empty, "1 commit's A/B", fmt.Sprintf("%d commits' A/Bs", empty)))
	}
	for _, g := range c.Gaps {
		fmt.Fprintf(b, "  gap: %s's parent is %s, not the previous link's %s: the commits between were not judged\n",
			shortName(c.Links[g].Commit), shortName(c.Links[g].Parent), shortName(c.Links[g-1].Commit))
	}
	b.WriteString("\n")
}

// levelState says whether main sits at the level its latest culprit
// regressed it to: confirmed, undone by later commits, or neither (later
// commits' noise adds up, so the level's bounds soon hold zero after any
// step; nothing undid it, so it counts as current).
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
	var out []string
	for _, i := range m.Culprits {
		l := in.Chain.Links[i]
		lm := l.Metrics[m.Meta.Key]
		out = append(out, fmt.Sprintf("%s on %s (its own A/B: %s, 95 %% bounds %s … %s)", shortName(l.Commit), l.Time.UTC().Format("2006-01-02"),
			metricStep(m.Meta, lm.Change), boundStep(m.Meta, lm.Lo), boundStep(m.Meta, lm.Hi)))
	}
	return out
}

// chainCurrentLines name each metric the chain says main still sits at a
// regressed level of, by its latest culprit.
func chainCurrentLines(in HistoryInput, cur []gate.ChainMetric) []string {
	out := make([]string, len(cur))
	for i, m := range cur {
		l := in.Chain.Links[m.Culprits[len(m.Culprits)-1]]
		if m.Level.Worse {
			out[i] = fmt.Sprintf("%s %s since %s (its own A/B on %s)", m.Meta.Label, metricStep(m.Meta, m.Level.Change), shortName(l.Commit), l.Time.UTC().Format("2006-01-02"))
			continue
		}
		out[i] = fmt.Sprintf("%s %s by %s (its own A/B on %s), which no later commit undid", m.Meta.Label, metricStep(m.Meta, l.Metrics[m.Meta.Key].Change),
			shortName(l.Commit), l.Time.UTC().Format("2006-01-02"))
	}
	return out
}

// creepLines name each metric whose creep the chain flags.
func creepLines(in HistoryInput, crept []gate.ChainMetric) []string {
	var out []string
	for _, m := range crept {
		how := ""
		if m.Creep.Span != nil {
			how = " (one A/B against " + shortName(m.Creep.Span.Parent) + ")"
		}
		out = append(out, fmt.Sprintf("creep since %s: %s %s over %s%s", visible(in.Chain.From, 40), m.Meta.Label, creepStep(m.Meta, m.Creep), count(m.Creep.Links, "commit", "commits"), how))
	}
	return out
}

// creepStep is a product of changes with its bounds: "+16.1 % (95 %
// bounds +10.2 … +22.3 %)".
func creepStep(m result.Metric, c gate.Creep) string {
	return fmt.Sprintf("%s (95 %% bounds %s … %s)", metricStep(m, c.Change), boundStep(m, c.Lo), boundStep(m, c.Hi))
}

// boundStep is a bound of a change: as metricStep, but a bound that
// rounds to zero keeps its sign and first digit ("+0.03 %"), since which
// side of zero it lies on is what a bound says; zero is "0 %".
func boundStep(m result.Metric, v float64) string {
	if m.Scale == result.Percent {
		return boundText(v, "%.2f") + " pp"
	}
	return boundText(v, "%.1f") + " %"
}

// boundText is v signed in format, or, where that rounds to zero, to its
// first digit.
func boundText(v float64, format string) string {
	switch s := signed(v, format); {
	case !strings.HasPrefix(s, "±"):
		return s
	case v == 0:
		return "0"
	}
	return signed(v, "%.1g")
}

// spanText says how a creep measured by a span was measured, and what
// the commits' own A/Bs multiply to beside it: "; measured by one A/B of
// 3f2a9c1b7d0e against 1a2b3c4d5e6f on 2026-12-05 and the 2 commits
// after it; the commits' own A/Bs multiply to +5.7 % (95 % bounds …)".
func spanText(m result.Metric, c gate.Creep) string {
	if c.Span == nil {
		return ""
	}
	s := fmt.Sprintf("; measured by one A/B of %s against %s on %s", shortName(c.Span.Commit), shortName(c.Span.Parent), c.Span.Time.UTC().Format("2006-01-02"))
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
func metricStep(m result.Metric, v float64) string {
	if m.Scale == result.Percent {
		return signed(v, "%.2f") + " pp"
	}
	return signed(v, "%.1f") + " %"
}

// shortName is a commit from the history file, short and inert.
func shortName(c string) string { return visible(shortSHA(c), 40) }

// chainSaw says what the A/B chain saw of a change point's commits (from
// the last job at the old level, exclusive, to the last that may be the
// first at the new one): the commit whose own A/B saw the step, or that it
// judged them and saw none (the environment, or a dependency outside the
// repository, moved the level), or "" when it judged none of them.
func chainSaw(in HistoryInput, m gate.HistoryMetric, c gate.HistoryChange) string {
	var commits []string
	for j := c.First; j <= c.Last; j++ {
		commits = append(commits, in.Jobs[j].Commit)
	}
	culprits, judged := in.Chain.Judged(m.Meta.Key, commits)
	switch {
	case len(culprits) > 0:
		var names []string
		for _, i := range culprits {
			l := in.Chain.Links[i]
			names = append(names, fmt.Sprintf("%s (its own A/B on %s: %s)", shortName(l.Commit), l.Time.UTC().Format("2006-01-02"), metricStep(m.Meta, l.Metrics[m.Meta.Key].Change)))
		}
		return "the A/B chain names " + strings.Join(names, ", ")
	case judged > 0:
		return fmt.Sprintf("the A/B chain judged %s and saw no regression: did it come from outside the code (runner, machine, a dependency outside the repository)?", plural(judged, "this commit", fmt.Sprintf("these %d commits", judged)))
	}
	return ""
}

// emptyLinks counts the links whose A/B estimated no metric.
func emptyLinks(c gate.ChainVerdict) int {
	n := 0
	for _, l := range c.Links {
		if len(l.Metrics) == 0 {
			n++
		}
	}
	return n
}
