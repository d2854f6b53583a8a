package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// What the runs noted reaches the report: a counter source that no block
// of either side could read says so once, for both sides, with the
// reason; a note of some blocks of one side says which and how many; past
// maxRunNotes distinct notes a side's others are counted, not listed. A
// check's runs are "the runs"; compare's two sets are base and head.
func TestRunNotesReachTheReport(t *testing.T) {
	t.Parallel()
	unread := "counters pg not read: psql: error: connection to server on socket \"/var/run/postgresql/.s.PGSQL.5432\" failed"
	blocks := func(n int, notes func(i int) []string) []result.Run {
		runs := make([]result.Run, n)
		for i := range runs {
			runs[i] = result.Run{Index: i, Metrics: map[string]float64{result.IterationsPerSec: 100}, Notes: notes(i)}
		}
		return runs
	}
	in := Input{Name: "api", Mode: "ab", AB: &ABRun{Blocks: 4, MaxBlocks: 12},
		Base: blocks(4, func(int) []string { return []string{unread} }),
		Head: blocks(4, func(i int) []string {
			if i == 2 {
				return []string{unread, "CPU not measured: the process ended"}
			}
			return []string{unread}
		})}
	got := runNotes(in)
	want := []string{"both sides, every block: " + unread, "head, 1 of 4 blocks: CPU not measured: the process ended"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("run notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var text bytes.Buffer
	if err := WriteText(&text, in); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "both sides, every block: counters pg not read: psql: error") {
		t.Errorf("the text report lacks the unread counters:\n%s", text.String())
	}

	many := Input{Name: "api", Mode: "check", Head: blocks(3, func(i int) []string {
		var out []string
		for k := range maxRunNotes + 2 {
			out = append(out, fmt.Sprintf("note %d", k))
		}
		return out
	})}
	got = runNotes(many)
	if len(got) != maxRunNotes+1 || got[0] != "the runs, every run: note 0" || got[maxRunNotes] != "and 2 more distinct notes of the runs, in the result files" {
		t.Errorf("many notes: %q", got)
	}
	// compare: two sets of runs, named as sides, though not blocks
	compare := Input{Name: "api", Mode: "compare", Base: blocks(2, func(int) []string { return nil }),
		Head: blocks(2, func(i int) []string { return []string{"the file was cut"}[:i] })}
	if got := runNotes(compare); len(got) != 1 || got[0] != "head, 1 of 2 runs: the file was cut" {
		t.Errorf("compare: %q", got)
	}
}
