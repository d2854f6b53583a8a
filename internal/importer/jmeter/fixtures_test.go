package jmeter

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
)

// fixturesDir finds ../shared/fixtures/<sub> beside the module root, or
// skips the test.
func fixturesDir(t testing.TB, sub string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("module root not found")
		}
		dir = parent
	}
	path := filepath.Join(dir, "..", "shared", "fixtures", sub)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("fixtures not present: %v", err)
	}
	return path
}

func fixtureFiles(t testing.TB, sub string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixturesDir(t, sub), "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// TestFixtures imports every shared fixture of the three formats: each one
// imports with requests, or is rejected with a typed error and a reason.
func TestFixtures(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		format importer.Format
	}{
		{"jmeter-jtl-csv", CSVFormat{}},
		{"jmeter-jtl-xml", XMLFormat{}},
		{"jmeter-statistics-json", StatisticsFormat{}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			files := fixtureFiles(t, tc.dir)
			var imported, rejected int
			for _, path := range files {
				name := filepath.Base(path)
				head := readHead(t, path)
				if !tc.format.Sniff(name, head) {
					t.Errorf("%s: not recognised as %s", name, tc.format.Name())
				}
				run, err := importFile(tc.format, path)
				var syn *importer.SyntaxError
				var uns *importer.Unsupported
				switch {
				case err == nil:
					imported++
					if run.Requests.Total <= 0 {
						t.Errorf("%s: imported without requests", name)
					}
					t.Logf("%s: imported %d requests (%d failed), %d steps, metrics %v, errors %+v, notes %q",
						name, run.Requests.Total, run.Requests.Failed, len(run.Steps), run.Metrics, run.Errors, run.Notes)
				case errors.As(err, &syn) || errors.As(err, &uns):
					rejected++
					t.Logf("%s: rejected: %v", name, err)
				default:
					t.Errorf("%s: untyped error: %v", name, err)
				}
			}
			t.Logf("%s: %d files, %d imported, %d rejected", tc.dir, len(files), imported, rejected)
		})
	}
}

func readHead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 64<<10 {
		b = b[:64<<10]
	}
	return b
}

// TestSniffOnlyOwnFixtures checks detection from content: across every
// fixture folder of every tool, each format claims only its own files.
func TestSniffOnlyOwnFixtures(t *testing.T) {
	root := fixturesDir(t, ".")
	formats := map[string]importer.Format{
		"jmeter-jtl-csv": CSVFormat{}, "jmeter-jtl-xml": XMLFormat{}, "jmeter-statistics-json": StatisticsFormat{},
	}
	files, err := filepath.Glob(filepath.Join(root, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		dir := filepath.Base(filepath.Dir(path))
		head := readHead(t, path)
		for name, f := range formats {
			if got, want := f.Sniff(filepath.Base(path), head), dir == name; got != want {
				t.Errorf("%s/%s: %s.Sniff = %v, want %v", dir, filepath.Base(path), name, got, want)
			}
		}
	}
}
