package pipeline

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// The machine is watched only when it decides something: a job with a
// closed phase whose sides can run at once. Beside a busy machine its
// closed phases alternate and what it saw is returned; a job of open phases
// only, or one process on both sides, or whole runs, is not watched; a
// sample interrupted ends the job.
func TestWatchMachineOnlyWhereItDecides(t *testing.T) {
	sampled := 0
	env := Env{Log: io.Discard, MachineCPU: func(ctx context.Context) (target.MachineCPU, error) {
		sampled++
		return target.MachineCPU{Cores: 2, Busy: 1.5}, ctx.Err()
	}}
	closed := &runner.Benchmark{Config: &config.Config{Load: config.Load{Model: config.ModelClosed, VUs: 2}}}
	open := &runner.Benchmark{Config: &config.Config{Load: config.Load{Model: config.ModelOpen, Rate: config.Rate{PerSecond: 10}}}}
	two := runner.ABPlan{Base: config.Target{URL: "http://127.0.0.1:1/"}, Head: config.Target{URL: "http://127.0.0.1:2/"}, Restart: true}
	for name, c := range map[string]struct {
		b    *runner.Benchmark
		plan runner.ABPlan
	}{
		"open phases only":           {open, two},
		"one process on both sides":  {closed, runner.ABPlan{Base: two.Base, AA: true}},
		"whole runs (--record-base)": {closed, runner.ABPlan{Base: two.Base, Head: two.Head, Restart: true, Shape: runner.Shape{WholeRuns: "a baseline holds whole runs"}}},
	} {
		plan := c.b.Resolve(c.plan)
		if seen, err := env.watchMachine(context.Background(), c.b, &plan); seen != nil || err != nil || plan.Shape.Busy {
			t.Errorf("%s: %+v, %v, busy %v; want no sample and no note", name, seen, err, plan.Shape.Busy)
		}
	}
	if sampled != 0 {
		t.Errorf("the machine was sampled %d times, want 0", sampled)
	}
	busy := closed.Resolve(two)
	seen, err := env.watchMachine(context.Background(), closed, &busy)
	if err != nil || !busy.Shape.Busy || seen == nil || seen.Busy != 1.5 || seen.Cores != 2 || seen.Limit != busyCores {
		t.Errorf("beside 1.5 busy cores: %+v, %v, busy %v; want the closed phases alternating and what was seen", seen, err, busy.Shape.Busy)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stopped := closed.Resolve(two)
	if _, err := env.watchMachine(ctx, closed, &stopped); !errors.Is(err, context.Canceled) {
		t.Errorf("an interrupted sample: %v, want context.Canceled", err)
	}
}
