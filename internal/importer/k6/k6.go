// Package k6 owns the k6 importers: the end-of-test summaries
// (--summary-export and handleSummary JSON), which carry only the figures k6
// computed, and the raw sample streams (--out json NDJSON and --out csv),
// from which it builds full latency histograms.
package k6

import (
	"math"
	"strconv"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() {
	importer.Register(SummaryExport{})
	importer.Register(HandleSummary{})
	importer.Register(NDJSON{})
	importer.Register(CSV{})
}

// checksNote explains why k6 checks do not become lifecycle success: a check
// is one assertion on one call, and k6 does not say which iteration it
// belonged to, so "every step of the iteration passed" cannot be derived.
const checksNote = "k6 checks: %d passed, %d failed (not mapped to lifecycle success: checks are per assertion, not per iteration)"

// finish drops figures JSON cannot hold and computes the derived metrics,
// each only from the counts the file has (result.Summarize). Lifecycle
// success is never defined for k6 (see checksNote): Summarize leaves it out
// of imported runs.
func finish(run *result.Run) {
	// Absurd figures (1e308 × 100) must not reach the JSON encoder, which
	// cannot write infinities.
	if math.IsInf(run.Window, 0) || math.IsNaN(run.Window) || run.Window < 0 {
		run.Window = 0
	}
	for k, v := range run.Metrics {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			delete(run.Metrics, k)
		}
	}
	run.Summarize()
}

// errorClass names the class of one failed request from its k6 tags: the
// HTTP status when there is one, else the k6 error code (1050 is a request
// timeout, 1211 a dial timeout), else a connection failure.
func errorClass(status, errorCode string) string {
	if s, err := strconv.Atoi(status); err == nil && s > 0 {
		return result.ErrStatus
	}
	switch errorCode {
	case "1050", "1211":
		return result.ErrTimeout
	}
	return result.ErrConnection
}

// unsupportedReason says why a k6 result without http_req_duration holds
// nothing to judge, naming the kind of test when its metrics show it.
func unsupportedReason(has func(prefix string) bool) string {
	switch {
	case has("browser_"):
		return "k6 browser test: no http_req_duration metric (browser_* metrics are not HTTP request latencies)"
	case has("ws_"):
		return "k6 WebSocket test: no http_req_duration metric"
	case has("grpc_"):
		return "k6 gRPC test: no http_req_duration metric"
	}
	return "no http_req_duration metric: the k6 result holds no HTTP request latencies"
}
