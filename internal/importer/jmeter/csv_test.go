package jmeter

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestCSVBasic(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, CSVFormat{}, "testdata/basic.csv")
	if run.Requests.Total != 14 || run.Requests.Failed != 4 {
		t.Fatalf("requests = %+v, want 14 total, 4 failed", run.Requests)
	}
	if run.Window != 9.1 {
		t.Errorf("window = %v s, want 9.1 (first start to last end)", run.Window)
	}
	if want := time.UnixMilli(1700000000000).UTC(); !run.Started.Equal(want) {
		t.Errorf("started = %v, want %v", run.Started, want)
	}
	importertest.WantMetric(t, run, result.RequestsPerSec, 14/9.1)
	importertest.WantMetric(t, run, result.RequestErrorPct, 100*4.0/14)
	importertest.WantMetric(t, run, result.LatencyMax, 5000)
	if len(run.Steps) != 2 || run.Steps[0].Name != "GET /a" || run.Steps[1].Name != "POST /b" {
		t.Fatalf("steps = %v, want GET /a then POST /b", importertest.StepNames(run))
	}
	a := run.Steps[0]
	if a.Requests != 10 || a.Failed != 0 {
		t.Errorf("GET /a = %d requests, %d failed; want 10, 0", a.Requests, a.Failed)
	}
	// Elapsed 10, 20, … 100 ms: p50 is 50 ms, p90 is 90 ms.
	if p50 := a.Latency.Quantile(0.5); !importertest.Approx(float64(p50), float64(50*time.Millisecond), 0.002) {
		t.Errorf("GET /a p50 = %v, want 50ms", p50)
	}
	if p90 := a.Latency.Quantile(0.9); !importertest.Approx(float64(p90), float64(90*time.Millisecond), 0.002) {
		t.Errorf("GET /a p90 = %v, want 90ms", p90)
	}
	want := []result.ErrorClass{
		{Class: result.ErrStatus, Step: "POST /b", Count: 1, Sample: "500 Internal Server Error"},
		{Class: result.ErrExpect, Step: "POST /b", Count: 1, Sample: "Test failed: text expected to contain /ok/"},
		{Class: result.ErrConnection, Step: "POST /b", Count: 1, Sample: "java.net.ConnectException: Connection refused"},
		{Class: result.ErrTimeout, Step: "POST /b", Count: 1, Sample: "java.net.SocketTimeoutException: Read timed out"},
	}
	importertest.WantErrors(t, run, want)
	if len(run.Notes) != 0 {
		t.Errorf("notes = %q, want none", run.Notes)
	}
}

func TestCSVWithoutHeaderUsesDefaultLayout(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, CSVFormat{}, "testdata/noheader.csv")
	if run.Requests.Total != 3 || run.Requests.Failed != 1 {
		t.Fatalf("requests = %+v, want 3 total, 1 failed", run.Requests)
	}
	if run.Window != 1.2 {
		t.Errorf("window = %v, want 1.2", run.Window)
	}
	if !importertest.HasNote(run, "default 12-column layout") {
		t.Errorf("notes = %q, want the layout named", run.Notes)
	}
	if len(run.Errors) != 1 || run.Errors[0].Class != result.ErrExpect {
		t.Errorf("errors = %+v, want one expectation_failed", run.Errors)
	}
}

func TestCSVDateTimestamps(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, CSVFormat{}, "testdata/dates.csv")
	if want := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC); !run.Started.Equal(want) {
		t.Errorf("started = %v, want %v", run.Started, want)
	}
	if run.Window != 5 {
		t.Errorf("window = %v, want 5", run.Window)
	}
	importertest.WantMetric(t, run, result.RequestsPerSec, 0.6)
	if !importertest.HasNote(run, "no time zone") {
		t.Errorf("notes = %q, want the zone caveat", run.Notes)
	}
}

func TestCSVCustomColumnsAndDelimiter(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, CSVFormat{}, "testdata/custom.csv")
	if run.Requests.Total != 3 || run.Requests.Failed != 1 {
		t.Fatalf("requests = %+v, want 3 total, 1 failed", run.Requests)
	}
	importertest.WantMetric(t, run, result.LatencyMax, 80)
	importertest.WantMetric(t, run, result.RequestsPerSec, 3/2.04)
	if len(run.Steps) != 1 || run.Steps[0].Name != "checkout" {
		t.Errorf("steps = %v, want [checkout]", importertest.StepNames(run))
	}
}

func TestCSVWithoutSuccessHasNoErrorRate(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, CSVFormat{}, "testdata/nosuccess.csv")
	if run.Requests.Total != 2 {
		t.Fatalf("requests = %+v, want 2", run.Requests)
	}
	importertest.WantAbsent(t, run, result.RequestErrorPct)
	importertest.WantRequests(t, run, result.CountTotal, `{"total":2}`)
	importertest.WantMetric(t, run, result.LatencyMax, 30)
	if !importertest.HasNote(run, "no error rate") {
		t.Errorf("notes = %q, want the missing success column named", run.Notes)
	}
}

func TestCSVTransactionsAndSubSamples(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, CSVFormat{}, "testdata/transactions.csv")
	// The transaction row is excluded, GET /login-0 and -1 fold into
	// GET /login; GET /login-7 lies outside its time and is a request.
	if run.Requests.Total != 3 {
		t.Fatalf("requests = %+v, want 3", run.Requests)
	}
	if got := importertest.StepNames(run); strings.Join(got, "|") != "GET /login|POST /session|GET /login-7" {
		t.Errorf("steps = %v", got)
	}
	if !importertest.HasNote(run, "2 sub-samples") || !importertest.HasNote(run, "1 transaction controller samples excluded") {
		t.Errorf("notes = %q, want folded and excluded counts", run.Notes)
	}
}

func TestCSVCutFileImportsCompleteRows(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, CSVFormat{}, "testdata/cut.csv")
	if run.Requests.Total != 3 {
		t.Fatalf("requests = %+v, want the 3 complete rows", run.Requests)
	}
	if !importertest.HasNote(run, "the file was cut: its last line (5) is incomplete") {
		t.Errorf("notes = %q, want the cut named", run.Notes)
	}
}

func TestCSVBadFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, want string }{
		{"elapsed.csv", `testdata/bad/elapsed.csv:4: elapsed "abc" is not a whole number of milliseconds`},
		{"fields.csv", `testdata/bad/fields.csv:3: expected 17 fields as in the header row, got 5`},
		{"timestamp.csv", `testdata/bad/timestamp.csv:3: timestamp "05/12/2019 12:37:24" is not epoch milliseconds like the rest of the file`},
		{"dateformat.csv", `testdata/bad/dateformat.csv:2: timestamp "05/12/2019 12:37:24" is not epoch milliseconds or a date like 2019/12/05 12:37:24`},
		{"header.csv", `testdata/bad/header.csv:1: expected JMeter's header row (timeStamp,elapsed,label,…) or a sample starting with a timestamp, got "label,code,message"`},
		{"success.csv", `testdata/bad/success.csv:2: success "maybe" is not true or false`},
		// A CR that is not part of a CRLF, after a quoted field: encoding/csv
		// refuses it, and so does the row reader's fast path.
		{"straycr.csv", `testdata/bad/straycr.csv:3: extraneous or missing " in quoted-field`},
		{"layout.csv", `testdata/bad/layout.csv:1: no header row, and 14 fields match none of JMeter's default layouts (11, 12, 13, 15, 16 or 17 fields)`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			_, err := importertest.ImportPath(CSVFormat{}, "testdata/bad/"+tc.file)
			var syn *importer.SyntaxError
			if !errors.As(err, &syn) {
				t.Fatalf("err = %v, want a SyntaxError", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err = %q\nwant prefix %q", err, tc.want)
			}
		})
	}
}

func TestCSVEmptyAndHeaderOnly(t *testing.T) {
	t.Parallel()
	_, err := CSVFormat{}.Import("empty.csv", strings.NewReader(""))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || err.Error() != "empty.csv: the file is empty; expected JMeter's header row or samples" {
		t.Errorf("empty: err = %v", err)
	}
	_, err = importertest.ImportPath(CSVFormat{}, "testdata/headeronly.csv")
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.Contains(err.Error(), "no samples") {
		t.Errorf("header only: err = %v, want Unsupported naming no samples", err)
	}
}

func TestCSVStatisticalRowsUnsupported(t *testing.T) {
	t.Parallel()
	in := "timeStamp,elapsed,label,success,SampleCount,ErrorCount\n1700000000000,10,a,true,5,0\n"
	_, err := CSVFormat{}.Import("batch.csv", strings.NewReader(in))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.Contains(err.Error(), "5 samples") {
		t.Errorf("err = %v, want Unsupported naming the 5-sample row", err)
	}
}

func TestCSVSniff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		want bool
	}{
		{"testdata/basic.csv", true},
		{"testdata/noheader.csv", true},
		{"testdata/custom.csv", true},
		{"testdata/bad/header.csv", false},
		{"testdata/transactions.xml", false},
		{"testdata/statistics.json", false},
	} {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := (CSVFormat{}).Sniff(tc.file, b); got != tc.want {
			t.Errorf("Sniff(%s) = %v, want %v", tc.file, got, tc.want)
		}
	}
}

func TestCSVRepeatedHeaderSkipped(t *testing.T) {
	t.Parallel()
	in := "timeStamp,elapsed,label,success\n1700000000000,10,a,true\ntimeStamp,elapsed,label,success\n1700000000100,20,a,false\n"
	run, err := CSVFormat{}.Import("two.csv", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests.Total != 2 || run.Requests.Failed != 1 {
		t.Errorf("requests = %+v, want 2 total, 1 failed", run.Requests)
	}
	if !importertest.HasNote(run, "repeated header row at line 3") {
		t.Errorf("notes = %q", run.Notes)
	}
}

func TestCSVManyLabelsBoundHistograms(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("timeStamp,elapsed,label,success\n")
	for i := range rawrun.MaxSteps + 5 {
		fmt.Fprintf(&b, "%d,10,GET /item/%d,true\n", 1700000000000+i, i)
	}
	run, err := CSVFormat{}.Import("many.csv", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests.Total != rawrun.MaxSteps+5 || len(run.Steps) != rawrun.MaxSteps+5 {
		t.Fatalf("requests = %d, steps = %d", run.Requests.Total, len(run.Steps))
	}
	if run.Steps[rawrun.MaxSteps-1].Latency == nil || run.Steps[rawrun.MaxSteps].Latency != nil {
		t.Error("want histograms for the first steps only")
	}
	if run.Latency.Count() != run.Requests.Total || !importertest.HasNote(run, "per-step latency kept for the first 200") {
		t.Errorf("run histogram %d, notes %q", run.Latency.Count(), run.Notes)
	}
}

func TestCSVCutInsideQuotedField(t *testing.T) {
	t.Parallel()
	in := "timeStamp,elapsed,label,responseMessage,success\r\n" +
		"1700000000000,10,a,OK,true\r\n" +
		"1700000000100,20,a,\"Number of samples in transaction : 1, number of fail"
	run, err := CSVFormat{}.Import("cut.csv", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests.Total != 1 || !importertest.HasNote(run, "its last line (3) is incomplete") {
		t.Errorf("requests = %+v, notes %q", run.Requests, run.Notes)
	}
	// The same broken quote before the last line is an error, not a cut.
	in = strings.Replace(in, "\"Number", "Number\"", 1) + "\r\n1700000000200,20,a,OK,true\r\n"
	_, err = CSVFormat{}.Import("quote.csv", strings.NewReader(in))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || !strings.HasPrefix(err.Error(), `quote.csv:3: bare " in non-quoted-field`) {
		t.Errorf("err = %v", err)
	}
}

// JMeter 2.x wrote pipe-delimited rows without a header; with the failure
// message saved, a row has 13 fields.
func TestCSVHeaderlessPipes13Fields(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "pipes13.jtl")
	if !(CSVFormat{}).Sniff("pipes13.jtl", data) {
		t.Fatal("not sniffed")
	}
	run := importertest.MustImport(t, CSVFormat{}, "testdata/pipes13.jtl")
	if run.Requests.Total != 6 || run.Requests.Failed != 2 {
		t.Fatalf("requests %+v, want 6 with 2 failed", run.Requests)
	}
	if names := importertest.StepNames(run); strings.Join(names, ",") != "Login,Home,Search" {
		t.Errorf("steps %v", names)
	}
	importertest.WantErrors(t, run, []result.ErrorClass{
		{Class: result.ErrStatus, Step: "Search", Count: 1, Sample: "500 Internal Server Error"},
		{Class: result.ErrTimeout, Step: "Search", Count: 1, Sample: "The operation lasted too long: It took 2,100 milliseconds, but should not have lasted longer than 2,000 milliseconds."},
	})
	importertest.WantMetric(t, run, result.LatencyMax, 2100)
	if !importertest.HasNote(run, "default 13-column layout") {
		t.Errorf("notes %q", run.Notes)
	}
}

// A timestamp past the year 9999 is a corrupt file (bad input), not a run
// that fails when it is written.
func TestCSVTimestampPastYear9999IsASyntaxError(t *testing.T) {
	t.Parallel()
	data := "timeStamp,elapsed,label,responseCode,success\n1700000000000,5,a,200,true\n0700000000000000,5,a,200,true\n1700000000010,5,a,200,true\n"
	_, err := CSVFormat{}.Import("future.jtl", strings.NewReader(data))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Line != 3 || !strings.Contains(syn.Msg, "9999") {
		t.Errorf("err = %v, want a syntax error at line 3", err)
	}
}
