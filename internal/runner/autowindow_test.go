package runner

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// A closed phase of 2 users whose lifecycles take 200 ms holds 2.5 of each
// user's in a 500 ms window. With ab.window unset the job chooses its
// window from the first block's warm-up, before any window: 3 lifecycles
// (0.6 s) rounded up to 750 ms (1 s where the machine slows them), and
// ab.windows 0 then fills the 4 s phase with 5 (4) of them. Every block keeps it, the report says so and
// warns no more; a window the file sets is kept, and warned of.
func TestRunABChoosesTheWindowOfSlowLifecycles(t *testing.T) {
	t.Parallel()
	sleepy := func(t *testing.T) string {
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { time.Sleep(200 * time.Millisecond) }))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	job := func(t *testing.T, asked time.Duration, duration ...time.Duration) (*ABResult, string) {
		base, head := config.Target{URL: sleepy(t)}, config.Target{URL: sleepy(t)}
		b := abBenchmark(t, base.URL)
		b.Config.Load = config.Load{Engine: config.EngineTailgate, Model: config.ModelClosed, VUs: 2, RequestTimeout: config.Duration(5 * time.Second),
			Warmup: config.Duration(500 * time.Millisecond), Duration: config.Duration(append(duration, 4*time.Second)[0])}
		res, err := b.RunAB(context.Background(), ABPlan{Base: base, Head: head, Order: config.OrderABBA, MaxBlocks: 2, Shape: Shape{Window: asked}})
		if err != nil {
			t.Fatal(err)
		}
		ab := &report.ABRun{Blocks: 2, MaxBlocks: 2, Windows: res.Shape.Windows, Window: res.Shape.Window, Lifecycle: res.Shape.Lifecycle, RaisedFor: res.Shape.RaisedFor, Chosen: res.Shape.Chosen, Fills: res.Shape.Fills,
			Phases: []report.ABPhase{{Name: "load", VUs: 2}}}
		var out bytes.Buffer
		if err := report.WriteText(&out, report.Input{Name: "x", Mode: "ab", Head: res.Head.Runs, Base: res.Base.Runs, AB: ab}); err != nil {
			t.Fatal(err)
		}
		return res, out.String()
	}
	t.Run("unset", func(t *testing.T) {
		t.Parallel()
		chosen, text := job(t, 0)
		s := chosen.Shape
		if s.Lifecycle < 180*time.Millisecond || s.Window < 3*s.Lifecycle || s.Window >= 3*s.Lifecycle+250*time.Millisecond ||
			s.Window < 750*time.Millisecond || s.Windows != int(4*time.Second/s.Window) {
			t.Errorf("chose %d windows of %s from %s lifecycles, want 3 lifecycles of about 200 ms rounded up to 250 ms filling 4 s", s.Windows, s.Window, s.Lifecycle)
		}
		for k, w := range chosen.Windows.Base {
			if w.Window != s.Window.Seconds() {
				t.Errorf("window %d of block %d: %.2f s, want %s", k, chosen.Windows.Block[k]+1, w.Window, s.Window)
			}
		}
		for _, r := range append(chosen.Base.Runs, chosen.Head.Runs...) {
			if per := r.Metrics[result.IterationsPerSec] * s.Window.Seconds() / 2; per < 3 {
				t.Errorf("block %d: %s windows held %.1f iterations per user, want at least 3", r.Index+1, s.Window, per)
			}
		}
		if !strings.Contains(text, "windows of "+s.Window.String()+" per side (ab.window unset: chosen to hold 3 lifecycles of a virtual user (") ||
			strings.Contains(text, "raise ab.window") {
			t.Errorf("report: want the chosen window and why, and no warning:\n%s", text)
		}
	})
	t.Run("set", func(t *testing.T) {
		t.Parallel()
		kept, text := job(t, 500*time.Millisecond)
		if s := kept.Shape; s.Window != 500*time.Millisecond || s.Windows != 8 || s.Chosen || s.Fills != 0 {
			t.Errorf("ab.window 500ms: %d windows of %s (chosen %v, %d fill), want 8 of 500ms as set", s.Windows, s.Window, s.Chosen, s.Fills)
		}
		if !strings.Contains(text, "8 windows of 500ms per side:") || !strings.Contains(text, "raise ab.window to 1s") {
			t.Errorf("report of a window set: want it as set and the warning:\n%s", text)
		}
	})
	// 4 windows of 250 ms fill a 1 s phase but hold 5 lifecycles of a
	// user: the job measures 7 or 8 (8 lifecycles at 200–250 ms each).
	t.Run("set, few lifecycles a block", func(t *testing.T) {
		t.Parallel()
		more, text := job(t, 250*time.Millisecond, time.Second)
		s := more.Shape
		if s.Window != 250*time.Millisecond || s.Fills != 4 || s.Windows < 7 || s.Windows > 8 || len(more.Windows.Base) != 2*s.Windows {
			t.Errorf("ab.window 250ms in a 1 s phase: %d windows (%d fill it) of %s, %d window pairs in 2 blocks, want 7 or 8 a block, 4 filling it",
				s.Windows, s.Fills, s.Window, len(more.Windows.Base))
		}
		want := fmt.Sprintf("%d windows of 250ms per side (ab.windows unset: %d rather than the 4 that fill load.duration, toward 8 lifecycles of a virtual user a block (%s each as the windows run), at most twice as many)", s.Windows, s.Windows, s.RaisedFor.Round(time.Millisecond))
		if !strings.Contains(text, want) {
			t.Errorf("report: want %q in\n%s", want, text)
		}
	})
}

// The window chosen from a warm-up: at least the default, 3 lifecycles of
// a virtual user of the slower side rounded up to 250 ms, at most 5 s and
// half the longest phase; a count set is kept, ab.windows 0 fills the
// phase, with more windows (at most twice as many) where those would hold
// fewer than 8 lifecycles of a user (a window set too); an open first
// phase keeps Resolve's.
func TestChooseWindow(t *testing.T) {
	t.Parallel()
	closed := config.PhaseLoad{Name: "c", Load: config.Load{Model: config.ModelClosed, VUs: 4}}
	open := config.PhaseLoad{Name: "o", Load: config.Load{Model: config.ModelOpen, Rate: config.Rate{PerSecond: 5}}}
	ips := func(v float64) *result.Run {
		return &result.Run{Metrics: map[string]float64{result.IterationsPerSec: v}}
	}
	for _, c := range []struct {
		name            string
		window          time.Duration
		windows         int
		duration        time.Duration
		ph              config.PhaseLoad
		base, head      float64 // iterations/s of 4 users
		wantN, fills    int
		want, lifecycle time.Duration
	}{
		{"short lifecycles: the default, not said to be chosen", 0, 0, 4 * time.Second, closed, 400, 380, 8, 0, 500 * time.Millisecond, 10526 * time.Microsecond},
		{"500 ms lifecycles: 1.5 s, 2 fill 4 s but hold 6: 3", 0, 0, 4 * time.Second, closed, 8, 8, 3, 2, 1500 * time.Millisecond, 500 * time.Millisecond},
		{"the slower side decides", 0, 0, 10 * time.Second, closed, 8, 5, 4, 0, 2500 * time.Millisecond, 800 * time.Millisecond},
		{"half the longest phase: 8 would hold 8, at most twice 2", 0, 0, 2 * time.Second, closed, 4, 4, 4, 2, time.Second, time.Second},
		{"at most 5 s", 0, 0, 60 * time.Second, closed, 1, 1, 12, 0, 5 * time.Second, 4 * time.Second},
		{"a count set is kept", 0, 10, 4 * time.Second, closed, 8, 8, 10, 0, 1500 * time.Millisecond, 500 * time.Millisecond},
		{"an open first phase", 0, 0, 4 * time.Second, open, 8, 8, 8, 0, 500 * time.Millisecond, 0},
		{"a window set", 500 * time.Millisecond, 0, 4 * time.Second, closed, 8, 8, 8, 0, 500 * time.Millisecond, 500 * time.Millisecond},
		{"a window set, 2.1 lifecycles in each (Radicale): 4 hold 8", 2 * time.Second, 0, 4 * time.Second, closed, 4.2, 4.3, 4, 2, 2 * time.Second, 952381 * time.Microsecond},
		{"a window and a count set", 2 * time.Second, 2, 4 * time.Second, closed, 4.2, 4.3, 2, 0, 2 * time.Second, 0},
	} {
		b := &Benchmark{Config: &config.Config{Load: config.Load{Model: config.ModelClosed, VUs: 4, Duration: config.Duration(c.duration)}}}
		s := b.Resolve(ABPlan{Shape: Shape{Window: c.window, Windows: c.windows}}).Shape
		s.chooseWindow(c.ph, [2]*result.Run{ips(c.base), ips(c.head)})
		s.holdLifecycles(s.Lifecycle)                              // a phase not probed: the warm-up's lifecycle
		s.chooseWindow(closed, [2]*result.Run{ips(0.1), ips(0.1)}) // a later phase changes nothing
		s.holdLifecycles(10 * time.Second)
		chosen := c.window == 0 && c.want != 500*time.Millisecond
		raised := map[bool]time.Duration{true: s.Lifecycle}[c.fills > 0]
		if s.Windows != c.wantN || s.Fills != c.fills || s.Window != c.want || s.Lifecycle.Round(time.Microsecond) != c.lifecycle || s.Chosen != chosen || s.RaisedFor != raised {
			t.Errorf("%s: %d windows (%d fill, raised for %s) of %s (chosen %v) from %s lifecycles, want %d (%d) of %s (%v) from %s",
				c.name, s.Windows, s.Fills, s.RaisedFor, s.Window, s.Chosen, s.Lifecycle, c.wantN, c.fills, c.want, chosen, c.lifecycle)
		}
	}
}
