package report

import (
	"fmt"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// maxRunNotes bounds the distinct run notes a side shows: a service that
// prints a new note every run must not bury the report.
const maxRunNotes = 5

// runNotes are the notes the runs carry, each once with its side and how
// many runs said it (without them a metric reads "not measured" and
// nothing says why); one every run of both sides says, once for both.
func runNotes(in Input) []string {
	base, head := countNotes(in.Base), countNotes(in.Head)
	ab := in.AB != nil
	unit := "runs"
	if ab {
		unit = "blocks"
	}
	var out []string
	for _, n := range base.order {
		if ab && head.counts[n] == len(in.Head) && base.counts[n] == len(in.Base) {
			out = append(out, fmt.Sprintf("both sides, every %s: %s", unit[:len(unit)-1], n))
			delete(head.counts, n)
			continue
		}
		out = append(out, sideNote("base", base.counts[n], len(in.Base), unit, n))
	}
	side := "head"
	if len(in.Base) == 0 {
		side = "the runs" // a check's runs, judged against stored samples
	}
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
				if !past[n] {
					past[n] = true
					c.more++
				}
				continue
			}
			c.counts[n]++
		}
	}
	return c
}

// sideNote is "base, 3 of 12 blocks: NOTE".
func sideNote(side string, n, of int, unit, note string) string {
	if n == of {
		return fmt.Sprintf("%s, every %s: %s", side, unit[:len(unit)-1], note)
	}
	return fmt.Sprintf("%s, %d of %d %s: %s", side, n, of, unit, note)
}
