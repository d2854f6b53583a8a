package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

func cutNote(g pairGaps, complete int) string {
	s := "not judged: " + g.String()
	if complete == 0 {
		return s
	}
	before := "the block"
	if complete > 1 {
		before = fmt.Sprintf("the %d blocks", complete)
	}
	return s + "; " + before + " before did not decide, and blocks that lack it are not left out (what a run lacks may be the regression itself)"
}

// pairGaps are the pairs (1-based) of a job that lack a metric on each
// side, out of pairs.
type pairGaps struct {
	base, head []int
	pairs      int
}

func gapsOf(base, head []result.Run, key string) pairGaps {
	g := pairGaps{pairs: min(len(base), len(head))}
	for i := range g.pairs {
		if _, ok := base[i].Value(key); !ok {
			g.base = append(g.base, i+1)
		}
		if _, ok := head[i].Value(key); !ok {
			g.head = append(g.head, i+1)
		}
	}
	return g
}

func (g pairGaps) any() bool { return len(g.base)+len(g.head) > 0 }

// tail reports whether both sides lack the metric in the same last pairs
// and in no other: a phase that later blocks left out once its metrics
// had decided (runner.ABPlan.SkipPhase).
func (g pairGaps) tail() bool {
	first := g.first()
	return first > 0 && slices.Equal(g.base, g.head) && len(g.base) == g.pairs-first+1
}

// first is the first pair that lacks the metric on either side, 0 when
// every pair has it.
func (g pairGaps) first() int {
	if !g.any() {
		return 0
	}
	return slices.Min(append(slices.Clone(g.base), g.head...))
}

// String says which side lacks the metric in which pairs: "head lacks it
// in block 3", "base lacks it in every block, head in blocks 2–4 and 7".
func (g pairGaps) String() string {
	if len(g.base) > 0 && slices.Equal(g.base, g.head) {
		return "neither side has it in " + unitList(g.base, g.pairs)
	}
	var parts []string
	for i, side := range [][]int{g.base, g.head} {
		if len(side) > 0 {
			verb := " in "
			if len(parts) == 0 {
				verb = " lacks it in "
			}
			parts = append(parts, [2]string{"base", "head"}[i]+verb+unitList(side, g.pairs))
		}
	}
	return strings.Join(parts, ", ")
}

// unitList names unit numbers ("block 2", "blocks 4–12"), runs of them
// as ranges.
func unitList(ps []int, of int) string {
	unit := blockUnit
	switch {
	case len(ps) == of && of > 1:
		return "every " + unit
	case len(ps) == 1:
		return fmt.Sprintf("%s %d", unit, ps[0])
	}
	var spans []string
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		s := fmt.Sprint(ps[i])
		if j > i {
			s += fmt.Sprintf("–%d", ps[j])
		}
		spans, i = append(spans, s), j+1
	}
	if len(spans) == 1 {
		return unit + "s " + spans[0]
	}
	return unit + "s " + strings.Join(spans[:len(spans)-1], ", ") + " and " + spans[len(spans)-1]
}

// gapWarnings say once which gated metrics a gap left inconclusive.
func gapWarnings(looks []seqLook) []stats.Warning {
	if cut := cutLabels(looks, false); len(cut) > 0 {
		return []stats.Warning{stats.Warn(WarnMissingInBlocks, "missing from some blocks, so inconclusive: "+strings.Join(cut, "; "))}
	}
	return nil
}

// cutLabels names the gated metrics a gap left undecided, with where
// ("CPU/iteration (head lacks it in block 2)"); lost: only those one side
// lost (a stopped process, a lost sample), which a pass must not hide.
func cutLabels(looks []seqLook, lost bool) []string {
	var out []string
	for _, l := range looks {
		if l.cut && (!lost || !slices.Equal(l.gaps.base, l.gaps.head)) {
			out = append(out, l.finding.Label+" ("+l.gaps.String()+")")
		}
	}
	return out
}
