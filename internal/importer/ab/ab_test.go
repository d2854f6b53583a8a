package ab

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// The test files are real ab output (bench/importer-fixtures/make.sh): one
// run of 400 requests to a service that answers every tenth with 503, in
// the text, -e and -g forms.

func TestTextReport(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/ab.txt")
	if run.Requests != (result.Requests{Total: 400, Failed: 40, Counted: result.CountRequests}) || run.Window != 0.805 {
		t.Errorf("requests %+v, window %v; want 400 with 40 failed in 0.805 s", run.Requests, run.Window)
	}
	for key, want := range map[string]float64{
		result.RequestsPerSec: 496.85, result.LatencyMean: 8, result.LatencyP50: 8, result.LatencyP90: 13,
		result.LatencyP95: 14, result.LatencyP99: 15, result.LatencyMax: 22, result.RequestErrorPct: 10,
	} {
		importertest.WantMetric(t, run, key, want)
	}
	importertest.WantErrors(t, run, []result.ErrorClass{{Class: result.ErrStatus, Count: 40, Sample: "Non-2xx responses"}})
	importertest.WantRequests(t, run, result.CountRequests, `{"total":400,"failed":40}`)
	if !importertest.HasNote(run, "40 responses of another length") {
		t.Errorf("notes %q", run.Notes)
	}
	if !run.Started.IsZero() || run.Iterations.Counted != 0 {
		t.Errorf("started %v, iterations %+v: the report has neither", run.Started, run.Iterations)
	}
}

func TestTextSweepIsOneRunPerReport(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "sweep.txt")
	runs, err := Text{}.ImportAll("sweep.txt", bytes.NewReader(data))
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	for i, run := range runs {
		if run.Requests.Total != 200 || run.Requests.Failed != 0 {
			t.Errorf("run %d: requests %+v, want 200 without failures", i, run.Requests)
		}
	}
	if _, err := (Text{}).Import("sweep.txt", bytes.NewReader(data)); err == nil {
		t.Error("Import of a two-report log gave one run")
	}
}

func TestTextAbortedIsUnsupported(t *testing.T) {
	t.Parallel()
	_, err := importertest.ImportPath(Text{}, "testdata/refused.txt")
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.Contains(uns.Reason, "apr_socket_recv: Connection refused (111)") {
		t.Errorf("err = %v", err)
	}
	_, err = Text{}.Import("cut.txt", strings.NewReader("Server Software:   x\nServer Port: 80\nComplete requests: 10\n"))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Line != 1 {
		t.Errorf("cut report: %v", err)
	}
}

func TestPercentilesCSV(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Percentiles{}, "testdata/percentiles.csv")
	for key, want := range map[string]float64{
		result.LatencyP50: 7.611, result.LatencyP90: 13.013, result.LatencyP95: 13.958, result.LatencyP99: 14.512, result.LatencyMax: 22.006,
	} {
		importertest.WantMetric(t, run, key, want)
	}
	importertest.WantAbsent(t, run, result.RequestsPerSec, result.RequestErrorPct, result.LatencyMean)
	importertest.WantRequests(t, run, 0, "") // percentiles only: no count, not a count of 0
	_, err := Percentiles{}.Import("bad.csv", strings.NewReader(percentilesHeader+"\n50,fast\n"))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Line != 2 {
		t.Errorf("bad row: %v", err)
	}
}

func TestGnuplotTSV(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Gnuplot{}, "testdata/gnuplot.tsv")
	importertest.CheckCounts(t, run)
	if run.Requests.Total != 400 || run.Started.IsZero() {
		t.Errorf("requests %+v, started %v", run.Requests, run.Started)
	}
	// The -g file's own figures, by the nearest-rank rule: p50 is the
	// 200th of the sorted total times, p99 the 396th.
	importertest.WantMetric(t, run, result.LatencyP50, 7)
	importertest.WantMetric(t, run, result.LatencyP99, 14)
	importertest.WantMetric(t, run, result.LatencyMax, 22)
	importertest.WantAbsent(t, run, result.RequestErrorPct)
	importertest.WantRequests(t, run, result.CountTotal, `{"total":400}`) // no status: failures unknown, not 0
}

func TestSniffTellsTheThreeFormsApart(t *testing.T) {
	t.Parallel()
	formats := []importer.Format{Text{}, Percentiles{}, Gnuplot{}}
	for file, want := range map[string]string{"ab.txt": "ab-text", "sweep.txt": "ab-text", "refused.txt": "ab-text", "percentiles.csv": "ab-csv", "gnuplot.tsv": "ab-gnuplot"} {
		data := importertest.Testdata(t, file)
		for _, f := range formats {
			if got := f.Sniff(file, data); got != (f.Name() == want) {
				t.Errorf("%s: %s.Sniff = %v", file, f.Name(), got)
			}
		}
	}
}

// FuzzImport: no panic, and a run that encodes or a typed error, from
// each of the three forms.
func FuzzImport(f *testing.F) {
	importertest.AddSeeds(f, 16<<10, importertest.Files("testdata/*")...)
	importertest.AddSeeds(f, 16<<10, importertest.SharedFixtureFiles("ab")...)
	importertest.Fuzz(f, nil, Text{}, Percentiles{}, Gnuplot{})
}

// ab -n 3 -e: ab reads past its three samples for the rows from 84 %
// (its text report of the same run says every request took ≤ 10 ms; the
// file says 0.257 ms from 84 % on). Those rows are refused, not imported.
func TestPercentilesOfATinyRunAreRefused(t *testing.T) {
	t.Parallel()
	importertest.WantRefused(t, "testdata/percentiles-n3.csv", "ab-csv", "at 84 %: ab writes garbage")
	importertest.WantRefused(t, "testdata/percentiles-n3.csv", "ab-csv", "import ab's text report")
	run := importertest.MustImport(t, Text{}, "testdata/n3.txt")
	importertest.WantMetric(t, run, result.LatencyP99, 10)
	importertest.WantMetric(t, run, result.LatencyMax, 10)
}

// A -g file whose requests start within a second or two gives no window
// and no rate: whole-second starts could make it off by 2× (this run's
// text report says 496.85/s; the starts span 1 s).
func TestGnuplotOfAShortRunHasNoRate(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Gnuplot{}, "testdata/gnuplot.tsv")
	importertest.WantAbsent(t, run, result.RequestsPerSec)
	if run.Window != 0 || !importertest.HasNote(run, "too short a span") {
		t.Errorf("window %v, notes %q", run.Window, run.Notes)
	}
}

// A report cut before its Total row (here in its byte counts, before
// its timing tables) is refused: a cut may drop any figure.
func TestCutReportIsRefused(t *testing.T) {
	t.Parallel()
	importertest.WantRefused(t, "testdata/cut.txt", "", "the file is cut")
}

// ab -r against a service that resets every connection: 20 complete
// requests, "Failed requests: 34 (Receive: 17, Exceptions: 17)".
// ab -n 50 on a missing path: every response is a 404 ("Non-2xx: 50")
// though ab's "Failed requests" says 0.
func TestEveryRequestFailed(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/resets.txt")
	importertest.WantRequests(t, run, result.CountRequests, `{"total":20,"failed":20}`)
	importertest.WantMetric(t, run, result.RequestErrorPct, 100)
	run = importertest.MustImport(t, Text{}, "testdata/notfound.txt")
	importertest.WantRequests(t, run, result.CountRequests, `{"total":50,"failed":50}`)
	importertest.WantMetric(t, run, result.RequestsPerSec, 8183.31)
	importertest.WantMetric(t, run, result.LatencyP99, 2)
}

// ab -r counts the 20 resets twice (Receive: 17, Exceptions: 17 for 20
// requests): the error class holds the failed requests, not the events.
func TestDoubleCountedResetsAreCappedAtTheFailures(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/resets.txt")
	importertest.WantErrors(t, run, []result.ErrorClass{{Class: result.ErrConnection, Count: 20, Sample: "connect, receive, write or exception errors"}})
	if !importertest.HasNote(run, "34 connect, receive") {
		t.Errorf("notes %q", run.Notes)
	}
}

// A saved report with shell-style comments, whole lines and trailing
// ones, imports as the report without them; ab's own "[#/sec]" stays.
func TestTextCommentsAreIgnored(t *testing.T) {
	t.Parallel()
	plain := string(importertest.Testdata(t, "ab.txt"))
	commented := "# ab -n 400 -c 4 http://127.0.0.1:18091/mixed\n# run 1 of 1\n" + strings.NewReplacer(
		"Connection Times (ms)\n", "# connection times follow\nConnection Times (ms)\n",
		"\n 100%     22 (longest request)", "\n 100%     22 (longest request)   # the slowest\n# end of report",
		"\nTotal:          1    8   3.9      8      22", "\nTotal:          1    8   3.9      8      22 # ms",
		"\nServer Software:", "\n  # the server\nServer Software:",
	).Replace(plain)
	if strings.Count(commented, "#") < 6+strings.Count(plain, "#") {
		t.Fatal("the test's comments were not all added")
	}
	want, err := Text{}.Import("ab.txt", strings.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Text{}.Import("commented.txt", strings.NewReader(commented))
	if err != nil {
		t.Fatalf("commented report: %v", err)
	}
	if got.Requests != want.Requests || got.Window != want.Window || len(got.Metrics) != len(want.Metrics) {
		t.Fatalf("requests %+v window %v metrics %v; want %+v %v %v", got.Requests, got.Window, got.Metrics, want.Requests, want.Window, want.Metrics)
	}
	for k, v := range want.Metrics {
		importertest.WantMetric(t, got, k, v)
	}
}
