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
	b.WriteString(historyHeadline(in) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// historyHeadline is the one line the text report ends with and the page
// leads with: a confirmed regressed level first, then a step the values
// show that too few jobs confirm, then metrics too short to show any.
func historyHeadline(in HistoryInput) string {
	v := in.Verdict
	if cur := v.Current(); len(cur) > 0 {
		return "main is at a regressed level: " + strings.Join(currentLines(in, cur), "; ")
	}
	if seen := v.Unconfirmed(); len(seen) > 0 {
		return "main may be at a regressed level, not yet confirmed: " + strings.Join(seenLines(in, seen), "; ")
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
		out[i] = fmt.Sprintf("%s %s since %s (%s)", m.Meta.Label, stepText(m, m.Seen.Change), jobName(in.Jobs[m.Seen.At]), seenWhy(m))
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

// stepText is a step in the metric's unit: "+55.0 %" or "+0.50 pp".
func stepText(m gate.HistoryMetric, v float64) string {
	if m.Meta.Scale == result.Percent {
		return signed(v, "%.2f") + " pp"
	}
	return signed(v, "%.1f") + " %"
}

// reachText says what a metric's jobs can show: "these 12 jobs show steps
// of ≥ 4.2 % with ≥ 3 jobs on each side".
func reachText(m gate.HistoryMetric) string {
	n := len(m.Values)
	if m.Side == 0 {
		return fmt.Sprintf("too few jobs: %s can show no step, a step needs %d jobs or more", countJobs(n), m.Needed)
	}
	return fmt.Sprintf("%s show steps of %s or more with %d jobs on each side", countJobs(n), strings.TrimPrefix(stepText(m, m.Visible), "+"), m.Side)
}

// countJobs is "1 job", "these 12 jobs".
func countJobs(n int) string {
	if n == 1 {
		return "1 job"
	}
	return fmt.Sprintf("these %d jobs", n)
}

// historySpan says how many jobs the history holds and from when.
func historySpan(in HistoryInput) string {
	n := len(in.Jobs)
	if n == 0 {
		return "no jobs in " + visible(in.Source, maxShownRunes)
	}
	first, last := in.Jobs[0], in.Jobs[n-1]
	return fmt.Sprintf("%s from %s, %s (%s) … %s (%s)", count(n, "job", "jobs"), visible(in.Source, maxShownRunes),
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
		fmt.Fprintf(b, "  the values step %s at job #%d %s, %s → %s, not confirmed: %s\n", stepText(m, c.Change), c.At+1,
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
	return fmt.Sprintf("%s%s (95 %% bounds %s … %s%s)", signed(c.Change, format), unit, signed(c.Lo, format), signed(c.Hi, format), unit)
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
		out[i] = fmt.Sprintf("%s %s%s since %s", m.Meta.Label, signed(c.Change, format), unit, jobName(in.Jobs[c.At]))
	}
	return out
}

// count is "1 job", "3 jobs".
func count(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }
