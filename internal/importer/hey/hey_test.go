package hey

import (
	"errors"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// The test files are real hey v0.1.5 output (bench/importer-fixtures/make.sh):
// 400 requests to a service that answers every tenth with 503, and 20 to a
// port where nothing listens.

func TestTextSummary(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/hey.txt")
	if run.Requests != (result.Requests{Total: 400, Failed: 40, Counted: result.CountRequests}) || run.Window != 0.8411 {
		t.Errorf("requests %+v, window %v; want 400 with 40 failed in 0.8411 s", run.Requests, run.Window)
	}
	for key, want := range map[string]float64{
		result.RequestsPerSec: 475.5594, result.LatencyMean: 7.9, result.LatencyMax: 17.7, result.LatencyP50: 8.0,
		result.LatencyP90: 13.1, result.LatencyP95: 13.9, result.LatencyP99: 14.8, result.RequestErrorPct: 10,
	} {
		importertest.WantMetric(t, run, key, want)
	}
	importertest.WantErrors(t, run, []result.ErrorClass{{Class: result.ErrStatus, Count: 40, Sample: "status 503"}})
}

// Every request refused: a run of errors, without latencies.
func TestTextOnlyErrors(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/refused.txt")
	if run.Requests != (result.Requests{Total: 20, Failed: 20, Counted: result.CountRequests}) {
		t.Errorf("requests %+v", run.Requests)
	}
	importertest.WantMetric(t, run, result.RequestErrorPct, 100)
	importertest.WantAbsent(t, run, result.LatencyMean, result.LatencyMax, result.LatencyP50)
	if len(run.Errors) != 1 || run.Errors[0].Class != result.ErrConnection || !strings.Contains(run.Errors[0].Sample, "connection refused") {
		t.Errorf("errors %+v", run.Errors)
	}
}

func TestTextSeveralSummaries(t *testing.T) {
	t.Parallel()
	one := string(importertest.Testdata(t, "hey.txt"))
	runs, err := Text{}.ImportAll("two.txt", strings.NewReader(one+"$ hey again\n"+one))
	if err != nil || len(runs) != 2 || runs[1].Requests.Total != 400 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	_, err = Text{}.Import("cut.txt", strings.NewReader("\nSummary:\n  Slowest:\t0.1 secs\n"))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Line != 2 {
		t.Errorf("cut: %v", err)
	}
}

func TestCSVRows(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, CSV{}, "testdata/hey.csv")
	importertest.CheckCounts(t, run)
	if run.Requests != (result.Requests{Total: 400, Failed: 40, Counted: result.CountRequests}) {
		t.Errorf("requests %+v", run.Requests)
	}
	// The file's own figures by nearest rank: rows 200 and 396 of the
	// sorted response times.
	importertest.WantMetric(t, run, result.LatencyP50, 7.7)
	importertest.WantMetric(t, run, result.LatencyP99, 14.3)
	importertest.WantMetric(t, run, result.LatencyMax, 15.6)
	if run.Window <= 0.5 || run.Window > 1 {
		t.Errorf("window %v s, want about the second the run lasted", run.Window)
	}
	_, err := CSV{}.Import("bad.csv", strings.NewReader(csvHeader+"\n0.1,0,0,0,0,0,two hundred,0.5\n"))
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || syn.Line != 2 {
		t.Errorf("bad row: %v", err)
	}
}

func TestSniff(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{"hey.txt": "hey-text", "refused.txt": "hey-text", "hey.csv": "hey-csv"} {
		data := importertest.Testdata(t, file)
		for _, f := range []importer.Format{Text{}, CSV{}} {
			if got := f.Sniff(file, data); got != (f.Name() == want) {
				t.Errorf("%s: %s.Sniff = %v", file, f.Name(), got)
			}
		}
	}
	if (Text{}).Sniff("wrk.txt", []byte("Running 1s test @ x\nRequests/sec: 1\n")) {
		t.Error("a wrk report sniffed as hey")
	}
}

// FuzzImport: no panic, and a run that encodes or a typed error.
func FuzzImport(f *testing.F) {
	importertest.AddSeeds(f, 16<<10, importertest.Files("testdata/*")...)
	importertest.AddSeeds(f, 16<<10, importertest.SharedFixtureFiles("hey")...)
	importertest.Fuzz(f, nil, Text{}, CSV{})
}

// hey -n 20 -t 1 against a service that never answers: the text summary
// has 20 timeouts and "NaN" averages; the csv of the same kind of run
// has its header only, and is refused with what to import instead.
func TestEveryRequestTimedOut(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/timeout.txt")
	importertest.WantRequests(t, run, result.CountRequests, `{"total":20,"failed":20}`)
	importertest.WantMetric(t, run, result.RequestsPerSec, 1.9753)
	importertest.WantAbsent(t, run, result.LatencyMean, result.LatencyP50, result.LatencyMax)
	if len(run.Errors) != 1 || run.Errors[0].Class != result.ErrTimeout || run.Errors[0].Count != 20 {
		t.Errorf("errors %+v; want 20 timeouts", run.Errors)
	}
	importertest.WantRefused(t, "testdata/timeout.csv", "", "import hey's text summary")
}

// hey -n 50 on a missing path prints "0%% in 0.0000 secs" where its 99 %
// row belongs (too few samples): that row is no p99 and no p0, so p99 is
// absent; every response was a 404.
func TestBrokenPercentileRowIsLeftOut(t *testing.T) {
	t.Parallel()
	run := importertest.MustImport(t, Text{}, "testdata/notfound.txt")
	importertest.WantRequests(t, run, result.CountRequests, `{"total":50,"failed":50}`)
	importertest.WantMetric(t, run, result.LatencyP95, 5.9)
	importertest.WantMetric(t, run, result.LatencyMax, 5.9)
	importertest.WantAbsent(t, run, result.LatencyP99)
}
