package result

import "testing"

// Statements are joined by their text: comments (a tracer's per request)
// and white space do not make two, quotes keep theirs, and texts that
// differ otherwise stay two; equal keys sum.
func TestStatementsJoinByNormalText(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT name\n\tFROM app_user  WHERE id = $1":                       "SELECT name FROM app_user WHERE id = $1",
		"/* traceparent=00-4bf9 */ SELECT name FROM app_user WHERE id = $1": "SELECT name FROM app_user WHERE id = $1",
		"SELECT name -- the author\nFROM app_user WHERE id = $1 /* open":    "SELECT name FROM app_user WHERE id = $1",
		`SELECT "a  b", 'x -- y' FROM t`:                                    `SELECT "a  b", 'x -- y' FROM t`,
		"SELECT 'unclosed  ":                                                "SELECT 'unclosed  ",
		"  SELECT 1  ":                                                      "SELECT 1",
	} {
		if got := NormalQuery(in); got != want {
			t.Errorf("NormalQuery(%q) = %q, want %q", in, got, want)
		}
	}
	q := NormalQuery("SELECT * FROM article WHERE slug = $1")
	got := SumStatements(
		[]Statement{{Source: "pg", Query: q, Calls: 2, Blocks: 9}},
		[]Statement{{Source: "pg", Query: q, Calls: 3, Blocks: 1}, {Source: "pg", Query: NormalQuery("SELECT * FROM article WHERE id = $1"), Calls: 1}},
	)
	if len(got) != 2 || got[1].Query != q || got[1].Calls != 5 || got[1].Blocks != 10 {
		t.Fatalf("summed %+v; want the slug lookup's two windows as one of 5 calls and 10 blocks, and the id lookup apart", got)
	}
}
