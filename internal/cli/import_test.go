package cli_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestImportK6Summary(t *testing.T) {
	dir := t.TempDir()
	k6 := filepath.Join(dir, "summary.json")
	mustWrite(t, k6, k6Summary)
	out := filepath.Join(dir, "result.json")

	o := tailgate(t, "import", "--name", "shop", "-o", out, k6)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "1 runs written to "+out)
	wantContains(t, "stderr", o.stderr, k6+": 200 requests")

	res, err := result.ReadFile(out)
	if err != nil {
		t.Fatalf("the imported result does not read back: %v", err)
	}
	if res.Schema != 1 || res.Benchmark != "shop" || len(res.Runs) != 1 {
		t.Fatalf("schema %d, benchmark %q, %d runs; want 1, shop, 1", res.Schema, res.Benchmark, len(res.Runs))
	}
	m := res.Runs[0].Metrics
	if got := m[result.LatencyP95]; math.Abs(got-55.5) > 1e-9 {
		t.Errorf("p95 = %v ms, want the file's 55.5", got)
	}
	if got := m[result.RequestsPerSec]; math.Abs(got-20) > 1e-9 {
		t.Errorf("requests/s = %v, want the file's 20", got)
	}
	if got := m[result.RequestErrorPct]; math.Abs(got-1) > 1e-9 {
		t.Errorf("request errors = %v %%, want 1 %%", got)
	}
}

// Several files become several runs, indexed in order; --format skips detection.
func TestImportSeveralFilesWithFormat(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	mustWrite(t, a, k6Summary)
	mustWrite(t, b, k6Summary)
	out := filepath.Join(dir, "result.json")

	o := tailgate(t, "import", "--format", "k6-summary-export", "-o", out, a, b)
	wantCode(t, o, 0)
	res, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || res.Runs[0].Index != 0 || res.Runs[1].Index != 1 {
		t.Errorf("runs %d with indexes, want 2 indexed 0, 1", len(res.Runs))
	}
	if res.Benchmark != "imported" || res.Source != "k6-summary-export" {
		t.Errorf("benchmark %q, source %q; want imported, k6-summary-export", res.Benchmark, res.Source)
	}
}

func TestImportUnknownFormatIsUsageError(t *testing.T) {
	dir := t.TempDir()
	k6 := filepath.Join(dir, "summary.json")
	mustWrite(t, k6, k6Summary)
	out := filepath.Join(dir, "result.json")

	o := tailgate(t, "import", "--format", "loadrunner", "-o", out, k6)
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, `"loadrunner"`, "k6-summary-export")
	wantNoFile(t, out)
}

func TestImportGarbageIsUsageErrorNamingFile(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.bin")
	mustWrite(t, junk, "\x00\x01\x02 definitely not a load-test result\n")
	out := filepath.Join(dir, "result.json")

	o := tailgate(t, "import", "-o", out, junk)
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, junk)
	wantNoFile(t, out)

	// Named as k6 but broken: still bad input naming the file.
	broken := filepath.Join(dir, "broken.json")
	mustWrite(t, broken, `{"metrics": {"http_reqs": {"count": `)
	o = tailgate(t, "import", "--format", "k6-summary-export", "-o", out, broken)
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, broken)
	wantNoFile(t, out)
}

func TestImportWithoutFilesIsUsageError(t *testing.T) {
	o := tailgate(t, "import", "-o", filepath.Join(t.TempDir(), "r.json"))
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "at least one file")
}
