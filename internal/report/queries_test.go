package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// statementRuns are runs of 100 iterations each with the given
// statements' figures per iteration.
func statementRuns(n int, stmts ...result.Statement) []result.Run {
	out := make([]result.Run, n)
	for i := range out {
		out[i].Iterations.Completed = 100
		for _, s := range stmts {
			s.Calls, s.Rows, s.Blocks = 100*s.Calls, 100*s.Rows, 100*s.Blocks
			out[i].Statements = append(out[i].Statements, s)
		}
	}
	return out
}

// The two regressions of issue 36, as the statements showed them: an N+1
// (a lookup by id, 0 → 23 calls per iteration) and a dropped index (two
// slug lookups, 9 → 214 blocks). The list names them, the largest share
// of a figure's total first (the lookup's calls); statements that did the same work, or moved
// by less than 5 % or 0.1 per iteration, are not listed; without
// statements on both sides there is no list.
func TestStatementChangesNameWhatGrew(t *testing.T) {
	list := result.Statement{Source: "pg", Query: "SELECT id, author FROM article ORDER BY id LIMIT $1", Calls: 1, Rows: 23, Blocks: 4}
	lookup := result.Statement{Source: "pg", Query: "SELECT name FROM app_user WHERE id = $1", Calls: 23, Rows: 23, Blocks: 46}
	slug := result.Statement{Source: "pg", Query: "SELECT * FROM article WHERE slug = $1", Calls: 2, Rows: 2, Blocks: 9}
	slugScan := slug
	slugScan.Blocks = 214
	noisy := result.Statement{Source: "pg", Query: "SELECT 1", Calls: 1, Rows: 1, Blocks: 0}
	noisyHead := noisy
	noisyHead.Calls = 1.04 // under 5 %

	base := statementRuns(3, list, slug, noisy)
	head := statementRuns(4, list, lookup, slugScan, noisyHead)
	got := statementChanges(base, head)
	// The lookup is 23 of 27 calls per iteration (85 %), the slug lookups
	// 205 of 264 blocks (78 %).
	if len(got) != 2 || got[0].Query != lookup.Query || got[1].Query != slug.Query {
		t.Fatalf("changes %+v; want the N+1 lookup (calls), then the slug lookup (blocks)", got)
	}
	in := Input{Mode: "ab", Base: base, Head: head}
	lines := statementLines(in, 5, clipped(queryRunes))
	want := []string{
		"pg: calls 0 → 23, rows 0 → 23, blocks 0 → 46: SELECT name FROM app_user WHERE id = $1",
		"pg: blocks 9 → 214: SELECT * FROM article WHERE slug = $1",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if n := len(statementLines(in, 1, clipped(queryRunes))); n != 1 {
		t.Errorf("%d lines for a limit of 1", n)
	}
	if got := statementChanges(base, statementRuns(2)); got != nil {
		t.Errorf("head without statements: %+v; want no list", got)
	}

	// On every surface, the PR comment included.
	var text, page bytes.Buffer
	WriteText(&text, in)
	WriteHTML(&page, in)
	md := Markdown(in)
	for surface, out := range map[string]string{"terminal": text.String(), "markdown": md, "html": page.String()} {
		if !strings.Contains(out, "Statements whose work changed most (per iteration, base → head)") || !strings.Contains(out, "214") {
			t.Errorf("%s report does not list the statements:\n%s", surface, out)
		}
	}
	if !strings.Contains(md, `app\_user WHERE id = \$1`) {
		t.Errorf("the comment does not show the lookup as inert text:\n%s", md)
	}
}

// A long statement keeps its start and its end (where it says what it
// reads), white space folded, and stays one inert line.
func TestClippedStatement(t *testing.T) {
	q := "SELECT\n    f.id,\n" + strings.Repeat("    f.column,\n", 40) + "    f.user_id\nFROM feeds f WHERE f.id = $1 AND f.user_id = $2"
	got := clipped(80)(q)
	if !strings.HasPrefix(got, "SELECT f.id, f.column") || !strings.HasSuffix(got, "FROM feeds f WHERE f.id = $1 AND f.user_id = $2") ||
		!strings.Contains(got, " … ") || strings.ContainsAny(got, "\n\t") || len([]rune(got)) > 83 {
		t.Errorf("clipped to %q", got)
	}
	if got := clipped(80)("SELECT 1"); got != "SELECT 1" {
		t.Errorf("a short statement became %q", got)
	}
}

// A report read back (tailgate comment) lists the same statements, and
// footprint metrics (counter.pg.calls, /iteration) are keys it accepts.
func TestStatementsSurviveTheReportJSON(t *testing.T) {
	lookup := result.Statement{Source: "pg", Query: "SELECT name FROM app_user WHERE id = $1", Calls: 23, Rows: 23, Blocks: 46}
	in := Input{Name: "rw", Mode: "ab", Base: statementRuns(3), Head: statementRuns(3, lookup)}
	in.Base[0].Statements = []result.Statement{{Source: "pg", Query: "SELECT 1", Calls: 100}}
	calls := result.CounterKey("pg", "calls")
	in.Verdict.Findings = []gate.Finding{{Key: calls, Label: "pg calls", Unit: "/iteration", Gated: true, Outcome: gate.MetricPass,
		BaseMedian: 1, HeadMedian: 1, Change: 0, Worse: 0, P: math.NaN(), Floor: 5, FloorSource: gate.FromMinEffect, Test: stats.TestExactCount,
		Estimate: 0, Lower: 0, Upper: 0, BaseCenter: math.NaN(), HeadCenter: math.NaN()}}
	in.Verdict.Outcome = gate.Pass
	var buf bytes.Buffer
	if err := WriteJSON(&buf, in); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON(&buf)
	if err != nil {
		t.Fatalf("a report with a counter and statements read back: %v", err)
	}
	want := statementLines(in, markdownStatements, clipped(queryRunes))
	if got := statementLines(back, markdownStatements, clipped(queryRunes)); len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("read back: %q, want %q", got, want)
	}
	if md := Markdown(back); !strings.Contains(md, `SELECT name FROM app\_user WHERE id = \$1`) {
		t.Errorf("the comment from the report does not list the statement:\n%s", md)
	}
}

// Sides are joined by a statement's text: an A/A job lists no statement,
// and a statement is new (0 → n) only when its text is.
func TestStatementChangesJoinSidesByText(t *testing.T) {
	lookup := result.Statement{Source: "pg", Query: "SELECT name FROM app_user WHERE id = $1", Calls: 23, Rows: 23, Blocks: 46}
	slug := result.Statement{Source: "pg", Query: "SELECT * FROM article WHERE slug = $1", Calls: 2, Rows: 2, Blocks: 9}
	if got := statementChanges(statementRuns(5, lookup, slug), statementRuns(5, slug, lookup)); got != nil {
		t.Fatalf("A/A lists %+v; want no statement", got)
	}
	count := result.Statement{Source: "pg", Query: "SELECT count(*) FROM article WHERE author = $1", Calls: 1, Rows: 1}
	got := statementChanges(statementRuns(5, lookup, slug), statementRuns(5, slug, count, lookup))
	if len(got) != 1 || got[0].Query != count.Query || got[0].Base != [3]float64{} || got[0].Head[0] != 1 {
		t.Fatalf("changes %+v; want the count alone, new", got)
	}
}
