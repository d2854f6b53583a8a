package k6

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/importer/importertest"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// coarseCSV writes a k6 CSV with whole-second timestamps of a run at a
// steady rate from offset start to start+length seconds past a whole
// second: what k6 writes with its default timeFormat.
func coarseCSV(rate int, start, length float64) string {
	var b strings.Builder
	b.WriteString("metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n")
	const t0 = 1733342400
	n := int(float64(rate) * length)
	for i := range n {
		at := start + (float64(i)+0.5)/float64(rate)
		fmt.Fprintf(&b, "http_req_duration,%d,2.500000,,,,true,,GET,list,HTTP/1.1,default,,200,,,http://127.0.0.1/items,,\n", t0+int64(math.Floor(at)))
	}
	return b.String()
}

// Whole-second stamps of a 4.9 s run fall in 5 seconds 4 apart: counting
// first to last stamp read 122.5 requests/s for 100 (+23 %). The estimate
// from the edge seconds' requests holds the rate within 2 % wherever the
// run starts within its first second, and for runs of 3 to 30 s.
func TestCSVWindowFromWholeSecondStamps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ start, length float64 }{
		{0.05, 4.9}, {0.6, 5}, {0, 5}, {0.99, 3}, {0.3, 30}, {0.5, 7.25},
	} {
		run := importString(t, CSV{}, coarseCSV(100, tc.start, tc.length))
		if got := run.Metrics[result.RequestsPerSec]; math.Abs(got-100) > 2 {
			t.Errorf("start %.2f s, length %.2f s: %.2f requests/s, want 100 ± 2 (window %.3f s)", tc.start, tc.length, got, run.Window)
		}
		if math.Abs(run.Window-tc.length) > 0.05*tc.length {
			t.Errorf("start %.2f s, length %.2f s: window %.3f s", tc.start, tc.length, run.Window)
		}
		if !importertest.HasNote(run, "1 s resolution") {
			t.Errorf("notes %q do not say the stamps are whole seconds", run.Notes)
		}
	}
}
