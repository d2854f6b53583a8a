package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/tailgate-ci/tailgate/internal/bug"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// runBlocks runs the job block after block (block, else wholeRuns), calling
// plan.Look after each; window w of every phase is side's run w of the block.
// A pair's windows run at once or a moment apart (slower noise cancels); restarts
// every block make what two processes differ by a noise between blocks.
func (j *abJob) runBlocks(ctx context.Context) (*ABResult, error) {
	began := time.Now()
	rng := rand.New(rand.NewPCG(uint64(j.b.Config.Seed), 0x1e))
	j.res.Windows = &result.WindowPairs{}
	setups := [2]*load.SetupCache{{}, {}}
	unit := j.block
	if !j.plan.Shape.Blocks() {
		unit = j.wholeRuns
	}
	for blk := 0; blk < j.plan.MaxBlocks; blk++ {
		m, err := unit(ctx, blk, rng, setups)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", blk+1, err)
		}
		w := j.res.Windows
		for k := range m.windows[Base] {
			m.windows[Base][k].Index, m.windows[Head][k].Index = len(w.Base), len(w.Head)
			w.Base, w.Head = append(w.Base, m.windows[Base][k]), append(w.Head, m.windows[Head][k])
			w.Block = append(w.Block, blk)
		}
		w.Settle(blk)
		m.block[Base].Index, m.block[Head].Index = blk, blk
		j.res.Base.Runs = append(j.res.Base.Runs, m.block[Base])
		j.res.Head.Runs = append(j.res.Head.Runs, m.block[Head])
		if j.unitDone(blk+1, time.Since(began)) {
			break
		}
	}
	j.res.Shape = j.plan.Shape // with the window the first block chose
	return j.res, nil
}

// wholeRuns measures block blk where blocks cannot run: one window pair,
// each window a whole run of its side, one side at a time in the block's
// order, on the side's target kept for the job or started for its run alone.
func (j *abJob) wholeRuns(ctx context.Context, blk int, rng *rand.Rand, _ [2]*load.SetupCache) (m blockRuns, err error) {
	skip := j.skipped(blk, j.b.Config.Load.RunPhases())
	for k, side := range j.windowOrder(blk, 1, rng) {
		run, err := func() (*result.Run, error) {
			tgts, stop, err := j.blockTargets(ctx, side)
			defer stop()
			if err != nil {
				return nil, err
			}
			t := *tgts[side]
			t.label = side.String()
			if j.plan.AA {
				t.label = "base as " + t.label
			}
			return j.b.runOnce(ctx, j.compiled, &t, 2*blk+k, 2*j.plan.MaxBlocks, skip)
		}()
		if err != nil {
			return m, &SideError{Side: side.String(), Err: fmt.Errorf("%s run: %w", side, err)}
		}
		m.windows[side], m.block[side] = []result.Run{*run}, *run
		j.res.Order = append(j.res.Order, side)
	}
	return m, nil
}

// blockRuns is what a block measured of each side: its windows (window w
// of every phase merged into one run) and the block's run.
type blockRuns struct {
	windows [2][]result.Run
	block   [2]result.Run
}

// blocksProblem says why the job cannot measure blocks (the built-in
// generator on both sides' targets up at once); zero when it can.
func (b *Benchmark) blocksProblem(plan ABPlan) result.Apart {
	head := plan.target(Head)
	switch {
	case b.Config.Load.Engine == config.EngineCommand:
		return result.Apart{Why: result.CommandLoad}
	case plan.Shape.WholeRuns.Why != 0:
		return plan.Shape.WholeRuns
	case plan.Restart && plan.Base.Start != nil && head.Start != nil && !plan.Base.UsesPort() && plan.Base.URL == head.URL:
		return result.Apart{Why: result.FixedAddress, At: plan.Base.URL}
	}
	return result.Apart{}
}

// DuetProblem says why the two sides cannot be told apart while both are
// loaded, so that every phase alternates; zero when they can.
func (p ABPlan) DuetProblem() result.Apart {
	if p.AA && !p.Restart {
		return result.Apart{Why: result.OneProcess}
	}
	head := p.target(Head)
	if p.Base.Start == nil && head.Start == nil && p.Base.URL == head.URL {
		return result.Apart{Why: result.SameTarget, At: p.Base.URL}
	}
	for _, a := range p.Base.Measure {
		for _, b := range head.Measure {
			if a.PIDFile == b.PIDFile && a.Cgroup == b.Cgroup && (a.Process == nil) == (b.Process == nil) &&
				(a.Process == nil || (a.Process.Comm == b.Process.Comm && a.Process.Cmdline == b.Process.Cmdline)) {
				return result.Apart{Why: result.SamePart, At: a.Name}
			}
		}
	}
	return result.Apart{}
}

// block measures one block and returns each side's runs of it. setups
// keeps each side's logins for the whole job: a login costs once per
// virtual user and side where the service keeps its sessions across resets
// and restarts (load.SetupCache.Recheck checks them in each warm-up and
// logs a worker in again whose session ended).
func (j *abJob) block(ctx context.Context, blk int, rng *rand.Rand, setups [2]*load.SetupCache) (m blockRuns, err error) {
	obs := j.b.observer()
	obs.RunStarted(blk, j.plan.MaxBlocks, BlockLabel)
	defer func() { obs.RunDone(blk, nil, err) }()
	obs.Step(blk, "start")
	// The side started (and stopped) first changes from block to block, as
	// the side loaded first does: a fixed order is a difference between
	// the sides that no number of blocks removes.
	first := Side(blk % 2)
	tgts, stop, err := j.blockTargets(ctx, first, 1-first)
	defer stop()
	if err != nil {
		return m, err
	}
	// measured[side][w] holds window w of every phase so far, counted[side]
	// the work counters' growth over each phase's windows.
	windows := j.plan.Shape.Windows
	measured := [2][][]result.Phase{make([][]result.Phase, windows), make([][]result.Phase, windows)}
	var counted [2][]result.PhaseCounters
	phases := j.b.Config.Load.RunPhases()
	skip := j.skipped(blk, phases)
	for p, ph := range phases {
		// Drawn for a phase left out too, so that the next phases' orders
		// do not depend on which phases were.
		order := j.windowOrder(blk, windows, rng)
		if skip[p] {
			skipPhase(&measured, &counted, ph)
			continue
		}
		if err := j.preparePhase(ctx, tgts, ph, blk, setups, order[:2]); err != nil {
			return m, err
		}
		life, err := j.probeDuet(ctx, tgts, ph, blk, setups, rng) // before the counters: no part of the block
		if err != nil {
			return m, err
		}
		j.plan.Shape.holdLifecycles(cmp.Or(life, j.plan.Shape.Lifecycle)) // once: lifecycles as the windows run (probe), else warm-up
		if windows != j.plan.Shape.Windows {                              // chosen in the first warm-up or probe: no window measured yet
			windows = j.plan.Shape.Windows
			measured = [2][][]result.Phase{make([][]result.Phase, windows), make([][]result.Phase, windows)}
			order = append(order[:2:2], j.windowOrder(blk, windows, rng)[2:]...)
		}
		obs.Step(blk, stepName(fmt.Sprintf("%d windows", 2*windows), ph.Name))
		spans, atOnce := j.openCounters(ctx, tgts), j.pairAtOnce(ph)
		err = j.windows(ctx, tgts, ph, blk, setups, order, windowRun{
			atOnce: func(int) bool { return atOnce },
			keep: func(side Side, w int, run *result.Run) {
				measured[side][w] = append(measured[side][w], result.Phase{Name: ph.Name, Run: *run})
				j.res.Order = append(j.res.Order, side)
			},
		})
		if err != nil {
			return m, err
		}
		for side, c := range j.closeCounters(ctx, spans) {
			counted[side] = append(counted[side], c)
		}
	}
	return j.endBlock(ctx, blk, tgts, measured, counted)
}

// endBlock drains the targets kept for the job (stop ends the others) and
// assembles the block's runs.
func (j *abJob) endBlock(ctx context.Context, blk int, tgts [2]*running, measured [2][][]result.Phase, counted [2][]result.PhaseCounters) (blockRuns, error) {
	kept := slices.DeleteFunc(slices.Clone(tgts[:]), func(t *running) bool { return !slices.Contains(j.kept[:], t) })
	if err := j.b.drain(ctx, TimeDrain, blk, kept...); err != nil {
		return blockRuns{}, err
	}
	return assembleBlock(measured, counted), nil
}

// skipPhase marks phase ph left out of a block on both sides: absent from
// every window, no counters.
func skipPhase(measured *[2][][]result.Phase, counted *[2][]result.PhaseCounters, ph config.PhaseLoad) {
	for side := range measured {
		for w := range measured[side] {
			measured[side][w] = append(measured[side][w], result.SkippedPhase(ph.Name, ph.Load.Model))
		}
		counted[side] = append(counted[side], result.PhaseCounters{})
	}
}

// preparePhase resets each side's dataset, one after the other (they may
// share a database), verifies and drains both at once, and warms both up.
func (j *abJob) preparePhase(ctx context.Context, tgts [2]*running, ph config.PhaseLoad, blk int, setups [2]*load.SetupCache, sides []Side) error {
	for _, side := range sides {
		if err := j.b.restore(ctx, tgts[side], blk); err != nil {
			return fmt.Errorf("%s: %w", side, err)
		}
	}
	j.b.observer().Step(blk, "verify")
	began := time.Now()
	err := both(sides, func(side Side) error { // the observer hears from one goroutine
		if err := j.b.verify(ctx, tgts[side], blk, nopObserver{}); err != nil {
			return fmt.Errorf("%s: %w", side, err)
		}
		return nil
	})
	if j.b.timed(TimePrepare, began); err != nil {
		return err
	}
	if err := j.b.drain(ctx, TimePrepare, blk, tgts[Base], tgts[Head]); err != nil {
		return err
	}
	j.b.observer().Step(blk, stepName("warm-up", ph.Name))
	for _, c := range setups {
		c.Recheck() // reset since, and maybe restarted: the warm-up checks the sessions
	}
	if err := j.warmUp(ctx, tgts, ph, blk, setups, sides); err != nil {
		return err
	}
	for _, c := range setups {
		c.Confirmed()
	}
	return nil
}

// assembleBlock makes each side's window runs (each window's phases one
// run, as a whole run's are) and its block run, which alone has the
// counters (phaseWindow.short).
func assembleBlock(measured [2][][]result.Phase, counted [2][]result.PhaseCounters) (m blockRuns) {
	for _, side := range []Side{Base, Head} {
		for _, phases := range measured[side] {
			m.windows[side] = append(m.windows[side], *merged(phases))
		}
		m.block[side] = result.CombineCounted(m.windows[side], counted[side])
	}
	return m
}

// skipped says which of a block's phases plan.SkipPhase leaves out: none
// in the first block, in a single phase, or when it would leave them all.
func (j *abJob) skipped(blk int, phases []config.PhaseLoad) []bool {
	skip, left := make([]bool, len(phases)), 0
	for p, ph := range phases {
		if skip[p] = j.plan.SkipPhase != nil && blk > 0 && len(phases) > 1 && j.plan.SkipPhase(ph.Name); !skip[p] {
			left++
		}
	}
	if left == 0 {
		return make([]bool, len(phases))
	}
	return skip
}

// openCounters starts each side's counter span over a phase's windows
// (too short to read around each), both at once: nothing is loaded then.
func (j *abJob) openCounters(ctx context.Context, tgts [2]*running) (spans [2]*target.PathWindow) {
	j.eachCounted(func(side Side) bool { return len(tgts[side].path.Counters.Sources) > 0 }, func(side Side) {
		spans[side] = target.Path{Counters: tgts[side].path.Counters}.Open(ctx)
	})
	return spans
}

// closeCounters reads each side's growth over the phase's windows.
func (j *abJob) closeCounters(ctx context.Context, spans [2]*target.PathWindow) (out [2]result.PhaseCounters) {
	j.eachCounted(func(side Side) bool { return spans[side] != nil }, func(side Side) {
		f := spans[side].Close(ctx)
		out[side] = result.PhaseCounters{Values: f.Counters, Notes: f.Notes, Statements: f.Statements}
	})
	return out
}

// eachCounted runs read for the sides has selects, at once, as TimeCounters.
func (j *abJob) eachCounted(has func(Side) bool, read func(Side)) {
	sides := slices.DeleteFunc([]Side{Base, Head}, func(side Side) bool { return !has(side) })
	if len(sides) == 0 {
		return
	}
	defer j.b.timed(TimeCounters, time.Now())
	_ = both(sides, func(side Side) error { read(side); return nil })
}

// BlockLabel is the label the observer hears for a block; its RunDone gets nil.
const BlockLabel = "block"

// Shape is how an A/B job makes its blocks: of short windows, or, where
// blocks cannot run, of one window pair of whole runs (WholeRuns says
// why; Windows is 1). Windows is the windows of each side per phase (the
// same in every phase, so that window w of each phase makes one run).
type Shape struct {
	WholeRuns    result.Apart
	Alternate    result.Apart // why every phase alternates between the sides
	Windows      int
	Window       time.Duration
	WindowWarmup time.Duration
	resolved     bool
	// Lifecycle is a user's in the first closed phase's warm-up, Window set
	// for it where Chosen (chooseWindow); RaisedFor, the one Windows was
	// raised for from the Fills that fill the longest phase (holdLifecycles).
	Lifecycle, RaisedFor time.Duration
	Chosen               bool
	Fills                int
	choose, fill         bool          // ab.window unset; ab.windows 0
	longest              time.Duration // the longest phase's load.duration
}

// Blocks reports whether the job measures blocks of windows.
func (s Shape) Blocks() bool { return s.WholeRuns.Why == 0 }

// AtOnce reports whether the job's windows of phase ph load both sides at
// the same time from the first block on: an open phase's do; a closed
// phase's as the job's first block finds (pairAtOnce, duet.go says why).
// An open phase's fixed rate asks neither side for all it can get, so a
// busy neighbour does not split them unequally, and the moment's noise
// hits both alike (PocketBase's latency phase beside a CPU hog: p95's
// block spread 6.5 % at once, 8.9 % alternating, in half the time).
func (s Shape) AtOnce(ph config.PhaseLoad) bool {
	return s.Blocks() && s.Alternate.Why == 0 && ph.Load.Model == config.ModelOpen
}

// Resolve is plan with its Shape completed for this benchmark, once: the
// windows are ab.windows, else as many windows of ab.window as fill the
// longest phase's duration (at least 2, so that a block holds repeated
// measures).
func (b *Benchmark) Resolve(plan ABPlan) ABPlan {
	s := &plan.Shape
	if s.resolved {
		return plan
	}
	s.resolved = true
	if s.WholeRuns = b.blocksProblem(plan); !s.Blocks() {
		s.Windows, s.Window, s.WindowWarmup = 1, 0, 0 // one window pair, each window a whole run
		return plan
	}
	s.Alternate = plan.DuetProblem()
	s.choose, s.fill = s.Window == 0, s.Windows == 0
	s.Window = cmp.Or(s.Window, config.DefaultWindow.D())
	for _, ph := range b.Config.Load.RunPhases() {
		s.longest = max(s.longest, ph.Load.Duration.D())
	}
	if !s.fill {
		return plan
	}
	s.Windows = min(max(int((s.longest+s.Window/2)/s.Window), 2), config.MaxWindows)
	if s.choose && s.longest > 0 && s.Windows*int(s.Window) > int(s.longest) {
		s.Window = s.longest / time.Duration(s.Windows) // a phase shorter than two default windows: two shorter ones
	}
	return plan
}

// chooseWindow fixes the job's window where ab.window is unset, before any
// window is measured, from the first phase's warm-up in the first block
// (runs: each side's last slice) when that phase is closed: 3 lifecycles of
// a virtual user at the slower side's iterations/s (its users' rates
// summed), in steps of 250 ms, up to 5 s and half the longest phase. Every
// block, side and phase keeps it (window w of every phase makes one run),
// and ab.windows 0 then fills load.duration with fewer windows.
func (s *Shape) chooseWindow(ph config.PhaseLoad, runs [2]*result.Run) {
	choose := s.choose
	s.choose = false
	if ph.Load.Model != config.ModelClosed || !choose && !s.fill { // an open first phase, or nothing left to choose
		s.fill = s.fill && ph.Load.Model == config.ModelClosed
		return
	}
	for _, run := range runs {
		s.Lifecycle = max(s.Lifecycle, lifecycle(ph.Load.VUs, run.Metrics[result.IterationsPerSec]))
	}
	const step = 250 * time.Millisecond
	if w := min((3*s.Lifecycle+step-1)/step*step, 5*time.Second, s.longest/2); choose && w > s.Window {
		s.Window, s.Chosen = w, true // the report says why only where the window grew
		if s.fill {
			s.Windows = min(max(int(s.longest/w), 2), config.MaxWindows)
		}
	}
}

// lifecycle is a virtual user's at the users' summed iterations/s (0: none).
func lifecycle(vus int, ips float64) time.Duration {
	if !(ips > 0) {
		return 0
	}
	return time.Duration(float64(vus) / ips * float64(time.Second))
}

// holdLifecycles raises the windows once, where ab.windows is unset, so a
// side's windows of the first, closed phase hold BlockLifecycles of a user's
// lifecycles (life), up to twice those that fill load.duration (a budget).
func (s *Shape) holdLifecycles(life time.Duration) {
	fill := s.fill
	s.fill = false
	if n := int(math.Ceil(config.BlockLifecycles * life.Seconds() / s.Window.Seconds())); fill && n > s.Windows {
		s.Fills, s.Windows, s.RaisedFor = s.Windows, min(n, 2*s.Windows, config.MaxWindows), life
	}
}

// blockTargets are the sides' targets for a block: those kept for the
// job, else started now (and stopped by stop).
func (j *abJob) blockTargets(ctx context.Context, sides ...Side) ([2]*running, func(), error) {
	var tgts [2]*running
	var started []*running
	stop := func() {
		for _, t := range started {
			j.stop(t)
		}
	}
	for _, side := range sides {
		if t := j.kept[side]; t != nil {
			tgts[side] = t
			continue
		}
		t, err := j.start(ctx, side)
		if err != nil {
			return tgts, stop, fmt.Errorf("starting %s: %w", side, err)
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

// windowOrder is the order of a phase's 2·windows windows when they
// alternate: AB BA AB … with the first side alternating from block to
// block ("abba"), or each window pair in a seeded random order
// ("random"). Where a phase loads both sides at once, a pair's two windows run at once and
// only the first two entries (which side is prepared first) matter.
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

// both runs f for the two sides at once and waits for both. A panic in
// either is that side's error: it must not end the process past the
// deferred stops and worktree removals of the job's own goroutine.
func both(sides []Side, f func(Side) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(sides))
	for i, side := range sides {
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("internal error: %v (%s)", p, bug.Site())
				}
			}()
			errs[i] = f(side)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// windowRun says how a phase's windows run: which pairs load both sides
// at once, and what keeps each window's run; a probe's are timed as
// warm-up and not part of the block (probeDuet).
type windowRun struct {
	atOnce func(w int) bool
	keep   func(side Side, w int, run *result.Run)
	probe  bool
}

// windows measures a phase's windows of both sides, handing each run to
// how.keep: window pair w of both sides at once where how.atOnce(w), else
// in order. A window has the short window warm-up (the phase's own came
// before the first) and no reset before it, so it sees the writes of the
// block's windows before it (both sides alike).
func (j *abJob) windows(ctx context.Context, tgts [2]*running, ph config.PhaseLoad, blk int, setups [2]*load.SetupCache, order []Side, how windowRun) error {
	measure := func(side Side, w int) error {
		tgt, run := tgts[side], (*result.Run)(nil)
		err := tgt.exited()
		if err == nil {
			pw := phaseWindow{duration: j.plan.Shape.Window, warmup: j.plan.Shape.WindowWarmup, setup: setups[side],
				quiet: true, shadow: how.atOnce(w) && side == Head, short: true, probe: how.probe}
			if run, err = j.b.measurePhase(ctx, j.compiled, tgt, j.runIndex(blk, w), ph, phaseClock{}, pw); err == nil {
				err = tgt.exited()
			}
		}
		if err == nil { // a window whose work mostly failed is no sample, as a run is not
			err = checkFailures(run, j.b.Config.Load.FailedPercentAllowed())
		}
		if err != nil {
			return fmt.Errorf("%s window %d: %w", side, w+1, err)
		}
		j.mu.Lock() // two windows loaded at once end at once
		defer j.mu.Unlock()
		how.keep(side, w, run)
		return nil
	}
	for w := 0; w < len(order)/2; w++ {
		if how.atOnce(w) {
			if err := both(order[2*w:2*w+2], func(side Side) error { return measure(side, w) }); err != nil {
				return err
			}
			continue
		}
		for _, side := range order[2*w : 2*w+2] {
			if err := measure(side, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// runIndex numbers the windows of a side across blocks (within the job:
// the observer hears of whole blocks, numbered blk).
func (j *abJob) runIndex(blk, w int) int { return blk*config.MaxWindows + w }

// merged is a run's phases as one run: the phase's own when it has one.
func merged(phases []result.Phase) *result.Run {
	if len(phases) == 1 {
		return &phases[0].Run
	}
	return result.MergePhases(phases)
}
