package runner

import (
	"context"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// A side's work per iteration is still falling while its last slice is
// more than settleFall below every slice before it, or has nothing to be
// compared with; a side without figures decides nothing.
func TestStillFalling(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		seen [2][]float64
		want bool
	}{
		{"first slice", [2][]float64{{3}, {3}}, true},
		{"both fell 30 %", [2][]float64{{3, 2.1}, {3, 2.1}}, true},
		{"head still falls", [2][]float64{{3, 2, 2}, {3, 2.4, 2}}, true},
		{"both flat", [2][]float64{{3, 2, 1.95}, {3, 2.1, 2.05}}, false},
		{"a slow slice then a normal one", [2][]float64{{2, 2.6, 2.0}, {2, 2, 2}}, false},
		{"no figures", [2][]float64{}, false},
		{"one side's figures", [2][]float64{nil, {2, 2}}, false},
	} {
		if got := stillFalling(c.seen); got != c.want {
			t.Errorf("%s %v: still falling %v, want %v", c.name, c.seen, got, c.want)
		}
	}
}

// The slices still cold are those after load.warmup's up to the last one
// more than settleFall above the level the side settled at (the median of
// the slices from its last fall on), none after that fall; a slice that
// came out low or high by chance moves nothing.
func TestColdSlices(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		seen [2][]float64
		want int
	}{
		{"settled at once", [2][]float64{{6.8, 6.7}, {6.3, 6.5}}, 0},
		{"a slice low by chance", [2][]float64{{6.84, 6.0, 6.70}, {6.30, 6.9, 7.13}}, 0},
		{"load.warmup's slice alone cold", [2][]float64{{8, 6.1, 6.0}, {8, 6.2, 6.0}}, 0},
		{"two cold slices on the head", [2][]float64{{8, 6.1, 6.0, 6.0}, {9, 8, 7, 6.1}}, 2},
		{"the last slice high by chance", [2][]float64{{8, 5, 3.6, 3.0, 3.4}, {8, 5, 3.6, 3.0, 3.1}}, 2},
		{"no figures", [2][]float64{}, 0},
		// the demo's A/A: the base fell once, the head's slow slice came after no fall
		{"a flat side's slow slice", [2][]float64{{24.15, 20.66, 21.54}, {22.66, 24.94, 21.80}}, 0},
		{"a slice low by chance after the others", [2][]float64{{22, 21.5, 19.0, 21.4}, {22, 21.8, 21.6, 21.5}}, 0},
		{"cost falling for 3 slices", [2][]float64{{10, 8, 6.4, 5.1, 5.0, 5.05}, {10, 8, 6.4, 5.1, 5.0, 5.05}}, 2},
		// Node 20 (bench/jit): JIT-compiled code gets faster for 2 s, the head's a tier more
		{"a JIT runtime", [2][]float64{{0.188, 0.117, 0.0505, 0.0506, 0.0506}, {0.22, 0.174, 0.0952, 0.0853, 0.0855}}, 2},
	} {
		if got := coldSlices(c.seen); got != c.want {
			t.Errorf("%s %v: %d cold slices, want %d", c.name, c.seen, got, c.want)
		}
	}
}

// The first block warms up past load.warmup while the sides still get
// cheaper per iteration, and no window of any block is measured cold,
// though every block starts both sides afresh: later blocks warm up as
// long as the first found, which the result keeps for the report.
func TestRunABWarmsUpUntilTheSidesSettle(t *testing.T) {
	t.Parallel()
	// the extra work halves every 500 ms: from 40 times the settled work
	// at the start to about as much again in the slice ending at 3.2 s
	const halfLife = 500 * time.Millisecond
	dir := t.TempDir()
	base, head := serviceTarget(t, dir+"/base.env"), serviceTarget(t, dir+"/head.env")
	base.Start.Env[warmingEnv], head.Start.Env[warmingEnv] = halfLife.String(), halfLife.String()
	b := abBenchmark(t, base.URL)
	b.Config.Load.Warmup = config.Duration(200 * time.Millisecond)
	plan := ABPlan{Base: base, Head: head, Order: config.OrderABBA, MaxBlocks: 2, Restart: true,
		Shape: Shape{Windows: 2, Window: 300 * time.Millisecond}}
	res, err := b.RunAB(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warmups) != 1 {
		t.Fatalf("warm-ups found %+v, want one for the one phase", res.Warmups)
	}
	w := res.Warmups[0]
	t.Logf("warm-up found: %+v", w)
	if w.Found < 4*halfLife || w.Found > settleMin || w.Capped || w.Metric != result.CPUPerIteration || w.Configured != 200*time.Millisecond ||
		len(w.Slices[Base]) < 3 || w.Slices[Base][0] < 3*w.Slices[Base][len(w.Slices[Base])-1] ||
		len(w.Slices[Head]) < 3 || w.Slices[Head][0] < 3*w.Slices[Head][len(w.Slices[Head])-1] {
		t.Errorf("warm-up found %+v; want at least %s (4 half-lives of the slow start) of CPU per iteration falling several times, not capped", w, 4*halfLife)
	}
	for side, windows := range [][]result.Run{res.Windows.Base, res.Windows.Head} {
		for i, run := range windows {
			cpu, ok := run.Value(result.CPUPerIteration)
			vs := w.Slices[side]
			if midway := (vs[0] + vs[len(vs)-1]) / 2; !ok || cpu >= midway {
				t.Errorf("side %d window %d: CPU per iteration %.3f ms (measured %v), not below %.3f: measured cold", side, i, cpu, ok, midway)
			}
		}
	}
}
