package k6

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func importTestdata(t *testing.T, f importer.Format, file string) (*result.Run, error) {
	t.Helper()
	path := filepath.Join("testdata", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Sniff(path, data) {
		t.Errorf("%s does not sniff %s", f.Name(), path)
	}
	return f.Import(path, bytes.NewReader(data))
}

func mustImport(t *testing.T, f importer.Format, file string) *result.Run {
	t.Helper()
	run, err := importTestdata(t, f, file)
	if err != nil {
		t.Fatalf("import %s: %v", file, err)
	}
	return run
}

// near is for values read back from a histogram (3 significant digits).
func near(got, want float64) bool { return math.Abs(got-want) <= 0.002*math.Abs(want)+1e-9 }

func wantMetric(t *testing.T, run *result.Run, key string, want float64) {
	t.Helper()
	got, ok := run.Value(key)
	if !ok {
		t.Errorf("metric %s absent, want %v", key, want)
		return
	}
	if !near(got, want) {
		t.Errorf("metric %s = %v, want %v", key, got, want)
	}
}

func wantAbsent(t *testing.T, run *result.Run, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if v, ok := run.Value(k); ok {
			t.Errorf("metric %s = %v, want absent", k, v)
		}
	}
}

func findStep(t *testing.T, run *result.Run, name string) result.Step {
	t.Helper()
	for _, s := range run.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q in %d steps", name, len(run.Steps))
	return result.Step{}
}

// checkOutcome is the contract every import honours, whatever the input:
// a run that encodes as result JSON with finite metrics, or a typed error
// that says why.
func checkOutcome(t *testing.T, run *result.Run, err error) {
	t.Helper()
	if err != nil {
		var syn *importer.SyntaxError
		var uns *importer.Unsupported
		switch {
		case errors.As(err, &syn) && syn.Msg != "":
		case errors.As(err, &uns) && uns.Reason != "":
		default:
			t.Fatalf("error %T without a reason: %v", err, err)
		}
		return
	}
	if run == nil || run.Metrics == nil {
		t.Fatal("nil run or metrics without an error")
	}
	for k, v := range run.Metrics {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("metric %s = %v", k, v)
		}
	}
	if _, ok := run.Metrics[result.LifecycleSuccess]; ok {
		t.Fatal("lifecycle success invented")
	}
	var buf bytes.Buffer
	if err := result.Encode(&buf, &result.File{Runs: []result.Run{*run}}); err != nil {
		t.Fatalf("run does not encode: %v", err)
	}
}

func mustRead(t testing.TB, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
