package result

import (
	"cmp"
	"slices"
	"strings"
)

// The models of tailgate's own runs (config.ModelOpen and ModelClosed).
const (
	ModelOpen   = "open"
	ModelClosed = "closed"
)

// Which phase of a run of several measures which metric (see MergePhases).
var (
	// throughputMetrics come from the closed phase: at a fixed
	// concurrency that saturates the target they measure its capacity,
	// and move when it changes.
	throughputMetrics = []string{IterationsPerSec, RequestsPerSec}
	// latencyMetrics come from the open phase: timed from the scheduled
	// start at a fixed rate, they show queueing, and work the target could
	// not take is dropped and counted there.
	latencyMetrics = []string{LatencyMean, LatencyP50, LatencyP90, LatencyP95,
		LatencyP99, LatencyMax, IterationP50, IterationP95, IterationP99,
		DroppedPct, ScheduleLagP99}
	// costMetrics come from the phase costPhase names.
	costMetrics = []string{CPUPerIteration}
)

// MergePhases is the Run of a run of several phases, each metric from the
// phase that measures it (SourcePhases), error rates from the summed
// counts, peak RSS the largest; histograms are the latency phase's.
func MergePhases(phases []Phase) *Run {
	closed, open := phaseOf(phases, ModelClosed), phaseOf(phases, ModelOpen)
	throughput, latency := cmp.Or(closed, open), cmp.Or(open, closed)
	run := &Run{
		Started:          phases[0].Started,
		Model:            ModelPhases,
		Latency:          latency.Latency,
		IterationLatency: latency.IterationLatency,
		ScheduleLag:      latency.ScheduleLag,
		Metrics:          map[string]float64{},
		Phases:           phases,
		Requests:         Requests{Counted: CountRequests}, // what the phases count, summed
	}
	if open != nil {
		run.OfferedRate = open.OfferedRate
	}
	for _, p := range phases {
		run.Window += p.Window
		addIterations(&run.Iterations, p.Iterations)
		run.Requests = run.Requests.Plus(p.Requests)
		run.Errors = addErrors(run.Errors, p.Errors)
		for _, n := range p.Notes {
			run.Notes = append(run.Notes, p.Name+": "+n)
		}
	}
	run.Iterations.Counted = CountAll
	run.Steps = mergePhaseSteps(phases, cmp.Or(measuredPhase(phases, latency), throughput))
	run.Resources = foldResources(runsOf(phases), add)
	take(run, throughput, throughputMetrics)
	take(run, latency, latencyMetrics)
	// CPU per iteration comes from the throughput (closed) phase, whose
	// window has no idle time whose background work an open phase charges
	// to few iterations.
	take(run, throughput, costMetrics)
	setLargest(run, phases, PeakRSS)
	mergeFootprint(run, phases, throughput)
	// the error rate and lifecycle success of the summed counts, by Summarize's formulas
	counts := Run{Iterations: run.Iterations, Requests: run.Requests, Model: ModelClosed}
	counts.Summarize()
	take(run, &counts, []string{RequestErrorPct, LifecycleSuccess})
	return run
}

// mergeFootprint takes the footprint's per-iteration metrics (the parts'
// CPU, I/O and counters, the work counters) from the cost phase, as CPU
// per iteration, and each part's peak memory as the largest of any phase.
func mergeFootprint(run *Run, phases []Phase, cost *Run) {
	for _, key := range KeysOf(runsOf(phases)) {
		switch {
		case !IsFootprint(key):
		case strings.HasSuffix(key, ".peak_rss_mb"):
			setLargest(run, phases, key)
		default:
			take(run, cost, []string{key})
		}
	}
}

// SourcePhases are the indexes of the phases (given by their models, in
// order) that MergePhases takes metric key from.
func SourcePhases(models []string, key string) []int {
	all := make([]int, len(models))
	for i := range all {
		all[i] = i
	}
	if len(models) < 2 {
		return all
	}
	closed, open := slices.Index(models, ModelClosed), slices.Index(models, ModelOpen)
	either := func(a, b int) []int {
		if a >= 0 {
			return []int{a}
		}
		if b >= 0 {
			return []int{b}
		}
		return all
	}
	switch {
	case slices.Contains(throughputMetrics, key):
		return either(closed, open)
	case slices.Contains(latencyMetrics, key):
		return either(open, closed)
	case slices.Contains(costMetrics, key), IsFootprint(key) && !strings.HasSuffix(key, ".peak_rss_mb"):
		return either(closed, open)
	}
	return all
}

// measuredPhase is r, one of phases' runs, or nil when its phase was
// left out of a block (Phase.Skipped): its steps and histograms are none.
func measuredPhase(phases []Phase, r *Run) *Run {
	for i := range phases {
		if &phases[i].Run == r && phases[i].Skipped {
			return nil
		}
	}
	return r
}

func phaseOf(phases []Phase, model string) *Run {
	if i := slices.IndexFunc(phases, func(p Phase) bool { return p.Model == model }); i >= 0 {
		return &phases[i].Run
	}
	return nil
}

// take copies keys from the phase that measures them, with their "set by
// the load" marks; a key the phase lacks stays absent.
func take(run, from *Run, keys []string) {
	if from == nil {
		return
	}
	for _, k := range keys {
		if v, ok := from.Metrics[k]; ok {
			run.Metrics[k] = v
			if slices.Contains(from.SetByLoad, k) {
				run.SetByLoad = AppendNew(run.SetByLoad, k)
			}
		}
	}
}

// mergePhaseSteps sums each step's requests over the phases and keeps the
// latency phase's histograms.
func mergePhaseSteps(phases []Phase, latency *Run) []Step {
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

func runsOf(phases []Phase) []Run {
	runs := make([]Run, len(phases))
	for i := range phases {
		runs[i] = phases[i].Run
	}
	return runs
}

// setLargest sets key to the largest value of it (at least 0) a phase
// measured; absent when none did.
func setLargest(run *Run, phases []Phase, key string) {
	for _, p := range phases {
		if v, ok := p.Metrics[key]; ok {
			run.Metrics[key] = max(run.Metrics[key], v)
		}
	}
}

// AppendNew appends the values list does not hold yet, each once.
func AppendNew(list []string, vals ...string) []string {
	for _, v := range vals {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}
