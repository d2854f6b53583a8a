package gate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// blockPairs draws blocks of w window pairs of CPU per iteration: both
// sides' processes have a level of their own for the block (log-sd bias,
// what two processes of one build differ by), each window adds noise cv.
func blockPairs(rng *rand.Rand, blocks, w int, cv, bias, headScale float64) (base, head []result.Run, of []int) {
	for b := range blocks {
		lb, lh := bias*rng.NormFloat64(), bias*rng.NormFloat64()
		for range w {
			base = append(base, run(map[string]float64{cpu: 2 * math.Exp(lb+cv*rng.NormFloat64())}))
			head = append(head, run(map[string]float64{cpu: 2 * headScale * math.Exp(lh+cv*rng.NormFloat64())}))
			of = append(of, b)
		}
	}
	return base, head, of
}

// geoJoin is a block's run of windows that hold only metrics (no counts
// for result.Combine): each metric the geometric mean of the windows'.
// It is the simulations' hottest code (every look joins each block's
// leave-one-out replicates), so it takes one root of the product rather
// than a logarithm a window: the windows' values (0.1 to 10⁴) are far from
// overflowing a product of a block's few.
func geoJoin(windows []result.Run) result.Run {
	m := make(map[string]float64, len(windows[0].Metrics))
	for key := range windows[0].Metrics {
		prod := 1.0
		for _, w := range windows {
			prod *= w.Metrics[key]
		}
		m[key] = math.Pow(prod, 1/float64(len(windows)))
	}
	return run(m)
}

// blockRuns are the runs of the blocks the windows make (geoJoin).
func blockRuns(windows []result.Run, of []int) []result.Run {
	var out []result.Run
	for start := 0; start < len(windows); {
		end := start
		for end < len(windows) && of[end] == of[start] {
			end++
		}
		out = append(out, geoJoin(windows[start:end]))
		start = end
	}
	return out
}

// windowed is the block runs of base and head windows and the windows
// themselves, as the runner hands them to the verdict.
func windowed(base, head []result.Run, of []int) (b, h []result.Run, o SeqOptions) {
	return blockRuns(base, of), blockRuns(head, of), SeqOptions{Windows: &result.WindowPairs{Base: base, Head: head, Block: of, Join: geoJoin}}
}

// judgeBlocks calls the verdict after every block, as the job loop does.
func judgeBlocks(base, head []result.Run, blocks []int, p Policy, d stats.SeqDesign) Verdict {
	b, h, o := windowed(base, head, blocks)
	for n := 1; ; n++ {
		v := JudgeSequential(b[:n], h[:n], p, d, n == len(b), o)
		if v.Sequential.Done {
			return v
		}
	}
}

// Judged by blocks, a process bias shared by a block's windows is noise
// the verdict sees: A/A jobs whose two processes differ by a few percent
// per block keep the false-alarm rate at α. Judged as if every window pair
// were independent, the same data cry wolf far more often.
func TestBlocksKeepTheLevelUnderAProcessBias(t *testing.T) {
	t.Parallel()
	p := Policy{Metrics: []string{cpu}, MinEffect: map[string]float64{cpu: 3}}
	d := stats.SeqDesign{MinBlocks: 3, MaxBlocks: 8}
	rng := rand.New(rand.NewPCG(21, 1))
	const jobs = 600
	byBlock, byPair := 0, 0
	for range jobs {
		base, head, blocks := blockPairs(rng, 8, 3, 0.03, 0.05, 1)
		if judgeBlocks(base, head, blocks, p, d).Outcome == Regression {
			byBlock++
		}
		pairs := stats.SeqDesign{MinBlocks: 9, MaxBlocks: 24}
		if judgeLoop(base, head, p, pairs).Outcome == Regression {
			byPair++
		}
	}
	t.Logf("A/A with a 5 %% process bias per block: %d of %d false alarms judged by block, %d judged by window pair", byBlock, jobs, byPair)
	if float64(byBlock)/jobs > 0.05+0.025 { // α plus 3 Monte Carlo SEs
		t.Errorf("judged by block: %d of %d false alarms, want ≤ 5 %%", byBlock, jobs)
	}
	if byPair <= 2*byBlock {
		t.Errorf("judged by window pair: %d false alarms, not clearly more than by block (%d): the test does not show what blocks are for", byPair, byBlock)
	}
}

// The units are the blocks' runs, and the verdict's figures say so: units
// are blocks (of 15 window pairs here), the estimate the mean log
// difference of the blocks, the base and head centres the geometric means
// whose ratio it is.
func TestBlocksAreTheUnits(t *testing.T) {
	t.Parallel()
	wb, wh, blocks := blockPairs(rand.New(rand.NewPCG(21, 2)), 5, 3, 0.02, 0.01, 1.4)
	base, head, o := windowed(wb, wh, blocks)
	v := JudgeSequential(base, head, Policy{Metrics: []string{cpu}}, stats.SeqDesign{MinBlocks: 3, MaxBlocks: 5}, true, o)
	s := v.Sequential
	if s.Unit != "block" || s.Blocks != 5 || s.RunPairs != 15 || s.UnitWord(5) != "blocks" {
		t.Fatalf("sequential %+v: want 5 blocks of 15 window pairs", s)
	}
	f, _ := finding(v, cpu)
	if f.Outcome != MetricRegression || f.Center != "geometric mean" {
		t.Fatalf("+40 %% CPU: %s, centre %q", f.Outcome, f.Center)
	}
	if got := 100 * (f.HeadCenter/f.BaseCenter - 1); math.Abs(got-f.Change) > 1e-9 {
		t.Errorf("change %+.4f %% is not head against base of the centres shown (%+.4f %%)", f.Change, got)
	}
	noise, ok := v.Noise[cpu]
	if !ok || noise.DF != 4 || !(noise.SD > 0) {
		t.Errorf("the job's own noise %+v, want the spread of 5 blocks (4 degrees of freedom)", noise)
	}
	// A block that lacks the metric (one of its windows did) cuts the
	// blocks judged to the two before it.
	gapped := slices.Clone(head)
	gapped[2] = run(map[string]float64{})
	v = JudgeSequential(base, gapped, Policy{Metrics: []string{cpu}}, stats.SeqDesign{MinBlocks: 3, MaxBlocks: 5}, true, o)
	if f, _ := finding(v, cpu); f.Outcome != MetricInconclusive {
		t.Errorf("a metric missing from block 3 after two whole blocks: %s, want inconclusive", f.Outcome)
	}
}

// The look says how much of the blocks' spread their windows explain: the
// noise within them (8 windows of cv 8 % a side: √2·8/√8 = 4 % a block's
// change), apart from what the blocks' processes differ by (3 % a side:
// 4.2 %), which longer blocks would not narrow.
func TestLookSplitsTheSpreadIntoWindowsAndBetweenBlocks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bias, between float64
	}{{0.03, math.Sqrt2 * 0.03}, {0, 0}} {
		wb, wh, blocks := blockPairs(rand.New(rand.NewPCG(21, 3)), 60, 8, 0.08, tc.bias, 1)
		base, head, o := windowed(wb, wh, blocks)
		v := JudgeSequential(base, head, Policy{Metrics: []string{cpu}}, stats.SeqDesign{MinBlocks: 60, MaxBlocks: 60}, true, o)
		f, _ := finding(v, cpu)
		if f.Look == nil {
			t.Fatalf("bias %g: no look", tc.bias)
		}
		own, windows := f.Look.Dec.OwnSpread, f.Look.WindowsSD
		between := math.Sqrt(math.Max(own*own-windows*windows, 0))
		t.Logf("bias %g: blocks spread %.4f, windows %.4f, between %.4f", tc.bias, own, windows, between)
		if math.Abs(windows-0.04) > 0.004 { // the jackknife over 420 window pairs: about 3 % of it
			t.Errorf("bias %g: the windows explain %.4f of a block's change, want 0.040 ± 0.004", tc.bias, windows)
		}
		if math.Abs(between-tc.between) > 0.015 { // 59 blocks' own spread: about 9 % of it
			t.Errorf("bias %g: %.4f lies between blocks, want %.3f ± 0.015", tc.bias, between, tc.between)
		}
	}
}
