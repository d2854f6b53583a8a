package k6

import (
	"errors"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestNDJSONBuildsHistograms(t *testing.T) {
	t.Parallel()
	run := mustImport(t, NDJSON{}, "results.ndjson")
	importertest.WantRequests(t, run, result.CountRequests, `{"total":5,"failed":2}`)
	if run.Requests != (result.Requests{Total: 5, Failed: 2, Counted: result.CountRequests}) {
		t.Errorf("requests %+v, want 5 total, 2 failed", run.Requests)
	}
	if run.Latency == nil || run.Latency.Count() != 5 {
		t.Fatalf("latency histogram: %v", run.Latency)
	}
	if run.Window != 4 {
		t.Errorf("window %v, want 4 s (first to last sample)", run.Window)
	}
	importertest.WantMetric(t, run, result.RequestsPerSec, 5.0/4)
	importertest.WantMetric(t, run, result.RequestErrorPct, 40)
	importertest.WantMetric(t, run, result.LatencyP50, 30)
	importertest.WantMetric(t, run, result.LatencyMax, 60000)
	importertest.WantMetric(t, run, result.IterationsPerSec, 0.5)
	importertest.WantMetric(t, run, result.IterationP50, 1500)
	importertest.WantAbsent(t, run, result.LifecycleSuccess, result.DroppedPct)
	list := findStep(t, run, "GET list")
	post := findStep(t, run, "POST http://127.0.0.1/items")
	if list.Requests != 3 || list.Failed != 1 || post.Requests != 2 || post.Failed != 1 || list.Latency.Count() != 3 {
		t.Errorf("steps: list %+v post %+v", list, post)
	}
	want := []result.ErrorClass{
		{Class: result.ErrStatus, Step: "POST http://127.0.0.1/items", Count: 1, Sample: "status 503"},
		{Class: result.ErrTimeout, Step: "GET list", Count: 1, Sample: "request timeout"},
	}
	importertest.WantErrors(t, run, want)
	if !strings.Contains(strings.Join(run.Notes, "\n"), "1 passed, 1 failed") {
		t.Errorf("notes: %q", run.Notes)
	}
}

func TestCSVMatchesNDJSONMapping(t *testing.T) {
	t.Parallel()
	run := mustImport(t, CSV{}, "results.csv")
	if run.Requests != (result.Requests{Total: 4, Failed: 1, Counted: result.CountRequests}) || run.Window != 5 || run.Iterations.Completed != 1 {
		t.Errorf("requests %+v window %v iterations %+v", run.Requests, run.Window, run.Iterations)
	}
	importertest.WantMetric(t, run, result.LatencyP95, 40)
	importertest.WantMetric(t, run, result.RequestErrorPct, 25)
	if len(run.Errors) != 1 || run.Errors[0].Sample != "status 503: status 503, retry" {
		t.Errorf("errors %+v", run.Errors)
	}
	if !strings.Contains(strings.Join(run.Notes, "\n"), "1 s resolution") {
		t.Errorf("notes do not mention the timestamp resolution: %q", run.Notes)
	}
}

func TestCutRawFilesImportWhatIsComplete(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f        importer.Format
		file     string
		requests int64
		line     string
	}{
		{NDJSON{}, "cut.ndjson", 5, "line 7 is incomplete"},
		{CSV{}, "cut.csv", 3, "line 6 is incomplete"},
	} {
		run := mustImport(t, tc.f, tc.file)
		if run.Requests.Total != tc.requests {
			t.Errorf("%s: %d requests, want %d", tc.file, run.Requests.Total, tc.requests)
		}
		if !strings.Contains(strings.Join(run.Notes, "\n"), "file was cut: "+tc.line) {
			t.Errorf("%s: notes %q do not say the file was cut at %s", tc.file, run.Notes, tc.line)
		}
	}
}

func TestBadRawLinesNameFileAndLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f    importer.Format
		file string
		want string
	}{
		{NDJSON{}, "bad.ndjson", "testdata/bad.ndjson:3: "},
		{CSV{}, "bad.csv", `testdata/bad.csv:4: metric_value "fast": expected a number`},
	} {
		_, err := importTestdata(t, tc.f, tc.file)
		var syn *importer.SyntaxError
		if !errors.As(err, &syn) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want prefix %q", tc.file, err, tc.want)
		}
	}
}

func TestNDJSONWithoutHTTPIsUnsupported(t *testing.T) {
	t.Parallel()
	in := `{"metric":"browser_web_vital_lcp","type":"Point","data":{"time":"2024-01-01T00:00:00Z","value":900,"tags":{}}}` + "\n"
	_, err := NDJSON{}.Import("b.json", strings.NewReader(in))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.HasPrefix(uns.Reason, "k6 browser test") {
		t.Fatalf("err = %v", err)
	}
}

func TestRequestsWithoutStatusTagsLeaveErrorRateOut(t *testing.T) {
	t.Parallel()
	in := `{"metric":"http_req_duration","type":"Point","data":{"time":"2024-01-01T00:00:00Z","value":5,"tags":{}}}
{"metric":"http_req_duration","type":"Point","data":{"time":"2024-01-01T00:00:02Z","value":7,"tags":{}}}
`
	run, err := NDJSON{}.Import("n.json", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantAbsent(t, run, result.RequestErrorPct)
	importertest.WantMetric(t, run, result.RequestsPerSec, 1)
	importertest.WantRequests(t, run, result.CountTotal, `{"total":2}`)
}

func TestParseTimestampVariants(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"1722852000", "1722852000000", "1722852000000000", "1722852000000000000", "1722852000.0", "2024-08-05T10:00:00Z"} {
		ts, _, err := parseTimestamp(s)
		if err != nil || ts.Unix() != 1722852000 {
			t.Errorf("%s → %v, %v", s, ts, err)
		}
	}
}
