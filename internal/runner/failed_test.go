package runner

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// failingService answers /items with a 500 except every tenth request
// when failTenths is 9, and so on: how much of the work fails is set by
// the counter, not by timing. /reset and /count answer as the dataset's.
func failingService(t *testing.T, failTenths int64) *httptest.Server {
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /reset", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("GET /count", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"count":3}`)) })
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1)%10 < failTenths {
			http.Error(w, "db locked: reset broke the file", http.StatusInternalServerError)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestARunWhoseWorkMostlyFailedIsNoMeasurement(t *testing.T) {
	t.Parallel()
	svc := failingService(t, 9)
	res, err := (&Benchmark{Config: benchConfig(svc.URL, 2)}).Run(context.Background())
	var fe *FailedRunError
	if res != nil || !errors.As(err, &fe) {
		t.Fatalf("Run = %v, %v; want no result and a FailedRunError", res, err)
	}
	if fe.What != "iterations" || fe.Failed*10 < fe.Total*8 || len(fe.Samples) == 0 {
		t.Errorf("refused run: %+v; want most iterations failed, with samples", fe)
	}
	for _, want := range []string{"run 1 of 2", "iterations failed", "load.max_failed_percent 50", `500 db locked: reset broke the file`, "first errors: items:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestMaxFailedPercentAllowsFailingRuns(t *testing.T) {
	t.Parallel()
	all := 100.0
	cfg := benchConfig(failingService(t, 9).URL, 1)
	cfg.Load.MaxFailedPercent = &all
	res, err := (&Benchmark{Config: cfg}).Run(context.Background())
	if err != nil || len(res.Runs) != 1 {
		t.Fatalf("with load.max_failed_percent 100: Run = %v, %v; want the run", res, err)
	}
	// A minority of failures is a measurement under the default: the
	// gate's error rate judges it.
	res, err = (&Benchmark{Config: benchConfig(failingService(t, 3).URL, 1)}).Run(context.Background())
	if err != nil || res.Runs[0].Iterations.Succeeded == res.Runs[0].Iterations.Completed {
		t.Fatalf("30 %% failing: Run = %v, %v; want a run with its failures counted", res, err)
	}
}

// A/B never compares two broken sides: the first broken run stops the job.
func TestABStopsAtABrokenSide(t *testing.T) {
	t.Parallel()
	base, head := failingService(t, 10), failingService(t, 10)
	r := &Benchmark{Config: benchConfig(base.URL, 2)}
	for _, design := range []string{"whole runs", ""} {
		res, err := r.RunAB(context.Background(), ABPlan{Base: config.Target{URL: base.URL}, Head: config.Target{URL: head.URL}, Order: config.OrderABBA, MaxBlocks: 2, Shape: Shape{WholeRuns: wholeIf(design), Windows: 2, Window: 100 * time.Millisecond}})
		var fe *FailedRunError
		if res != nil || !errors.As(err, &fe) || fe.Failed != fe.Total {
			t.Fatalf("%s: RunAB of two broken sides = %v, %v; want no result and a FailedRunError", design, res, err)
		}
	}
}

func TestCheckFailuresNamesTheBrokenPhase(t *testing.T) {
	t.Parallel()
	counts := func(completed, succeeded int64) result.Iterations {
		return result.Iterations{Started: completed, Completed: completed, Succeeded: succeeded, Counted: result.CountAll}
	}
	// The capacity phase's work passed, the latency phase's failed: the
	// whole run's share (110 of 1100) is below the bound, the phase's not.
	run := result.Run{Iterations: counts(1100, 990), Phases: []result.Phase{
		{Name: "capacity", Run: result.Run{Iterations: counts(1000, 990)}},
		{Name: "latency", Run: result.Run{Iterations: counts(100, 0)}},
	}}
	err := checkFailures(&run, 50)
	var fe *FailedRunError
	if !errors.As(err, &fe) || fe.Phase != "latency" || !strings.HasPrefix(err.Error(), "phase latency: 100 of 100 iterations failed") {
		t.Errorf("checkFailures = %v, want the latency phase named", err)
	}
	if err := checkFailures(&run, 100); err != nil {
		t.Errorf("max 100 %% refused a run: %v", err)
	}
	// Requests count where iterations are not counted (an imported tool's).
	tool := result.Run{Requests: result.Requests{Total: 10, Failed: 6, Counted: result.CountRequests}}
	if err := checkFailures(&tool, 50); !errors.As(err, &fe) || fe.What != "requests" {
		t.Errorf("6 of 10 requests failed: %v", err)
	}
	// Uncounted is unknown, never a failure.
	if err := checkFailures(&result.Run{Requests: result.Requests{Failed: 6}}, 50); err != nil {
		t.Errorf("a run without counts refused: %v", err)
	}
}
