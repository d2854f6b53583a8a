package k6

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// importTestdata imports a testdata file, which f must also sniff.
func importTestdata(t *testing.T, f importer.Format, file string) (*result.Run, error) {
	t.Helper()
	path := filepath.Join("testdata", file)
	data := importertest.Testdata(t, file)
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

// checkOutcome is importertest.CheckOutcome plus k6's own promise: no
// lifecycle success (see checksNote).
func checkOutcome(t *testing.T, run *result.Run, err error) {
	t.Helper()
	importertest.CheckOutcome(t, run, err)
	if err == nil {
		checkNoLifecycle(t, run)
	}
}

func checkNoLifecycle(t *testing.T, run *result.Run) {
	t.Helper()
	if _, ok := run.Metrics[result.LifecycleSuccess]; ok {
		t.Fatal("lifecycle success invented")
	}
}

// importString imports a file made in the test.
func importString(t *testing.T, f importer.Format, data string) *result.Run {
	t.Helper()
	run, err := f.Import("made.csv", strings.NewReader(data))
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return run
}

// findStep returns the run's step with this name, failing the test when
// there is none.
func findStep(t *testing.T, run *result.Run, name string) result.Step {
	t.Helper()
	i := slices.IndexFunc(run.Steps, func(s result.Step) bool { return s.Name == name })
	if i < 0 {
		t.Fatalf("no step %q in %d steps", name, len(run.Steps))
	}
	return run.Steps[i]
}
