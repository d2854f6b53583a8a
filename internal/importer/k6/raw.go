package k6

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// otherStep pools the requests past rawrun.MaxSteps distinct names: a
// script that does not name its requests gets one k6 "name" per distinct
// URL, which can be unbounded.
const otherStep = "(other requests)"

// point is one k6 sample as both raw formats carry it.
type point struct {
	metric string
	time   time.Time
	value  float64
	tag    func(key string) string
}

// aggregator folds a stream of k6 samples into a run.
type aggregator struct {
	span        rawrun.Span
	requests    *rawrun.Builder
	iterLat     *hist.Histogram
	iterations  int64
	dropped     float64
	sawDropped  bool
	checksPass  float64
	checksTotal int64
	sawChecks   bool
	prefixes    map[string]bool
	// unknownOutcome counts requests with neither expected_response nor
	// status tag (system tags turned off): their success is unknown.
	unknownOutcome int64
	// perSecond counts requests by their whole-second timestamp when the
	// timestamps are whole seconds (CSV's default): see coarseWindow.
	perSecond map[int64]int64
}

func newAggregator() *aggregator {
	return &aggregator{
		requests: rawrun.New(rawrun.Options{What: "request names", Pool: otherStep}),
		iterLat:  hist.New(),
		prefixes: map[string]bool{},
	}
}

func (a *aggregator) add(p point) {
	if !p.time.IsZero() {
		a.span.Add(p.time, p.time)
	}
	if i := strings.IndexByte(p.metric, '_'); i > 0 {
		a.prefixes[p.metric[:i+1]] = true
	}
	switch p.metric {
	case "http_req_duration":
		a.request(p)
	case "iterations":
		a.iterations += int64(p.value)
	case "iteration_duration":
		a.iterLat.Record(millis(p.value))
	case "dropped_iterations":
		a.sawDropped = true
		a.dropped += p.value
	case "checks":
		a.sawChecks = true
		a.checksTotal++
		a.checksPass += p.value
	}
}

// request records one HTTP request. Failure follows k6's own rule: the
// expected_response tag (k6 ≥ 0.31); without it, a status of 0 or ≥ 400.
func (a *aggregator) request(p point) {
	step := a.requests.Request(stepName(p), millis(p.value))
	if a.perSecond != nil {
		a.perSecond[p.time.Unix()]++
	}
	status := p.tag("status")
	var failed bool
	switch p.tag("expected_response") {
	case "true":
	case "false":
		failed = true
	default:
		code, err := strconv.Atoi(status)
		if err != nil {
			a.unknownOutcome++
			return
		}
		failed = code == 0 || code >= 400
	}
	if !failed {
		return
	}
	class := errorClass(status, p.tag("error_code"))
	sample := p.tag("error")
	if class == result.ErrStatus {
		sample = strings.TrimSuffix("status "+status+": "+sample, ": ")
	}
	a.requests.Fail(step, class, status, sample)
}

// stepName names a request's step by its name tag (k6 sets it to the URL
// when the script does not) and method.
func stepName(p point) string {
	name := p.tag("name")
	if name == "" {
		name = p.tag("url")
	}
	name = importer.ClipName(name)
	if m := p.tag("method"); m != "" {
		name = m + " " + name
	}
	if name == "" {
		name = "(unnamed)"
	}
	return name
}

// run turns the aggregate into a run, or says why there is nothing to judge.
func (a *aggregator) run(file string) (*result.Run, error) {
	if a.requests.Requests().Total == 0 {
		return nil, &importer.Unsupported{File: file, Reason: unsupportedReason(func(p string) bool { return a.prefixes[p] })}
	}
	var notes []string
	if a.sawChecks {
		pass := int64(a.checksPass)
		notes = append(notes, fmt.Sprintf(checksNote, pass, a.checksTotal-pass))
	}
	run := a.requests.Run(notes...)
	run.Started = a.span.First
	run.Window = a.span.Seconds()
	if a.perSecond != nil {
		run.Window = coarseWindow(a.span, a.perSecond)
	}
	if a.iterations > 0 {
		// k6 counts an iteration when it ends; how many began is unknown.
		run.Iterations.Completed, run.Iterations.Counted = a.iterations, result.CountCompleted
	}
	if a.iterLat.Count() > 0 {
		run.IterationLatency = a.iterLat
	}
	if a.sawDropped {
		run.Iterations.Dropped = int64(a.dropped)
		if offered := a.dropped + float64(a.iterations); offered > 0 {
			run.Metrics[result.DroppedPct] = 100 * a.dropped / offered
		}
	}
	if a.unknownOutcome > 0 {
		run.Requests.Counted = result.CountTotal // some outcomes unknown: no failed count, and no error rate
		run.Notes = append(run.Notes, fmt.Sprintf("request errors not available: %d requests carry neither an expected_response nor a status tag", a.unknownOutcome))
	}
	finish(run)
	return run, nil
}

// maxMillis keeps conversions in range; the histogram clamps at an hour anyway.
const maxMillis = 1e10

// millis converts k6's millisecond values to a duration.
func millis(v float64) time.Duration {
	if v < 0 || math.IsNaN(v) {
		return 0
	}
	if v > maxMillis {
		v = maxMillis
	}
	return time.Duration(v * float64(time.Millisecond))
}

// coarseWindow estimates the time whole-second timestamps cover. A stamp
// t means a moment in [t, t+1), so first to last stamp is a whole number
// D of seconds where the run took anything between D-1 and D+1: on a 5 s
// run that is ±20 % in every rate. The seconds between the first and the
// last are whole; how much of the first and the last the run covered is
// told by their requests against the mean of the whole seconds between.
// With no whole second between them there is nothing to measure by, and
// first to last stays the estimate.
func coarseWindow(span rawrun.Span, perSecond map[int64]int64) float64 {
	first, last := span.First.Unix(), span.Last.Unix()
	inner := last - first - 1
	if inner < 1 {
		return span.Seconds()
	}
	var n int64
	for sec, c := range perSecond {
		if sec > first && sec < last {
			n += c
		}
	}
	if n == 0 {
		return span.Seconds()
	}
	rate := float64(n) / float64(inner)
	covered := func(sec int64) float64 { return min(1, float64(perSecond[sec])/rate) }
	return float64(inner) + covered(first) + covered(last)
}
