package gate

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// A gated metric one side measured and the other lost, left undecided,
// makes the verdict incomplete, naming the metric, the side and the
// units; with AllowMissing it is only inconclusive, as before. A gap both
// sides share (neither measured it there) and a gap after the decision
// make nothing incomplete. Fixed seeds.
func TestSequentialLostFigureMakesTheVerdictIncomplete(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		seed      uint64
		headScale float64
		lose      func(base, head []result.Run)
		allow     bool
		want      string // in Incomplete; "" for none
	}{
		{"head lost pair 2", 71, 1.3, func(b, h []result.Run) { withoutCPU(h, 1) }, false, cpu},
		{"base lost pairs 1–3 (a stopped base)", 72, 1, func(b, h []result.Run) { withoutCPU(b, 0, 1, 2) }, false, cpu},
		{"allowed", 71, 1.3, func(b, h []result.Run) { withoutCPU(h, 1) }, true, ""},
		{"both lost pair 2", 73, 1.3, func(b, h []result.Run) { withoutCPU(b, 1); withoutCPU(h, 1) }, false, ""},
		{"after the decision", 62, 1.3, func(b, h []result.Run) { withoutCPU(h, 11) }, false, ""},
	} {
		base, head := cpuPairs(rand.New(rand.NewPCG(tc.seed, 1)), 20, 0.01, tc.headScale)
		tc.lose(base, head)
		v := judgeLoop(base, head, Policy{Metrics: seqMetrics, AllowMissing: tc.allow}, stats.SeqDesign{})
		got := strings.Join(v.Incomplete, "; ")
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: incomplete %q, want none (verdict %s)", tc.name, got, v.Outcome)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: incomplete %q, want %q (verdict %s)", tc.name, got, tc.want, v.Outcome)
		}
		if tc.want != "" && v.Outcome == Pass {
			t.Errorf("%s: an incomplete verdict passes", tc.name)
		}
	}
}
