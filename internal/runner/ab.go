package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// Side is one side of an A/B comparison.
type Side int

const (
	Base Side = iota
	Head
)

func (s Side) String() string {
	if s == Base {
		return "base"
	}
	return "head"
}

// Order returns the interleaved order of 2·pairs runs: pairs alternating
// AB, BA, AB, … ("abba"), or each pair in a random order from seed
// ("random"). Either way every pair holds one run of each side, and
// neither side is always second, so slow drift and a run-order effect hit
// both alike.
func Order(kind string, pairs int, seed int64) []Side {
	rng := rand.New(rand.NewPCG(uint64(seed), 0xab))
	order := make([]Side, 0, 2*pairs)
	for p := 0; p < pairs; p++ {
		first := Side(p % 2)
		if kind == config.OrderRandom {
			first = Side(rng.IntN(2))
		}
		order = append(order, first, 1-first)
	}
	return order
}

// ABPlan says how an A/B job runs its pairs.
type ABPlan struct {
	// Base and Head are the two targets as they are started (a build's
	// start.dir in its tree). With AA the base stands on both sides.
	Base, Head config.Target
	AA         bool
	// Order is config.OrderABBA or config.OrderRandom.
	Order string
	// MaxPairs is the budget of pairs (at least 1); MaxTime, when above
	// 0, the budget of time for the pairs: no pair starts that would
	// likely end beyond it. MinPairs is the first look, the fewest units
	// a time budget is planned for (ABResult.Planned).
	MaxPairs, MinPairs int
	MaxTime            time.Duration
	// Restart starts each side afresh for its run of every pair, and
	// stops it after that run: one target runs at a time. Without it both
	// are started once for the job (the base once for an A/A job). A
	// target started elsewhere (no start command) is never restarted.
	Restart bool
	// Shape is how the job makes its units. The caller sets what it asks
	// for (WholeRuns, Windows, Window, WindowWarmup); Resolve
	// completes it once, and every reader (the runner, the noise file's
	// key, the report) reads that one value.
	Shape Shape
	// Look is called after every pair with the pairs so far; final is
	// set when no more will come (a budget is spent). It returns true to
	// end the job now. Nil: the job runs to its budget.
	Look func(res *ABResult, final bool) (stop bool)
	// SkipPhase, in blocks, is asked before each block after
	// the first which of its phases to leave out: those whose gated
	// metrics have all decided, so that the time goes to the undecided
	// ones. Nil, or a block it would leave empty: every phase is measured.
	SkipPhase func(name string) bool
	// Gated, asked after the first look, says whether the verdict gates a
	// metric (duet.go); nil: every metric is.
	Gated func(key string) bool
}

// ABResult is what an A/B job measured: a result file per side (each
// naming its target's log file in TargetLog; base.Runs[i] and
// head.Runs[i] are unit i: a pair of runs, or in blocks the
// two sides' runs of block i) and the order the runs were made in.
type ABResult struct {
	Base, Head *result.File
	Order      []Side
	// Starts counts the target starts, StartTime the time they and the
	// stops took (from launch until ready, and until gone); Elapsed is
	// the pairs' whole time, starts included.
	Starts    int
	StartTime time.Duration
	Elapsed   time.Duration
	// Budget says which budget the job spent: "pairs", "time", or "" when
	// Look ended it before either. The runner alone decides it: Fits is
	// how many units MaxTime allows at the pace so far (0 without one),
	// and Planned, when above 0, the budget fixed after the first unit
	// (FirstUnit its time) where MaxTime allows fewer than MaxPairs at
	// least MinPairs, so that the verdict spends its level over the looks
	// the job will have. A job whose blocks may leave phases out (they
	// grow shorter) is not planned.
	Budget    string
	Fits      int
	Planned   int
	FirstUnit time.Duration
	// Windows, in blocks, are the windows the blocks are made
	// of, each with its block; nil for pairs of whole runs.
	Windows *result.WindowPairs
	// Spent is where the job's time went, by stage.
	Spent Spent
	// Warmups are the phases whose warm-up the first block found longer
	// than load.warmup.
	Warmups []result.Warmup
	// Duets are the closed phases the first block measured both ways.
	Duets []result.Duet
}

// Units is the number of comparison units measured: blocks,
// else pairs of whole runs.
func (r *ABResult) Units() int { return min(len(r.Base.Runs), len(r.Head.Runs)) }

// Pairs is the number of pairs of runs measured: window pairs in
// blocks.
func (r *ABResult) Pairs() int {
	if r.Windows != nil {
		return r.Windows.Pairs()
	}
	return r.Units()
}

// RunAB measures base and head in one job, unit after unit, until
// plan.Look ends the job or a budget is spent: blocks of short windows
// (runBlocks), else pairs of whole runs in the order of
// plan.Order, each run with its own dataset reset, verify and drain. An
// error means no result.
func (b *Benchmark) RunAB(ctx context.Context, plan ABPlan) (*ABResult, error) {
	if plan.MaxPairs < 1 {
		return nil, errors.New("an A/B job needs a budget of at least 1 pair")
	}
	compiled, err := b.compile()
	if err != nil {
		return nil, err
	}
	plan = b.Resolve(plan)
	j := &abJob{b: b, plan: plan, compiled: compiled, res: &ABResult{Base: b.newFile(), Head: b.newFile()}}
	defer j.stopAll()
	if !plan.Restart {
		if err := j.startForJob(ctx); err != nil {
			return nil, err
		}
	}
	defer func() { j.res.Spent = b.SpentSoFar() }()
	if j.plan.Shape.Blocks() {
		return j.runBlocks(ctx)
	}
	return j.run(ctx)
}

// abJob is an A/B job while it runs.
type abJob struct {
	b        *Benchmark
	plan     ABPlan
	compiled *scenario.Plan
	res      *ABResult
	// kept are the targets started once for the job (no restarts, or
	// started elsewhere), by side.
	kept map[Side]*running
	// mu guards res while two windows loaded at once end at once.
	mu sync.Mutex
	// duets is what the first block measured of each closed phase (duet.go).
	duets map[string]*duetSeen
}

func (j *abJob) run(ctx context.Context) (*ABResult, error) {
	order := Order(j.plan.Order, j.plan.MaxPairs, j.b.Config.Seed)
	began := time.Now()
	files := map[Side]*result.File{Base: j.res.Base, Head: j.res.Head}
	for p := 0; p < j.plan.MaxPairs; p++ {
		for k, side := range order[2*p : 2*p+2] {
			i := 2*p + k
			run, err := j.runSide(ctx, side, i, len(order))
			if err != nil {
				return nil, &SideError{Side: side.String(), Err: fmt.Errorf("pair %d, %s run: %w", p+1, side, err)}
			}
			run.Index = len(files[side].Runs)
			files[side].Runs = append(files[side].Runs, *run)
			j.res.Order = append(j.res.Order, side)
		}
		if j.unitDone(p+1, began) {
			break
		}
	}
	return j.res, nil
}

// unitDone ends the n-th unit (pair or block) of a job that began at
// began: the time so far, the look, and whether a budget or the look ends
// the job.
func (j *abJob) unitDone(n int, began time.Time) bool {
	r := j.res
	r.Elapsed = time.Since(began)
	if per := r.Elapsed / time.Duration(n); j.plan.MaxTime > 0 && per > 0 {
		r.Fits = int(j.plan.MaxTime / per)
		if n == 1 && j.plan.SkipPhase == nil && r.Fits > 0 && r.Fits < j.plan.MaxPairs {
			r.Planned, r.FirstUnit = max(r.Fits, j.plan.MinPairs), r.Elapsed
		}
	}
	budget := j.budgetSpent(n)
	stop := j.plan.Look != nil && j.plan.Look(j.res, budget != "")
	if budget != "" || stop {
		j.res.Budget = budget
		return true
	}
	return false
}

// budgetSpent names the budget that allows no pair after the first n:
// "pairs", "time" (the planned budget is spent, or the next pair would
// likely end beyond MaxTime at the pace so far), or "".
func (j *abJob) budgetSpent(n int) string {
	switch elapsed := j.res.Elapsed; {
	case n >= j.plan.MaxPairs:
		return "pairs"
	case j.res.Planned > 0 && n >= j.res.Planned, j.plan.MaxTime > 0 && elapsed+elapsed/time.Duration(n) > j.plan.MaxTime:
		return "time"
	}
	return ""
}

// runSide makes run i (of runs) of side: on the target kept for the job,
// or on one started for this run and stopped after it.
func (j *abJob) runSide(ctx context.Context, side Side, i, runs int) (*result.Run, error) {
	tgt, fresh := j.kept[side], false
	if tgt == nil {
		var err error
		if tgt, err = j.start(ctx, side); err != nil {
			return nil, err
		}
		fresh = true
	}
	if fresh && !j.restartable(side) {
		j.keep(side, tgt) // started elsewhere: the same one for every run
		fresh = false
	}
	if fresh {
		defer j.stop(tgt)
	}
	t := *tgt
	t.label = side.String()
	if j.plan.AA {
		t.label = "base as " + side.String()
	}
	return j.b.runOnce(ctx, j.compiled, &t, i, runs)
}

// restartable reports whether side's target is one tailgate starts.
func (j *abJob) restartable(side Side) bool { return j.target(side).Start != nil }

func (j *abJob) target(side Side) config.Target {
	if side == Base || j.plan.AA {
		return j.plan.Base
	}
	return j.plan.Head
}

// startForJob starts both targets once for the whole job; an A/A job
// without restarts runs the base's one process on both sides.
func (j *abJob) startForJob(ctx context.Context) error {
	base, err := j.start(ctx, Base)
	if err != nil {
		return err
	}
	j.keep(Base, base)
	head := base
	if !j.plan.AA {
		if head, err = j.start(ctx, Head); err != nil {
			return err
		}
	}
	j.keep(Head, head)
	return nil
}

func (j *abJob) keep(side Side, t *running) {
	if j.kept == nil {
		j.kept = map[Side]*running{}
	}
	j.kept[side] = t
	file := map[Side]*result.File{Base: j.res.Base, Head: j.res.Head}[side]
	file.TargetLog = t.logPath
}

// start starts side's target and counts the time it took.
func (j *abJob) start(ctx context.Context, side Side) (*running, error) {
	began := time.Now()
	t, err := j.b.start(ctx, j.target(side), side.String())
	j.res.StartTime += time.Since(began)
	j.b.spend(TimeStart, time.Since(began))
	if err != nil {
		return nil, err
	}
	j.res.Starts++
	file := map[Side]*result.File{Base: j.res.Base, Head: j.res.Head}[side]
	file.TargetLog = t.logPath
	return t, nil
}

func (j *abJob) stop(t *running) {
	began := time.Now()
	t.stop()
	j.res.StartTime += time.Since(began)
	j.b.spend(TimeStart, time.Since(began))
}

// stopAll stops the targets kept for the job (the base once when it
// stands on both sides).
func (j *abJob) stopAll() {
	seen := map[*running]bool{}
	for _, t := range j.kept {
		if !seen[t] {
			seen[t] = true
			j.stop(t)
		}
	}
}
