package oha

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// oha is written in Rust and cannot be built here, so the test files are
// not oha's own output: they were written to match, line for line, what
// oha's printer (src/printer.rs at hatoo/oha v1.15.0, and the version of
// 2023-06 for oha-0.5.txt) prints — the same labels, tabs, number formats,
// units and JSON keys, with crossterm's colour escapes in oha.txt, which
// oha writes even into a file unless --disable-color is given. The
// figures in them are invented but consistent with each other.
//
//   oha.txt        oha 1.15 text, colours on: 400 responses, 40 of them 503
//   oha-z.txt      oha 1.15 -z 20s --disable-color: times in "10 sec"
//                  units, 3 requests cut by the deadline, 2 refused
//   oha-0.5.txt    oha before 0.6: "secs", "Latency distribution:"
//   oha.json       oha 1.15 --json of the run of oha-z.txt's kind
//   all-failed.json  every request refused: latencies null

func near(t *testing.T, run *result.Run, key string, want float64) {
	t.Helper()
	if got, ok := run.Value(key); !ok || math.Abs(got-want) > 1e-6*math.Max(1, want) {
		t.Errorf("%s = %v (present %v), want %v", key, got, ok, want)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/oha.txt")
	if run.Requests != (result.Requests{Total: 400, Failed: 40, Counted: result.CountRequests}) {
		t.Errorf("requests %+v, want 400 with 40 failed", run.Requests)
	}
	if math.Abs(run.Window-0.8036129) > 1e-9 {
		t.Errorf("window %v, want 0.8036129 s", run.Window)
	}
	for key, want := range map[string]float64{
		result.LatencyMean: 7.9561, result.LatencyMax: 17.6911, result.LatencyP50: 8.0034, result.LatencyP90: 13.1044,
		result.LatencyP95: 13.9123, result.LatencyP99: 14.8456, result.RequestsPerSec: 497.752, result.RequestErrorPct: 10,
	} {
		near(t, run, key, want)
	}
	importertest.WantErrors(t, run, []result.ErrorClass{{Class: result.ErrStatus, Count: 40, Sample: "status 503"}})
}

func TestTextDeadlineAndUnits(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/oha-z.txt")
	// 98 responses and 2 refused; the 3 cut by -z are not requests.
	if run.Requests != (result.Requests{Total: 100, Failed: 2, Counted: result.CountRequests}) {
		t.Errorf("requests %+v, want 100 with 2 failed", run.Requests)
	}
	if math.Abs(run.Window-20.031) > 1e-9 {
		t.Errorf("window %v, want 20.031 s (2.0031 × 10 sec)", run.Window)
	}
	near(t, run, result.LatencyMax, 12042)
	near(t, run, result.LatencyP50, 5)
	near(t, run, result.LatencyP99, 12042)
	if !importertest.HasNote(run, "3 requests in flight when oha's -z ended the run") {
		t.Errorf("notes %q", run.Notes)
	}
	importertest.WantErrors(t, run, []result.ErrorClass{{Class: result.ErrConnection, Count: 2,
		Sample: "client error (Connect): tcp connect error: Connection refused (os error 111)"}})
}

func TestTextBefore06(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/oha-0.5.txt")
	if run.Requests.Total != 400 || run.Requests.Failed != 40 {
		t.Errorf("requests %+v", run.Requests)
	}
	near(t, run, result.LatencyP50, 8)
	near(t, run, result.LatencyP95, 13.9)
	near(t, run, result.LatencyP99, 14.8)
	near(t, run, result.LatencyMax, 17.7)
}

func TestJSON(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, JSON{}, "testdata/oha.json")
	if run.Requests != (result.Requests{Total: 100, Failed: 10, Counted: result.CountRequests}) {
		t.Errorf("requests %+v, want 100 (90 + 8 responses, 2 refused) with 10 failed", run.Requests)
	}
	if run.Window != 20.031127 {
		t.Errorf("window %v", run.Window)
	}
	for key, want := range map[string]float64{
		result.LatencyMean: 81.245, result.LatencyMax: 12042.311, result.LatencyP50: 4.512, result.LatencyP90: 11.034,
		result.LatencyP95: 13.901, result.LatencyP99: 12042.311, result.RequestsPerSec: 5.142, result.RequestErrorPct: 10,
	} {
		near(t, run, key, want)
	}
	importertest.WantErrors(t, run, []result.ErrorClass{
		{Class: result.ErrStatus, Count: 8, Sample: "status 500"},
		{Class: result.ErrConnection, Count: 2, Sample: "client error (Connect): tcp connect error: Connection refused (os error 111)"},
	})
	if !importertest.HasNote(run, "3 requests in flight") {
		t.Errorf("notes %q", run.Notes)
	}
}

func TestJSONEveryRequestFailed(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, JSON{}, "testdata/all-failed.json")
	if run.Requests != (result.Requests{Total: 20, Failed: 20, Counted: result.CountRequests}) {
		t.Errorf("requests %+v", run.Requests)
	}
	importertest.WantMetric(t, run, result.RequestErrorPct, 100)
	importertest.WantAbsent(t, run, result.LatencyMean, result.LatencyMax, result.LatencyP50, result.LatencyP99)
}

func TestRejections(t *testing.T) {
	t.Parallel()
	_, err := Text{}.Import("x.txt", strings.NewReader("Summary:\n  Success rate:\t100.00%\n  Requests/sec:\t1.0\n"))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || !strings.Contains(syn.Msg, `no "Total:" line`) {
		t.Errorf("summary without Total: %v", err)
	}
	_, err = JSON{}.Import("x.json", strings.NewReader(`{"summary":{"successRate":1},"latencyPercentiles":{}}`))
	if !errors.As(err, &syn) {
		t.Errorf("JSON without total: %v", err)
	}
	_, err = Text{}.Import("x.txt", strings.NewReader("Summary:\n  Total:\t1.0 fortnights\n"))
	if !errors.As(err, &syn) || !strings.Contains(syn.Msg, "fortnights") {
		t.Errorf("unknown unit: %v", err)
	}
}

// FuzzImport feeds both oha parsers the same bytes.
func FuzzImport(f *testing.F) {
	for _, file := range []string{"oha.txt", "oha-z.txt", "oha-0.5.txt", "oha.json", "all-failed.json"} {
		f.Add(importertest.Testdata(f, file))
	}
	importertest.Fuzz(f, nil, Text{}, JSON{})
}
