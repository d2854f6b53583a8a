package gatling

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestLog39(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, LogFormat{}, "testdata/v39.log")
	if run.Requests.Total != 14 || run.Requests.Failed != 4 {
		t.Fatalf("requests = %+v, want 14 total, 4 failed", run.Requests)
	}
	if run.Window != 9.1 {
		t.Errorf("window = %v, want 9.1", run.Window)
	}
	if want := time.UnixMilli(1700000000000).UTC(); !run.Started.Equal(want) {
		t.Errorf("started = %v, want %v", run.Started, want)
	}
	importertest.WantMetric(t, run, result.RequestsPerSec, 14/9.1)
	importertest.WantMetric(t, run, result.RequestErrorPct, 100*4.0/14)
	importertest.WantMetric(t, run, result.LatencyMax, 5000)
	if got := strings.Join(importertest.StepNames(run), "|"); got != "GET /items|checkout / POST /cart|checkout / POST /pay" {
		t.Fatalf("steps = %s", got)
	}
	items := run.Steps[0]
	// Durations 10, 20, … 100 ms: p50 is 50 ms, p90 is 90 ms.
	if p50 := items.Latency.Quantile(0.5); !importertest.Approx(float64(p50), float64(50*time.Millisecond), 0.002) {
		t.Errorf("p50 = %v, want 50ms", p50)
	}
	if p90 := items.Latency.Quantile(0.9); !importertest.Approx(float64(p90), float64(90*time.Millisecond), 0.002) {
		t.Errorf("p90 = %v, want 90ms", p90)
	}
	want := []result.ErrorClass{
		{Class: result.ErrStatus, Step: "checkout / POST /cart", Count: 1, Sample: "status.find.in([200, 209], 304), found 500"},
		{Class: result.ErrExpect, Step: "checkout / POST /pay", Count: 1, Sample: "jsonPath($.paid).find.is(true), but actually found false"},
		{Class: result.ErrConnection, Step: "checkout / POST /pay", Count: 1, Sample: "j.n.ConnectException: Connection refused"},
		{Class: result.ErrTimeout, Step: "checkout / POST /pay", Count: 1, Sample: "i.g.h.c.i.RequestTimeoutException: Request timeout to localhost/127.0.0.1:8080 after 5000 ms"},
	}
	importertest.WantErrors(t, run, want)
	if !importertest.HasNote(run, "1 GROUP records not counted") || !importertest.HasNote(run, "1 ERROR records") {
		t.Errorf("notes = %q", run.Notes)
	}
}

func TestLogOlderLayouts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file          string
		total, failed int64
		window        float64
		steps         string
		max           float64
	}{
		{"v32.log", 2, 1, 0.4, "home|login / form / submit", 300},
		{"v22.log", 2, 1, 1.3, "home", 300},
		{"v20.log", 2, 0, 0.5, "home", 300}, // request start to response end
	} {
		run := importertest.MustImport(t, LogFormat{}, "testdata/"+tc.file)
		if run.Requests.Total != tc.total || run.Requests.Failed != tc.failed {
			t.Errorf("%s: requests = %+v", tc.file, run.Requests)
		}
		if run.Window != tc.window {
			t.Errorf("%s: window = %v, want %v", tc.file, run.Window, tc.window)
		}
		if got := strings.Join(importertest.StepNames(run), "|"); got != tc.steps {
			t.Errorf("%s: steps = %s, want %s", tc.file, got, tc.steps)
		}
		importertest.WantMetric(t, run, result.LatencyMax, tc.max)
	}
}

func TestLogCut(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, LogFormat{}, "testdata/cut.log")
	if run.Requests.Total != 3 {
		t.Fatalf("requests = %+v, want the 3 complete records", run.Requests)
	}
	if !importertest.HasNote(run, "the file was cut: its last line (7) is incomplete") {
		t.Errorf("notes = %q", run.Notes)
	}
}

func TestLogBadFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, want string }{
		{"bad-time.log", `testdata/bad-time.log:5: end time "soon" is not epoch milliseconds`},
		{"bad-fields.log", `testdata/bad-fields.log:4: REQUEST record with 4 fields; expected 7 tab-separated fields (Gatling 3.4–3.9`},
		{"bad-status.log", `testdata/bad-status.log:4: status "MAYBE" is not OK or KO`},
		{"bad-type.log", `testdata/bad-type.log:4: unknown record type "RESPONSE"; expected RUN, USER, REQUEST, GROUP, ERROR or ASSERTION`},
	} {
		_, err := importertest.ImportPath(LogFormat{}, "testdata/"+tc.file)
		var syn *importer.SyntaxError
		if !errors.As(err, &syn) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v\nwant SyntaxError %q", tc.file, err, tc.want)
		}
	}
	for _, tc := range []struct{ file, want string }{
		{"norequests.log", "no REQUEST records"},
	} {
		_, err := importertest.ImportPath(LogFormat{}, "testdata/"+tc.file)
		var uns *importer.Unsupported
		if !errors.As(err, &uns) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want Unsupported %q", tc.file, err, tc.want)
		}
	}
	_, err := LogFormat{}.Import("empty.log", strings.NewReader("\n\n"))
	if err == nil || err.Error() != "empty.log: the file is empty; expected Gatling's RUN, USER and REQUEST records" {
		t.Errorf("empty: err = %v", err)
	}
}

func TestLogSniff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, head string
		want       bool
	}{
		{"x.log", "RUN\tsim\tid\t1\t \t3.9.5\n", true},
		{"x.log", "ASSERTION\tAAE=\nRUN\t", true},
		{"results/simulation.log", "\x00\x01binary", true},
		{"x.log", "timeStamp,elapsed,label\n", false},
		{"x.log", "RUN something\n", false},
	} {
		if got := (LogFormat{}).Sniff(tc.name, []byte(tc.head)); got != tc.want {
			t.Errorf("Sniff(%q, %q) = %v, want %v", tc.name, tc.head, got, tc.want)
		}
	}
}
