package gate

import (
	"slices"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Gaps are the blocks (1-based) of a job that lack a metric on each side, out of Blocks (worded by report.GapsText).
type Gaps struct {
	Base, Head []int
	Blocks     int
}

func gapsOf(base, head []result.Run, key string) Gaps {
	g := Gaps{Blocks: min(len(base), len(head))}
	for i := range g.Blocks {
		if _, ok := base[i].Value(key); !ok {
			g.Base = append(g.Base, i+1)
		}
		if _, ok := head[i].Value(key); !ok {
			g.Head = append(g.Head, i+1)
		}
	}
	return g
}

func (g Gaps) any() bool { return len(g.Base)+len(g.Head) > 0 }

// tail reports whether both sides lack the metric in the same last pairs
// and in no other: a phase that later blocks left out once its metrics
// had decided (runner.ABPlan.SkipPhase).
func (g Gaps) tail() bool {
	first := g.first()
	return first > 0 && slices.Equal(g.Base, g.Head) && len(g.Base) == g.Blocks-first+1
}

// first is the first pair that lacks the metric on either side, 0 when
// every pair has it.
func (g Gaps) first() int {
	if !g.any() {
		return 0
	}
	return slices.Min(append(slices.Clone(g.Base), g.Head...))
}

// gapWarnings say once that a gap left gated metrics inconclusive; report words which (Look.Cut).
func gapWarnings(looks []seqLook) []stats.Warning {
	if slices.ContainsFunc(looks, func(l seqLook) bool { return l.cut }) {
		return []stats.Warning{{Code: WarnMissingInBlocks}}
	}
	return nil
}

// lost are the keys of the gated metrics a gap left undecided that one side lost (a stopped process, a lost sample),
// which a pass must not hide.
func lost(looks []seqLook) (keys []string) {
	for _, l := range looks {
		if l.cut && !slices.Equal(l.gaps.Base, l.gaps.Head) {
			keys = append(keys, l.mp.meta.Key)
		}
	}
	return keys
}
