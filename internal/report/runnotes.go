package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// maxRunNotes bounds the distinct run notes a side shows: a service that
// prints a new note every run must not bury the report.
const maxRunNotes = 5

// runNotes are the notes the runs carry, each once with its side and how many runs said it (without them a metric reads
// "not measured" and nothing says why); one every run of both sides says, once for both.
func runNotes(in Input) []string {
	base, head := countNotes(in.Base), countNotes(in.Head)
	ab := in.AB != nil
	unit := map[bool]string{true: "blocks", false: "runs"}[ab]
	var out []string
	for _, n := range base.order {
		if ab && head.counts[n] == len(in.Head) && base.counts[n] == len(in.Base) {
			out = append(out, fmt.Sprintf("both sides, every %s: %s", unit[:len(unit)-1], n))
			delete(head.counts, n)
			continue
		}
		out = append(out, sideNote("base", base.counts[n], len(in.Base), unit, n))
	}
	side := map[bool]string{true: "the runs", false: "head"}[len(in.Base) == 0] // a check's runs, judged against stored samples
	for _, n := range head.order {
		if c, ok := head.counts[n]; ok {
			out = append(out, sideNote(side, c, len(in.Head), unit, n))
		}
	}
	if extra := base.more + head.more; extra > 0 {
		out = append(out, fmt.Sprintf("and %d more distinct notes of the runs, in the result files", extra))
	}
	return out
}

// notesCount is the distinct notes of some runs, in the order first seen,
// with how many runs carried each; more counts those past maxRunNotes.
type notesCount struct {
	order  []string
	counts map[string]int
	more   int
}

func countNotes(runs []result.Run) notesCount {
	c := notesCount{counts: map[string]int{}}
	past := map[string]bool{} // distinct notes beyond maxRunNotes
	for _, r := range runs {
		for _, n := range slices.Compact(slices.Sorted(slices.Values(r.Notes))) {
			switch _, listed := c.counts[n]; {
			case listed:
			case len(c.order) < maxRunNotes:
				c.order = append(c.order, n)
			default:
				c.more, past[n] = c.more+b2i(!past[n]), true
				continue
			}
			c.counts[n]++
		}
	}
	return c
}

func sideNote(side string, n, of int, unit, note string) string {
	if n == of {
		return fmt.Sprintf("%s, every %s: %s", side, unit[:len(unit)-1], note)
	}
	return fmt.Sprintf("%s, %d of %d %s: %s", side, n, of, unit, note)
}

// TargetLogs are the files holding the output of the targets tailgate
// started (the head's in check and demo, each side's in A/B).
type TargetLogs struct {
	Base string `json:"base,omitempty"`
	Head string `json:"head,omitempty"`
}

// Paths lists the log files, each once, the base's first.
func (l TargetLogs) Paths() []string {
	var out []string
	for _, p := range []string{l.Base, l.Head} {
		if strings.TrimSpace(p) != "" && (len(out) == 0 || out[0] != p) {
			out = append(out, p)
		}
	}
	return out
}

// targetLogNotes say where the targets' output is; the paths are untrusted text (a report artifact carries them).
func targetLogNotes(in Input) []string {
	l, paths := in.TargetLog, in.TargetLog.Paths()
	switch {
	case len(paths) == 0:
		return nil
	case len(paths) == 1 && (in.Mode != "ab" || l.Base == l.Head):
		return []string{"The output of the target tailgate started is in " + paths[0]}
	}
	var out []string
	for _, side := range []struct{ name, path string }{{"base", l.Base}, {"head", l.Head}} {
		if slices.Contains(paths, side.path) {
			out = append(out, "The output of the "+side.name+" target is in "+side.path)
		}
	}
	return out
}

// maxPathRunes bounds a target log's path in a report artifact: far above any path tailgate writes.
const maxPathRunes = 1000

// targetLogPath checks a target log's path from a report artifact.
func (c *checker) targetLogPath(path, s string) {
	c.name(path, s, maxPathRunes, true)
	if strings.Contains(s, "://") {
		c.add(path, "%q is an address, not a file path", clip(s))
	}
}

var aaNoiseMetrics = []string{result.IterationsPerSec, result.RequestsPerSec, result.LatencyP95, result.CPUPerIteration}

// aaNotes are an A/A job's notes: per noise metric how much each side's units varied and the change
// as the table shows it; then whether the gate cried wolf.
func aaNotes(v gate.Verdict, base, head []result.Run) []string {
	in := Input{Verdict: v}
	units := runWord(in, 2)
	var notes []string
	for _, key := range aaNoiseMetrics {
		a, b := result.Values(base, key), result.Values(head, key)
		if len(a) < 2 || len(b) < 2 {
			continue
		}
		m, _ := result.Lookup(key)
		note := fmt.Sprintf("A/A noise of %s: the %s of each side vary by %s (base) and %s (head), coefficient of variation",
			m.Label, units, percentOf(stats.CV(a)), percentOf(stats.CV(b)))
		if i := slices.IndexFunc(v.Findings, func(f gate.Finding) bool { return f.Key == key }); i >= 0 && formatChange(v.Findings[i]) != "—" {
			note += "; change head against base " + formatChange(v.Findings[i]) + ", as in the table"
		}
		notes = append(notes, note)
	}
	if v.Outcome != gate.Regression {
		return append(notes, "A/A: no false alarm")
	}
	labels := gatedLabels(v, gate.MetricRegression, plainText, func(gate.Finding) string { return "" })
	return append(notes, fmt.Sprintf("A/A: a false alarm in %s: the same build on both sides was called a regression; widen min_effect or look at the noise above",
		strings.Join(labels, ", ")))
}

func percentOf(share float64) string { return fmt.Sprintf("%.1f %%", 100*share) }

// With a source that reads each statement (pg_stat_statements) the report lists those whose work
// per iteration changed most, by their normalised (untrusted) text. Reported, never judged.

// Statements shown per surface: the PR comment stays short.
const (
	textStatements     = 5
	markdownStatements = 3
	htmlStatements     = 10
	// queryRunes clips a statement's text on one line; the HTML page shows more of it.
	queryRunes     = 160
	htmlQueryRunes = 600
)

// A statement's figure changed when it moved by this share of the larger
// side and this much per iteration: one stray call is not a change.
const (
	statementShare     = 0.05
	minStatementChange = 0.1
)

var statementFigures = [3]string{"calls", "rows", "blocks"}

// statementChange is one statement's work per iteration on each side.
type statementChange struct {
	Source string     `json:"source"`
	Query  string     `json:"query"`
	Base   [3]float64 `json:"base"` // calls, rows, blocks per iteration
	Head   [3]float64 `json:"head"`
	// weight ranks the changes: the largest of its figures' changes as a
	// share of that figure's total over all statements.
	weight float64
}

// perIteration is each statement's figures per iteration over the runs
// (or their phases) that read statements; ok is false when none did.
func perIteration(runs []result.Run) (map[string]statementChange, bool) {
	var lists [][]result.Statement
	iterations := 0.0
	add := func(r result.Run) {
		if len(r.Statements) > 0 && r.Iterations.Completed > 0 {
			lists = append(lists, r.Statements)
			iterations += float64(r.Iterations.Completed)
		}
	}
	for _, r := range runs {
		if len(r.Statements) > 0 {
			add(r)
			continue
		}
		for _, p := range r.Phases {
			add(p.Run)
		}
	}
	if iterations == 0 {
		return nil, false
	}
	out := map[string]statementChange{}
	for _, s := range result.SumStatements(lists...) {
		out[s.Key()] = statementChange{Source: s.Source, Query: s.Query,
			Base: [3]float64{s.Calls / iterations, s.Rows / iterations, s.Blocks / iterations}}
	}
	return out, true
}

// statementChanges are the statements whose work per iteration changed,
// the largest change first; nil unless both sides read statements.
func statementChanges(base, head []result.Run) []statementChange {
	b, okB := perIteration(base)
	h, okH := perIteration(head)
	if !okB || !okH {
		return nil
	}
	all := b
	var totals [3]float64
	for k, s := range h {
		c := all[k]
		c.Source, c.Head, c.Query = s.Source, s.Base, cmp.Or(c.Query, s.Query)
		all[k] = c
	}
	for _, c := range all {
		for i := range totals {
			totals[i] += max(c.Base[i], c.Head[i])
		}
	}
	var out []statementChange
	for _, c := range all {
		for i := range statementFigures {
			if changed(c.Base[i], c.Head[i]) && totals[i] > 0 {
				c.weight = max(c.weight, math.Abs(c.Head[i]-c.Base[i])/totals[i])
			}
		}
		if c.weight > 0 {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(x, y statementChange) int {
		return cmp.Or(cmp.Compare(y.weight, x.weight), strings.Compare(x.Query, y.Query))
	})
	return out
}

func changed(base, head float64) bool {
	d := math.Abs(head - base)
	return d >= minStatementChange && d >= statementShare*max(base, head)
}

func (c statementChange) figuresText() string {
	var parts []string
	for i, name := range statementFigures {
		if changed(c.Base[i], c.Head[i]) {
			parts = append(parts, fmt.Sprintf("%s %s → %s", name, perIterText(c.Base[i]), perIterText(c.Head[i])))
		}
	}
	return strings.Join(parts, ", ")
}

func perIterText(x float64) string {
	switch r := math.Round(x); {
	case math.Abs(x-r) < 0.005:
		return fmt.Sprintf("%.0f", r)
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// statementLines are the top n changes, each "source: figures: query",
// the query shown through show (which clips and makes it inert).
func statementLines(in Input, n int, show func(string) string) []string {
	return mapped(in.statementChanges(n), func(c statementChange) string {
		return fmt.Sprintf("%s: %s: %s", show(c.Source), c.figuresText(), show(c.Query))
	})
}

// statementChanges are the first n statement changes of the runs, or of a report read back.
func (in Input) statementChanges(n int) []statementChange {
	all := in.statements
	if all == nil {
		all = statementChanges(in.Base, in.Head)
	}
	return all[:min(n, len(all))]
}

func statementsTitle(in Input) string {
	return fmt.Sprintf("Statements whose work changed most (per iteration, %s → head)", baseName(in))
}

// clipped shows a statement in at most about n runes, white space folded and the middle (its select
// list) elided, keeping the FROM … WHERE that tells statements apart.
func clipped(n int) func(string) string {
	return func(s string) string {
		r := []rune(strings.Join(strings.Fields(s), " "))
		if len(r) > n {
			head := n / 3
			r = append(append(r[:head:head], []rune(" … ")...), r[len(r)-(n-head):]...)
		}
		return visible(string(r), n+3)
	}
}
