package k6

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// stats are one metric's figures by k6 stat name ("avg", "p(95)", "count",
// "passes", "rate", …).
type stats map[string]float64

// summary is what both k6 summary layouts carry, reduced to numbers.
type summary struct {
	metrics map[string]stats
	// durationS is the test's run time when the file states it
	// (handleSummary's state.testRunDurationMs); 0 when unknown.
	durationS float64
	// thresholds are the test's own pass/fail criteria and their outcome.
	thresholds []threshold
}

// threshold is one k6 threshold expression on a metric and its outcome.
type threshold struct {
	metric, expr string
	ok           bool
}

// thresholdsNote lists the thresholds, failed ones first: the verdict k6
// itself gave the run, which the gate does not use but a reader wants.
func thresholdsNote(ts []threshold) string {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].ok != ts[j].ok {
			return !ts[i].ok
		}
		return ts[i].metric+" "+ts[i].expr < ts[j].metric+" "+ts[j].expr
	})
	parts := make([]string, len(ts))
	failed := 0
	for i, t := range ts {
		outcome := "passed"
		if !t.ok {
			outcome = "failed"
			failed++
		}
		parts[i] = fmt.Sprintf("%s %s %s", importer.Clip(t.metric, 80), importer.Clip(t.expr, 80), outcome)
	}
	return importer.OneLine(fmt.Sprintf("k6 thresholds: %d of %d failed", failed, len(ts))) + ": " + strings.Join(parts, "; ")
}

// trendKeys maps k6 trend stats to run metrics. p(99) appears only when the
// test asked for it in summaryTrendStats; absent stats stay absent.
var trendKeys = []struct{ stat, key string }{
	{"avg", result.LatencyMean},
	{"med", result.LatencyP50},
	{"p(90)", result.LatencyP90},
	{"p(95)", result.LatencyP95},
	{"p(99)", result.LatencyP99},
	{"max", result.LatencyMax},
}

var iterationKeys = []struct{ stat, key string }{
	{"med", result.IterationP50},
	{"p(95)", result.IterationP95},
	{"p(99)", result.IterationP99},
}

// fromSummary maps a k6 summary onto a run: only the figures the file has.
func fromSummary(file string, s summary) (*result.Run, error) {
	dur, ok := s.metrics["http_req_duration"]
	if !ok {
		return nil, &importer.Unsupported{File: file, Reason: unsupportedReason(func(p string) bool {
			for name := range s.metrics {
				if strings.HasPrefix(name, p) {
					return true
				}
			}
			return false
		})}
	}
	run := &result.Run{Metrics: map[string]float64{}}
	copyStats(run.Metrics, dur, trendKeys)
	reqs, hasReqs := s.metrics["http_reqs"]
	if hasReqs {
		if n, ok := reqs["count"]; ok {
			run.Requests.Total, run.Requests.Counted = importer.Count(n), run.Requests.Counted|result.CountTotal
		}
		if rate, ok := reqs["rate"]; ok && rate > 0 {
			run.Metrics[result.RequestsPerSec] = rate
			run.Window = reqs["count"] / rate
		}
	}
	if s.durationS > 0 {
		run.Window = s.durationS
	}
	if failed, ok := s.metrics["http_req_failed"]; ok {
		if n, ok := failed["passes"]; ok { // a pass of http_req_failed is a failed request
			run.Requests.Failed, run.Requests.Counted = importer.Count(n), run.Requests.Counted|result.CountFailed
		}
		if rate, ok := rateOf(failed); ok {
			run.Metrics[result.RequestErrorPct] = 100 * rate
		}
	} else {
		run.Notes = append(run.Notes, "request errors not available: the file has no http_req_failed metric (k6 before v0.31)")
	}
	if it, ok := s.metrics["iterations"]; ok {
		// k6 counts an iteration when it ends; how many began is unknown.
		run.Iterations.Completed, run.Iterations.Counted = importer.Count(it["count"]), result.CountCompleted
		if rate, ok := it["rate"]; ok && rate > 0 {
			run.Metrics[result.IterationsPerSec] = rate
		}
	}
	if itd, ok := s.metrics["iteration_duration"]; ok {
		copyStats(run.Metrics, itd, iterationKeys)
	}
	if d, ok := s.metrics["dropped_iterations"]; ok {
		run.Iterations.Dropped = importer.Count(d["count"])
		if offered := run.Iterations.Dropped + run.Iterations.Completed; offered > 0 {
			run.Metrics[result.DroppedPct] = 100 * float64(run.Iterations.Dropped) / float64(offered)
		}
	}
	if c, ok := s.metrics["checks"]; ok {
		run.Notes = append(run.Notes, fmt.Sprintf(checksNote, importer.Count(c["passes"]), importer.Count(c["fails"])))
	}
	if len(s.thresholds) > 0 {
		run.Notes = append(run.Notes, thresholdsNote(s.thresholds))
	}
	run.Steps = summarySteps(s.metrics)
	finish(run) // without a request count, no rate is derived from one

	return run, nil
}

func copyStats(dst map[string]float64, src stats, keys []struct{ stat, key string }) {
	for _, k := range keys {
		if v, ok := src[k.stat]; ok {
			dst[k.key] = v
		}
	}
}

// rateOf reads a k6 rate: "rate" in handleSummary, "value" in the export.
func rateOf(s stats) (float64, bool) {
	if v, ok := s["rate"]; ok {
		return v, true
	}
	v, ok := s["value"]
	return v, ok
}

// submetricRe matches a per-request submetric such as
// http_req_duration{name:login} or http_reqs{url:https://x/}.
var submetricRe = regexp.MustCompile(`^(http_req_duration|http_reqs|http_req_failed)\{(name|url|group):(.*)\}$`)

// summarySteps builds steps from the submetrics a test defined through
// thresholds on request names; most summaries have none.
func summarySteps(metrics map[string]stats) []result.Step {
	byName := map[string]*result.Step{}
	for key, st := range metrics {
		m := submetricRe.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		step := byName[m[3]]
		if step == nil {
			step = &result.Step{Name: m[3], Metrics: map[string]float64{}}
			byName[m[3]] = step
		}
		switch m[1] {
		case "http_req_duration":
			copyStats(step.Metrics, st, trendKeys)
		case "http_reqs":
			step.Requests = importer.Count(st["count"])
		case "http_req_failed":
			step.Failed = importer.Count(st["passes"])
			if rate, ok := rateOf(st); ok {
				step.Metrics[result.RequestErrorPct] = 100 * rate
			}
		}
	}
	steps := make([]result.Step, 0, len(byName))
	for _, s := range byName {
		steps = append(steps, *s)
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i].Name < steps[j].Name })
	return steps
}

// numbers keeps the numeric fields of a JSON object; thresholds (booleans
// or objects) and nulls are skipped.
func numbers(raw map[string]json.RawMessage) stats {
	s := stats{}
	for k, v := range raw {
		var f float64
		if json.Unmarshal(v, &f) == nil {
			s[k] = f
		}
	}
	return s
}
