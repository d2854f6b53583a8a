package cli_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
)

func TestImportK6Summary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k6 := filepath.Join(dir, "summary.json")
	mustWrite(t, k6, k6Summary)
	out := filepath.Join(dir, "result.json")

	o := tailgate(t, "import", "--name", "shop", "-o", out, k6)
	wantCode(t, o, 0)
	wantContains(t, "stdout", o.stdout, "1 runs written to "+out)
	wantContains(t, "stderr", o.stderr, k6+": detected k6-summary-export: 200 requests")

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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	o := tailgate(t, "import", "-o", filepath.Join(t.TempDir(), "r.json"))
	wantCode(t, o, 2)
	wantContains(t, "stderr", o.stderr, "at least one file")
}

// A log of several wrk reports is several runs; the file's source and the
// detected format are reported.
func TestImportSeveralReportsOfOneFile(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "sweep.log")
	report := func(p99 string) string {
		return "Running 10s test @ http://127.0.0.1:8080/\n  2 threads and 10 connections\n" +
			"  Thread Stats   Avg      Stdev     Max   +/- Stdev\n    Latency     2.50ms    1.00ms  20.00ms   90.00%\n" +
			"  Latency Distribution\n     50%    2.10ms\n     99%    " + p99 + "\n" +
			"  40000 requests in 10.00s, 4.00MB read\nRequests/sec:   4000.00\n"
	}
	mustWrite(t, log, "$ ./sweep.sh\n"+report("9.00ms")+"$ next\n"+report("12.00ms"))
	out := filepath.Join(dir, "result.json")
	o := tailgate(t, "import", "-o", out, log)
	wantCode(t, o, 0)
	wantContains(t, "stderr", o.stderr, log+": detected wrk-text: 40000 requests")
	res, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || res.Source != "wrk-text" || res.Runs[1].Index != 1 || res.Runs[1].Metrics[result.LatencyP99] != 12 {
		t.Errorf("%d runs, source %q, second run %+v", len(res.Runs), res.Source, res.Runs[len(res.Runs)-1])
	}
}

// A file forced through the wrong format is refused with exit 2 and one
// line naming the file, not imported as an empty run.
func TestImportForcedWrongFormatIsRefused(t *testing.T) {
	dir := t.TempDir()
	k6 := filepath.Join(dir, "summary.json")
	mustWrite(t, k6, k6Summary)
	out := filepath.Join(dir, "result.json")
	for _, format := range []string{"k6-handlesummary", "vegeta-results", "wrk-text", "jmeter-jtl-csv"} {
		o := tailgate(t, "import", "--format", format, "-o", out, k6)
		wantCode(t, o, 2)
		wantContains(t, "stderr", o.stderr, "tailgate import: "+k6+":")
		if lines := strings.Count(strings.TrimSpace(o.stderr), "\n"); lines != 0 {
			t.Errorf("--format %s: %d lines of error, want one:\n%s", format, lines+1, o.stderr)
		}
		wantNoFile(t, out)
	}
}

// A file that counts no requests (ab -e holds percentiles only) imports
// without a request count: stderr says so, the result has no "requests"
// object and the run table no requests/s, rather than a count of 0.
func TestImportWithoutRequestCountSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csv := filepath.Join(dir, "percentiles.csv")
	mustWrite(t, csv, "Percentage served,Time in ms\n0,1.2\n50,7.6\n90,13.0\n95,14.0\n99,14.5\n100,22.0\n")
	out := filepath.Join(dir, "result.json")
	o := tailgate(t, "import", "-o", out, csv)
	wantCode(t, o, 0)
	wantContains(t, "stderr", o.stderr, csv+": detected ab-csv: requests not counted, 5 metrics")
	if strings.Contains(o.stderr, "0 requests") {
		t.Errorf("stderr reports a request count the file does not have:\n%s", o.stderr)
	}
	if data := string(mustRead(t, out)); strings.Contains(data, `"requests"`) {
		t.Errorf("the result writes requests for a file that counts none:\n%s", data)
	}
	if header, _, _ := strings.Cut(o.stdout, "\n"); strings.Contains(header, "requests/s") || !strings.Contains(header, "latency p95") {
		t.Errorf("run table header %q: want latency columns and no requests/s", header)
	}
}
