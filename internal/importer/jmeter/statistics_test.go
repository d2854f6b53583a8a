package jmeter

import (
	"errors"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestStatisticsFigures(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, StatisticsFormat{}, "testdata/statistics.json")
	if run.Requests.Total != 100 || run.Requests.Failed != 4 {
		t.Fatalf("requests = %+v, want 100 total, 4 failed", run.Requests)
	}
	for key, want := range map[string]float64{
		result.LatencyMean: 110, result.LatencyP50: 90, result.LatencyP90: 240, result.LatencyP95: 380,
		result.LatencyP99: 790, result.LatencyMax: 950, result.RequestsPerSec: 10, result.RequestErrorPct: 4,
	} {
		importertest.WantMetric(t, run, key, want)
	}
	if len(run.Metrics) != 8 {
		t.Errorf("metrics = %v, want exactly the 8 the file carries", run.Metrics)
	}
	if run.Latency != nil {
		t.Error("a summary file has no histogram")
	}
	if got := strings.Join(importertest.StepNames(run), "|"); got != "GET /a|POST /b" {
		t.Fatalf("steps = %s", got)
	}
	b := run.Steps[1]
	if b.Requests != 20 || b.Failed != 2 || b.Metrics[result.LatencyP99] != 950 {
		t.Errorf("POST /b = %+v", b)
	}
}

func TestStatisticsMissingFiguresAreAbsent(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, StatisticsFormat{}, "testdata/statistics-nomedian.json")
	importertest.WantMetric(t, run, result.LatencyP90, 90)
	importertest.WantMetric(t, run, result.RequestsPerSec, 1.5)
	importertest.WantAbsent(t, run, result.LatencyP50, result.LatencyP95, result.LatencyP99)
	importertest.WantRequests(t, run, result.CountRequests, `{"total":10,"failed":0}`)

	// Without errorCount the failures are unknown, not 0.
	run, err := StatisticsFormat{}.Import("s.json", strings.NewReader(`{"Total": {"transaction": "Total", "sampleCount": 10, "meanResTime": 50.0}}`))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantRequests(t, run, result.CountTotal, `{"total":10}`)
	importertest.WantAbsent(t, run, result.RequestErrorPct)
}

func TestStatisticsBadFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, want  string
		unsupported bool
	}{
		{"bad/statistics.json", `testdata/bad/statistics.json:4: sampleCount: a string where a whole number belongs`, false},
		{"bad/statistics-syntax.json", `testdata/bad/statistics-syntax.json:5: invalid JSON (invalid character '}' looking for beginning of object key string`, false},
		{"bad/statistics-nototal.json", `testdata/bad/statistics-nototal.json: no "Total" entry`, true},
		{"basic.csv", `testdata/basic.csv:1: invalid JSON (invalid character 'i' in literal true`, false},
	} {
		_, err := importertest.ImportPath(StatisticsFormat{}, "testdata/"+tc.file)
		var syn *importer.SyntaxError
		var uns *importer.Unsupported
		ok := errors.As(err, &syn)
		if tc.unsupported {
			ok = errors.As(err, &uns)
		}
		if !ok || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v\nwant %q", tc.file, err, tc.want)
		}
	}
}

func TestStatisticsSniff(t *testing.T) {
	t.Parallel()
	b := []byte(`{ "Total" : { "transaction" : "Total", "sampleCount" : 1, "meanResTime" : 2 } }`)
	if !(StatisticsFormat{}).Sniff("s.json", b) {
		t.Error("statistics.json not recognised")
	}
	if (StatisticsFormat{}).Sniff("s.json", []byte(`{"numberOfRequests": {"total": 1}}`)) {
		t.Error("a Gatling file taken for JMeter's")
	}
}
