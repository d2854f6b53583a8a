package locust

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func importFile(t *testing.T, file string) (*result.Run, error) {
	t.Helper()
	path := filepath.Join("testdata", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !(CSV{}).Sniff(path, data) {
		t.Errorf("%s not sniffed", path)
	}
	return CSV{}.Import(path, bytes.NewReader(data))
}

func mustImport(t *testing.T, file string) *result.Run {
	t.Helper()
	run, err := importFile(t, file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return run
}

func wantMetric(t *testing.T, m map[string]float64, key string, want float64) {
	t.Helper()
	if got, ok := m[key]; !ok || math.Abs(got-want) > 1e-9 {
		t.Errorf("metric %s = %v (present %v), want %v", key, got, ok, want)
	}
}

func wantAbsent(t *testing.T, m map[string]float64, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if v, ok := m[k]; ok {
			t.Errorf("metric %s = %v, want absent", k, v)
		}
	}
}

func notes(run *result.Run) string { return strings.Join(run.Notes, "\n") }

func TestStatsFamily(t *testing.T) {
	t.Parallel()
	run := mustImport(t, "run_stats.csv")
	if run.Requests != (result.Requests{Total: 400, Failed: 10, Counted: result.CountRequests}) {
		t.Errorf("requests %+v", run.Requests)
	}
	for key, want := range map[string]float64{
		result.LatencyP50: 50, result.LatencyP90: 130, result.LatencyP95: 210, result.LatencyP99: 1400,
		result.LatencyMean: 71.125, result.LatencyMax: 2100.5, result.RequestsPerSec: 13.333333333333334,
		result.RequestErrorPct: 2.5,
	} {
		wantMetric(t, run.Metrics, key, want)
	}
	wantAbsent(t, run.Metrics, result.IterationsPerSec, result.LifecycleSuccess)
	if run.Window != 30 || !run.Started.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("window %v started %v, want 30 s from the history", run.Window, run.Started)
	}
	if run.Latency != nil || len(run.Steps) != 2 || run.Steps[0].Name != "GET /items" || run.Steps[1].Failed != 7 {
		t.Errorf("steps %+v", run.Steps)
	}
	wantMetric(t, run.Steps[0].Metrics, result.LatencyP95, 120)
	classes := map[string]int64{}
	for _, e := range run.Errors {
		classes[e.Class] += e.Count
	}
	want := map[string]int64{result.ErrStatus: 3, result.ErrConnection: 2, result.ErrTimeout: 4, result.ErrExpect: 1}
	for c, n := range want {
		if classes[c] != n {
			t.Errorf("class %s: %d, want %d (errors %+v)", c, classes[c], n, run.Errors)
		}
	}
	if run.Errors[2].Sample != "RetriesExceeded('/items', 1, original=timed out)" || run.Errors[2].Step != "POST /items" {
		t.Errorf("doubled-quote sample: %+v", run.Errors[2])
	}
	if !strings.Contains(notes(run), "2 significant digits") {
		t.Errorf("notes: %q", run.Notes)
	}
}

func TestAnySiblingImportsTheSameRun(t *testing.T) {
	t.Parallel()
	want := mustImport(t, "run_stats.csv")
	for _, f := range []string{"run_stats_history.csv", "run_failures.csv", "run_exceptions.csv"} {
		run := mustImport(t, f)
		if run.Requests != want.Requests || run.Window != want.Window || len(run.Errors) != len(want.Errors) ||
			run.Metrics[result.LatencyP95] != want.Metrics[result.LatencyP95] {
			t.Errorf("%s imports a different run: %+v", f, run)
		}
	}
}

func TestLocust0xRequestsAndDistribution(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"old_requests.csv", "old_distribution.csv"} {
		run := mustImport(t, f)
		if run.Requests != (result.Requests{Total: 829, Failed: 388, Counted: result.CountRequests}) {
			t.Errorf("%s: requests %+v", f, run.Requests)
		}
		wantMetric(t, run.Metrics, result.LatencyP95, 10)
		wantMetric(t, run.Metrics, result.LatencyP50, 6)
		wantMetric(t, run.Metrics, result.LatencyMax, 81)
		wantMetric(t, run.Metrics, result.RequestsPerSec, 29.55)
		if math.Abs(run.Window-829/29.55) > 1e-9 {
			t.Errorf("%s: window %v, want count/rate", f, run.Window)
		}
		if len(run.Steps) != 2 || run.Steps[0].Name != "GET /get" {
			t.Fatalf("%s: steps %+v", f, run.Steps)
		}
		wantMetric(t, run.Steps[0].Metrics, result.LatencyP99, 19)
	}
}

func TestNonUTF8NamesStayDistinct(t *testing.T) {
	t.Parallel()
	run := mustImport(t, "v1_stats.csv")
	if len(run.Steps) != 2 || run.Steps[0].Name == run.Steps[1].Name || run.Steps[0].Name != `GET \xb2\xe9\xbf\xb4` {
		t.Errorf("steps %q %q", run.Steps[0].Name, run.Steps[1].Name)
	}
	if !strings.Contains(notes(run), "not UTF-8") {
		t.Errorf("notes %q", run.Notes)
	}
	wantMetric(t, run.Metrics, result.LatencyP95, 88)
}

func TestCutStatsKeepsCompleteRows(t *testing.T) {
	t.Parallel()
	run := mustImport(t, "cut_stats.csv")
	if run.Requests != (result.Requests{Total: 400, Failed: 10, Counted: result.CountRequests}) || len(run.Steps) != 2 {
		t.Errorf("requests %+v steps %d", run.Requests, len(run.Steps))
	}
	wantAbsent(t, run.Metrics, result.LatencyP95, result.LatencyMean)
	if !strings.Contains(notes(run), "cut_stats.csv was cut: line 4 is incomplete") || !strings.Contains(notes(run), "no Aggregated row") {
		t.Errorf("notes %q", run.Notes)
	}
}

func TestBadFiles(t *testing.T) {
	t.Parallel()
	_, err := importFile(t, "bad_stats.csv")
	want := `testdata/bad_stats.csv:3: column "request count": expected a non-negative number, got "many"`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	var syn *importer.SyntaxError
	if !errors.As(err, &syn) {
		t.Errorf("%T, want *SyntaxError", err)
	}
	_, err = importFile(t, "lonely_stats_history.csv")
	var uns *importer.Unsupported
	if !errors.As(err, &uns) || !strings.Contains(uns.Reason, "lonely_stats.csv") {
		t.Errorf("history without stats: %v", err)
	}
	_, err = CSV{}.Import("x_stats.csv", strings.NewReader("Type,Name\nGET,/\n"))
	if !errors.As(err, &syn) || syn.Line != 1 {
		t.Errorf("unknown header: %v", err)
	}
}

func TestClassifyFailure(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"HTTPError('404 Client Error: Not Found for url: /x')":                         result.ErrStatus,
		"504 Server Error: Gateway Time-out for url: /":                                result.ErrStatus,
		"ReadTimeout(\"HTTPConnectionPool: Read timed out. (read timeout=10)\")":       result.ErrTimeout,
		"gaierror(8, 'nodename nor servname provided, or not known')":                  result.ErrConnection,
		"ConnectionAbortedError(10053, 'An established connection was aborted', None)": result.ErrConnection,
		"CatchResponseError('Got wrong response')":                                     result.ErrExpect,
	} {
		if got := failureClasses.Class(msg); got != want {
			t.Errorf("%s → %s, want %s", msg, got, want)
		}
	}
}

// Locust 1.x and later write rows with Python's csv module, each ended by
// \r\n: a stats file whose last row lacks it was cut there, even where the
// row parses ("13.3" of the Aggregated row's "13.333…" requests/s, or its
// last percentile "21" of "2100"). Wherever in that row the file is cut,
// the row is left out and noted, never read.
func TestCutCRLFStatsLeavesOutTheCutRow(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "run_stats.csv"))
	if err != nil {
		t.Fatal(err)
	}
	crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	lastRow := bytes.LastIndex(bytes.TrimRight(crlf, "\r\n"), []byte("\r\n")) + 2
	dir := t.TempDir()
	path := filepath.Join(dir, "run_stats.csv")
	for at := lastRow + 1; at < len(crlf)-2; at++ {
		if err := os.WriteFile(path, crlf[:at], 0o644); err != nil {
			t.Fatal(err)
		}
		run, err := CSV{}.Import(path, bytes.NewReader(crlf[:at]))
		if err != nil {
			t.Fatalf("cut after byte %d: %v", at, err)
		}
		if !strings.Contains(notes(run), "was cut: line 4 is incomplete") || !strings.Contains(notes(run), "no Aggregated row") {
			t.Fatalf("cut after byte %d: notes %q", at, run.Notes)
		}
		wantAbsent(t, run.Metrics, result.LatencyP95, result.LatencyMax)
		wantMetric(t, run.Metrics, result.RequestsPerSec, 10+3.3333333333333335) // the complete rows' rates
	}
}

// A stats history that runs on idle after the test (Locust left running,
// or stopped late) stretched the window: here 4.7 times, the real
// histories with 4 seconds of idle rows added per second of test. The
// window ends where the cumulative count stops growing: in odoo-locust's
// own history, 245 s of its 264 s of rows.
func TestHistoryIdleAfterTheTestEndsTheWindow(t *testing.T) {
	t.Parallel()
	dir := importertest.FixturesDir(t, "locust")
	histories, _ := filepath.Glob(filepath.Join(dir, "*_stats_history.csv"))
	checked := 0
	for _, history := range histories {
		prefix := strings.TrimSuffix(history, "_stats_history.csv")
		whole, err := importer.ImportFile(prefix+"_stats.csv", "locust-csv")
		if err != nil || whole.Window < 2 || importertest.HasNote(whole, "ends early") {
			continue // a history of a run too short to stretch, or that misses its end
		}
		if strings.HasSuffix(prefix, "AbhishekkumarReddy__odoo-locust__results") && whole.Window != 245 {
			t.Errorf("odoo-locust: window %v s, want 245 s (to the last row on which the count grew)", whole.Window)
		}
		tmp := filepath.Join(t.TempDir(), "run")
		for _, suffix := range []string{"_stats.csv", "_failures.csv"} {
			if b, err := os.ReadFile(prefix + suffix); err == nil {
				os.WriteFile(tmp+suffix, b, 0o644)
			}
		}
		data, err := os.ReadFile(history)
		if err != nil {
			t.Fatal(err)
		}
		rows := strings.Split(strings.TrimRight(string(data), "\r\n"), "\n")
		last := rows[len(rows)-1]
		ts, rest, _ := strings.Cut(last, ",")
		sec, err := strconv.ParseInt(strings.Trim(ts, `"`), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		idle := []string{string(data)}
		for i := int64(1); i <= int64(4*whole.Window); i++ {
			idle = append(idle, fmt.Sprintf("%d,%s\n", sec+i, rest))
		}
		os.WriteFile(tmp+"_stats_history.csv", []byte(strings.Join(idle, "")), 0o644)
		run, err := importer.ImportFile(tmp+"_stats.csv", "locust-csv")
		if err != nil {
			t.Fatal(err)
		}
		if run.Window != whole.Window || !importertest.HasNote(run, "after the last requests") {
			t.Errorf("%s with idle rows: window %v s, notes %q; want %v s and a note", filepath.Base(history), run.Window, run.Notes, whole.Window)
		}
		checked++
	}
	if checked < 3 {
		t.Errorf("only %d histories checked", checked)
	}
}
