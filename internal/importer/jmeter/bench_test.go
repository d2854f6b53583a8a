package jmeter

import (
	"bytes"
	"fmt"
	"testing"
)

// benchJTL is n rows in JMeter's default 17-column layout, as
// bench/importspeed/run.sh writes them at 1 GB.
func benchJTL(n int) []byte {
	var b bytes.Buffer
	b.WriteString("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n")
	for i := range n {
		code, msg, ok, fail := 200, "OK", "true", ""
		if i%50 == 49 {
			code, msg, ok, fail = 503, "Service Unavailable", "false", "Test failed: code expected 200"
		}
		el := 5 + i*7919%200
		fmt.Fprintf(&b, "%d,%d,GET /items/%d,%d,%s,Thread Group 1-%d,text,%s,%s,3213,246,50,50,http://127.0.0.1:8080/items/%d,%d,0,%d\n",
			1700000000000+i, el, i%20, code, msg, i%50+1, ok, fail, i%20, el*8/10, i%7)
	}
	return b.Bytes()
}

// BenchmarkCSVImport measures the JTL path per byte (go test -bench
// CSVImport -benchmem ./internal/importer/jmeter).
func BenchmarkCSVImport(b *testing.B) {
	data := benchJTL(200_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (CSVFormat{}).ImportAll("bench.jtl", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
