package runner

import (
	"context"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/load"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// setByOpenLoad are the metrics an open model fixes by construction: below
// saturation its iterations (and so its requests) per second are the
// offered rate, whatever the target's capacity.
var setByOpenLoad = []string{result.IterationsPerSec, result.RequestsPerSec}

// measure is one run's measurement, each phase after its own reset,
// verify and drain (but those skip marks), then a drain; a run of several
// phases is merged into one Run (result.MergePhases) that keeps every
// phase's own figures.
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
	return run, b.drainAfter(ctx, tgt, i)
}

// phaseClock places a phase's progress within the whole run, so that a
// progress display runs once over all phases.
type phaseClock struct {
	done, total time.Duration
}

// phaseWindow says how one measured window of a phase runs: after its own
// reset, verify and drain (prepare), and with the phase's warm-up and
// duration unless warmup or duration (above 0) replace them. The blocks
// of A/B measure many short windows of one phase on a target
// prepared once.
// setup, when set, carries the setup steps' values from one window of a
// side's process to the next (the logins are not repeated).
// warmupOnly marks a window that only warms the target up: nothing is
// sampled and its time counts as warm-up. quiet keeps the window from the
// observer (blocks are reported whole, and their two sides'
// windows may run at once). shadow marks a window that runs at the same
// time as another one that accounts the wall time (the head side of a
// window pair loaded at once), so that where the time went adds up to the time taken.
// short marks a block's window: its warm-up is warmup exactly, 0
// included (the target is warm from the block's warm-up, and with none
// the window's sampling opens before its first iteration), and it reads
// no work counters (the block reads them around all of a phase's windows:
// a command or a fetch before and after every half-second window took a
// third of a block's time, issue 19).
type phaseWindow struct {
	prepare          bool
	warmup, duration time.Duration
	setup            *load.SetupCache
	warmupOnly       bool
	// probe: a warm-up sampled like a window (the work per iteration it
	// shows decides whether warming goes on), spent as warm-up.
	probe         bool
	quiet, shadow bool
	short         bool
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
	opt, err := b.windowOptions(ph.Load, tgt, w)
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
	started := b.now()
	began := time.Now()
	var setupTook time.Duration
	opt.OnSetupDone = func() { setupTook = time.Since(began) }
	run, err := load.Run(ctx, plan, tgt.url, opt)
	overhead := time.Since(began) - setupTook - opt.Warmup - opt.Duration
	res, note, footprint := sampler.stop(ctx, tgt)
	b.spendWindow(w, setupTook, overhead, opt)
	if err != nil {
		return nil, tgt.withOutput(err)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	run.Index, run.Started = i, started
	addResources(run, res, note)
	footprint.AddTo(run)
	if ph.Load.Model == config.ModelOpen {
		markSetByLoad(run, setByOpenLoad...)
	}
	return run, nil
}

// spendWindow counts where a window's time went: a shadow's nowhere,
// a warm-up's or a probe's all load time as warm-up.
func (b *Benchmark) spendWindow(w phaseWindow, setup, overhead time.Duration, opt load.Options) {
	if w.shadow {
		return
	}
	b.spend(TimeSetup, setup)
	b.spend(TimeLoad, overhead)
	if w.warmupOnly || w.probe {
		b.spend(TimeWarmup, opt.Warmup+opt.Duration)
	} else {
		b.spend(TimeWarmup, opt.Warmup)
		b.spend(TimeMeasured, opt.Duration)
	}
}

// progress reports run i's load progress, in a phase named phase on the
// clock of the run's phases.
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

// windowOptions are the load options of a phase's window w on tgt.
func (b *Benchmark) windowOptions(l config.Load, tgt *running, w phaseWindow) (load.Options, error) {
	opt, err := b.loadOptions(l)
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

// stepName is a step of a run, with its phase when it has one.
func stepName(step, phase string) string {
	if phase == "" {
		return step
	}
	return step + " " + phase
}

// markSetByLoad adds keys to the run's metrics that the load fixes, once.
func markSetByLoad(run *result.Run, keys ...string) {
	for _, k := range keys {
		if !slices.Contains(run.SetByLoad, k) {
			run.SetByLoad = append(run.SetByLoad, k)
		}
	}
}
