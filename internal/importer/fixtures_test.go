package importer_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer"
	_ "github.com/tailgate-ci/tailgate/internal/importer/all"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
)

// supportedFolders are fixture folders whose format has an importer: each
// must import at least one of its files.
var supportedFolders = []string{
	"k6-summary-export", "k6-handlesummary", "k6-ndjson", "k6-csv",
	"locust", "vegeta-report-json", "vegeta-results-gob", "vegeta-report-text", "wrk", "wrk2",
	"ab", "hey", "artillery",
	// Formats of the jmeter and gatling packages, linked in by importer/all.
	"jmeter-jtl-csv", "jmeter-jtl-xml", "jmeter-statistics-json", "gatling-simulation-log", "gatling-stats-json",
}

type tally struct {
	imported, rejected int
	reasons            []string
}

// TestFixtures imports every shared fixture: each must import, or be
// rejected with a *SyntaxError or *Unsupported that says why.
func TestFixtures(t *testing.T) {
	t.Parallel()
	root := importertest.FixturesDir(t, ".")
	counts := map[string]*tally{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Dir(path) == root {
			return err
		}
		folder := filepath.Base(filepath.Dir(path))
		c := counts[folder]
		if c == nil {
			c = &tally{}
			counts[folder] = c
		}
		reason, ok := importOne(t, path)
		if ok {
			c.imported++
		} else {
			c.rejected++
			c.reasons = append(c.reasons, reason)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	logTable(t, counts)
	for _, f := range supportedFolders {
		if c := counts[f]; c == nil || c.imported == 0 {
			t.Errorf("fixture folder %s: no file imported", f)
		}
	}
}

// importOne imports one file; a rejection must be a typed error with a
// reason, and a panic fails the test naming the file.
func importOne(t *testing.T, path string) (reason string, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			t.Errorf("%s: panic: %v", path, p)
			reason, ok = "panic", false
		}
	}()
	if head := importertest.ReadHead(t, path); len(sniffers(path, head)) > 1 {
		t.Errorf("%s: sniffed by several formats %v; detection must be unambiguous", path, sniffers(path, head))
	}
	im, err := importer.Read(path, "")
	if err == nil {
		for _, run := range im.Runs {
			if run == nil || (run.Requests.Total <= 0 && len(run.Errors) == 0) || len(run.Metrics) == 0 {
				t.Errorf("%s: imported an empty run: %+v", path, run)
			}
		}
		return "", true
	}
	if reason, ok := importertest.Rejection(err); ok {
		return shorten(reason), false
	}
	t.Errorf("%s: rejected with %T, want *SyntaxError or *Unsupported: %v", path, err, err)
	return err.Error(), false
}

func shorten(s string) string {
	if i := strings.Index(s, " (known:"); i > 0 {
		s = s[:i]
	}
	return s
}

func logTable(t *testing.T, counts map[string]*tally) {
	folders := make([]string, 0, len(counts))
	for f := range counts {
		folders = append(folders, f)
	}
	sort.Strings(folders)
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-26s %8s %8s  reasons\n", "folder", "imported", "rejected")
	for _, f := range folders {
		c := counts[f]
		fmt.Fprintf(&b, "%-26s %8d %8d  %s\n", f, c.imported, c.rejected, strings.Join(uniq(c.reasons), " | "))
	}
	t.Log(b.String())
}

func uniq(xs []string) []string {
	seen := map[string]int{}
	var out []string
	for _, x := range xs {
		if seen[x] == 0 {
			out = append(out, x)
		}
		seen[x]++
	}
	for i, x := range out {
		if n := seen[x]; n > 1 {
			out[i] = fmt.Sprintf("%s (×%d)", x, n)
		}
	}
	return out
}

func TestImportFileDetectsAndForces(t *testing.T) {
	t.Parallel()
	run, err := importer.ImportFile(filepath.Join("k6", "testdata", "summary-export.json"), "")
	if err != nil || run.Metrics["latency_p95_ms"] != 120.25 {
		t.Fatalf("detected import: %v, %v", run, err)
	}
	// A vegeta report forced through the k6 parser is a syntax error that
	// names the file, not a silent empty run.
	path := filepath.Join("vegeta", "testdata", "report.json")
	_, err = importer.ImportFile(path, "k6-summary-export")
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("forced wrong format: %v", err)
	}
	_, err = importer.ImportFile(path, "k7")
	if err == nil || !strings.HasPrefix(err.Error(), `unknown format "k7"; known formats: `) || !strings.Contains(err.Error(), "k6-csv, ") {
		t.Errorf("unknown format: %v", err)
	}
	_, err = importer.ImportFile(filepath.Join("k6", "testdata", "missing.json"), "")
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
	unknown := filepath.Join(t.TempDir(), "wrk.txt")
	if err := os.WriteFile(unknown, []byte("Running 10s test @ http://127.0.0.1:8080/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = importer.ImportFile(unknown, "")
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.HasPrefix(uns.Reason, "format not recognised") {
		t.Errorf("unknown content: %v", err)
	}
}

// TestEveryTestdataFileIsDetectedAsItsFormat guards sniffing: each format's
// own test files must be detected as that format and no other.
func TestEveryTestdataFileIsDetectedAsItsFormat(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"k6/testdata/summary-export.json":       "k6-summary-export",
		"k6/testdata/summary-export-old.json":   "k6-summary-export",
		"k6/testdata/handlesummary.json":        "k6-handlesummary",
		"k6/testdata/results.ndjson":            "k6-ndjson",
		"k6/testdata/results.csv":               "k6-csv",
		"vegeta/testdata/report.json":           "vegeta-json",
		"vegeta/testdata/results.jsonl":         "vegeta-results",
		"locust/testdata/run_stats.csv":         "locust-csv",
		"locust/testdata/run_stats_history.csv": "locust-csv",
		"locust/testdata/run_failures.csv":      "locust-csv",
		"locust/testdata/old_distribution.csv":  "locust-csv",
		"locust/testdata/v1_stats.csv":          "locust-csv",
		// oha's summary has hey's shape plus a "Success rate:" line.
		"hey/testdata/hey.txt":            "hey-text",
		"hey/testdata/refused.txt":        "hey-text",
		"oha/testdata/oha.txt":            "oha-text",
		"oha/testdata/oha-z.txt":          "oha-text",
		"oha/testdata/oha-0.5.txt":        "oha-text",
		"oha/testdata/oha.json":           "oha-json",
		"oha/testdata/all-failed.json":    "oha-json",
		"bombardier/testdata/mixed.txt":   "bombardier-text",
		"bombardier/testdata/default.txt": "bombardier-text",
		"bombardier/testdata/reset.txt":   "bombardier-text",
		"bombardier/testdata/mixed.json":  "bombardier-json",
		"bombardier/testdata/reset.json":  "bombardier-json",
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		matched := sniffers(path, data)
		if len(matched) != 1 || matched[0] != want {
			t.Errorf("%s sniffed as %v, want only %s", path, matched, want)
		}
	}
}

// sniffers lists the formats that claim a file.
func sniffers(path string, head []byte) []string {
	var matched []string
	for _, n := range importer.Names() {
		if f, _ := importer.Lookup(n); f.Sniff(path, head) {
			matched = append(matched, n)
		}
	}
	return matched
}
