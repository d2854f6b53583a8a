package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/load"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// A run's progress line shows the figures it has and "–" for the others:
// a load tool's file that counts no requests (ab -e) has no requests/s and
// no error rate, not 0 of them.
func TestRunLineShowsAbsentFiguresAsADash(t *testing.T) {
	t.Parallel()
	own := &result.Run{Metrics: map[string]float64{result.IterationsPerSec: 50, result.RequestsPerSec: 200,
		result.LatencyP95: 12.5, result.RequestErrorPct: 0}}
	if got, want := runLine(own), "50.0 iterations/s, 200.0 requests/s, p95 12.50 ms, errors 0.00 %"; got != want {
		t.Errorf("runLine = %q, want %q", got, want)
	}
	percentilesOnly := &result.Run{Metrics: map[string]float64{result.LatencyP95: 14}}
	if got, want := runLine(percentilesOnly), "– iterations/s, – requests/s, p95 14.00 ms, errors – %"; got != want {
		t.Errorf("runLine = %q, want %q", got, want)
	}
}

// The terminal's bar names the run as the log lines do and ends each run
// with the same line.
func TestBarProgressEndsARunWithItsLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := &barProgress{lineProgress: lineProgress{w: &b}, window: time.Second}
	p.RunStarted(1, 3, "")
	p.Step(1, "warmup")
	p.Progress(1, load.Progress{Phase: "measure", Completed: 5, Elapsed: 500 * time.Millisecond})
	p.RunDone(1, &result.Run{Metrics: map[string]float64{result.LatencyP95: 14}}, nil)
	if want := "run 2 of 3: – iterations/s, – requests/s, p95 14.00 ms, errors – %\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("bar output ends %q, want %q", b.String(), want)
	}
}
