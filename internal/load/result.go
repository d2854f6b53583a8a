package load

import (
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// lagWarning is the p99 schedule lag beyond which the run notes a late generator.
const lagWarning = 10 * time.Millisecond

// result merges the workers' counters and histograms into a summarized Run.
func (e *engine) result(workers []*worker) *result.Run {
	run := &result.Run{Started: e.warmEnd, Window: e.opt.Duration.Seconds(), Model: e.opt.Model, Latency: e.coll.latency}
	steps := make([]result.Step, len(e.steps))
	for id, name := range e.steps {
		steps[id] = result.Step{Name: name, Latency: e.coll.steps[id]}
	}
	errs := make([]errorCount, len(e.steps)*len(classes))
	var cut int64
	for _, w := range workers {
		run.Iterations.Started += w.its.Started
		run.Iterations.Completed += w.its.Completed
		run.Iterations.Succeeded += w.its.Succeeded
		cut += w.cut
		for id, c := range w.reqs {
			steps[id].Requests += c.total
			steps[id].Failed += c.failed
		}
		for i, c := range w.errs {
			errs[i].count += c.count
			if errs[i].sample == "" {
				errs[i].sample = c.sample
			}
		}
	}
	for _, s := range steps {
		run.Requests.Total += s.Requests
		run.Requests.Failed += s.Failed
	}
	run.Iterations.Counted, run.Requests.Counted, run.Steps = result.CountAll, result.CountRequests, steps
	run.Errors = errorClasses(e.steps, errs)
	if run.Iterations.Completed > 0 {
		run.IterationLatency = e.coll.iteration
	}
	if e.opt.Model == Open {
		e.openFigures(run)
	} else {
		run.Busy = busy(workers, run.Iterations.Completed)
	}
	if cut > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf(
			"%d iterations were still running %v after the window closed and were cut; they count as started, not completed",
			cut, e.opt.RequestTimeout))
	}
	run.Summarize()
	return run
}

// busy is the time a closed run's completed iterations are rated over: their count over the sum of each
// user's own rate (its iterations over its busy time), not over the window, where a count of long lifecycles
// is a small integer (Radicale's 500 ms windows read 8.00/s in every one). Users that completed none stand
// for the mean of those that did; 0 when none did (the window then rates the count).
func busy(workers []*worker, completed int64) float64 {
	var rate float64
	var n int
	for _, w := range workers {
		if t := w.next.Sub(w.first).Seconds(); w.its.Completed > 0 && t > 0 {
			rate, n = rate+float64(w.its.Completed)/t, n+1
		}
	}
	if n == 0 {
		return 0
	}
	return float64(completed) * float64(n) / (rate * float64(len(workers)))
}

func (e *engine) openFigures(run *result.Run) {
	run.Iterations.Dropped = e.dropped
	run.Iterations.Offered = run.Iterations.Started + e.dropped
	run.OfferedRate = float64(run.Iterations.Offered) / run.Window
	run.SetByLoad = []string{result.IterationsPerSec, result.RequestsPerSec} // the schedule's rate, not the target's capacity
	run.ScheduleLag = e.coll.lag
	if p99 := e.coll.lag.Quantile(0.99); p99 > lagWarning {
		run.Notes = append(run.Notes, fmt.Sprintf(
			"the generator started iterations late (p99 schedule lag %v): the load machine may be overloaded", p99))
	}
}

// errorClasses lists the non-zero counters by step, then class.
func errorClasses(steps []string, errs []errorCount) []result.ErrorClass {
	var out []result.ErrorClass
	for id, name := range steps {
		for slot, class := range classes {
			c := errs[id*len(classes)+slot]
			if c.count > 0 {
				out = append(out, result.ErrorClass{Class: class, Step: name, Count: c.count, Sample: c.sample})
			}
		}
	}
	return out
}
