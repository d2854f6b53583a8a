package vegeta

import (
	"bytes"
	"encoding/gob"
	"testing"
	"time"
)

// Result has the name and fields of vegeta's Result, so that gob writes
// the stream `vegeta attack` writes.
type Result struct {
	Attack    string
	Seq       uint64
	Code      uint16
	Timestamp time.Time
	Latency   time.Duration
	BytesOut  uint64
	BytesIn   uint64
	Error     string
	Body      []byte
	Method    string
	URL       string
	Headers   map[string][]string
}

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
