package bombardier

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// The test files are real output of bombardier v1.2.6 (go install
// github.com/codesenberg/bombardier@v1.2.6) against
// bench/importer-fixtures/target on loopback, whose /mixed answers every
// tenth request 503, and a second target that closes every connection:
//
//	mixed.txt, mixed.json    bombardier -c 4 -n 400 -l -p i,r (-p r -o json) …/mixed
//	default.txt              bombardier -c 4 -n 300 -l …/mixed (intro, progress, result)
//	mixed-nolat.txt          bombardier -c 4 -n 400 -p r …/mixed (no -l: no percentiles)
//	reset.txt, reset.json    bombardier -c 2 -n 20 -l … (every connection closed)
//	duration.txt, .json      bombardier -c 4 -d 2s -l …/ok

func TestText(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/mixed.txt")
	if run.Requests != (result.Requests{Total: 400, Failed: 40, Counted: result.CountRequests}) {
		t.Errorf("requests %+v, want 400 with 40 failed", run.Requests)
	}
	for key, want := range map[string]float64{
		result.LatencyMean: 10.57, result.LatencyMax: 57.29, result.LatencyP50: 8.59, result.LatencyP90: 19.13,
		result.LatencyP95: 29.2, result.LatencyP99: 44.91, result.RequestsPerSec: 435.25, result.RequestErrorPct: 10,
	} {
		if got, ok := run.Value(key); !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", key, got, ok, want)
		}
	}
	if run.Window != 0 {
		t.Errorf("window %v: the text states none", run.Window)
	}
	importertest.WantErrors(t, run, []result.ErrorClass{{Class: result.ErrStatus, Count: 40, Sample: "status 5xx"}})
}

func TestTextWithProgressAndWithoutPercentiles(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/default.txt")
	if run.Requests.Total != 300 || run.Requests.Failed != 30 {
		t.Errorf("requests %+v, want 300 with 30 failed", run.Requests)
	}
	importertest.WantMetric(t, run, result.LatencyP99, 26.12)
	run = importertest.MustImport(t, Text{}, "testdata/mixed-nolat.txt")
	importertest.WantAbsent(t, run, result.LatencyP50, result.LatencyP90, result.LatencyP95, result.LatencyP99)
	importertest.WantMetric(t, run, result.LatencyMax, 52.27)
}

func TestJSON(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, JSON{}, "testdata/mixed.json")
	if run.Requests != (result.Requests{Total: 400, Failed: 40, Counted: result.CountRequests}) || run.Window != 1.093667583 {
		t.Errorf("requests %+v, window %v", run.Requests, run.Window)
	}
	for key, want := range map[string]float64{
		result.LatencyMean: 10.875035, result.LatencyMax: 72.817, result.LatencyP50: 8.944, result.LatencyP90: 17.087,
		result.LatencyP95: 31.39, result.LatencyP99: 47.345, result.RequestsPerSec: 400 / 1.093667583, result.RequestErrorPct: 10,
	} {
		if got, ok := run.Value(key); !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", key, got, ok, want)
		}
	}
	run = importertest.MustImport(t, JSON{}, "testdata/duration.json")
	if run.Requests.Total != 679 || run.Requests.Failed != 0 || run.Window != 2.011652043 {
		t.Errorf("timed run: requests %+v, window %v", run.Requests, run.Window)
	}
}

// Every connection closed: a run of errors, without latencies.
func TestEveryRequestFailed(t *testing.T) {
	t.Parallel()
	for _, f := range []importer.Format{Text{}, JSON{}} {
		path := map[string]string{"bombardier-text": "testdata/reset.txt", "bombardier-json": "testdata/reset.json"}[f.Name()]
		run := importertest.MustImport(t, f, path)
		if run.Requests != (result.Requests{Total: 20, Failed: 20, Counted: result.CountRequests}) {
			t.Errorf("%s: requests %+v", path, run.Requests)
		}
		importertest.WantMetric(t, run, result.RequestErrorPct, 100)
		importertest.WantAbsent(t, run, result.LatencyMean, result.LatencyMax, result.LatencyP50)
		if len(run.Errors) != 1 || run.Errors[0].Class != result.ErrConnection || run.Errors[0].Count != 20 ||
			!strings.HasPrefix(run.Errors[0].Sample, "the server closed connection") {
			t.Errorf("%s: errors %+v", path, run.Errors)
		}
	}
}

func TestRejections(t *testing.T) {
	t.Parallel()
	var syn *importer.SyntaxError
	_, err := Text{}.Import("x.txt", strings.NewReader("Statistics        Avg      Stdev        Max\n  Reqs/sec       1.00  0.00  1.00\n"))
	if !errors.As(err, &syn) || !strings.Contains(syn.Msg, "1xx - …") {
		t.Errorf("a result without its codes: %v", err)
	}
	_, err = JSON{}.Import("x.json", strings.NewReader(`{"spec":{"numberOfConnections":1},"result":{}}`))
	if !errors.As(err, &syn) {
		t.Errorf("JSON without its counts: %v", err)
	}
}

// TestLive runs bombardier, when it is installed, against a loopback
// server that answers every fifth request 500, and imports both forms.
func TestLive(t *testing.T) {
	bin, err := exec.LookPath("bombardier")
	if err != nil {
		t.Skip("bombardier not installed (go install github.com/codesenberg/bombardier@v1.2.6)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1)%5 == 0 {
			w.WriteHeader(http.StatusInternalServerError)
		}
		fmt.Fprint(w, "ok")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	url := "http://" + ln.Addr().String() + "/"
	for _, f := range []importer.Format{Text{}, JSON{}} {
		n.Store(0)
		args := []string{"-c", "1", "-n", "100", "-l", "-p", "r", url}
		if f.Name() == "bombardier-json" {
			args = append([]string{"-o", "json"}, args...)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		out, err := exec.CommandContext(ctx, bin, args...).Output()
		cancel()
		if err != nil {
			t.Fatalf("bombardier %v: %v", args, err)
		}
		if !f.Sniff("live", out) {
			t.Fatalf("%s does not claim bombardier's output:\n%s", f.Name(), out)
		}
		run, err := f.Import("live", strings.NewReader(string(out)))
		if err != nil {
			t.Fatalf("%s: %v\n%s", f.Name(), err, out)
		}
		// One connection, 100 requests: every fifth of them a 500.
		if run.Requests != (result.Requests{Total: 100, Failed: 20, Counted: result.CountRequests}) {
			t.Errorf("%s: requests %+v, want 100 with 20 failed", f.Name(), run.Requests)
		}
		if p50, p99 := run.Metrics[result.LatencyP50], run.Metrics[result.LatencyP99]; !(p50 > 0 && p99 >= p50) {
			t.Errorf("%s: p50 %v, p99 %v", f.Name(), p50, p99)
		}
	}
}

// FuzzImport feeds both parsers the same bytes.
func FuzzImport(f *testing.F) {
	for _, file := range []string{"mixed.txt", "default.txt", "reset.txt", "mixed.json", "reset.json"} {
		f.Add(importertest.Testdata(f, file))
	}
	importertest.Fuzz(f, nil, Text{}, JSON{})
}
