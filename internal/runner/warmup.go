package runner

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// A runtime that compiles as it runs (Node, a JVM) works for seconds at
// start, diluting the change (Node, an N+1: +38.5 % after a 1 s warm-up,
// +53.9 % after 6 s): the first block warms each phase up while either
// side still gets faster, later blocks as long.
const (
	// settleSlice is the shortest slice added to a warm-up: shorter ones
	// hold too few iterations for their work per iteration to mean much.
	settleSlice = time.Second
	// settleFall: a slice's work per iteration lower than every slice
	// before it by less than this is the slices' own noise.
	settleFall = 0.10
	// settleCap bounds the warm-up, a multiple of load.warmup, at least
	// settleMin: a cache that fills for minutes must not spend the budget.
	settleCap = 10
	settleMin = 10 * time.Second
)

// warmUp warms both sides up for a phase at once, logging in their
// virtual users, as long as the job's first block found (settle).
func (j *abJob) warmUp(ctx context.Context, tgts [2]*running, ph config.PhaseLoad, blk int, setups [2]*load.SetupCache, order []Side) error {
	if blk == 0 {
		return j.settle(ctx, tgts, ph, blk, setups, order)
	}
	d := max(ph.Load.Warmup.D(), time.Millisecond)
	for _, w := range j.res.Warmups {
		if w.Phase == ph.Name {
			d = w.Found
		}
	}
	_, err := j.warmSlice(ctx, tgts, ph, blk, setups, order, d, false)
	return err
}

// settle warms up for load.warmup, then a slice at a time while either
// side's work per iteration still falls (stillFalling), up to the cap, and
// keeps what it found in the result when that was longer (coldSlices).
func (j *abJob) settle(ctx context.Context, tgts [2]*running, ph config.PhaseLoad, blk int, setups [2]*load.SetupCache, order []Side) error {
	configured := max(ph.Load.Warmup.D(), time.Millisecond)
	slice := max(configured, settleSlice)
	limit := max(settleCap*configured, settleMin)
	metric := result.CPUPerIteration
	var seen [2][]float64
	total, d, capped := time.Duration(0), configured, false
	var runs [2]*result.Run
	for {
		var err error
		if runs, err = j.warmSlice(ctx, tgts, ph, blk, setups, order, d, true); err != nil {
			return err
		}
		total += d
		if m := watched(runs, metric); m != metric { // a side lost it: the slices so far do not compare
			metric, seen = m, [2][]float64{}
		}
		for side, run := range runs {
			if v, ok := run.Value(metric); ok && v > 0 {
				seen[side] = append(seen[side], v)
			}
		}
		if !stillFalling(seen) {
			break
		}
		if capped = total+slice > limit; capped {
			break
		}
		d = slice
	}
	j.plan.Shape.chooseWindow(ph, runs)
	if cold := coldSlices(seen); cold > 0 || capped {
		if !capped {
			total = configured + time.Duration(cold)*slice
		}
		j.res.Warmups = append(j.res.Warmups, result.Warmup{Phase: ph.Name, Configured: configured, Slice: slice, Found: total,
			Metric: metric, Slices: seen, Capped: capped})
	}
	return nil
}

// coldSlices is how many slices after load.warmup's were still cold on
// some side: up to its last falling slice, the last one more than
// settleFall above the median of the slices from that fall on. A slice
// after the last fall is noise, however high (a flat service's slow slice
// lengthened every block's warm-up).
func coldSlices(seen [2][]float64) int {
	cold := 0
	for _, vs := range seen {
		last := 0
		for k := 1; k < len(vs); k++ {
			if falling(vs[:k+1]) {
				last = k
			}
		}
		for k := last; k >= 1; k-- {
			if vs[k] > (1+settleFall)*stats.Median(vs[last:]) {
				cold = max(cold, k)
				break
			}
		}
	}
	return cold
}

// watched is CPU per iteration where both sides measure it, else the
// median latency (a target started elsewhere).
func watched(runs [2]*result.Run, metric string) string {
	for _, run := range runs {
		if _, ok := run.Value(metric); !ok {
			return result.LatencyP50
		}
	}
	return metric
}

// stillFalling reports whether some side's last slice has no slice before
// it to be compared with or is falling: its runtime is still getting
// faster.
func stillFalling(seen [2][]float64) bool {
	for _, vs := range seen {
		if len(vs) == 1 || falling(vs) {
			return true
		}
	}
	return false
}

// falling reports whether the last of vs is more than settleFall below
// every value before it.
func falling(vs []float64) bool {
	n := len(vs)
	return n > 1 && vs[n-1] < (1-settleFall)*slices.Min(vs[:n-1])
}

// warmSlice loads both sides at once for d, unmeasured; probe samples it
// like a window (its runs are returned) to see whether the sides are warm.
func (j *abJob) warmSlice(ctx context.Context, tgts [2]*running, ph config.PhaseLoad, blk int, setups [2]*load.SetupCache, order []Side, d time.Duration, probe bool) ([2]*result.Run, error) {
	var runs [2]*result.Run
	err := both(order, func(side Side) error {
		pw := phaseWindow{duration: d, warmup: time.Millisecond, setup: setups[side],
			warmupOnly: !probe, probe: probe, short: probe, quiet: true, shadow: side == Head}
		run, err := j.b.measurePhase(ctx, j.compiled, tgts[side], j.runIndex(blk, 0), ph, phaseClock{}, pw)
		if err != nil {
			return fmt.Errorf("%s warm-up: %w", side, err)
		}
		runs[side] = run
		return nil
	})
	return runs, err
}
