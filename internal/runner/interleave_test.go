package runner

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// The interleaved design: every block starts both sides afresh (restart)
// or keeps them for the job, resets each side's dataset once per phase of
// the block, and alternates windows AB BA … with the first side
// alternating from block to block; a block gives windows pairs of runs,
// each marked with its block, each run one window of every phase.
func TestRunABInterleavedBlocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, restart := range []bool{true, false} {
		t.Run(map[bool]string{true: "restart", false: "kept"}[restart], func(t *testing.T) {
			t.Parallel()
			base, head := serviceTarget(t, dir+"/b"+map[bool]string{true: "r", false: "k"}[restart]+".env"), serviceTarget(t, dir+"/h"+map[bool]string{true: "r", false: "k"}[restart]+".env")
			r := abBenchmark(t, base.URL)
			r.Config.Load.Phases = []config.Phase{
				{Name: "capacity", Model: config.ModelClosed, VUs: 2},
				{Name: "latency", Model: config.ModelOpen, Rate: config.Rate{PerSecond: 50}, MaxInflight: 8},
			}
			l := &look{}
			plan := ABPlan{Base: base, Head: head, Order: config.OrderABBA, MaxPairs: 3, Restart: restart, Look: l.look,
				Design: config.DesignInterleaved, Windows: 2, Window: 150 * time.Millisecond, WindowWarmup: 20 * time.Millisecond}
			res, err := r.RunAB(context.Background(), plan)
			if err != nil {
				t.Fatal(err)
			}
			if res.Units() != 3 || res.Pairs() != 6 || res.Budget != "pairs" || !slices.Equal(res.Blocks, []int{0, 0, 1, 1, 2, 2}) {
				t.Fatalf("%d blocks of %d pairs, blocks %v, budget %q; want 3 blocks of 2 pairs", res.Units(), res.Pairs(), res.Blocks, res.Budget)
			}
			if !slices.Equal(l.pairs, []int{2, 4, 6}) || !slices.Equal(l.final, []bool{false, false, true}) {
				t.Errorf("looks after %v pairs, final %v: want one look per block", l.pairs, l.final)
			}
			// Two phases of 2 windows a side: 8 windows a block, in AB BA
			// order, the first side flipping each block.
			wantBlock := func(first Side) []Side {
				var o []Side
				for range 2 { // phases
					o = append(o, first, 1-first, 1-first, first)
				}
				return o
			}
			want := slices.Concat(wantBlock(Base), wantBlock(Head), wantBlock(Base))
			if !slices.Equal(res.Order, want) {
				t.Errorf("window order %v, want %v", res.Order, want)
			}
			for i, run := range res.Head.Runs {
				if len(run.Phases) != 2 || run.Phases[0].Name != "capacity" || run.Phases[1].Name != "latency" || run.Index != i {
					t.Errorf("head run %d: index %d, phases %v; want one window of each phase", i, run.Index, run.Phases)
				}
				if w := run.Phases[0].Window; w < 0.1 || w > 1 { // seconds
					t.Errorf("head run %d measured a %v window, want about 150 ms", i, w)
				}
			}
			for side, log := range map[string]string{"base": res.Base.TargetLog, "head": res.Head.TargetLog} {
				want := map[bool]int{true: 3, false: 1}[restart] // a process per block, or one for the job
				if pids := startedPIDs(t, log); len(slices.Compact(slices.Sorted(slices.Values(pids)))) != want || len(pids) != want {
					t.Errorf("%s started as %v, want %d processes", side, pids, want)
				}
			}
			if res.Spent[TimeMeasured] < 6*2*2*150*time.Millisecond || res.Spent[TimeStart] <= 0 || res.Spent[TimePrepare] <= 0 {
				t.Errorf("time by stage %v: want at least the 24 measured windows, the starts and the resets", res.Spent)
			}
		})
	}
}

// The dataset is reset once per side and phase of a block, not per window.
func TestRunABInterleavedResetsPerBlock(t *testing.T) {
	base, head := newService(t), newService(t)
	plan := ABPlan{Base: config.Target{URL: base.URL}, Head: config.Target{URL: head.URL}, Order: config.OrderRandom, MaxPairs: 2,
		Design: config.DesignInterleaved, Windows: 3, Window: 100 * time.Millisecond}
	res, err := (&Benchmark{Config: benchConfig(base.URL, 1)}).RunAB(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pairs() != 6 {
		t.Fatalf("%d pairs, want 2 blocks of 3", res.Pairs())
	}
	for name, s := range map[string]*service{"base": base, "head": head} {
		if n := s.resets.Load(); n != 2 {
			t.Errorf("%s reset %d times for 2 blocks of one phase, want 2", name, n)
		}
	}
	for k := 0; k < len(res.Order); k += 2 { // random order: still one window of each side per window pair
		if res.Order[k] == res.Order[k+1] {
			t.Errorf("window pair %d is %v %v", k/2, res.Order[k], res.Order[k+1])
		}
	}
}
