package result

import (
	"cmp"
	"time"
)

// Summarize fills r.Metrics from the run's counts, histograms and resources.
// Metrics whose inputs the run lacks are left out — a count the source did
// not count is no input, whatever its value —; values already present (set
// by an importer from a summary file) are kept.
func (r *Run) Summarize() {
	if r.Metrics == nil {
		r.Metrics = map[string]float64{}
	}
	set := func(key string, v float64) {
		if _, ok := r.Metrics[key]; !ok {
			r.Metrics[key] = v
		}
	}
	it, req := r.Iterations, r.Requests
	if per := cmp.Or(r.Busy, r.Window); per > 0 {
		if it.Counted&CountCompleted != 0 {
			set(IterationsPerSec, float64(it.Completed)/per)
		}
		if req.Counted&CountTotal != 0 {
			set(RequestsPerSec, float64(req.Total)/per)
		}
	}
	if h := r.Latency; h != nil && h.Count() > 0 {
		q := h.Quantiles(0.50, 0.90, 0.95, 0.99)
		set(LatencyMean, ms(h.Mean()))
		for i, k := range []string{LatencyP50, LatencyP90, LatencyP95, LatencyP99} {
			set(k, ms(q[i]))
		}
		set(LatencyMax, ms(h.Max()))
	}
	if h := r.IterationLatency; h != nil && h.Count() > 0 {
		q := h.Quantiles(0.50, 0.95, 0.99)
		for i, k := range []string{IterationP50, IterationP95, IterationP99} {
			set(k, ms(q[i]))
		}
	}
	if h := r.ScheduleLag; h != nil && h.Count() > 0 {
		set(ScheduleLagP99, ms(h.Quantile(0.99)))
	}
	if req.Total > 0 && req.Counted == CountRequests {
		set(RequestErrorPct, pct(req.Failed, req.Total))
	}
	// Lifecycle success is known only where every step's outcome was
	// checked per iteration: tailgate's own runs (Model set), not imports.
	if it.Completed > 0 && it.Counted&CountSucceeded != 0 && r.Model != "" {
		set(LifecycleSuccess, pct(it.Succeeded, it.Completed))
	}
	if offered := it.Started + it.Dropped; r.Model == "open" && offered > 0 {
		set(DroppedPct, pct(it.Dropped, offered))
	}
	if res := r.Resources; res != nil {
		// zero is "not measured": a process that served requests used CPU
		if it.Completed > 0 && it.Counted&CountCompleted != 0 && res.CPUSeconds > 0 {
			set(CPUPerIteration, res.CPUSeconds*1000/float64(it.Completed))
		}
		if res.PeakRSSBytes > 0 {
			set(PeakRSS, float64(res.PeakRSSBytes)/(1<<20))
		}
	}
	r.summarizeFootprint(set)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func pct(part, whole int64) float64 { return 100 * float64(part) / float64(whole) }
