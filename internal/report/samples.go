package report

import (
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// The fewest requests for a percentile to be more than the slowest
// request: below 100 a p99 is the max, below 20 a p95 is.
const (
	p99LeastSamples = 100
	p95LeastSamples = 20
)

// fewSamplesWarnings say when runs' percentiles rest on so few requests
// that they are the max and move with one slow request.
func fewSamplesWarnings(runs []result.Run) []string {
	least := int64(-1)
	for _, r := range runs {
		if r.Latency == nil {
			continue
		}
		if n := r.Latency.Count(); least < 0 || n < least {
			least = n
		}
	}
	switch {
	case least < 0 || least >= p99LeastSamples:
		return nil
	case least < p95LeastSamples:
		return []string{fmt.Sprintf("latency p95 and p99 rest on as few as %d requests in a run (p95 needs %d, p99 %d to be more than the slowest request): read them as the max; measure longer or at a higher rate",
			least, p95LeastSamples, p99LeastSamples)}
	}
	return []string{fmt.Sprintf("latency p99 rests on as few as %d requests in a run (fewer than %d): it is the slowest request, the max; measure longer or at a higher rate to gate or read it",
		least, p99LeastSamples)}
}

// warningsOf are the verdict's warnings and the report's own about the head runs, in that order.
func warningsOf(in Input) []string {
	return append(stats.Messages(in.Verdict.Warnings), fewSamplesWarnings(in.Head)...)
}
