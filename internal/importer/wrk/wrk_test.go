package wrk

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func wantMetric(t *testing.T, run *result.Run, key string, want float64) {
	t.Helper()
	if got, ok := run.Value(key); !ok || math.Abs(got-want) > 1e-9 {
		t.Errorf("metric %s = %v (present %v), want %v", key, got, ok, want)
	}
}

func TestWrkLatencyReport(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "latency.txt")
	if !(Text{}).Sniff("w.txt", data) {
		t.Fatal("not sniffed")
	}
	run, err := Text{}.Import("w.txt", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	wantMetric(t, run, result.LatencyMean, 2.5)
	wantMetric(t, run, result.LatencyMax, 1200)
	wantMetric(t, run, result.LatencyP50, 2.1)
	wantMetric(t, run, result.LatencyP90, 3.3)
	wantMetric(t, run, result.LatencyP99, 0.85)
	wantMetric(t, run, result.RequestsPerSec, 4000)
	wantMetric(t, run, result.RequestErrorPct, 1)
	if _, ok := run.Value(result.LatencyP95); ok {
		t.Error("p95 invented: wrk's table has none")
	}
	if run.Window != 10 || run.Requests != (result.Requests{Total: 40000, Failed: 400, Counted: result.CountRequests}) || len(run.Errors) != 3 {
		t.Errorf("window %v requests %+v errors %+v", run.Window, run.Requests, run.Errors)
	}
	if !strings.Contains(strings.Join(run.Notes, "\n"), "coordinated omission") {
		t.Errorf("notes %q", run.Notes)
	}
}

func TestWrk2Report(t *testing.T) {
	t.Parallel()
	run, err := Text{}.Import("w2.txt", bytes.NewReader(importertest.Testdata(t, "wrk2.txt")))
	if err != nil {
		t.Fatal(err)
	}
	wantMetric(t, run, result.LatencyP99, 11.72)
	wantMetric(t, run, result.LatencyP50, 1.18)
	wantMetric(t, run, result.RequestErrorPct, 0)
	if run.Window != 60 || run.Requests.Total != 120000 {
		t.Errorf("window %v total %d", run.Window, run.Requests.Total)
	}
	if len(run.Notes) != 0 {
		t.Errorf("wrk2 notes %q", run.Notes)
	}
	// wrk2's table has no 95th: its spectrum's 0.950000 row, in the unit
	// in which the spectrum's mean (1.465) matches the table's (1.46ms).
	wantMetric(t, run, result.LatencyP95, 2.215)
}

// Some wrk2 builds print the spectrum in microseconds: its unit is told
// from the figures it shares with the table, and a spectrum that matches
// none of them gives no p95.
func TestWrk2SpectrumUnit(t *testing.T) {
	t.Parallel()
	ms := string(importertest.Testdata(t, "wrk2.txt"))
	us := strings.NewReplacer("       0.111     0.000000", "     111.000     0.000000",
		"       2.215     0.950000", "    2215.000     0.950000", "1.465, StdDeviation   =        2.242",
		"1465.000, StdDeviation   =     2242.000").Replace(ms)
	if us == ms {
		t.Fatal("the test's replacements did not apply")
	}
	run, err := Text{}.Import("us.txt", strings.NewReader(us))
	if err != nil {
		t.Fatal(err)
	}
	wantMetric(t, run, result.LatencyP95, 2.215)
	odd := strings.Replace(ms, "1.465, StdDeviation", "7.000, StdDeviation", 1)
	run, err = Text{}.Import("odd.txt", strings.NewReader(odd))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := run.Value(result.LatencyP95); ok {
		t.Errorf("p95 %v from a spectrum whose mean matches no unit", v)
	}
	if !importertest.HasNote(run, "spectrum's unit could not be told") {
		t.Errorf("notes %q", run.Notes)
	}
}

func TestWrkRejections(t *testing.T) {
	t.Parallel()
	data := string(importertest.Testdata(t, "latency.txt"))
	_, err := Text{}.Import("two.txt", strings.NewReader(data+data))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.Contains(uns.Reason, "2 wrk reports in one file") {
		t.Errorf("two reports, one run asked for: %v", err)
	}
	_, err = Text{}.Import("bad.txt", strings.NewReader(strings.Replace(data, "10.00s,", "ten seconds,", 1)))
	if err == nil || !strings.HasPrefix(err.Error(), "bad.txt:12: expected \"N requests in 30.00s, …\"") {
		t.Errorf("bad count line: %v", err)
	}
	cut := data[:strings.Index(data, "  40000 requests")]
	_, err = Text{}.Import("cut.txt", strings.NewReader(cut))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) {
		t.Errorf("cut report: %v", err)
	}
}

// FuzzImport: no panic, and a run that encodes or a typed error.
func FuzzImport(f *testing.F) {
	importertest.AddSeeds(f, 0, "testdata/latency.txt", "testdata/wrk2.txt")
	importertest.AddSeeds(f, 0, importertest.SharedFixtureFiles("wrk", "wrk2")...)
	importertest.Fuzz(f, nil, Text{})
}

// wrk2 --u_latency prints a second table of latencies timed from when each
// request was sent; the recorded table (timed from when it was due) is the
// one imported.
func TestWrk2UncorrectedTableIsIgnored(t *testing.T) {
	t.Parallel()
	run, err := Text{}.Import("u.txt", bytes.NewReader(importertest.Testdata(t, "wrk2-u_latency.txt")))
	if err != nil {
		t.Fatal(err)
	}
	wantMetric(t, run, result.LatencyP50, 2.28)
	wantMetric(t, run, result.LatencyP90, 36.51)
	wantMetric(t, run, result.LatencyP99, 125.44)
	wantMetric(t, run, result.LatencyMean, 9.87)
	if run.Metrics[result.LatencyP99] < run.Metrics[result.LatencyMean] {
		t.Errorf("p99 %v below the mean %v", run.Metrics[result.LatencyP99], run.Metrics[result.LatencyMean])
	}
	if !importertest.HasNote(run, "uncorrected table was ignored") {
		t.Errorf("notes %q", run.Notes)
	}
}

// A log of several reports imports as one run per report, in order.
func TestWrkSeveralReportsAreSeveralRuns(t *testing.T) {
	t.Parallel()
	one := string(importertest.Testdata(t, "latency.txt"))
	two := string(importertest.Testdata(t, "wrk2-u_latency.txt"))
	runs, err := Text{}.ImportAll("sweep.txt", strings.NewReader("$ ./sweep.sh\n"+one+"\n$ next\n"+two))
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	wantMetric(t, runs[0], result.LatencyP50, 2.1)
	wantMetric(t, runs[1], result.LatencyP50, 2.28)
	if runs[0].Requests.Total != 40000 || runs[1].Requests.Total != 60001 {
		t.Errorf("requests %d, %d", runs[0].Requests.Total, runs[1].Requests.Total)
	}
	cut := one + "\n" + two[:strings.Index(two, "  60001 requests")]
	_, err = Text{}.ImportAll("cut.txt", strings.NewReader(cut))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Line != 18 {
		t.Errorf("second report cut: %v, want a syntax error at its first line", err)
	}
}

// A run whose every connection failed is data: 100 % errors, no latency.
func TestWrkRunOfOnlySocketErrors(t *testing.T) {
	t.Parallel()
	data := `Running 2s test @ http://127.0.0.1:18999/
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     0.00us    0.00us   0.00us    -nan%
    Req/Sec     0.00      0.00     0.00      -nan%
  Latency Distribution
     50%    0.00us
     75%    0.00us
     90%    0.00us
     99%    0.00us
  0 requests in 2.00s, 0.00B read
  Socket errors: connect 0, read 66182, write 0, timeout 0
Requests/sec:      0.00
Transfer/sec:       0.00B
`
	run, err := Text{}.Import("failed.txt", strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	wantMetric(t, run, result.RequestErrorPct, 100)
	importertest.WantAbsent(t, run, result.LatencyP50, result.LatencyMean, result.LatencyMax)
	// wrk counted 0 requests; the attempts that failed are not requests it counted.
	importertest.WantRequests(t, run, result.CountTotal, `{"total":0}`)
	if len(run.Errors) != 1 || run.Errors[0].Class != result.ErrConnection || run.Errors[0].Count != 66182 {
		t.Errorf("errors %+v", run.Errors)
	}
	_, err = Text{}.Import("none.txt", strings.NewReader(strings.Replace(data, "read 66182", "read 0", 1)))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) {
		t.Errorf("0 requests, no errors: %v", err)
	}
}

// Real wrk runs: every response a 404 ("Non-2xx or 3xx responses" equals
// the request count); a -s script whose done() prints a JSON line after the
// report (the report's figures are taken, the line is not a second report);
// and a service that never answers (--timeout 1s), where wrk counts neither
// a request nor an error: refused, nothing was measured.
func TestWrkRealEdgeRuns(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/notfound.txt")
	importertest.WantRequests(t, run, result.CountRequests, `{"total":26036,"failed":26036}`)
	importertest.WantMetric(t, run, result.RequestErrorPct, 100)
	importertest.WantMetric(t, run, result.LatencyMean, 0.29199)
	importertest.WantMetric(t, run, result.RequestsPerSec, 26028.74)

	run = importertest.MustImport(t, Text{}, "testdata/lua-done.txt")
	importertest.WantRequests(t, run, result.CountRequests, `{"total":258,"failed":26}`)
	importertest.WantMetric(t, run, result.LatencyMean, 7.7)
	importertest.WantMetric(t, run, result.LatencyMax, 14.79)

	importertest.WantRefused(t, "testdata/silent.txt", "", "0 requests and no socket errors")
}
