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

// The machine is watched only when auto could run a duet: a design given
// is kept, and a job the duet cannot run (one process on both sides)
// falls back without a sample; a busy machine gets the hybrid design,
// which the note names by what the phases make of it; a sample
// interrupted ends the job.
func TestChooseDesignSamplesOnlyForAPossibleDuet(t *testing.T) {
	sampled := 0
	env := Env{Log: io.Discard, MachineCPU: func(ctx context.Context) (target.MachineCPU, error) {
		sampled++
		return target.MachineCPU{Cores: 2, Busy: 1.5}, ctx.Err()
	}}
	b := &runner.Benchmark{Config: &config.Config{}}
	two := runner.ABPlan{Base: config.Target{URL: "http://127.0.0.1:1/"}, Head: config.Target{URL: "http://127.0.0.1:2/"}, Restart: true}
	for _, design := range []string{config.DesignDuet, config.DesignInterleaved, config.DesignHybrid, config.DesignPairs} {
		plan := two
		plan.Design = design
		if note, err := env.chooseDesign(context.Background(), b, &plan); note != "" || err != nil || plan.Design != design {
			t.Errorf("design %s given: %q, %v, design %s; want it kept without a note", design, note, err, plan.Design)
		}
	}
	oneProcess := runner.ABPlan{Base: two.Base, AA: true, Restart: false, Design: config.DesignAuto}
	if note, err := env.chooseDesign(context.Background(), b, &oneProcess); note != "" || err != nil || oneProcess.Design != config.DesignDuet {
		t.Errorf("auto, one process on both sides: %q, %v, design %s; want duet (the runner falls back) without a note", note, err, oneProcess.Design)
	}
	if sampled != 0 {
		t.Errorf("the machine was sampled %d times, want 0", sampled)
	}
	mixed := &runner.Benchmark{Config: &config.Config{Load: config.Load{Phases: []config.Phase{
		{Name: "capacity", Model: config.ModelClosed, VUs: 2}, {Name: "latency", Model: config.ModelOpen, Rate: config.Rate{PerSecond: 10}}}}}}
	for _, c := range []struct {
		b    *runner.Benchmark
		runs string
	}{
		{b, "design auto: interleaved (every phase is closed"},
		{mixed, "design auto: hybrid (closed phases alternating between the sides, open phases loading both at once), as other processes kept 1.50 of the machine's 2 cores busy"},
	} {
		busy := two
		busy.Design = config.DesignAuto
		if note, err := env.chooseDesign(context.Background(), c.b, &busy); err != nil || busy.Design != config.DesignHybrid || !strings.HasPrefix(note, c.runs) {
			t.Errorf("auto beside 1.5 busy cores: %q, %v, design %s; want hybrid, the note beginning %q", note, err, busy.Design, c.runs)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stopped := two
	stopped.Design = config.DesignAuto
	if _, err := env.chooseDesign(ctx, b, &stopped); !errors.Is(err, context.Canceled) {
		t.Errorf("an interrupted sample: %v, want context.Canceled", err)
	}
}
