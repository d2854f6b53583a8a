package vegeta

import (
	"bytes"
	"encoding/gob"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Result has the name and fields of vegeta's Result, so that gob writes
// the stream `vegeta attack` writes.
type Result hit

// gobStream encodes results as one gob stream, as vegeta's encoder does.
func gobStream(t testing.TB, rs []Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	for i := range rs {
		if err := enc.Encode(&rs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func sampleResults() []Result {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return []Result{
		{Seq: 0, Code: 200, Timestamp: t0, Latency: 10 * time.Millisecond, Method: "GET", URL: "http://127.0.0.1/a"},
		{Seq: 1, Code: 200, Timestamp: t0.Add(time.Second), Latency: 20 * time.Millisecond, Method: "GET", URL: "http://127.0.0.1/a"},
		{Seq: 2, Code: 503, Timestamp: t0.Add(2 * time.Second), Latency: 30 * time.Millisecond, Method: "GET", URL: "http://127.0.0.1/a",
			Error: "503 Service Unavailable", Body: []byte("busy"), Headers: map[string][]string{"Retry-After": {"1"}}},
		{Seq: 3, Code: 200, Timestamp: t0.Add(8 * time.Second), Latency: 40 * time.Millisecond, Method: "GET", URL: "http://127.0.0.1/a"},
	}
}

func readTestdata(t testing.TB, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func near(got, want float64) bool { return math.Abs(got-want) <= 0.002*math.Abs(want)+1e-9 }

func wantMetric(t *testing.T, run *result.Run, key string, want float64) {
	t.Helper()
	if got, ok := run.Value(key); !ok || !near(got, want) {
		t.Errorf("metric %s = %v (present %v), want %v", key, got, ok, want)
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

// checkOutcome: a run that encodes as result JSON, or a typed error.
func checkOutcome(t *testing.T, run *result.Run, err error) {
	t.Helper()
	if err != nil {
		var syn *importer.SyntaxError
		var uns *importer.Unsupported
		if !(errors.As(err, &syn) && syn.Msg != "") && !(errors.As(err, &uns) && uns.Reason != "") {
			t.Fatalf("error %T without a reason: %v", err, err)
		}
		return
	}
	if run == nil || run.Metrics == nil {
		t.Fatal("nil run without an error")
	}
	var buf bytes.Buffer
	if err := result.Encode(&buf, &result.File{Runs: []result.Run{*run}}); err != nil {
		t.Fatalf("run does not encode: %v", err)
	}
}
