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
	if run.Window != 10 || run.Requests != (result.Requests{Total: 40000, Failed: 400}) || len(run.Errors) != 3 {
		t.Errorf("window %v requests %+v errors %+v", run.Window, run.Requests, run.Errors)
	}
	if !strings.Contains(strings.Join(run.Notes, "\n"), "coordinated omission") {
		t.Errorf("notes %q", run.Notes)
	}
}

func TestWrk2Report(t *testing.T) {
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
	if _, ok := run.Value(result.LatencyP95); ok {
		t.Error("p95 taken from the spectrum, whose units differ between wrk2 builds")
	}
}

func TestWrkRejections(t *testing.T) {
	data := string(importertest.Testdata(t, "latency.txt"))
	_, err := Text{}.Import("two.txt", strings.NewReader(data+data))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.Contains(uns.Reason, "second starts at line 18") {
		t.Errorf("two reports: %v", err)
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
