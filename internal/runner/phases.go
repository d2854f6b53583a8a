package runner

import (
	"context"
	"slices"
	"strings"
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

// Which phase of a run of several measures which metric (see mergePhases).
var (
	// throughputMetrics come from the closed phase: at a fixed
	// concurrency that saturates the target they measure its capacity,
	// and move when it changes.
	throughputMetrics = []string{result.IterationsPerSec, result.RequestsPerSec}
	// latencyMetrics come from the open phase: timed from the scheduled
	// start at a fixed rate, they show queueing, and work the target could
	// not take is dropped and counted there.
	latencyMetrics = []string{result.LatencyMean, result.LatencyP50, result.LatencyP90, result.LatencyP95,
		result.LatencyP99, result.LatencyMax, result.IterationP50, result.IterationP95, result.IterationP99,
		result.DroppedPct, result.ScheduleLagP99}
	// costMetrics come from the phase costPhase names.
	costMetrics = []string{result.CPUPerIteration}
)

// measure is one run's measurement, each phase after its own reset,
// verify and drain, then a drain; a run of several phases is merged into
// one Run (mergePhases) that keeps every phase's own figures.
func (b *Benchmark) measure(ctx context.Context, plan *scenario.Plan, tgt *running, i int) (*result.Run, error) {
	phases := b.Config.Load.RunPhases()
	clock := phaseClock{total: b.Config.Load.RunTime()}
	measured := make([]result.Phase, 0, len(phases))
	for _, ph := range phases {
		run, err := b.measurePhase(ctx, plan, tgt, i, ph, clock, phaseWindow{prepare: true})
		if err != nil {
			return nil, err
		}
		measured = append(measured, result.Phase{Name: ph.Name, Run: *run})
		clock.done += ph.Load.Warmup.D() + ph.Load.Duration.D()
	}
	run := &measured[0].Run
	if len(measured) > 1 {
		run = mergePhases(measured)
	}
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
// duration unless warmup or duration (above 0) replace them. The
// interleaved A/B design measures several short windows of one phase on a
// target prepared once.
// setup, when set, carries the setup steps' values from one window of a
// side's process to the next (the logins are not repeated).
type phaseWindow struct {
	prepare          bool
	warmup, duration time.Duration
	setup            *load.SetupCache
}

// measurePhase is one phase: reset → verify → drain → warm-up → measure,
// with the target's CPU and memory sampled over the measured window.
func (b *Benchmark) measurePhase(ctx context.Context, plan *scenario.Plan, tgt *running, i int, ph config.PhaseLoad, clock phaseClock, w phaseWindow) (*result.Run, error) {
	obs := b.observer()
	if w.prepare {
		if err := b.prepare(ctx, tgt, i); err != nil {
			return nil, err
		}
	}
	opt, err := b.loadOptions(ph.Load)
	if err != nil {
		return nil, err
	}
	if w.warmup > 0 {
		opt.Warmup = w.warmup
	}
	if w.duration > 0 {
		opt.Duration = w.duration
	}
	opt.Setup = w.setup
	opt.TLS = tgt.tls
	if clock.done == 0 { // the shards' runs start together (phases are not sharded)
		if err := b.waitForStart(ctx, i); err != nil {
			return nil, err
		}
	}
	opt.Progress = func(p load.Progress) {
		if ph.Name != "" {
			p.Phase = ph.Name + " " + p.Phase
			p.Elapsed += clock.done
			p.Total = clock.total
		}
		obs.Progress(i, p)
	}
	var sampler sampling
	opt.OnMeasure = func() { sampler.start(ctx, tgt) } // the window only: warm-up is not measured
	if plan.HasSetup(scenario.SetupRun) || plan.HasSetup(scenario.SetupVU) {
		obs.Step(i, stepName("setup", ph.Name)) // the load's progress follows once it is done
	} else {
		obs.Step(i, stepName("measure", ph.Name))
	}
	started := b.now()
	began := time.Now()
	run, err := load.Run(ctx, plan, tgt.url, opt)
	res, note := sampler.stop(tgt)
	footprint := sampler.stopPath(ctx)
	b.spend(TimeLoad, time.Since(began)-opt.Warmup-opt.Duration)
	b.spend(TimeWarmup, opt.Warmup)
	b.spend(TimeMeasured, opt.Duration)
	if err != nil {
		return nil, err
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

// mergePhases is the Run of a run of several phases. Each metric is taken
// from the phase that measures it:
//   - throughput (iterations/s, requests/s) from the closed phase: its
//     capacity; only without one from the open phase, and then set by the
//     load;
//   - latency percentiles, iteration latency, dropped work and schedule
//     lag from the open phase (from the closed one without an open one);
//   - CPU per iteration from costPhase;
//   - request error rate and lifecycle success over all phases, from the
//     summed counts; peak RSS the largest of any phase.
//
// The Run's counts (iterations, requests, errors, each step's requests)
// are the sums over the phases, its histograms the latency phase's, its
// resources the summed CPU and the largest RSS; Phases keeps every phase
// as measured.
func mergePhases(phases []result.Phase) *result.Run {
	closed, open := phaseOf(phases, config.ModelClosed), phaseOf(phases, config.ModelOpen)
	throughput, latency := orElse(closed, open), orElse(open, closed)
	run := &result.Run{
		Started:          phases[0].Started,
		Model:            result.ModelPhases,
		Latency:          latency.Latency,
		IterationLatency: latency.IterationLatency,
		ScheduleLag:      latency.ScheduleLag,
		Metrics:          map[string]float64{},
		Phases:           phases,
		Requests:         result.Requests{Counted: result.CountRequests}, // what the phases count, summed
	}
	if open != nil {
		run.OfferedRate = open.OfferedRate
	}
	for _, p := range phases {
		run.Window += p.Window
		addCounts(run, &p.Run)
		for _, n := range p.Notes {
			run.Notes = append(run.Notes, p.Name+": "+n)
		}
	}
	run.Steps = mergeSteps(phases, latency)
	run.Resources = mergeResources(phases)
	take(run, throughput, throughputMetrics)
	take(run, latency, latencyMetrics)
	take(run, costPhase(closed, open), costMetrics)
	if rss, ok := largest(phases, result.PeakRSS); ok {
		run.Metrics[result.PeakRSS] = rss
	}
	mergeFootprint(run, phases, costPhase(closed, open))
	overAll(run)
	return run
}

// mergeFootprint takes the footprint's per-iteration metrics (the parts'
// CPU, I/O and counters, the work counters) from the cost phase, as CPU
// per iteration, and each part's peak memory as the largest of any phase.
func mergeFootprint(run *result.Run, phases []result.Phase, cost *result.Run) {
	runs := make([]result.Run, len(phases))
	for i := range phases {
		runs[i] = phases[i].Run
	}
	for _, key := range result.KeysOf(runs) {
		switch {
		case !result.IsFootprint(key):
		case strings.HasSuffix(key, ".peak_rss_mb"):
			if rss, ok := largest(phases, key); ok {
				run.Metrics[key] = rss
			}
		default:
			take(run, cost, []string{key})
		}
	}
}

// costPhase is the phase CPU per iteration is taken from: the closed one.
// It completes many times the iterations of an open phase at a rate well
// below capacity, and its window has no idle time, whose background work
// (timers, collection) an open phase charges to few iterations.
func costPhase(closed, open *result.Run) *result.Run { return orElse(closed, open) }

// phaseOf is the phase of the given model, or nil.
func phaseOf(phases []result.Phase, model string) *result.Run {
	for i := range phases {
		if phases[i].Model == model {
			return &phases[i].Run
		}
	}
	return nil
}

func orElse(a, b *result.Run) *result.Run {
	if a != nil {
		return a
	}
	return b
}

// take copies keys from the phase that measures them, with their "set by
// the load" marks; a key the phase lacks stays absent.
func take(run, from *result.Run, keys []string) {
	if from == nil {
		return
	}
	for _, k := range keys {
		if v, ok := from.Metrics[k]; ok {
			run.Metrics[k] = v
			if slices.Contains(from.SetByLoad, k) {
				markSetByLoad(run, k)
			}
		}
	}
}

// addCounts adds a phase's iteration, request and error counts to run's.
func addCounts(run, p *result.Run) {
	it := &run.Iterations
	it.Offered += p.Iterations.Offered
	it.Started += p.Iterations.Started
	it.Completed += p.Iterations.Completed
	it.Succeeded += p.Iterations.Succeeded
	it.Dropped += p.Iterations.Dropped
	it.Counted = result.CountAll
	run.Requests = run.Requests.Plus(p.Requests)
	for _, e := range p.Errors {
		i := slices.IndexFunc(run.Errors, func(x result.ErrorClass) bool { return x.Class == e.Class && x.Step == e.Step })
		if i < 0 {
			run.Errors = append(run.Errors, e)
			continue
		}
		run.Errors[i].Count += e.Count
	}
}

// mergeSteps sums each step's requests over the phases and keeps the
// latency phase's histograms.
func mergeSteps(phases []result.Phase, latency *result.Run) []result.Step {
	steps := slices.Clone(latency.Steps)
	for i := range steps {
		steps[i].Requests, steps[i].Failed = 0, 0
		for _, p := range phases {
			for _, s := range p.Steps {
				if s.Name == steps[i].Name {
					steps[i].Requests += s.Requests
					steps[i].Failed += s.Failed
				}
			}
		}
	}
	return steps
}

// mergeResources is the CPU of all phases' windows and the largest RSS;
// nil when no phase measured either.
func mergeResources(phases []result.Phase) *result.Resources {
	var sum result.Resources
	for _, p := range phases {
		if r := p.Resources; r != nil {
			sum.CPUSeconds += r.CPUSeconds
			sum.PeakRSSBytes = max(sum.PeakRSSBytes, r.PeakRSSBytes)
		}
	}
	if sum == (result.Resources{}) {
		return nil
	}
	return &sum
}

func largest(phases []result.Phase, key string) (float64, bool) {
	var out float64
	found := false
	for _, p := range phases {
		if v, ok := p.Metrics[key]; ok {
			out, found = max(out, v), true
		}
	}
	return out, found
}

// overAll sets the error rate and lifecycle success of the summed counts,
// by the formulas of result.Summarize.
func overAll(run *result.Run) {
	counts := result.Run{Iterations: run.Iterations, Requests: run.Requests, Model: config.ModelClosed}
	counts.Summarize()
	for _, k := range []string{result.RequestErrorPct, result.LifecycleSuccess} {
		if v, ok := counts.Metrics[k]; ok {
			run.Metrics[k] = v
		}
	}
}
