package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/gate"
	pl "github.com/tailgate-ci/tailgate/internal/plural"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// The sentences of a sequential A/B verdict, worded from the facts gate returns (gate.Why, gate.Look, gate.Gaps).

// StopReason is why a sequential job stopped or goes on; a report read back has only the words (Reason).
func StopReason(s *gate.Sequential) string {
	w, after, labels := s.Why, fmt.Sprintf("after %d %s", s.Blocks, s.UnitWord(s.Blocks)), strings.Join(s.Why.Labels, ", ")
	if w.Stop == 0 {
		return s.Reason
	}
	gaps := len(w.Missing) > 0
	r := [...]string{gate.StopBadDesign: "the sequential design cannot be used", gate.StopNoBlocks: "no blocks yet",
		gate.StopRegression: "regression " + after + " in " + labels, gate.StopFirstLook: fmt.Sprintf("%d of at least %d %s", s.Blocks, s.MinBlocks, s.UnitWord(s.MinBlocks)),
		gate.StopNoneMeasured: "no gated metric was measured" + map[bool]string{true: " in every block"}[gaps],
		gate.StopDecided:      "every" + map[bool]string{true: " other"}[gaps] + " gated metric decided " + after,
		gate.StopBudget:       fmt.Sprintf("budget of %d %s spent; undecided: %s", s.MaxBlocks, s.UnitWord(s.MaxBlocks), labels),
		gate.StopFinal:        fmt.Sprintf("stopped %s of a budget of %d; undecided: %s", after, s.MaxBlocks, labels),
		gate.StopUndecided:    "undecided " + after + ": " + labels}[w.Stop]
	if len(w.Hopeless) > 0 {
		r += fmt.Sprintf("; deciding %s would likely take more than %d more %s (three budgets)", strings.Join(w.Hopeless, ", "), 3*s.MaxBlocks, s.UnitWord(2))
	}
	return r + map[bool]string{true: "; missing from some blocks: " + strings.Join(w.Missing, ", ")}[gaps]
}

// findingNote is a finding's note: what its sequential look showed, the rest (Note), and that the job stopped first.
func findingNote(f gate.Finding) string {
	if f.Look == nil {
		return f.Note
	}
	notes := []string{lookNote(f, *f.Look), f.Note}
	if f.Look.Stopped != nil {
		notes = append(notes, "not decided when the job stopped ("+StopReason(f.Look.Stopped)+")")
	}
	return strings.Join(slices.DeleteFunc(notes, func(s string) bool { return s == "" }), "; ")
}

// lookNote says which blocks lack a metric, which left it unjudged; or the decision and its look, with an exact
// count's value on each side, or the change with its bounds head against base (a ratio's never below −100 %) and, for
// an undecided budget, how many more blocks would likely decide.
func lookNote(f gate.Finding, l gate.Look) string {
	gaps, dec, change, blocks := GapsText(l.Gaps), l.Dec, formatDiff(l.Change, f.Percent), pl.Count(l.Dec.Blocks, "block", "blocks")
	switch {
	case l.Cut && l.Complete == 0:
		return "not judged: " + gaps
	case l.Cut:
		return fmt.Sprintf("not judged: %s; %s before did not decide, and blocks that lack it are not left out (what a run lacks may be the regression itself)",
			gaps, pl.Of(l.Complete, "the block", fmt.Sprintf("the %d blocks", l.Complete)))
	}
	s := fmt.Sprintf("%s after %s", map[bool]stats.SeqReason{true: stats.ReasonBudget, false: dec.Reason}[dec.Reason == stats.ReasonBudgetAtThreshold], blocks)
	if l.Exact {
		per := " " + f.Unit
		if rest, ok := strings.CutPrefix(f.Unit, "/"); ok {
			per = " per " + rest
		}
		if math.Abs(l.Change) < 0.05 {
			change = "±0.0 %"
		}
		s = fmt.Sprintf("%s: exact count, %s → %s%s in each of the first %s (%s)", dec.Reason, countText(f.BaseCenter), countText(f.HeadCenter), strings.TrimRight(per, " "), blocks, change)
	} else if !math.IsNaN(f.Lower) && !math.IsNaN(f.Upper) {
		lo, hi := l.Sign*f.Lower, l.Sign*f.Upper
		if l.Sign < 0 {
			lo, hi = hi, lo
		}
		s += fmt.Sprintf(" (change %s, bounds %s … %s)", change, formatDiff(lo, f.Percent), formatDiff(hi, f.Percent))
	}
	switch more := dec.MoreBlocks; {
	case dec.Outcome != stats.SeqInconclusive || l.Exact:
	case dec.Reason == stats.ReasonBudgetAtThreshold:
		s += "; no practical number of blocks would likely decide at this spread"
	case more > 0 && more <= 3*l.MaxBlocks:
		s += fmt.Sprintf("; about %d more %s would likely decide", more, pl.Of(more, "block", "blocks"))
	default:
		s += fmt.Sprintf("; deciding would likely take more than %d more blocks (three budgets) at this spread", 3*l.MaxBlocks)
	}
	return s + map[bool]string{true: "; " + gaps + ", after the decision"}[len(l.Gaps.Base)+len(l.Gaps.Head) > 0]
}

func countText(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	if r := math.Round(x); math.Abs(x-r) < 0.005 {
		s = fmt.Sprintf("%.0f", r)
	}
	return strings.Replace(s, "-", "−", 1)
}

// GapsText says which side lacks a metric in which blocks: "head lacks it in block 3", "base lacks it in every block,
// head in blocks 2–4 and 7".
func GapsText(g gate.Gaps) string {
	if len(g.Base) > 0 && slices.Equal(g.Base, g.Head) {
		return "neither side has it in " + blockList(g.Base, g.Blocks)
	}
	var parts []string
	for i, side := range [][]int{g.Base, g.Head} {
		if len(side) > 0 {
			verb := map[bool]string{true: " lacks it in ", false: " in "}[len(parts) == 0]
			parts = append(parts, [2]string{"base", "head"}[i]+verb+blockList(side, g.Blocks))
		}
	}
	return strings.Join(parts, ", ")
}

// blockList names block numbers ("block 2", "blocks 4–12"), runs of them as ranges.
func blockList(ps []int, of int) string {
	switch {
	case len(ps) == of && of > 1:
		return "every block"
	case len(ps) == 1:
		return fmt.Sprintf("block %d", ps[0])
	}
	var spans []string
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		spans, i = append(spans, fmt.Sprint(ps[i])+map[bool]string{true: fmt.Sprintf("–%d", ps[j])}[j > i]), j+1
	}
	return "blocks " + joinAnd(spans)
}

// Cut names the gated metrics a gap left undecided, with where ("CPU/iteration (head lacks it in block 2)"); with
// keys, only those (gate.Verdict.Incomplete).
func Cut(v gate.Verdict, keys []string) []string {
	var out []string
	for _, f := range v.Findings {
		if f.Look != nil && f.Look.Cut && (keys == nil || slices.Contains(keys, f.Key)) {
			out = append(out, f.Label+" ("+GapsText(f.Look.Gaps)+")")
		}
	}
	return out
}

// Warnings are the verdict's warnings, those gate leaves to report worded here.
func Warnings(v gate.Verdict) []string {
	out := stats.Messages(v.Warnings)
	for i, w := range v.Warnings {
		if w.Code == gate.WarnMissingInBlocks && w.Message == "" {
			out[i] = "missing from some blocks, so inconclusive: " + strings.Join(Cut(v, nil), "; ")
		}
	}
	return out
}

func detectNote(d gate.Detectable) string {
	if d.Cut == nil {
		return d.Note
	}
	return "not judged: " + GapsText(*d.Cut)
}
