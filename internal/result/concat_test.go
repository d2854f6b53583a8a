package result

import (
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
)

// window is one window of a phase: n iterations of 4 requests, each
// request taking lat, cpu seconds of the target's CPU, failed requests.
func window(model string, n int64, lat time.Duration, cpu float64, failed int64) Run {
	h := hist.New()
	for range 4 * n {
		h.Record(lat)
	}
	r := Run{Window: 0.5, Model: model, Latency: h, Resources: &Resources{CPUSeconds: cpu, PeakRSSBytes: 1 << 20},
		Iterations: Iterations{Started: n, Completed: n, Succeeded: n, Counted: CountAll},
		Requests:   Requests{Total: 4 * n, Failed: failed, Counted: CountRequests},
		Counters:   map[string]float64{"pg.calls": float64(10 * n)}}
	r.Summarize()
	return r
}

// Concat sums what windows count and merges what they record, so that a
// block's figures are those of all its windows' work: CPU per iteration
// is all the CPU over all the iterations (not a mean of ratios), the p95
// the p95 of every request, the error rate the failed of all requests.
func TestConcatIsTheWindowsTogether(t *testing.T) {
	t.Parallel()
	a := window(ModelClosed, 100, 2*time.Millisecond, 0.3, 0)
	b := window(ModelClosed, 50, 10*time.Millisecond, 0.3, 20)
	c := Concat([]Run{a, b})
	if c.Window != 1 || c.Iterations.Completed != 150 || c.Requests.Total != 600 || c.Requests.Failed != 20 {
		t.Fatalf("concat counts: window %v, %+v, %+v", c.Window, c.Iterations, c.Requests)
	}
	if got := c.Metrics[CPUPerIteration]; math.Abs(got-4) > 1e-9 { // 0.6 s over 150: 4 ms, not the mean of 3 and 6
		t.Errorf("CPU per iteration %v ms, want 4 (all CPU over all iterations)", got)
	}
	if got := c.Metrics[IterationsPerSec]; math.Abs(got-150) > 1e-9 {
		t.Errorf("iterations/s %v, want 150", got)
	}
	// 400 requests at 2 ms, 200 at 10 ms: the p95 of all is 10 ms, the
	// mean of the windows' p95s would be 6 ms.
	if got := c.Metrics[LatencyP95]; got < 9.9 || got > 10.1 {
		t.Errorf("p95 %v ms, want the p95 of every request (10 ms)", got)
	}
	if got := c.Metrics[RequestErrorPct]; math.Abs(got-100*20.0/600) > 1e-9 {
		t.Errorf("error rate %v %%, want 20 of 600", got)
	}
	if got := c.Counters["pg.calls"]; got != 1500 {
		t.Errorf("counter %v, want the sum 1500", got)
	}
	noCPU := b
	noCPU.Resources = nil
	if _, ok := Concat([]Run{a, noCPU}).Metrics[CPUPerIteration]; ok {
		t.Error("a window without CPU: the sum would hide it; CPU per iteration must be absent")
	}
}

// Combine puts windows of several phases together phase by phase, and
// LeaveOneOut is the block without each window pair in turn.
func TestCombineAndLeaveOneOut(t *testing.T) {
	t.Parallel()
	phases := func(closed, open Run) Run {
		return *MergePhases([]Phase{{Name: "capacity", Run: closed}, {Name: "latency", Run: open}})
	}
	var base, head []Run
	for i := range 3 {
		n := int64(100 + 10*i)
		base = append(base, phases(window(ModelClosed, n, time.Millisecond, 0.2, 0), window(ModelOpen, 20, 3*time.Millisecond, 0.05, 0)))
		head = append(head, phases(window(ModelClosed, n, time.Millisecond, 0.3, 0), window(ModelOpen, 20, 4*time.Millisecond, 0.05, 0)))
	}
	block := Combine(base)
	if len(block.Phases) != 2 || block.Phases[0].Iterations.Completed != 330 || block.Phases[1].Iterations.Completed != 60 {
		t.Fatalf("combined phases %+v", block.Phases)
	}
	if got := block.Metrics[CPUPerIteration]; math.Abs(got-1000*0.6/330) > 1e-9 { // the closed phase's CPU per iteration
		t.Errorf("block CPU per iteration %v, want the capacity phase's 0.6 s over 330", got)
	}
	if got := block.Metrics[LatencyP95]; got < 2.9 || got > 3.1 {
		t.Errorf("block p95 %v ms, want the latency phase's 3 ms", got)
	}
	w := &WindowPairs{Base: base, Head: head, Block: []int{0, 0, 0}}
	lb, lh := w.LeaveOneOut(0)
	if len(lb) != 3 || len(lh) != 3 {
		t.Fatalf("%d and %d replicates, want one per window pair", len(lb), len(lh))
	}
	for i, r := range lb {
		var iters int64
		for j, win := range base {
			if j != i {
				iters += win.Phases[0].Iterations.Completed
			}
		}
		if r.Phases[0].Iterations.Completed != iters {
			t.Errorf("replicate %d: %d iterations, want %d (the block without window %d)", i, r.Phases[0].Iterations.Completed, iters, i)
		}
	}
	if lb, _ := (&WindowPairs{Base: base[:1], Head: head[:1], Block: []int{0}}).LeaveOneOut(0); lb != nil {
		t.Errorf("a block of one window pair has no replicates, got %d", len(lb))
	}
}

// Settle leaves a block's windows and replicates without histograms, and
// the replicates' metrics (latency p95 among them, which only the
// histograms give) as they were made from the whole windows; a later
// block keeps its histograms until it settles, and a block's run made from
// the windows before keeps its own.
func TestSettleKeepsTheReplicatesMetricsAndDropsTheHistograms(t *testing.T) {
	t.Parallel()
	phases := func(closed, open Run) Run {
		closed.Steps = []Step{{Name: "get", Requests: 4 * closed.Iterations.Completed, Latency: closed.Latency}}
		return *MergePhases([]Phase{{Name: "capacity", Run: closed}, {Name: "latency", Run: open}})
	}
	var base, head []Run
	for i := range 6 {
		base = append(base, phases(window(ModelClosed, int64(100+i), time.Millisecond, 0.2, 0), window(ModelOpen, 20, time.Duration(3+i)*time.Millisecond, 0.05, 0)))
		head = append(head, phases(window(ModelClosed, int64(100+i), time.Millisecond, 0.3, 0), window(ModelOpen, 20, time.Duration(4+i)*time.Millisecond, 0.05, 0)))
	}
	blocks := []int{0, 0, 0, 1, 1, 1}
	want, _ := (&WindowPairs{Base: slices.Clone(base), Head: slices.Clone(head), Block: blocks}).LeaveOneOut(0)
	block := Combine(base[:3])
	joins := 0
	w := &WindowPairs{Base: slices.Clone(base), Head: slices.Clone(head), Block: blocks, Join: func(rs []Run) Run { joins++; return Combine(rs) }}
	w.Settle(0)
	lb, _ := w.LeaveOneOut(0)
	if joins != 6 || len(lb) != 3 {
		t.Fatalf("%d merges and %d replicates after settling block 0 and reading it, want 6 and 3 (made once, by Settle)", joins, len(lb))
	}
	for i := range lb {
		if _, ok := want[i].Metrics[LatencyP95]; !ok || !maps.Equal(lb[i].Metrics, want[i].Metrics) {
			t.Errorf("replicate %d's metrics %v, want those made from the whole windows %v", i, lb[i].Metrics, want[i].Metrics)
		}
	}
	for i, r := range append(append(w.Base[:3:3], w.Head[:3]...), lb...) {
		if hasHistogram(r) {
			t.Errorf("run %d of the settled block still holds a histogram", i)
		}
	}
	if !hasHistogram(w.Base[3]) || !hasHistogram(w.Head[5]) {
		t.Error("block 1, not settled, lost its windows' histograms")
	}
	if !hasHistogram(block) || block.Metrics[LatencyP95] < 4.9 {
		t.Errorf("the block's run made before lost its histograms (p95 %v ms, want 5)", block.Metrics[LatencyP95])
	}
	// a block of whole runs is a copy of its one window, sharing its steps and phases
	if !hasHistogram(base[0].Phases[0].Run) || base[0].Phases[0].Steps[0].Latency == nil {
		t.Error("a copy of a settled window lost the histograms of its steps or phases")
	}
}

// hasHistogram reports whether r, its steps or its phases hold one.
func hasHistogram(r Run) bool {
	if r.Latency != nil || r.IterationLatency != nil || r.ScheduleLag != nil {
		return true
	}
	for _, s := range r.Steps {
		if s.Latency != nil {
			return true
		}
	}
	for _, p := range r.Phases {
		if hasHistogram(p.Run) {
			return true
		}
	}
	return false
}

// A look reads the last block's replicates once per gated metric: they
// are merged once while the block keeps its size, and again when it grows.
func TestLeaveOneOutMergesALastBlockOnce(t *testing.T) {
	t.Parallel()
	var base, head []Run
	for i := range 3 {
		base = append(base, window(ModelClosed, int64(100+i), time.Millisecond, 0.2, 0))
		head = append(head, window(ModelClosed, int64(100+i), time.Millisecond, 0.3, 0))
	}
	joins := 0
	w := &WindowPairs{Base: base[:2], Head: head[:2], Block: []int{0, 0}, Join: func(rs []Run) Run { joins++; return Combine(rs) }}
	for range 4 {
		w.LeaveOneOut(0)
	}
	if joins != 4 {
		t.Errorf("%d merges for 4 reads of a block of 2 pairs, want 4 (2 replicates a side, once)", joins)
	}
	w.Base, w.Head, w.Block = base, head, []int{0, 0, 0}
	if lb, _ := w.LeaveOneOut(0); len(lb) != 3 || lb[0].Iterations.Completed != 203 || joins != 10 {
		t.Errorf("the block grown to 3 pairs: %d replicates, the first of %d iterations, %d merges; want 3, 203, 10", len(lb), lb[0].Iterations.Completed, joins)
	}
}

// A phase a block left out (SkippedPhase) gives the merged run nothing:
// the metrics taken from it are absent, not zero and not taken from the
// phase that was measured, while those of the measured phase and the
// counts over all phases stay; windows combined keep it skipped.
func TestSkippedPhaseLeavesItsMetricsAbsent(t *testing.T) {
	t.Parallel()
	capacity := window(ModelClosed, 100, time.Millisecond, 0.2, 0)
	capacity.Steps = []Step{{Name: "get", Requests: 400}}
	windows := make([]Run, 2)
	for i := range windows {
		windows[i] = *MergePhases([]Phase{{Name: "capacity", Run: capacity}, SkippedPhase("latency", ModelOpen)})
	}
	for _, run := range append(windows, Combine(windows)) {
		for _, key := range []string{LatencyP95, LatencyP50, DroppedPct, ScheduleLagP99} {
			if v, ok := run.Metrics[key]; ok {
				t.Errorf("%s = %v, want absent: its phase was left out", key, v)
			}
		}
		if run.Metrics[IterationsPerSec] <= 0 || run.Metrics[CPUPerIteration] <= 0 {
			t.Errorf("the capacity phase's metrics are missing: %v", run.Metrics)
		}
		if _, ok := run.Metrics[RequestErrorPct]; !ok {
			t.Errorf("no error rate over the measured phase: %v", run.Metrics)
		}
		if len(run.Steps) != 1 || run.Steps[0].Requests == 0 {
			t.Errorf("steps %+v, want the measured phase's", run.Steps)
		}
		if len(run.Phases) != 2 || !run.Phases[1].Skipped || run.Phases[0].Skipped {
			t.Errorf("phases %+v, want latency marked skipped", run.Phases)
		}
	}
}

// SourcePhases follows MergePhases: throughput from the closed phase,
// latency and dropped work from the open one, CPU per iteration and the
// footprint's per-iteration figures from the closed one, rates and peak
// memory from every phase, everything from a single phase.
func TestSourcePhases(t *testing.T) {
	t.Parallel()
	two := []string{ModelOpen, ModelClosed}
	for _, c := range []struct {
		models []string
		key    string
		want   []int
	}{
		{two, IterationsPerSec, []int{1}},
		{two, LatencyP95, []int{0}},
		{two, DroppedPct, []int{0}},
		{two, CPUPerIteration, []int{1}},
		{two, CounterKey("pg", "calls"), []int{1}},
		{two, RequestErrorPct, []int{0, 1}},
		{two, PeakRSS, []int{0, 1}},
		{[]string{ModelOpen, ModelOpen}, IterationsPerSec, []int{0}},
		{[]string{ModelClosed}, LatencyP95, []int{0}},
	} {
		if got := SourcePhases(c.models, c.key); !slices.Equal(got, c.want) {
			t.Errorf("SourcePhases(%v, %s) = %v, want %v", c.models, c.key, got, c.want)
		}
	}
	// The twin of MergePhases's rule: every metric a phase alone gives
	// comes, merged, from the phase SourcePhases names, in either order.
	for _, models := range [][]string{{ModelClosed, ModelOpen}, {ModelOpen, ModelClosed}} {
		phases := make([]Phase, len(models))
		for i, m := range models {
			phases[i] = Phase{Name: m, Run: Run{Model: m, Metrics: map[string]float64{}}}
			for _, key := range slices.Concat(throughputMetrics, latencyMetrics, costMetrics, []string{CounterKey("pg", "calls")}) {
				phases[i].Metrics[key] = float64(10*i + 1)
			}
		}
		merged := MergePhases(phases)
		for _, key := range slices.Concat(throughputMetrics, latencyMetrics, costMetrics, []string{CounterKey("pg", "calls")}) {
			src := SourcePhases(models, key)
			if len(src) != 1 || merged.Metrics[key] != phases[src[0]].Metrics[key] {
				t.Errorf("phases %v: merged %s = %v, SourcePhases says phase %v", models, key, merged.Metrics[key], src)
			}
		}
	}
}

// A block of closed windows is rated over its windows' busy times summed:
// each window's rate weighted by its count; a window without a busy time
// (an import, an open run) leaves the block rated over the nominal windows.
func TestConcatRatesOverTheWindowsBusyTimes(t *testing.T) {
	win := func(busy float64) Run {
		return Run{Window: 0.5, Busy: busy, Model: ModelClosed, Iterations: Iterations{Completed: 4, Counted: CountAll},
			Requests: Requests{Total: 8, Counted: CountRequests}}
	}
	r := Concat([]Run{win(0.6), win(0.66)})
	if got := r.Metrics[IterationsPerSec]; math.Abs(got-8/1.26) > 1e-9 || r.Busy != 1.26 {
		t.Errorf("iterations/s %v over busy %v, want 8/1.26 (count over the busy times summed)", got, r.Busy)
	}
	if got := r.Metrics[RequestsPerSec]; math.Abs(got-16/1.26) > 1e-9 {
		t.Errorf("requests/s %v, want 16/1.26", got)
	}
	if r := Concat([]Run{win(0.6), win(0)}); r.Busy != 0 || r.Metrics[IterationsPerSec] != 8 {
		t.Errorf("a window without a busy time: busy %v, iterations/s %v; want 0 and 8 (count over the windows)", r.Busy, r.Metrics[IterationsPerSec])
	}
}
