package gatling

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

func FuzzImportLog(f *testing.F) {
	seed(f, "testdata/*.log", "gatling-simulation-log")
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, LogFormat{}, data, true) })
}

func FuzzImportStats(f *testing.F) {
	seed(f, "testdata/*.json", "gatling-stats-json")
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, StatsFormat{}, data, false) })
}

// seed adds the package's test files and, when present, the shared
// fixtures (cut to 64 KiB to keep the fuzzer quick).
func seed(f *testing.F, glob, fixtureDir string) {
	files, _ := filepath.Glob(glob)
	if dir, ok := sharedFixtures(fixtureDir); ok {
		m, _ := filepath.Glob(filepath.Join(dir, "*"))
		files = append(files, m...)
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 64<<10)])
	}
}

// sharedFixtures is fixturesDir without skipping: a fuzzer still runs on
// its own seeds when the fixtures are absent.
func sharedFixtures(sub string) (string, bool) {
	dir, err := os.Getwd()
	for err == nil {
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			path := filepath.Join(dir, "..", "shared", "fixtures", sub)
			_, err = os.Stat(path)
			return path, err == nil
		}
		if filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	return "", false
}

// checkImport holds every format to its contract on any input: no panic,
// a typed error, or a run whose counts add up.
func checkImport(t *testing.T, f importer.Format, data []byte, raw bool) {
	f.Sniff("fuzz", data)
	run, err := f.Import("fuzz", bytes.NewReader(data))
	if err != nil {
		var syn *importer.SyntaxError
		var uns *importer.Unsupported
		if !errors.As(err, &syn) && !errors.As(err, &uns) {
			t.Fatalf("untyped error: %v", err)
		}
		return
	}
	if run == nil || run.Requests.Total <= 0 {
		t.Fatalf("run without requests: %+v", run)
	}
	for k, v := range run.Metrics {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("metric %s = %v", k, v)
		}
	}
	if !raw {
		return
	}
	var steps, failed, errs int64
	for _, s := range run.Steps {
		steps += s.Requests
		failed += s.Failed
	}
	for _, e := range run.Errors {
		errs += e.Count
	}
	if run.Latency.Count() != run.Requests.Total || steps != run.Requests.Total ||
		failed != run.Requests.Failed || errs != run.Requests.Failed || run.Window < 0 {
		t.Fatalf("counts disagree: run %+v, histogram %d, steps %d/%d, errors %d, window %v",
			run.Requests, run.Latency.Count(), steps, failed, errs, run.Window)
	}
}
