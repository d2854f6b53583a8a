package target

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// readyAfter is a loopback service that answers 503 to its first n probes.
func readyAfter(t *testing.T, n int64) (*httptest.Server, *atomic.Int64) {
	var probes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if probes.Add(1) <= n {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &probes
}

// A service not ready at the first probes is seen ready soon after, not an
// interval later: a block's start waited most of an interval per side.
func TestWaitReadyPollsSoonAfterAFailedProbe(t *testing.T) {
	srv, _ := readyAfter(t, 2)
	r := &config.Ready{Path: "/health", Interval: config.Duration(3 * time.Second), Timeout: config.Duration(20 * time.Second)}
	began := time.Now()
	if err := WaitReady(context.Background(), srv.Client(), srv.URL, r); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 1500*time.Millisecond { // two intervals: 6 s
		t.Errorf("ready after %v, want well under the 3 s interval", took)
	}
}

// The polls grow to the interval and no further apart: a service never
// ready is not polled in a tight loop.
func TestWaitReadyPollsAtMostEveryInterval(t *testing.T) {
	srv, probes := readyAfter(t, 1<<40)
	r := &config.Ready{Path: "/health", Interval: config.Duration(100 * time.Millisecond), Timeout: config.Duration(time.Second)}
	if err := WaitReady(context.Background(), srv.Client(), srv.URL, r); err == nil {
		t.Fatal("a service never ready passed")
	}
	// 5, 10, 20, 40, 80 ms, then every 100 ms: about 15 probes in 1 s
	if n := probes.Load(); n < 5 || n > 20 {
		t.Errorf("%d probes in 1 s at an interval of 100ms", n)
	}
}

// A target that ends at SIGTERM is seen gone within milliseconds, not at
// the next of 20 ms polls: a block stops both sides. The fastest of a few
// stops, so that one slowed by a busy machine does not count.
func TestStopReturnsSoonAfterTheTargetEnds(t *testing.T) {
	fastest := time.Hour
	for range 5 {
		tgt, url := serverTarget(t, "exec $SERVE")
		p, err := Start(context.Background(), url, tgt, StartOptions{Children: direct()})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		began := time.Now()
		if err := p.Stop(); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		fastest = min(fastest, time.Since(began))
	}
	t.Logf("fastest stop %v", fastest)
	if fastest >= 18*time.Millisecond {
		t.Errorf("the fastest of 5 stops took %v, want under 18 ms (the old poll slept 20 ms)", fastest)
	}
}

// An idle target drains when its quiet period ends, not at the first poll
// after it: the drain before each phase's warm-up took up to an interval
// more than the quiet period.
func TestDrainEndsWithTheQuietPeriod(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"pending": 0}`))
	}))
	defer srv.Close()
	d := &config.Drain{Probe: config.Request{Path: "/stats"}, Until: map[string]any{"pending": 0},
		Quiet: config.Duration(300 * time.Millisecond), Interval: config.Duration(280 * time.Millisecond), Timeout: config.Duration(10 * time.Second)}
	began := time.Now()
	if err := Drain(context.Background(), nil, srv.URL, d); err != nil {
		t.Fatal(err)
	}
	// idle at 0 ms; polls at 280 and 560 ms before, at 280 and 300 ms now
	if took := time.Since(began); took < 300*time.Millisecond || took > 480*time.Millisecond {
		t.Errorf("drained after %v, want the quiet period (300ms) and not the next poll (560ms)", took)
	}
}
