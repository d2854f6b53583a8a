package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// The A/A notes name each metric by its label, in the job's unit, with a
// real minus, and the change they cite is the one the table shows beside
// them (the paired estimate, not a ratio of medians).
func TestAANotesAgreeWithTheTable(t *testing.T) {
	t.Parallel()
	in := cases()["ab"] // head 12 % slower: as if an A/A job had cried wolf
	notes := aaNotes(in.Verdict, in.Base, in.Head)
	all := strings.Join(notes, "\n")
	for _, bad := range []string{"iterations_per_s", "latency_p95_ms", "run-to-run", "FALSE ALARM"} {
		if strings.Contains(all, bad) {
			t.Errorf("the A/A notes hold %q:\n%s", bad, all)
		}
	}
	if regexp.MustCompile(`-[0-9]`).MatchString(all) {
		t.Errorf("the A/A notes print an ASCII minus:\n%s", all)
	}
	md := Markdown(in)
	for _, f := range in.Verdict.Findings {
		if f.Key != "iterations_per_s" && f.Key != "latency_p95_ms" {
			continue
		}
		cited := "A/A noise of " + f.Label + ": the blocks of each side vary by "
		if !strings.Contains(all, cited) || !strings.Contains(all, "change head against base "+formatChange(f)+", as in the table") {
			t.Errorf("no note cites %s's change %s:\n%s", f.Label, formatChange(f), all)
		}
		_, row, _ := strings.Cut(md, "| **"+f.Label+"** |")
		if row, _, _ = strings.Cut(row, "\n"); !strings.Contains(row, "| "+formatChange(f)+" |") || !strings.HasSuffix(row, "| "+fromTo(f)+" |") {
			t.Errorf("the table does not show %s's change as %s", f.Label, formatChange(f))
		}
	}
	if last := notes[len(notes)-1]; !strings.HasPrefix(last, "A/A: a false alarm in iterations/s, latency p95: ") {
		t.Errorf("the false alarm is %q", last)
	}
}

func TestAANotesInBlocksWithoutAlarm(t *testing.T) {
	t.Parallel()
	base, head := abRuns(6, 1, 1)
	v := gate.JudgeSequential(base, head, gate.Policy{Alpha: 0.05}, stats.SeqDesign{MinBlocks: 3, MaxBlocks: 6}, true, gate.SeqOptions{})
	v.Sequential.Unit = "block"
	notes := aaNotes(v, base, head)
	if !strings.Contains(strings.Join(notes, "\n"), "A/A noise of iterations/s: the blocks of each side vary by ") || notes[len(notes)-1] != "A/A: no false alarm" {
		t.Errorf("notes of a block job without alarm: %q", notes)
	}
}
