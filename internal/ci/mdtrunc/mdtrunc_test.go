package mdtrunc

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFitLeavesShortTextAlone(t *testing.T) {
	md := "# ok\n\nsmall"
	got, cut := Fit(md, len(md), "NOTE")
	if cut || got != md {
		t.Fatalf("Fit changed text within the limit: cut=%v got %q", cut, got)
	}
}

func TestFitCutsAtLineAndClosesBlocks(t *testing.T) {
	var b strings.Builder
	b.WriteString("# report\n<details><summary>runs</summary>\n\n```text\n")
	for i := 0; i < 2000; i++ {
		b.WriteString("run line with some ünïcödé text ")
		b.WriteString(strings.Repeat("x", i%17))
		b.WriteByte('\n')
	}
	b.WriteString("```\n</details>\n")
	md := b.String()
	const note = "_Truncated: see the job summary._"
	for _, limit := range []int{200, 1000, 4096, len(md) - 1} {
		got, cut := Fit(md, limit, note)
		if !cut {
			t.Fatalf("limit %d: not reported as cut", limit)
		}
		if len(got) > limit {
			t.Fatalf("limit %d: result is %d bytes", limit, len(got))
		}
		if !utf8.ValidString(got) {
			t.Fatalf("limit %d: result is not valid UTF-8", limit)
		}
		if !strings.HasSuffix(got, "\n\n"+note) {
			t.Fatalf("limit %d: note missing at the end: %q", limit, got[max(0, len(got)-80):])
		}
		body := strings.TrimSuffix(got, "\n\n"+note)
		if strings.Count(body, "```")%2 != 0 {
			t.Fatalf("limit %d: code fence left open", limit)
		}
		if openDetails(body) != 0 {
			t.Fatalf("limit %d: <details> left open", limit)
		}
		if !strings.HasPrefix(md, strings.TrimSuffix(strings.TrimSuffix(body, "\n</details>"), "\n```")) {
			t.Fatalf("limit %d: kept text is not a prefix of the input", limit)
		}
	}
}

func TestFitTinyLimitReturnsNoteOnly(t *testing.T) {
	got, cut := Fit(strings.Repeat("a\n", 100), 10, "truncated: too long")
	if !cut || len(got) > 10 || got != "truncated:" {
		t.Fatalf("got %q cut=%v", got, cut)
	}
}
