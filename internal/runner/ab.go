package runner

import (
	"context"
	"errors"
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

func (s Side) String() string { return [2]string{"base", "head"}[s] }

// ABPlan says how an A/B job runs its blocks.
type ABPlan struct {
	Base, Head config.Target // as started (a build's start.dir in its tree); with AA the base stands on both sides
	AA         bool
	Order      string // config.OrderABBA or config.OrderRandom
	// MaxTime, when above 0, is the budget of time: no block starts that
	// would likely end beyond it. MinBlocks is the first look, the fewest
	// blocks a time budget is planned for (ABResult.Planned).
	MaxBlocks, MinBlocks int
	MaxTime              time.Duration
	Restart              bool // each side started afresh for every block; never a target started elsewhere
	// Shape is how the job makes its blocks: the caller sets what it asks
	// for, Resolve completes it once, and every reader reads that value.
	Shape Shape
	Look  func(res *ABResult, final bool) (stop bool) // after every block, final when a budget is spent
	// SkipPhase is asked before each block after the first which of its
	// phases to leave out (those whose gated metrics have all decided);
	// a block it would leave empty measures every phase.
	SkipPhase func(name string) bool
	// Gated says whether the verdict gates a metric, as the policy names
	// them before any look (duet.go); nil: every metric is.
	Gated func(key string) bool
}

// ABResult is what an A/B job measured: a result file per side
// (Base.Runs[i] and Head.Runs[i] are the two sides' runs of block i) and
// the order the windows were made in.
type ABResult struct {
	Base, Head *result.File
	Order      []Side
	Starts     int // the target starts; StartTime: the time they and the stops took; Elapsed: the blocks' whole time
	StartTime  time.Duration
	Elapsed    time.Duration
	// Budget ended the job ("" when Look did). Fits is how many blocks
	// MaxTime allows at the pace so far (ABResult.pace); Planned (above 0)
	// the budget fixed before the first look (PlanPace the pace then) where
	// MaxTime allows fewer than MaxBlocks, so that the verdict spends its
	// level over the looks the job will have (not where blocks may leave
	// phases out and grow shorter); MaxUnits is Planned or else MaxBlocks.
	Budget    Budget
	Fits      int
	Planned   int
	MaxUnits  int
	PlanPace  time.Duration
	firstUnit time.Duration
	Windows   *result.WindowPairs // the blocks' window pairs (a block of whole runs has one)
	Spent     Spent
	Warmups   []result.Warmup // the phases the first block found to warm up longer than load.warmup
	Duets     []result.Duet   // the closed phases the first block probed both ways
	Shape     Shape           // the plan's, with the window the first block chose
}

// Budget names a budget of an A/B job.
type Budget string

const (
	BudgetBlocks Budget = "pairs" // ab.max_blocks
	BudgetTime   Budget = "time"  // ab.max_time, or the blocks planned from it
)

// pace is the next block's likely time: the mean of those after the first,
// which alone probes, settles and starts cold (go-httpbin: 14.6 s, then 9.5).
func (r *ABResult) pace(n int) time.Duration {
	if n < 2 {
		return r.Elapsed
	}
	return (r.Elapsed - r.firstUnit) / time.Duration(n-1)
}

func (r *ABResult) Units() int { return min(len(r.Base.Runs), len(r.Head.Runs)) }

// RunAB measures base and head in one job, block after block, until
// plan.Look ends the job or a budget is spent.
func (b *Benchmark) RunAB(ctx context.Context, plan ABPlan) (*ABResult, error) {
	if plan.MaxBlocks < 1 {
		return nil, errors.New("an A/B job needs a budget of at least 1 block")
	}
	compiled, err := b.compile()
	if err != nil {
		return nil, err
	}
	plan = b.Resolve(plan)
	j := &abJob{b: b, plan: plan, compiled: compiled, res: &ABResult{Base: b.newFile(), Head: b.newFile(), MaxUnits: plan.MaxBlocks}}
	defer func(began time.Time) {
		rest := time.Since(began) + b.SpentSoFar()[TimeBuild] // the builds came before the job
		for _, d := range b.SpentSoFar() {
			rest -= d
		}
		b.spend(TimeOther, rest)
		j.res.Spent = b.SpentSoFar()
	}(time.Now())
	defer j.stopAll() // runs first: the stops count in the job's time
	if !plan.Restart {
		if err := j.startForJob(ctx); err != nil {
			return nil, err
		}
	}
	return j.runBlocks(ctx)
}

// abJob is an A/B job while it runs.
type abJob struct {
	b        *Benchmark
	plan     ABPlan
	compiled *scenario.Plan
	res      *ABResult
	kept     [2]*running // the targets started once for the job, by side
	mu       sync.Mutex  // guards res while two windows loaded at once end at once
}

// unitDone ends the n-th block, elapsed after the job began, and says
// whether a budget or the look ends the job.
func (j *abJob) unitDone(n int, elapsed time.Duration) bool {
	r := j.res
	if r.Elapsed = elapsed; n == 1 {
		r.firstUnit = elapsed
	}
	pace := r.pace(n)
	if j.plan.MaxTime > 0 && pace > 0 {
		r.Fits = n + max(int((j.plan.MaxTime-r.Elapsed)/pace), 0)
		if n == min(2, max(j.plan.MinBlocks, 1)) && j.plan.SkipPhase == nil && r.Fits < j.plan.MaxBlocks {
			r.Planned, r.PlanPace = max(r.Fits, j.plan.MinBlocks), pace
			r.MaxUnits = r.Planned
		}
	}
	switch { // the next block would likely end beyond MaxTime at the pace so far
	case n >= j.plan.MaxBlocks:
		r.Budget = BudgetBlocks
	case r.Planned > 0 && n >= r.Planned, j.plan.MaxTime > 0 && r.Elapsed+pace > j.plan.MaxTime:
		r.Budget = BudgetTime
	default:
		r.Budget = ""
	}
	stop := j.plan.Look != nil && j.plan.Look(r, r.Budget != "")
	return r.Budget != "" || stop
}

func (j *abJob) restartable(side Side) bool { return j.plan.target(side).Start != nil }

func (p ABPlan) target(side Side) config.Target {
	if side == Base || p.AA {
		return p.Base
	}
	return p.Head
}

// startForJob starts both targets once; an A/A job runs the base's one process on both sides.
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
	j.kept[side] = t
	j.res.file(side).TargetLog = t.logPath
}

func (r *ABResult) file(side Side) *result.File { return [2]*result.File{r.Base, r.Head}[side] }

func (j *abJob) start(ctx context.Context, side Side) (*running, error) {
	defer j.startTime(time.Now())
	t, err := j.b.start(ctx, j.plan.target(side), side.String())
	if err != nil {
		return nil, err
	}
	j.res.Starts++
	j.res.file(side).TargetLog = t.logPath
	return t, nil
}

func (j *abJob) stop(t *running) {
	defer j.startTime(time.Now())
	t.stop()
}

func (j *abJob) startTime(began time.Time) {
	j.res.StartTime += time.Since(began)
	j.b.timed(TimeStart, began)
}

// stopAll stops the targets kept for the job, the base once.
func (j *abJob) stopAll() {
	for side, t := range j.kept {
		if t != nil && (Side(side) == Base || t != j.kept[Base]) {
			j.stop(t)
		}
	}
}
