package cli_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// SIGINT or SIGTERM stops an import promptly, whether it waits for input
// or parses it, as they stop a benchmark: exit 3, and no result file, not
// even of the files read before. The input is a pipe fed k6 NDJSON lines
// for as long as tailgate reads it (at most 20 s), so only the signal can
// end the import.
func TestImportStopsOnSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			first, fifo, out := filepath.Join(dir, "summary.json"), filepath.Join(dir, "k6.ndjson"), filepath.Join(dir, "result.json")
			mustWrite(t, first, k6Summary)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
			cmd, stdout, stderr := tailgateProcess(t, nil, "import", "-o", out, first, fifo)
			feeding, reading := make(chan error, 1), make(chan struct{})
			go func() { feeding <- feedNDJSON(fifo, reading, 20*time.Second) }()
			// Signal once tailgate has the pipe open: a fixed sleep signalled
			// a tailgate still starting on a busy machine (killed, exit -1),
			// and the feeder then waited for a reader forever.
			select {
			case <-reading:
			case <-time.After(20 * time.Second):
				t.Fatalf("tailgate import did not open the pipe in 20 s\n%s\n%s", stdout, stderr)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			signalled := time.Now()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("tailgate import still running 10 s after %v\n%s\n%s", sig, stdout, stderr)
			}
			if took := time.Since(signalled); took > 5*time.Second {
				t.Errorf("tailgate import took %v to stop after %v", took, sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != 3 {
				t.Errorf("exit %d after %v, want 3\n%s\n%s", code, sig, stdout, stderr)
			}
			wantContains(t, "stderr", stderr.String(), "interrupted: no result was written")
			wantNoFile(t, out)
			if err := <-feeding; err == nil {
				t.Errorf("the pipe was fed to the end: tailgate read it all, so the signal stopped nothing")
			}
		})
	}
}

// feedNDJSON writes k6 --out json lines into the named pipe, closing
// reading once a reader has opened it, until the reader goes away (an
// error) or for at most d (nil).
func feedNDJSON(fifo string, reading chan<- struct{}, d time.Duration) error {
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer w.Close()
	close(reading)
	line := []byte(`{"type":"Point","metric":"http_req_duration","data":{"time":"2026-12-04T21:00:00.123456Z","value":12.5,"tags":{"expected_response":"true","method":"GET","name":"http://127.0.0.1/","status":"200"}}}` + "\n")
	chunk := bytes.Repeat(line, 256)
	for end := time.Now().Add(d); time.Now().Before(end); {
		if _, err := w.Write(chunk); err != nil {
			return err
		}
	}
	return nil
}
