package runner

import (
	"context"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// measure is one run: each phase (but those skip marks) after its own
// reset, verify and drain, merged into one Run, then a drain.
func (b *Benchmark) measure(ctx context.Context, plan *scenario.Plan, tgt *running, i int, skip []bool) (*result.Run, error) {
	phases := b.Config.Load.RunPhases()
	clock := phaseClock{total: b.Config.Load.RunTime()}
	measured := make([]result.Phase, 0, len(phases))
	for p, ph := range phases {
		if p < len(skip) && skip[p] {
			measured = append(measured, result.SkippedPhase(ph.Name, ph.Load.Model))
			continue
		}
		run, err := b.measurePhase(ctx, plan, tgt, i, ph, clock, phaseWindow{prepare: true})
		if err != nil {
			return nil, err
		}
		measured = append(measured, result.Phase{Name: ph.Name, Run: *run})
		clock.done += ph.Load.Warmup.D() + ph.Load.Duration.D()
	}
	run := merged(measured)
	run.Index = i
	return run, b.drain(ctx, TimeDrain, i, tgt)
}

// phaseClock places a phase's progress within the whole run, so that a
// progress display runs once over all phases.
type phaseClock struct {
	done, total time.Duration
}

// phaseWindow says how one measured window of a phase runs.
type phaseWindow struct {
	prepare          bool             // after its own reset, verify and drain
	warmup, duration time.Duration    // above 0: instead of the phase's
	setup            *load.SetupCache // the logins, carried from one window of a side's process to the next
	warmupOnly       bool             // nothing sampled, all of it warm-up
	probe            bool             // a warm-up sampled like a window, to see whether the side is warm
	quiet            bool             // kept from the observer: blocks are reported whole
	shadow           bool             // beside a window that accounts the wall time (the head of a pair loaded at once)
	// short is a block's window: its warm-up is warmup exactly, 0 included,
	// and it reads no work counters (the block reads them around a phase's
	// windows: a read around each took a third of a block's time).
	short bool
}

// measurePhase is one phase: reset → verify → drain → warm-up → measure,
// with the target's CPU and memory sampled over the measured window.
func (b *Benchmark) measurePhase(ctx context.Context, plan *scenario.Plan, tgt *running, i int, ph config.PhaseLoad, clock phaseClock, w phaseWindow) (*result.Run, error) {
	obs := b.observer()
	if w.quiet {
		obs = nopObserver{}
	}
	if w.prepare {
		if err := b.prepare(ctx, tgt, i); err != nil {
			return nil, err
		}
	}
	opt, err := b.windowOptions(tgt, ph, w)
	if err != nil {
		return nil, err
	}
	if clock.done == 0 { // the shards' runs start together (phases are not sharded)
		if err := b.waitForStart(ctx, i); err != nil {
			return nil, err
		}
	}
	opt.Progress = clock.progress(obs, i, ph.Name)
	var sampler sampling
	if !w.warmupOnly {
		path := tgt.path
		if w.short {
			path = path.WithoutCounters()
		}
		opt.OnMeasure = func() { sampler.start(ctx, tgt, path) } // the window only: warm-up is not measured
	}
	step := "measure"
	if plan.HasSetup(scenario.SetupRun) || plan.HasSetup(scenario.SetupVU) {
		step = "setup" // the load's progress follows once it is done
	}
	obs.Step(i, stepName(step, ph.Name))
	started, began := b.now(), time.Now()
	var setupTook time.Duration
	opt.OnSetupDone = func() { setupTook = time.Since(began) }
	run, err := load.Run(ctx, plan, tgt.url, opt)
	overhead := time.Since(began) - setupTook - opt.Warmup - opt.Duration
	res, note, footprint := sampler.stop(ctx, tgt)
	if !w.shadow {
		b.spendWindow(w, opt, setupTook, overhead)
	}
	if err != nil {
		return nil, tgt.withOutput(err)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	run.Index, run.Started = i, started
	addResources(run, res, note)
	footprint.AddTo(run)
	return run, nil
}

// windowOptions is the load of this shard's share of phase ph, timed as
// window w says, with the side's logins, sequence and TLS.
func (b *Benchmark) windowOptions(tgt *running, ph config.PhaseLoad, w phaseWindow) (load.Options, error) {
	opt, err := b.Sharding.Part.Split(load.FromConfig(ph.Load))
	if err != nil {
		return opt, err
	}
	if w.warmup > 0 || w.short {
		opt.Warmup = w.warmup
	}
	if w.duration > 0 {
		opt.Duration = w.duration
	}
	opt.Setup, opt.Seq, opt.TLS = w.setup, b.sequence(tgt), tgt.tls
	return opt, nil
}

// spendWindow accounts a window's time: a warm-up's or a probe's load
// time all counts as warm-up.
func (b *Benchmark) spendWindow(w phaseWindow, opt load.Options, setupTook, overhead time.Duration) {
	b.spend(TimeSetup, setupTook)
	b.spend(TimeLoad, overhead)
	if w.warmupOnly || w.probe {
		b.spend(TimeWarmup, opt.Warmup+opt.Duration)
	} else {
		b.spend(TimeWarmup, opt.Warmup)
		b.spend(TimeMeasured, opt.Duration)
	}
}

// progress reports run i's load progress on the clock of the run's
// phases.
func (clock phaseClock) progress(obs Observer, i int, phase string) func(load.Progress) {
	return func(p load.Progress) {
		if phase != "" {
			p.Phase = phase + " " + p.Phase
			p.Elapsed += clock.done
			p.Total = clock.total
		}
		obs.Progress(i, p)
	}
}

func stepName(step, phase string) string {
	if phase == "" {
		return step
	}
	return step + " " + phase
}
