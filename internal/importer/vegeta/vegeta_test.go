package vegeta

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestReport(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "report.json")
	if !(Report{}).Sniff("r.json", data) || (Results{}).Sniff("r.json", data) {
		t.Fatal("sniffing")
	}
	run, err := Report{}.Import("r.json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantMetric(t, run, result.LatencyP50, 15)
	importertest.WantMetric(t, run, result.LatencyP90, 40)
	importertest.WantMetric(t, run, result.LatencyP95, 55)
	importertest.WantMetric(t, run, result.LatencyP99, 90)
	importertest.WantMetric(t, run, result.LatencyMax, 120)
	importertest.WantMetric(t, run, result.LatencyMean, 20)
	importertest.WantMetric(t, run, result.RequestsPerSec, 10)
	importertest.WantMetric(t, run, result.RequestErrorPct, 10)
	importertest.WantAbsent(t, run, result.IterationsPerSec, result.LifecycleSuccess)
	if run.Window != 10 || run.Requests != (result.Requests{Total: 100, Failed: 10, Counted: result.CountRequests}) {
		t.Errorf("window %v requests %+v", run.Window, run.Requests)
	}
	want := []result.ErrorClass{
		{Class: result.ErrConnection, Count: 4, Sample: `Get "http://127.0.0.1:8080/": dial tcp 127.0.0.1:8080: connect: connection refused`},
		{Class: result.ErrStatus, Count: 1, Sample: "404 Not Found"},
		{Class: result.ErrStatus, Count: 5, Sample: "503 Service Unavailable"},
	}
	if len(run.Errors) != 3 || run.Errors[0] != want[0] || run.Errors[1] != want[1] || run.Errors[2] != want[2] {
		t.Errorf("errors %+v, want %+v", run.Errors, want)
	}
}

func TestOldReportLacksP90(t *testing.T) {
	t.Parallel()
	run, err := Report{}.Import("old.json", bytes.NewReader(importertest.Testdata(t, "report-old.json")))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantAbsent(t, run, result.LatencyP90)
	importertest.WantMetric(t, run, result.LatencyP99, 9)
	importertest.WantMetric(t, run, result.RequestErrorPct, 0)
}

func TestReportErrors(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "report.json")
	_, err := Report{}.Import("r.json", bytes.NewReader(data[:200]))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || !strings.Contains(syn.Msg, "file is cut") {
		t.Errorf("cut report: %v", err)
	}
	_, err = Report{}.Import("r.json", strings.NewReader("{\n\"latencies\": {},\n\"requests\": \"many\"}"))
	if !errors.As(err, &syn) || !strings.HasPrefix(err.Error(), "r.json:3: ") {
		t.Errorf("typed field: %v", err)
	}
	_, err = Report{}.Import("r.json", strings.NewReader(`{"latencies":{},"status_codes":{},"requests":0}`))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) {
		t.Errorf("empty report: %v", err)
	}
}

// A report without status codes or a success ratio says nothing about
// failures: the failed count is absent, and so is the error rate.
func TestReportWithoutOutcomesCountsNoFailures(t *testing.T) {
	t.Parallel()
	run, err := Report{}.Import("r.json", strings.NewReader(`{"latencies":{"mean":2000000,"50th":1000000},"requests":50,"duration":5000000000}`))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantRequests(t, run, result.CountTotal, `{"total":50}`)
	importertest.WantAbsent(t, run, result.RequestErrorPct)
	importertest.WantMetric(t, run, result.RequestsPerSec, 10)
	run, err = Report{}.Import("r.json", strings.NewReader(`{"latencies":{"mean":2000000},"requests":50,"success":0.9}`))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantRequests(t, run, result.CountRequests, `{"total":50,"failed":5}`)
}

func TestGobResultsGiveFullHistogram(t *testing.T) {
	t.Parallel()
	stream := gobStream(t, sampleResults())
	if !(Results{}).Sniff("results.bin", stream) || (Report{}).Sniff("results.bin", stream) {
		t.Fatal("sniffing")
	}
	run, err := Results{}.Import("results.bin", bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if run.Latency.Count() != 4 || run.Window != 8 || run.Requests != (result.Requests{Total: 4, Failed: 1, Counted: result.CountRequests}) {
		t.Errorf("count %d window %v requests %+v", run.Latency.Count(), run.Window, run.Requests)
	}
	importertest.WantMetric(t, run, result.RequestsPerSec, 0.5)
	importertest.WantMetric(t, run, result.LatencyMax, 40)
	importertest.WantMetric(t, run, result.RequestErrorPct, 25)
	if len(run.Steps) != 1 || run.Steps[0].Name != "GET http://127.0.0.1/a" || run.Steps[0].Failed != 1 {
		t.Errorf("steps %+v", run.Steps)
	}
	if len(run.Errors) != 1 || run.Errors[0].Class != result.ErrStatus || run.Errors[0].Sample != "503 Service Unavailable" {
		t.Errorf("errors %+v", run.Errors)
	}
}

func TestCutGobKeepsCompleteResults(t *testing.T) {
	t.Parallel()
	stream := gobStream(t, sampleResults())
	run, err := Results{}.Import("results.bin", bytes.NewReader(stream[:len(stream)-5]))
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests.Total != 3 || len(run.Notes) != 1 || !strings.Contains(run.Notes[0], "file was cut: result 4") {
		t.Errorf("total %d notes %q", run.Requests.Total, run.Notes)
	}
	_, err = Results{}.Import("results.bin", bytes.NewReader(stream[:40]))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) {
		t.Errorf("stream cut inside its type definition: %v", err)
	}
}

func TestJSONLinesResults(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "results.jsonl")
	if !(Results{}).Sniff("r.jsonl", data) {
		t.Fatal("not sniffed")
	}
	run, err := Results{}.Import("r.jsonl", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests != (result.Requests{Total: 5, Failed: 2, Counted: result.CountRequests}) || run.Window != 4 || len(run.Steps) != 2 {
		t.Errorf("requests %+v window %v steps %d", run.Requests, run.Window, len(run.Steps))
	}
	classes := map[string]int64{}
	for _, e := range run.Errors {
		classes[e.Class] += e.Count
	}
	if classes[result.ErrStatus] != 1 || classes[result.ErrTimeout] != 1 {
		t.Errorf("errors %+v", run.Errors)
	}
	importertest.WantMetric(t, run, result.LatencyMax, 5000)
}

func TestJSONLinesCutAndBad(t *testing.T) {
	t.Parallel()
	run, err := Results{}.Import("cut.jsonl", bytes.NewReader(importertest.Testdata(t, "cut.jsonl")))
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests.Total != 4 || !strings.Contains(strings.Join(run.Notes, ""), "file was cut: line 5") {
		t.Errorf("total %d notes %q", run.Requests.Total, run.Notes)
	}
	_, err = Results{}.Import("bad.jsonl", bytes.NewReader(importertest.Testdata(t, "bad.jsonl")))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || !strings.HasPrefix(err.Error(), "bad.jsonl:3: ") {
		t.Errorf("bad line: %v", err)
	}
}

func TestAbsurdReportFiguresStayFinite(t *testing.T) {
	t.Parallel()
	run, err := Report{}.Import("r.json", strings.NewReader(`{"latencies":{"max":1e308},"status_codes":null,"requests":5,"success":-1e308}`))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || !strings.Contains(syn.Msg, "expected a ratio from 0 to 1") {
		t.Errorf("success -1e308: %v", err)
	}
	run, err = Report{}.Import("r.json", strings.NewReader(`{"latencies":{"max":1e308,"mean":-1e308},"status_codes":{"0":1e18},"requests":5}`))
	importertest.CheckOutcome(t, run, err)
}

func TestTextReport(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "report.txt")
	if !(Text{}).Sniff("r.txt", data) || (Report{}).Sniff("r.txt", data) || (Results{}).Sniff("r.txt", data) {
		t.Fatal("sniffing")
	}
	run, err := Text{}.Import("r.txt", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantMetric(t, run, result.LatencyP90, 30004)
	importertest.WantMetric(t, run, result.LatencyMean, 24398)
	importertest.WantMetric(t, run, result.RequestsPerSec, 10.02)
	importertest.WantMetric(t, run, result.RequestErrorPct, 100*592.0/600)
	if run.Window != 59.9 || run.Requests != (result.Requests{Total: 600, Failed: 592, Counted: result.CountRequests}) || len(run.Errors) != 2 {
		t.Errorf("window %v requests %+v errors %+v", run.Window, run.Requests, run.Errors)
	}
	old := strings.Replace(string(data), "[min, mean, 50, 90, 95, 99, max]  1.726ms, ", "[mean, 50, 95, 99, max]  ", 1)
	old = strings.Replace(old, "30.001s, 30.004s, 30.005s", "30.001s, 30.005s", 1)
	run, err = Text{}.Import("old.txt", strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantAbsent(t, run, result.LatencyP90)
	importertest.WantMetric(t, run, result.LatencyP95, 30005)
}

func TestTextReportErrors(t *testing.T) {
	t.Parallel()
	data := string(importertest.Testdata(t, "report.txt"))
	_, err := Text{}.Import("two.txt", strings.NewReader(data+"\n"+data))
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.Contains(uns.Reason, "2 vegeta text reports in one file") {
		t.Errorf("two reports, one run asked for: %v", err)
	}
	runs, err := Text{}.ImportAll("two.txt", strings.NewReader(data+"\n"+strings.Replace(data, "24.398s", "12.5s", 1)))
	if err != nil || len(runs) != 2 {
		t.Fatalf("two reports: %d runs, %v", len(runs), err)
	}
	importertest.WantMetric(t, runs[1], result.LatencyMean, 12500)
	if runs[0].Metrics[result.LatencyMean] == runs[1].Metrics[result.LatencyMean] {
		t.Error("the second report's figures leaked into the first")
	}
	run, err := Text{}.Import("nostatus.txt", strings.NewReader(strings.Replace(data, "Status Codes", "Status Cod", 1)))
	if err != nil {
		t.Fatal(err)
	}
	importertest.WantAbsent(t, run, result.RequestErrorPct)
	importertest.WantRequests(t, run, result.CountTotal, `{"total":600}`)
	bad := strings.Replace(data, "24.398s", "soon", 1)
	_, err = Text{}.Import("bad.txt", strings.NewReader(bad))
	if err == nil || err.Error() != `bad.txt:3: Latencies mean: expected a Go duration such as 5.2ms, got "soon"` {
		t.Errorf("bad latency: %v", err)
	}
}

// results.csv is real `vegeta encode -to csv` output
// (bench/importer-fixtures/make.sh): 400 requests at 100/s to a service
// that answers every tenth with 503.
func TestResultsCSV(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "results.csv")
	if !(Results{}).Sniff("results.csv", data) {
		t.Fatal("not sniffed")
	}
	run := importertest.MustImport(t, Results{}, "testdata/results.csv")
	importertest.CheckCounts(t, run)
	if run.Requests != (result.Requests{Total: 400, Failed: 40, Counted: result.CountRequests}) {
		t.Errorf("requests %+v", run.Requests)
	}
	if len(run.Steps) != 1 || run.Steps[0].Name != "GET http://127.0.0.1:18091/mixed" {
		t.Errorf("steps %v", importertest.StepNames(run))
	}
	if run.Window < 3.9 || run.Window > 4.1 || run.Started.IsZero() {
		t.Errorf("window %v, started %v; want the 4 s attack", run.Window, run.Started)
	}
	importertest.WantMetric(t, run, result.RequestErrorPct, 10)
	// The file's own figures by nearest rank: row 200 of the sorted latencies.
	importertest.WantMetric(t, run, result.LatencyP50, 7.937014)
	importertest.WantMetric(t, run, result.LatencyMax, 26.726354)
	_, err := Results{}.Import("bad.csv", strings.NewReader("1796116924745268833,200,fast,0,3,,,t,0,GET,http://x/,\n"))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Line != 1 {
		t.Errorf("bad row: %v", err)
	}
}

// vegeta report of 5 requests to a service that never answers (attack
// -timeout 1s): status 0 for all, and the Error Set says "Client.Timeout
// exceeded". The text report classes them as the JSON report of the same
// results does: timeouts, with vegeta's message as the sample.
func TestTextReportClassesStatusZeroByItsErrorSet(t *testing.T) {
	t.Parallel()
	text := importertest.MustImport(t, Text{}, "testdata/report-timeout.txt")
	json := importertest.MustImport(t, Report{}, "testdata/report-timeout.json")
	for _, run := range []*result.Run{text, json} {
		if len(run.Errors) != 1 || run.Errors[0].Class != result.ErrTimeout || run.Errors[0].Count != 5 ||
			!strings.Contains(run.Errors[0].Sample, "Client.Timeout exceeded") {
			t.Errorf("errors %+v; want 5 timeouts with vegeta's message", run.Errors)
		}
	}
	importertest.WantMetric(t, text, result.LatencyP50, 1004)
	importertest.WantMetric(t, text, result.LatencyMax, 1048)
	importertest.WantMetric(t, text, result.RequestErrorPct, 100)
	reset := importertest.MustImport(t, Text{}, "testdata/report-reset.txt")
	if len(reset.Errors) != 1 || reset.Errors[0].Class != result.ErrConnection || !strings.Contains(reset.Errors[0].Sample, "connection reset by peer") {
		t.Errorf("errors %+v; want 20 connection failures", reset.Errors)
	}
}

// vegeta report -type=hist[0,5ms,10ms,20ms] holds bucket counts only: it
// is detected and refused with what to import instead.
func TestHistReportIsRefusedWithAdvice(t *testing.T) {
	t.Parallel()
	importertest.WantRefused(t, "testdata/report.hist", "", "vegeta report -type=json")
}
