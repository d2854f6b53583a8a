package report

import (
	"math"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// An undecided metric's note names the job's unit, the block, throughout, its reason
// comes before the bounds, and only one clause says why more units would
// or would not help.
func TestSeqNoteUnits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dec  stats.SeqDecision
		want string
	}{
		{stats.SeqDecision{Outcome: stats.SeqInconclusive, Reason: stats.ReasonBudgetAtThreshold, Blocks: 9},
			"budget spent after 9 blocks (change +5.0 %, bounds −5.6 % … +12.6 %); no practical number of blocks would likely decide at this spread"},
		{stats.SeqDecision{Outcome: stats.SeqInconclusive, Reason: stats.ReasonBudget, Blocks: 9, MoreBlocks: 11},
			"budget spent after 9 blocks (change +5.0 %, bounds −5.6 % … +12.6 %); about 11 more blocks would likely decide"},
		{stats.SeqDecision{Outcome: stats.SeqInconclusive, Reason: stats.ReasonBudget, Blocks: 9, MoreBlocks: 40},
			"budget spent after 9 blocks (change +5.0 %, bounds −5.6 % … +12.6 %); deciding would likely take more than 27 more blocks (three budgets) at this spread"},
		{stats.SeqDecision{Outcome: stats.SeqRegression, Reason: stats.ReasonBeyond, Blocks: 4},
			"worse, estimate beyond half of min_effect after 4 blocks (change +5.0 %, bounds −5.6 % … +12.6 %)"},
	} {
		f := gate.Finding{Lower: -5.6, Upper: 12.6, Look: &gate.Look{Dec: tc.dec, Change: 5, Sign: 1, MaxBlocks: 9}}
		if got := findingNote(f); got != tc.want {
			t.Errorf("note:\n got %q\nwant %q", got, tc.want)
		}
	}
}

// A metric where lower is worse (throughput) says its change and bounds
// head against base: a drop's worse-by bound of −139831.4 % (head 1399
// times the base) is a change of +139831.4 %, and the lower bound, a drop
// of 89.6 %, is −89.6 %: never below −100 %.
func TestSeqNoteChangeScale(t *testing.T) {
	t.Parallel()
	dec := stats.SeqDecision{Outcome: stats.SeqInconclusive, Reason: stats.ReasonBudget, Blocks: 9, MoreBlocks: 5}
	note := func(f gate.Finding, change float64) string {
		f.Look = &gate.Look{Dec: dec, Change: change, Sign: -1, MaxBlocks: 9}
		return findingNote(f)
	}
	want := "budget spent after 9 blocks (change −11.9 %, bounds −89.6 % … +139831.4 %); about 5 more blocks would likely decide"
	if got := note(gate.Finding{Lower: -139831.4, Upper: 89.6}, -11.9); got != want {
		t.Errorf("note:\n got %q\nwant %q", got, want)
	}
	if got := note(gate.Finding{Lower: math.Inf(-1), Upper: 20}, -11.9); !strings.Contains(got, "bounds −20.0 % … +∞") {
		t.Errorf("an unbounded bound is not turned: %q", got)
	}
	// No change of a rate, turned, is ±0.00, as the table shows it.
	if got := note(gate.Finding{Percent: true, Lower: -0.001, Upper: 0.4}, 0); !strings.Contains(got, "(change ±0.00 pp, bounds −0.40 pp … ±0.00 pp)") {
		t.Errorf("a zero change is not ±0: %q", got)
	}
}

// Gaps name the side and the blocks, runs of blocks as ranges; a cut note says what came before the gap; the reason a
// job stopped names what is missing.
func TestGapsAndStopWording(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		g    gate.Gaps
		want string
	}{
		{gate.Gaps{Head: []int{2}, Blocks: 8}, "head lacks it in block 2"},
		{gate.Gaps{Base: []int{1, 2, 3}, Blocks: 8}, "base lacks it in blocks 1–3"},
		{gate.Gaps{Base: []int{1, 2}, Head: []int{2, 3, 4, 7}, Blocks: 2}, "base lacks it in every block, head in blocks 2–4 and 7"},
		{gate.Gaps{Base: []int{5, 6, 7}, Head: []int{5, 6, 7}, Blocks: 12}, "neither side has it in blocks 5–7"},
	} {
		if got := GapsText(tc.g); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.g, got, tc.want)
		}
	}
	cut := gate.Finding{Label: "CPU/iteration", Key: "cpu", Note: "mine", Look: &gate.Look{Cut: true, Complete: 3, Gaps: gate.Gaps{Head: []int{4}, Blocks: 5}}}
	want := "not judged: head lacks it in block 4; the 3 blocks before did not decide, and blocks that lack it are not left out (what a run lacks may be the regression itself); mine"
	if got := findingNote(cut); got != want {
		t.Errorf("cut note:\n got %q\nwant %q", got, want)
	}
	s := &gate.Sequential{Blocks: 7, MaxBlocks: 12, Unit: "block", Why: gate.Why{Stop: gate.StopFinal, Labels: []string{"p95"}, Hopeless: []string{"p95"}, Missing: []string{"CPU/iteration"}}}
	want = "stopped after 7 blocks of a budget of 12; undecided: p95; deciding p95 would likely take more than 36 more blocks (three budgets); missing from some blocks: CPU/iteration"
	if got := StopReason(s); got != want {
		t.Errorf("reason:\n got %q\nwant %q", got, want)
	}
	v := gate.Verdict{Findings: []gate.Finding{cut}, Warnings: []stats.Warning{{Code: gate.WarnMissingInBlocks}}}
	if got := Warnings(v); len(got) != 1 || got[0] != "missing from some blocks, so inconclusive: CPU/iteration (head lacks it in block 4)" {
		t.Errorf("warnings %q", got)
	}
}

// What changed besides the code is said at the later job's commit, or its job number without one.
func TestEnvText(t *testing.T) {
	t.Parallel()
	for e, want := range map[gate.EnvChange]string{
		{What: "machine", From: "a", To: "b", Commit: "0123456789abcdef"}: "machine a → b (at 0123456789ab)",
		{What: "runner", To: "ubuntu-24.04", Job: "7"}:                    "runner image unknown → ubuntu-24.04 (at job 7)",
		{What: "definition", Commit: "abc"}:                               "benchmark definition changed (at abc)",
		{What: "tool", From: "k6", To: "vegeta", Commit: "abc"}:           "measured by k6 → vegeta (at abc)",
	} {
		if got := EnvText(e); got != want {
			t.Errorf("%+v: %q, want %q", e, got, want)
		}
	}
}
