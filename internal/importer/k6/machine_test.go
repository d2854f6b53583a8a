package k6

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// testdata/machine-summary.json is written from k6's published schema of
// the machine-readable summary (1.0.0): no k6 runs on this machine.
func TestMachineSummary(t *testing.T) {
	t.Parallel()
	run := mustImport(t, MachineSummary{}, "machine-summary.json")
	checkOutcome(t, run, nil)
	importertest.WantRequests(t, run, result.CountRequests, `{"total":100,"failed":7}`)
	for key, want := range map[string]float64{
		result.LatencyMean: 12.5, result.LatencyP50: 9.1, result.LatencyP90: 21.4, result.LatencyP95: 33.9,
		result.LatencyMax: 88.2, result.RequestErrorPct: 7, result.IterationP95: 140.8,
		result.RequestsPerSec: 100 / 10.021, // a counter has no rate here: count over config.duration
	} {
		importertest.WantMetric(t, run, key, want)
	}
	importertest.WantAbsent(t, run, result.LatencyP99) // the schema has no p(99)
	if run.Window != 10.021 || !importertest.HasNote(run, "93 passed, 7 failed") {
		t.Errorf("window %v, notes %q", run.Window, run.Notes)
	}
}

// Detection sends the machine-readable layout to its own format, and the
// legacy formats, forced on it, say which format reads it.
func TestMachineSummaryIsNotTakenForTheLegacyLayouts(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "machine-summary.json")
	if f, err := importer.Detect("summary.json", data); err != nil || f.Name() != "k6-summary" {
		t.Fatalf("detected %v, %v; want k6-summary", f, err)
	}
	for _, f := range []importer.Format{SummaryExport{}, HandleSummary{}} {
		_, err := f.Import("summary.json", bytes.NewReader(data))
		var syn *importer.SyntaxError
		if !errors.As(err, &syn) || !strings.Contains(syn.Msg, "--format k6-summary") {
			t.Errorf("%s: err = %v; want a pointer to k6-summary", f.Name(), err)
		}
	}
	for _, file := range []string{"summary-export.json", "handlesummary.json"} {
		if (MachineSummary{}).Sniff(file, importertest.Testdata(t, file)) {
			t.Errorf("k6-summary sniffs the legacy %s", file)
		}
	}
}

// testdata/machine-summary-k6.json has the layout k6 itself writes with
// --new-machine-readable-summary (as k6's cmd_run_test asserts it): keys in
// snake case ("k6_version", "generated_at") and percentiles "p90" and
// "p95". It is detected, and its percentiles are not lost.
func TestMachineSummaryAsK6WritesIt(t *testing.T) {
	t.Parallel()
	data := importertest.Testdata(t, "machine-summary-k6.json")
	if f, err := importer.Detect("summary.json", data); err != nil || f.Name() != "k6-summary" {
		t.Fatalf("detected %v, %v; want k6-summary", f, err)
	}
	run := mustImport(t, MachineSummary{}, "machine-summary-k6.json")
	importertest.WantRequests(t, run, result.CountRequests, `{"total":250,"failed":0}`)
	for key, want := range map[string]float64{
		result.LatencyMean: 4.12, result.LatencyP50: 3.05, result.LatencyP90: 6.62, result.LatencyP95: 9.48,
		result.LatencyMax: 31.7, result.RequestErrorPct: 0, result.IterationP50: 19.4, result.IterationP95: 27.5,
		result.RequestsPerSec: 250 / 5.004,
	} {
		importertest.WantMetric(t, run, key, want)
	}
	importertest.WantAbsent(t, run, result.LatencyP99)
}
