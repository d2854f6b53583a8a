package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// runInterleaved is the interleaved design (config.DesignInterleaved):
// block after block, both sides started for the block (unless kept for
// the job), then for each phase both datasets reset, verified and
// drained once and the phase measured in plan.Windows short windows of
// each side, alternating between them; after the last phase both drain.
// Window w of every phase makes side's run w of the block, so a block
// gives plan.Windows pairs of runs, all marked with the block
// (ABResult.Blocks). plan.Look is called after every block.
//
// Adjacent windows of the two sides are seconds apart, so noise of the
// machine slower than that moves both alike and cancels in their
// difference, while starting both sides afresh for each block keeps what
// two processes of one build differ by a noise between blocks, which the
// verdict (judging blocks) sees.
func (j *abJob) runInterleaved(ctx context.Context) (*ABResult, error) {
	began := time.Now()
	rng := rand.New(rand.NewPCG(uint64(j.b.Config.Seed), 0x1e))
	for blk := 0; blk < j.plan.MaxPairs; blk++ {
		base, head, err := j.block(ctx, blk, rng)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", blk+1, err)
		}
		for w := range base {
			base[w].Index, head[w].Index = len(j.res.Base.Runs), len(j.res.Head.Runs)
			j.res.Base.Runs = append(j.res.Base.Runs, base[w])
			j.res.Head.Runs = append(j.res.Head.Runs, head[w])
			j.res.Blocks = append(j.res.Blocks, blk)
		}
		if j.unitDone(blk+1, began) {
			break
		}
	}
	return j.res, nil
}

// block measures one block and returns each side's runs of it, window by
// window.
func (j *abJob) block(ctx context.Context, blk int, rng *rand.Rand) (base, head []result.Run, err error) {
	tgts, stop, err := j.blockTargets(ctx)
	defer stop()
	if err != nil {
		return nil, nil, err
	}
	phases := j.b.Config.Load.RunPhases()
	windows := max(j.plan.Windows, 1)
	// measured[side][w] holds window w of every phase so far.
	measured := map[Side][][]result.Phase{Base: make([][]result.Phase, windows), Head: make([][]result.Phase, windows)}
	order := j.windowOrder(blk, windows, rng)
	for _, ph := range phases {
		// One login per virtual user and side for the phase's windows:
		// the processes are the block's, so their tokens hold.
		setups := map[Side]*load.SetupCache{Base: {}, Head: {}}
		for _, side := range order[:2] { // each side's dataset once per phase of the block
			if err := j.b.prepare(ctx, tgts[side], j.runIndex(blk, 0)); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", side, err)
			}
		}
		for k, side := range order {
			w := k / 2
			run, err := j.window(ctx, tgts[side], side, ph, blk, w, setups[side])
			if err != nil {
				return nil, nil, fmt.Errorf("%s window %d: %w", side, w+1, err)
			}
			measured[side][w] = append(measured[side][w], result.Phase{Name: ph.Name, Run: *run})
			j.res.Order = append(j.res.Order, side)
		}
	}
	for _, side := range order[:2] {
		if err := j.b.drainAfter(ctx, tgts[side], j.runIndex(blk, 0)); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", side, err)
		}
	}
	return mergeWindows(measured[Base]), mergeWindows(measured[Head]), nil
}

// blockTargets are the two sides' targets for a block: those kept for the
// job, else started now; stop stops those started for the block.
func (j *abJob) blockTargets(ctx context.Context) (map[Side]*running, func(), error) {
	tgts := map[Side]*running{}
	var started []*running
	stop := func() {
		for _, t := range started {
			j.stop(t)
		}
	}
	for _, side := range []Side{Base, Head} {
		if t := j.kept[side]; t != nil {
			tgts[side] = t
			continue
		}
		t, err := j.start(ctx, side)
		if err != nil {
			return nil, stop, fmt.Errorf("starting %s: %w", side, err)
		}
		if !j.restartable(side) {
			j.keep(side, t) // started elsewhere: the same one for every block
		} else {
			started = append(started, t)
		}
		tgts[side] = t
	}
	return tgts, stop, nil
}

// windowOrder is the order of a block's 2·windows windows: AB BA AB … with
// the first side alternating from block to block ("abba"), or each window
// pair in a seeded random order ("random").
func (j *abJob) windowOrder(blk, windows int, rng *rand.Rand) []Side {
	order := make([]Side, 0, 2*windows)
	for w := 0; w < windows; w++ {
		first := Side((blk + w) % 2)
		if j.plan.Order == config.OrderRandom {
			first = Side(rng.IntN(2))
		}
		order = append(order, first, 1-first)
	}
	return order
}

// window measures one window of phase ph on side's target: the phase's
// warm-up before a side's first window of the phase in the block, the
// short window warm-up before the others; no reset in between, so a
// window sees the writes of the block's windows before it (both sides
// alike, in the alternating order).
func (j *abJob) window(ctx context.Context, tgt *running, side Side, ph config.PhaseLoad, blk, w int, setup *load.SetupCache) (*result.Run, error) {
	i := j.runIndex(blk, w)
	obs := j.b.observer()
	label := fmt.Sprintf("%s, window %d of %d", side, w+1, max(j.plan.Windows, 1))
	if j.plan.AA {
		label = "base as " + label
	}
	if ph.Name != "" {
		label += ", " + ph.Name
	}
	obs.RunStarted(2*blk+int(side), 2*j.plan.MaxPairs, label)
	if err := tgt.exited(); err != nil {
		obs.RunDone(i, nil, err)
		return nil, err
	}
	pw := phaseWindow{duration: j.plan.Window, setup: setup}
	if w > 0 {
		pw.warmup = j.plan.WindowWarmup
		if pw.warmup <= 0 {
			pw.warmup = time.Millisecond // the load needs a start; no warm-up to speak of
		}
	}
	plan := j.compiled
	run, err := j.b.measurePhase(ctx, plan, tgt, i, ph, phaseClock{}, pw)
	if err == nil {
		err = tgt.exited()
	}
	if err == nil { // a window whose work mostly failed is no sample, as a run is not
		err = checkFailures(run, j.b.Config.Load.FailedPercentAllowed())
	}
	obs.RunDone(i, run, err)
	if err != nil {
		return nil, err
	}
	return run, nil
}

// runIndex numbers the runs of a side across blocks, for the observer.
func (j *abJob) runIndex(blk, w int) int { return blk*max(j.plan.Windows, 1) + w }

// mergeWindows makes each window's phases one run (mergePhases), as a run
// of the pairs design would be.
func mergeWindows(windows [][]result.Phase) []result.Run {
	out := make([]result.Run, 0, len(windows))
	for _, phases := range windows {
		run := phases[0].Run
		if len(phases) > 1 {
			run = *mergePhases(phases)
		}
		out = append(out, run)
	}
	return out
}
