package gatling

import (
	"os"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func importFile(f importer.Format, path string) (*result.Run, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return f.Import(path, fh)
}

// approx reports whether got is within rel (relative) of want; histogram
// values carry 3 significant digits.
func approx(got, want, rel float64) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return d <= rel*want
}

func hasNote(run *result.Run, fragment string) bool {
	for _, n := range run.Notes {
		if strings.Contains(n, fragment) {
			return true
		}
	}
	return false
}

func mustImport(t *testing.T, f importer.Format, path string) *result.Run {
	t.Helper()
	run, err := importFile(f, path)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return run
}

func wantMetric(t *testing.T, run *result.Run, key string, want float64) {
	t.Helper()
	got, ok := run.Metrics[key]
	if !ok {
		t.Errorf("metric %s absent, want %v", key, want)
		return
	}
	if !approx(got, want, 0.002) {
		t.Errorf("metric %s = %v, want %v", key, got, want)
	}
}

func wantAbsent(t *testing.T, run *result.Run, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if v, ok := run.Metrics[k]; ok {
			t.Errorf("metric %s = %v, want absent", k, v)
		}
	}
}
