package k6

import (
	"errors"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestSummaryExportCarriesOnlyItsFigures(t *testing.T) {
	t.Parallel()
	run := mustImport(t, SummaryExport{}, "summary-export.json")
	importertest.WantMetric(t, run, result.LatencyP95, 120.25)
	importertest.WantMetric(t, run, result.LatencyP90, 80)
	importertest.WantMetric(t, run, result.LatencyP50, 40)
	importertest.WantMetric(t, run, result.LatencyMean, 42.5)
	importertest.WantMetric(t, run, result.LatencyMax, 250)
	importertest.WantMetric(t, run, result.RequestsPerSec, 10)
	importertest.WantMetric(t, run, result.RequestErrorPct, 2)
	importertest.WantMetric(t, run, result.IterationsPerSec, 5)
	importertest.WantMetric(t, run, result.IterationP95, 1300)
	importertest.WantAbsent(t, run, result.LatencyP99, result.IterationP99, result.LifecycleSuccess, result.DroppedPct)
	if run.Requests != (result.Requests{Total: 100, Failed: 2, Counted: result.CountRequests}) || run.Iterations.Completed != 50 {
		t.Errorf("counts: %+v %+v", run.Requests, run.Iterations)
	}
	if run.Window != 10 || run.Latency != nil {
		t.Errorf("window %v (want 10 = count/rate), latency histogram %v (want none)", run.Window, run.Latency)
	}
	login := findStep(t, run, "login")
	if login.Requests != 20 || login.Metrics[result.LatencyP95] != 150 {
		t.Errorf("login step: %+v", login)
	}
	if len(run.Notes) != 2 || !strings.Contains(run.Notes[0], "98 passed, 2 failed") ||
		run.Notes[1] != "k6 thresholds: 0 of 1 failed: http_req_duration p(95)<500 passed" {
		t.Errorf("notes: %q", run.Notes)
	}
}

func TestSummaryExportWithoutFailedMetricLeavesErrorRateOut(t *testing.T) {
	t.Parallel()
	run := mustImport(t, SummaryExport{}, "summary-export-old.json")
	importertest.WantAbsent(t, run, result.RequestErrorPct)
	importertest.WantMetric(t, run, result.LatencyP99, 80)
	importertest.WantMetric(t, run, result.RequestsPerSec, 20)
	if !strings.Contains(strings.Join(run.Notes, "\n"), "no http_req_failed") {
		t.Errorf("notes do not say why errors are missing: %q", run.Notes)
	}
	importertest.WantRequests(t, run, result.CountTotal, `{"total":400}`)
}

// A summary without http_reqs has no request count: requests/s is not
// derived from a count of 0, and only the failed count the file has is
// written.
func TestSummaryWithoutHTTPReqsCountsNoTotal(t *testing.T) {
	t.Parallel()
	in := `{"metrics": {
  "http_req_duration": {"avg": 12, "med": 10, "max": 90, "p(90)": 30, "p(95)": 45},
  "http_req_failed": {"passes": 3, "fails": 97, "value": 0.03},
  "iterations": {"count": 100, "rate": 10}
}}`
	run, err := SummaryExport{}.Import("s.json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantRequests(t, run, result.CountFailed, `{"failed":3}`)
	importertest.WantAbsent(t, run, result.RequestsPerSec)
	importertest.WantMetric(t, run, result.RequestErrorPct, 3)
	importertest.WantMetric(t, run, result.IterationsPerSec, 10)

	in = strings.Replace(in, `"http_req_failed": {"passes": 3, "fails": 97, "value": 0.03},`, "", 1)
	run, err = SummaryExport{}.Import("s.json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantRequests(t, run, 0, "")
	importertest.WantAbsent(t, run, result.RequestsPerSec, result.RequestErrorPct)
}

func TestHandleSummary(t *testing.T) {
	t.Parallel()
	run := mustImport(t, HandleSummary{}, "handlesummary.json")
	importertest.WantMetric(t, run, result.LatencyP99, 310.5)
	importertest.WantMetric(t, run, result.LatencyP95, 250)
	importertest.WantMetric(t, run, result.RequestsPerSec, 10.1)
	importertest.WantMetric(t, run, result.RequestErrorPct, 1)
	importertest.WantMetric(t, run, result.DroppedPct, 25)
	importertest.WantAbsent(t, run, result.LifecycleSuccess, result.IterationP50)
	if run.Window != 30 || run.Requests.Failed != 3 || run.Iterations.Dropped != 50 {
		t.Errorf("window %v failed %d dropped %d", run.Window, run.Requests.Failed, run.Iterations.Dropped)
	}
}

func TestSummaryLayoutsAreToldApart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want importer.Format
		not  importer.Format
	}{
		{"summary-export.json", SummaryExport{}, HandleSummary{}},
		{"handlesummary.json", HandleSummary{}, SummaryExport{}},
	} {
		run, err := importTestdata(t, tc.want, tc.file)
		if err != nil || run == nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if tc.not.Sniff(tc.file, importertest.Testdata(t, tc.file)) {
			t.Errorf("%s also sniffs %s", tc.not.Name(), tc.file)
		}
		if (NDJSON{}).Sniff(tc.file, importertest.Testdata(t, tc.file)) || (CSV{}).Sniff(tc.file, importertest.Testdata(t, tc.file)) {
			t.Errorf("a raw format sniffs %s", tc.file)
		}
	}
}

func TestBrowserSummaryIsRejectedWithReason(t *testing.T) {
	t.Parallel()
	_, err := importTestdata(t, SummaryExport{}, "browser-summary.json")
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.HasPrefix(uns.Reason, "k6 browser test: no http_req_duration metric") {
		t.Fatalf("err = %v, want Unsupported browser test", err)
	}
}

func TestCutSummaryIsASyntaxErrorSayingSo(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "summary-export.json")
	cut := data[:len(data)/2]
	_, err := SummaryExport{}.Import("s.json", strings.NewReader(string(cut)))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || !strings.Contains(syn.Msg, "file is cut") || syn.Line == 0 {
		t.Fatalf("err = %v, want a SyntaxError saying the file is cut, with a line", err)
	}
}

func TestSummaryTypeErrorNamesLine(t *testing.T) {
	t.Parallel()
	doc := "{\n\"metrics\": {\n\"http_reqs\": [1, 2]\n}\n}"
	_, err := SummaryExport{}.Import("s.json", strings.NewReader(doc))
	if err == nil || !strings.HasPrefix(err.Error(), "s.json:3: ") {
		t.Fatalf("err = %v, want it at s.json:3", err)
	}
}

func TestAbsurdFiguresStayFinite(t *testing.T) {
	t.Parallel()
	doc := `{"metrics":{"vus":{},"http_reqs":{"count":1e308,"rate":1e-308},"http_req_duration":{"p(95)":1e308},
		"http_req_failed":{"passes":1,"value":1e308}}}`
	run, err := SummaryExport{}.Import("s.json", strings.NewReader(doc))
	checkOutcome(t, run, err)
	if err != nil {
		t.Fatal(err)
	}
	if run.Window != 0 || run.Requests.Total != 1<<53 {
		t.Errorf("window %v (want 0, unknown), total %d (want clamped to 2^53)", run.Window, run.Requests.Total)
	}
}

// k6's own thresholds are noted with their outcome, failed ones first: the
// export writes whether each failed, handleSummary whether each was ok.
func TestSummaryThresholdsAreNoted(t *testing.T) {
	t.Parallel()
	export := `{"metrics": {
		"http_req_duration": {"avg": 10, "med": 9, "p(95)": 30, "max": 40, "thresholds": {"p(95)<25": true, "avg<100": false}},
		"http_reqs": {"count": 10, "rate": 1},
		"http_req_failed": {"passes": 0, "fails": 10, "value": 0, "thresholds": {"rate<0.01": false}}},
		"root_group": {"name": "", "path": "", "id": "x", "groups": {}, "checks": {}}}`
	run, err := SummaryExport{}.Import("export.json", strings.NewReader(export))
	if err != nil {
		t.Fatal(err)
	}
	want := "k6 thresholds: 1 of 3 failed: http_req_duration p(95)<25 failed; http_req_duration avg<100 passed; http_req_failed rate<0.01 passed"
	if !importertest.HasNote(run, want) {
		t.Errorf("notes %q, want %q", run.Notes, want)
	}
	handle := `{"metrics": {
		"http_req_duration": {"type": "trend", "contains": "time", "values": {"avg": 10, "med": 9, "p(95)": 30, "max": 40}, "thresholds": {"p(95)<500": {"ok": true}}},
		"http_reqs": {"type": "counter", "contains": "default", "values": {"count": 10, "rate": 1}}},
		"root_group": {"name": "", "path": "", "id": "x", "groups": [], "checks": []}}`
	run, err = HandleSummary{}.Import("handle.json", strings.NewReader(handle))
	if err != nil {
		t.Fatal(err)
	}
	if want := "k6 thresholds: 0 of 1 failed: http_req_duration p(95)<500 passed"; !importertest.HasNote(run, want) {
		t.Errorf("notes %q, want %q", run.Notes, want)
	}
}
