package load

import (
	"bytes"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// sleepyWindows runs n closed windows of 2 users on a loopback server that
// takes sleep to answer each request (one request per lifecycle).
func sleepyWindows(t *testing.T, sleep, window time.Duration, n int) []result.Run {
	t.Helper()
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { time.Sleep(sleep) })
	plan := compile(t, 1, oneStep("wait", "/"))
	runs := make([]result.Run, n)
	for i := range runs {
		runs[i] = *run(t, plan, srv.URL, closedOpts(2, 0, window))
	}
	return runs
}

func median(runs []result.Run, f func(result.Run) float64) float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func countRate(r result.Run) float64 { return float64(r.Iterations.Completed) / r.Window }
func rate(r result.Run) float64      { return r.Metrics[result.IterationsPerSec] }

// A 500 ms window of 300 ms lifecycles holds 2 of each user's whatever
// the lifecycle's length between 250 and 499 ms: the count over the
// window reads 8/s for 300 ms and for 330 ms. Each user's own rate (its
// iterations over its busy time) sees the 10 % between them.
func TestClosedWindowRatesLongLifecyclesWithoutQuantizing(t *testing.T) {
	t.Parallel()
	fast := sleepyWindows(t, 300*time.Millisecond, 500*time.Millisecond, 3)
	slow := sleepyWindows(t, 330*time.Millisecond, 500*time.Millisecond, 3)
	if f, s := median(fast, countRate), median(slow, countRate); f != 8 || s != 8 {
		t.Errorf("count over the window %.2f/s and %.2f/s, want 8/s both (2 users × 2 iterations in 0.5 s)", f, s)
	}
	f, s := median(fast, rate), median(slow, rate)
	if ratio := f / s; ratio < 1.04 || ratio > 1.16 {
		t.Errorf("iterations/s %.3f (300 ms) over %.3f (330 ms) = %.3f, want near 1.10, the ratio of the sleeps", f, s, ratio)
	}
	if f > 2/0.3 || f < 2/0.4 {
		t.Errorf("iterations/s %.3f with 300 ms lifecycles and 2 users, want at most 6.67 and above 5", f)
	}
	for _, r := range fast {
		if rq := r.Metrics[result.RequestsPerSec]; rq != rate(r) {
			t.Errorf("requests/s %.3f, iterations/s %.3f: one request per iteration", rq, rate(r))
		}
	}
	// A block of windows is rated as its windows are: its count over
	// their busy times, not over their nominal windows summed.
	block := result.Combine(fast)
	if got, c := rate(block), countRate(block); got > 2/0.3 || !(got < 0.95*c) {
		t.Errorf("the block's iterations/s %.3f (count over its windows %.3f), want its windows' rate, at most 6.67", got, c)
	}
}

// Short lifecycles: many per window, so each user's rate is the count over
// the window within a few %, as a long run's figures stay.
func TestClosedWindowRateOfShortLifecyclesIsTheCount(t *testing.T) {
	t.Parallel()
	for _, r := range sleepyWindows(t, 5*time.Millisecond, time.Second, 2) {
		got, c := rate(r), countRate(r)
		t.Logf("%d iterations: iterations/s %.2f, count over the window %.2f", r.Iterations.Completed, got, c)
		if r.Iterations.Completed < 80 || got < 0.95*c || got > 1.05*c {
			t.Errorf("%d iterations: iterations/s %.2f, count over the window %.2f; want within 5 %%", r.Iterations.Completed, got, c)
		}
	}
}

// The A/B report warns when a closed phase's windows held fewer than 3
// iterations per user, naming ab.window and a length that holds 3.
func TestFewIterationsPerUserWarnsToRaiseTheWindow(t *testing.T) {
	t.Parallel()
	warned := func(runs []result.Run) string {
		block := result.Combine(runs)
		ab := &report.ABRun{Blocks: 1, MaxBlocks: 1, Windows: len(runs), Window: 500 * time.Millisecond,
			Phases: []report.ABPhase{{Name: "capacity", VUs: 2}}}
		var b bytes.Buffer
		if err := report.WriteText(&b, report.Input{Name: "x", Mode: "ab", Head: []result.Run{block}, Base: []result.Run{block}, AB: ab}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	long := warned(sleepyWindows(t, 300*time.Millisecond, 500*time.Millisecond, 2))
	// 2 users at 1/0.3 s each: 1.7 per user in 500 ms; 3 take 0.9 s (1 s, or 2 s where the machine slows them).
	if !regexp.MustCompile(`held as few as 1\.[3-7] iterations per virtual user at their iterations/s \(fewer than 3\).*raise ab\.window to [12]s to hold at least 3`).MatchString(long) {
		t.Errorf("300 ms lifecycles in 500 ms windows: no warning to raise ab.window to 1s:\n%s", long)
	}
	if short := warned(sleepyWindows(t, 5*time.Millisecond, 500*time.Millisecond, 2)); strings.Contains(short, "ab.window") {
		t.Errorf("5 ms lifecycles: warned of few iterations:\n%s", short)
	}
}

// After a warm-up, a closed window opens (OnMeasure: the CPU sampling)
// only once no warm-up iteration is in flight: the sample holds no work
// the window does not count, as it holds the iterations in flight at the
// window's close, which the window counts.
func TestClosedWindowOpensWithNoWarmupIterationInFlight(t *testing.T) {
	t.Parallel()
	var inflight, atOpen, after atomic.Int64
	var opened atomic.Bool
	atOpen.Store(-1)
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		inflight.Add(1)
		if opened.Load() {
			after.Add(1)
		}
		time.Sleep(200 * time.Millisecond)
		inflight.Add(-1)
	})
	opt := closedOpts(2, 300*time.Millisecond, 500*time.Millisecond)
	opt.OnMeasure = func() { atOpen.Store(inflight.Load()); opened.Store(true) }
	r := run(t, compile(t, 1, oneStep("wait", "/")), srv.URL, opt)
	if n := atOpen.Load(); n != 0 {
		t.Errorf("%d requests in flight when the window opened, want 0 (200 ms lifecycles, 300 ms warm-up)", n)
	}
	if n := after.Load(); n != r.Requests.Total || n < 2 {
		t.Errorf("%d requests started after the window opened, the run counts %d: want the same, at least 2", n, r.Requests.Total)
	}
}
