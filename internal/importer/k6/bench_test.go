package k6

import (
	"bytes"
	"fmt"
	"testing"
)

// ndjsonSample is k6 --out json of n closed-loop iterations of one GET:
// per request the nine http_req* samples, data_sent and data_received,
// iterations and iteration_duration, as k6 1.x writes them.
func ndjsonSample(n int) []byte {
	var b bytes.Buffer
	metrics := []string{"http_reqs", "http_req_duration", "http_req_blocked", "http_req_connecting", "http_req_tls_handshaking",
		"http_req_sending", "http_req_waiting", "http_req_receiving", "http_req_failed"}
	for _, m := range metrics {
		fmt.Fprintf(&b, `{"type":"Metric","data":{"name":%q,"type":"trend","contains":"time","thresholds":[],"submetrics":null},"metric":%q}`+"\n", m, m)
	}
	for i := range n {
		ts := fmt.Sprintf("2026-12-04T20:%02d:%02d.%06d+00:00", i/5000/60%60, i/5000%60, i%5000*200)
		status, expected := 200, "true"
		if i%50 == 49 {
			status, expected = 503, "false"
		}
		tags := fmt.Sprintf(`{"expected_response":%q,"group":"","method":"GET","name":"http://127.0.0.1:8080/items/%d","proto":"HTTP/1.1","scenario":"default","status":"%d","url":"http://127.0.0.1:8080/items/%d"}`,
			expected, i%20, status, i%20)
		d := 2 + float64(i%400)/10
		for k, m := range metrics {
			fmt.Fprintf(&b, `{"metric":%q,"type":"Point","data":{"time":%q,"value":%.6f,"tags":%s}}`+"\n", m, ts, d/float64(k+1), tags)
		}
		plain := `{"group":"","scenario":"default"}`
		for _, m := range []string{"data_sent", "data_received", "iterations", "iteration_duration"} {
			fmt.Fprintf(&b, `{"metric":%q,"type":"Point","data":{"time":%q,"value":%.6f,"tags":%s}}`+"\n", m, ts, d+0.3, plain)
		}
	}
	return b.Bytes()
}

func BenchmarkNDJSON(b *testing.B) {
	data := ndjsonSample(20000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (NDJSON{}).Import("bench.ndjson", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
