package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

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
	Source, Query string
	Base, Head    [3]float64 // calls, rows, blocks per iteration
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
