package importer_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tailgate-ci/tailgate/internal/importer"
	_ "github.com/tailgate-ci/tailgate/internal/importer/all"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Read detects a file's format from its content and returns its runs: here
// a log of two hey runs, the second against a service that was down.
func ExampleRead() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "hey.log")
	_ = os.WriteFile(path, []byte(`$ hey -n 200 http://127.0.0.1:8080/
Summary:
  Total:	0.5000 secs
  Slowest:	0.0200 secs
  Fastest:	0.0010 secs
  Average:	0.0050 secs
  Requests/sec:	400.0000

Latency distribution:
  50% in 0.0040 secs
  99% in 0.0180 secs

Status code distribution:
  [200]	198 responses
  [503]	2 responses

$ hey -n 20 http://127.0.0.1:8081/
Summary:
  Total:	0.0010 secs
  Slowest:	0.0000 secs
  Fastest:	0.0000 secs
  Average:	 NaN secs
  Requests/sec:	20000.0000

Error distribution:
  [20]	Get "http://127.0.0.1:8081/": dial tcp 127.0.0.1:8081: connect: connection refused
`), 0o644)

	im, err := importer.Read(path, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("format:", im.Format)
	for i, run := range im.Runs {
		p99, ok := run.Value(result.LatencyP99)
		fmt.Printf("run %d: %d requests, %.0f %% failed, p99 %v ms (measured: %v)\n",
			i, run.Requests.Total, run.Metrics[result.RequestErrorPct], p99, ok)
	}
	// Output:
	// format: hey-text
	// run 0: 200 requests, 1 % failed, p99 18 ms (measured: true)
	// run 1: 20 requests, 100 % failed, p99 0 ms (measured: false)
}
