package load

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

func compile(t testing.TB, seed int64, scenarios ...config.Scenario) *scenario.Plan {
	t.Helper()
	p, err := scenario.CompileWith(scenarios, scenario.Inputs{Seed: seed})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return p
}

func oneStep(name, path string) config.Scenario {
	return config.Scenario{Name: name, Steps: []config.Step{{Name: name, Request: config.Request{Path: path}}}}
}

func openOpts(rate float64, inflight int, warmup, window time.Duration) Options {
	return Options{Model: Open, Pacer: Constant{rate}, MaxInflight: inflight,
		Warmup: warmup, Duration: window, RequestTimeout: 2 * time.Second}
}

func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func run(t *testing.T, plan *scenario.Plan, url string, opt Options) *result.Run {
	t.Helper()
	r, err := Run(context.Background(), plan, url, opt)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return r
}

func within(got, want, tol int64) bool { return got >= want-tol && got <= want+tol }

func TestOpenModelOffersTheScheduleAndCountsEverything(t *testing.T) {
	t.Parallel()
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })
	r := run(t, compile(t, 1, oneStep("ping", "/")), srv.URL, openOpts(400, 256, 0, time.Second))
	t.Logf("lag p50 %v p99 %v max %v; latency p99 %v max %v", r.ScheduleLag.Quantile(.5), r.ScheduleLag.Quantile(.99), r.ScheduleLag.Max(), r.Latency.Quantile(.99), r.Latency.Max())
	it := r.Iterations
	if it.Offered != 400 { // hits due at 0, 2.5ms, … < 1s
		t.Errorf("offered %d, want 400 (400/s for 1s)", it.Offered)
	}
	if it.Dropped != 0 || it.Started != 400 || it.Completed != 400 || it.Succeeded != 400 {
		t.Errorf("iterations %+v, want all 400 started, completed and succeeded", it)
	}
	if r.Requests.Total != 400 || r.Requests.Failed != 0 || r.Latency.Count() != 400 {
		t.Errorf("requests %+v, latency count %d; want 400 recorded, 0 failed", r.Requests, r.Latency.Count())
	}
	if r.ScheduleLag.Count() != 400 || r.IterationLatency.Count() != 400 {
		t.Errorf("lag count %d, iteration count %d; want 400 each", r.ScheduleLag.Count(), r.IterationLatency.Count())
	}
	if r.OfferedRate != 400 || r.Window != 1 || r.Model != Open {
		t.Errorf("offered rate %v, window %v, model %q", r.OfferedRate, r.Window, r.Model)
	}
	for _, k := range []string{result.IterationsPerSec, result.LatencyP95, result.DroppedPct, result.ScheduleLagP99} {
		if _, ok := r.Value(k); !ok {
			t.Errorf("metric %s missing from %v", k, r.Metrics)
		}
	}
}

func TestOpenModelDropsWhatItCannotStart(t *testing.T) {
	t.Parallel()
	forEachClient(t, checkDrops)
}

func checkDrops(t *testing.T, client string) {
	const delay = 50 * time.Millisecond
	var inflight, peak atomic.Int64
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		n := inflight.Add(1)
		defer inflight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(delay)
	})
	var maxSeen atomic.Int64
	opt := openOpts(200, 4, 0, time.Second)
	opt.Client = client
	opt.Progress = func(p Progress) { maxSeen.Store(max(maxSeen.Load(), p.PeakInflight)) }
	begin := time.Now()
	r := run(t, compile(t, 1, oneStep("slow", "/")), srv.URL, opt)
	if took := time.Since(begin); took > time.Second+delay+500*time.Millisecond {
		t.Errorf("run took %v; want it to end about 1s + one request after it began", took)
	}
	it := r.Iterations
	// 4 workers × 1s / 50ms ≈ 80 can start; 200 are offered.
	if it.Offered != 200 || it.Dropped < 80 || it.Started > 100 || it.Started+it.Dropped != it.Offered {
		t.Errorf("iterations %+v: want 200 offered, most dropped, started+dropped = offered", it)
	}
	if p := peak.Load(); p > 4 {
		t.Errorf("server saw %d requests at once; max_inflight is 4", p)
	}
	if p := maxSeen.Load(); p < 1 || p > 4 {
		t.Errorf("progress peak in-flight %d, want 1..4", p)
	}
	if got := r.Latency.Min(); got < delay {
		t.Errorf("min service time %v, want ≥ the handler's %v", got, delay)
	}
	if got := r.IterationLatency.Min(); got < delay {
		t.Errorf("min iteration latency %v, want ≥ %v", got, delay)
	}
	if d, _ := r.Value(result.DroppedPct); d < 40 {
		t.Errorf("dropped %% = %v, want ≥ 40", d)
	}
}

// Iteration latency counts from the scheduled start: an iteration picked up
// late carries the delay, while the request's own service time does not.
func TestIterationLatencyCountsFromTheSchedule(t *testing.T) {
	t.Parallel()
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {})
	e, workers, err := newEngine(compile(t, 1, oneStep("a", "/")), srv.URL, openOpts(1, 1, 0, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	e.hard, e.cancelHard = context.WithCancelCause(context.Background())
	defer e.cancelHard(nil)
	defer e.transport.close()
	defer workers[0].begin(e.hard)()
	const late = 300 * time.Millisecond
	workers[0].iterate(0, time.Now().Add(-late), true)
	workers[0].flush()
	if got := e.coll.iteration.Min(); got < late {
		t.Errorf("iteration latency %v, want ≥ %v (due that long ago)", got, late)
	}
	if got := e.coll.latency.Max(); got >= late {
		t.Errorf("service time %v includes the schedule delay", got)
	}
}

// Not parallel: it saturates the CPU on purpose, which would starve the
// other tests' schedules.
func TestOpenModelBoundsSocketsUnderOverload(t *testing.T) {
	for _, client := range clients {
		t.Run(client, func(t *testing.T) { checkSocketBound(t, client) })
	}
}

func checkSocketBound(t *testing.T, client string) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	begin := time.Now()
	opt := openOpts(20000, 8, 0, 500*time.Millisecond)
	opt.Client = client
	r := run(t, compile(t, 1, oneStep("a", "/")), srv.URL, opt)
	if took := time.Since(begin); took > 1500*time.Millisecond {
		t.Errorf("run took %v, want about 0.5s", took)
	}
	if n := conns.Load(); n > 8 {
		t.Errorf("the generator opened %d connections; max_inflight 8 allows 8", n)
	}
	if r.Iterations.Offered != 10000 || r.Iterations.Dropped < 5000 {
		t.Errorf("iterations %+v: want 10000 offered, most dropped", r.Iterations)
	}
}

func TestWarmupIsExcluded(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { served.Add(1) })
	r := run(t, compile(t, 1, oneStep("a", "/")), srv.URL, openOpts(200, 256, 500*time.Millisecond, 500*time.Millisecond))
	if r.Iterations.Offered != 100 || r.Requests.Total != 100 {
		t.Errorf("measured %d offered, %d requests; want 100 each (the warm-up's 100 excluded)", r.Iterations.Offered, r.Requests.Total)
	}
	if got := served.Load(); got != 200 {
		t.Errorf("server saw %d requests, want 200 (warm-up + window)", got)
	}
	if r.Latency.Count() != 100 || r.ScheduleLag.Count() != 100 {
		t.Errorf("histograms hold %d / %d values, want 100", r.Latency.Count(), r.ScheduleLag.Count())
	}
}

func TestWeightedMix(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	paths := map[string]int{}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths[r.URL.Path]++
		mu.Unlock()
	})
	a, b := oneStep("browse", "/browse"), oneStep("buy", "/buy")
	a.Weight, b.Weight = 3, 1
	r := run(t, compile(t, 5, a, b), srv.URL, closedOpts(8, 0, time.Second))
	steps := map[string]int64{}
	for _, s := range r.Steps {
		steps[s.Name] = s.Requests
	}
	// The pick's exact proportions are tested in package scenario; here,
	// that the engine follows it (±0.08 is > 3 σ at 100 iterations).
	ran := steps["browse"] + steps["buy"]
	if ran != r.Iterations.Started || ran < 100 {
		t.Fatalf("steps %v, iterations %+v, errors %+v: want one request per started iteration, at least 100", steps, r.Iterations, r.Errors)
	}
	if share := float64(steps["browse"]) / float64(ran); share < 0.67 || share > 0.83 {
		t.Errorf("browse ran %.3f of iterations (%v), want 0.75 ± 0.08", share, steps)
	}
	mu.Lock()
	defer mu.Unlock()
	if int64(paths["/browse"]) != steps["browse"] || int64(paths["/buy"]) != steps["buy"] {
		t.Errorf("server saw %v, run reports %v", paths, steps)
	}
}

// The same seed gives every iteration the same values, whatever worker
// runs it; another seed gives other values.
func TestTemplateValuesDependOnlyOnSeedAndIteration(t *testing.T) {
	t.Parallel()
	record := func(seed int64) map[string]string {
		var mu sync.Mutex
		got := map[string]string{}
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			seq, val, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
			mu.Lock()
			got[seq] = val
			mu.Unlock()
		})
		sc := oneStep("a", "/{{seq}}/{{randInt 0 1000000000}}-{{uuid}}")
		run(t, compile(t, seed, sc), srv.URL, openOpts(500, 256, 0, 200*time.Millisecond))
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	a, b, c := record(11), record(11), record(12)
	if len(a) < 50 || len(b) < 50 { // 100 offered; a busy machine may drop a few
		t.Fatalf("recorded %d and %d iterations, want about 100", len(a), len(b))
	}
	same := 0
	for seq, v := range a {
		if w, ok := b[seq]; ok && w != v {
			t.Errorf("seed 11, iteration %s: %q then %q", seq, v, b[seq])
		}
		if c[seq] == v {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seed 12 repeated %d of seed 11's values", same)
	}
}

// OnMeasure fires once, when the warm-up is over: the server has by then
// seen (about) the warm-up's requests, not the window's.
func TestOnMeasureFiresAtWindowStart(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { served.Add(1) })
	opt := openOpts(200, 256, 500*time.Millisecond, 500*time.Millisecond)
	var calls, seenAtStart atomic.Int64
	opt.OnMeasure = func() {
		calls.Add(1)
		seenAtStart.Store(served.Load())
	}
	run(t, compile(t, 1, oneStep("a", "/")), srv.URL, opt)
	if calls.Load() != 1 {
		t.Fatalf("OnMeasure called %d times, want once", calls.Load())
	}
	// 100 warm-up requests are due before the window; allow wide timing slack.
	if got := seenAtStart.Load(); got < 50 || got > 150 {
		t.Errorf("at the window's start the server had seen %d requests, want about the warm-up's 100", got)
	}
}

// With no warm-up, OnMeasure runs before the first request, and however
// long it takes, the window's clock starts after it: every request of the
// window is inside the sampling, and the window still lasts its duration.
func TestOnMeasureWithoutWarmupOpensBeforeTheLoad(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { served.Add(1) })
	opt := closedOpts(2, 0, 300*time.Millisecond)
	var calls, seenAtStart atomic.Int64
	var returned atomic.Int64 // unix nanos when OnMeasure returned
	opt.OnMeasure = func() {
		calls.Add(1)
		seenAtStart.Store(served.Load())
		time.Sleep(200 * time.Millisecond) // a slow counter read
		returned.Store(time.Now().UnixNano())
	}
	res := run(t, compile(t, 1, oneStep("a", "/")), srv.URL, opt)
	if calls.Load() != 1 {
		t.Fatalf("OnMeasure called %d times, want once", calls.Load())
	}
	if got := seenAtStart.Load(); got != 0 {
		t.Errorf("the server had seen %d requests when OnMeasure ran, want 0", got)
	}
	if res.Started.UnixNano() < returned.Load() {
		t.Errorf("the window started %v before OnMeasure returned", time.Duration(returned.Load()-res.Started.UnixNano()))
	}
	if n := res.Iterations.Completed; n == 0 || n != served.Load() {
		t.Errorf("%d iterations measured, %d requests served: with no warm-up every request is measured", n, served.Load())
	}
}
