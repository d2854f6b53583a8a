package pipeline

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// The machine is watched only when it decides something: a job with a
// closed phase whose sides can run at once. Beside a busy machine its
// closed phases alternate and the note says why; a job of open phases
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
		"whole runs (--record-base)": {closed, runner.ABPlan{Base: two.Base, Head: two.Head, Restart: true, WholeRuns: "a baseline holds whole runs"}},
	} {
		plan := c.plan
		if note, err := env.watchMachine(context.Background(), c.b, &plan); note != "" || err != nil || plan.Busy {
			t.Errorf("%s: %q, %v, busy %v; want no sample and no note", name, note, err, plan.Busy)
		}
	}
	if sampled != 0 {
		t.Errorf("the machine was sampled %d times, want 0", sampled)
	}
	busy := two
	note, err := env.watchMachine(context.Background(), closed, &busy)
	if err != nil || !busy.Busy || !strings.HasPrefix(note, "closed phases alternated between the sides, as other processes kept 1.50 of the machine's 2 cores busy") {
		t.Errorf("beside 1.5 busy cores: %q, %v, busy %v; want the closed phases alternating and why", note, err, busy.Busy)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stopped := two
	if _, err := env.watchMachine(ctx, closed, &stopped); !errors.Is(err, context.Canceled) {
		t.Errorf("an interrupted sample: %v, want context.Canceled", err)
	}
}
