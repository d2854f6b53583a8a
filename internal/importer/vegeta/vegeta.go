// Package vegeta owns the vegeta importers: the JSON report
// (`vegeta report -type=json`), which carries vegeta's own summary figures,
// and the raw results stream (`vegeta attack` output in gob, or
// `vegeta encode` JSON lines), from which it builds full histograms.
package vegeta

import (
	"math"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() {
	importer.Register(Report{})
	importer.Register(Results{})
	importer.Register(Text{})
}

// failedCode is vegeta's own rule: a response succeeded when its status is
// in [200, 400); status 0 means no response at all.
func failedCode(code int) bool { return code < 200 || code >= 400 }

// errorClass names the class of a failed request from its status and
// vegeta's error text.
func errorClass(code int, msg string) string {
	switch {
	case code != 0:
		return result.ErrStatus
	case isTimeout(msg):
		return result.ErrTimeout
	}
	return result.ErrConnection
}

func isTimeout(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "timeout") || strings.Contains(m, "deadline exceeded") || strings.Contains(m, "timed out")
}

// statusSample is the sample message for a status class.
func statusSample(code int, msg string) string {
	if msg == "" {
		return "status " + strconv.Itoa(code)
	}
	return msg
}

// finish computes the derived metrics and drops those vegeta cannot supply:
// vegeta has no iterations, only requests.
func finish(run *result.Run) {
	for k, v := range run.Metrics {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			delete(run.Metrics, k) // JSON cannot carry it, and no real report has it
		}
	}
	run.Summarize()
}
