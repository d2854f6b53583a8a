package k6

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// maxSteps bounds the number of per-request steps: a script that does not
// name its requests gets one k6 "name" per distinct URL, which can be
// unbounded. Requests past the bound are pooled into otherStep.
const (
	maxSteps  = 200
	otherStep = "(other requests)"
)

// point is one k6 sample as both raw formats carry it.
type point struct {
	metric string
	time   time.Time
	value  float64
	tag    func(key string) string
}

// aggregator folds a stream of k6 samples into a run.
type aggregator struct {
	first, last      time.Time
	latency, iterLat *hist.Histogram
	steps            map[string]*result.Step
	order            []string
	requests, failed int64
	iterations       int64
	dropped          float64
	sawDropped       bool
	checksPass       float64
	checksTotal      int64
	sawChecks        bool
	errs             map[[3]string]*result.ErrorClass
	errOrder         [][3]string
	prefixes         map[string]bool
	pooled           bool
	// unknownOutcome counts requests with neither expected_response nor
	// status tag (system tags turned off): their success is unknown.
	unknownOutcome int64
}

func newAggregator() *aggregator {
	return &aggregator{
		latency:  hist.New(),
		iterLat:  hist.New(),
		steps:    map[string]*result.Step{},
		errs:     map[[3]string]*result.ErrorClass{},
		prefixes: map[string]bool{},
	}
}

func (a *aggregator) add(p point) {
	if !p.time.IsZero() {
		if a.first.IsZero() || p.time.Before(a.first) {
			a.first = p.time
		}
		if p.time.After(a.last) {
			a.last = p.time
		}
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
	d := millis(p.value)
	a.requests++
	a.latency.Record(d)
	step := a.step(p)
	step.Requests++
	step.Latency.Record(d)
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
	a.failed++
	step.Failed++
	class := errorClass(status, p.tag("error_code"))
	key := [3]string{class, step.Name, status}
	e := a.errs[key]
	if e == nil {
		sample := p.tag("error")
		if class == result.ErrStatus {
			sample = strings.TrimSuffix("status "+status+": "+sample, ": ")
		}
		e = &result.ErrorClass{Class: class, Step: step.Name, Sample: sample}
		a.errs[key] = e
		a.errOrder = append(a.errOrder, key)
	}
	e.Count++
}

func (a *aggregator) step(p point) *result.Step {
	name := p.tag("name")
	if name == "" {
		name = p.tag("url")
	}
	if m := p.tag("method"); m != "" {
		name = m + " " + name
	}
	if name == "" {
		name = "(unnamed)"
	}
	if s, ok := a.steps[name]; ok {
		return s
	}
	if len(a.order) >= maxSteps {
		a.pooled = true
		name = otherStep
		if s, ok := a.steps[name]; ok {
			return s
		}
	}
	s := &result.Step{Name: name, Latency: hist.New()}
	a.steps[name] = s
	a.order = append(a.order, name)
	return s
}

// run turns the aggregate into a run, or says why there is nothing to judge.
func (a *aggregator) run(file string) (*result.Run, error) {
	if a.requests == 0 {
		return nil, &importer.Unsupported{File: file, Reason: unsupportedReason(func(p string) bool { return a.prefixes[p] })}
	}
	run := &result.Run{
		Started:  a.first,
		Window:   a.last.Sub(a.first).Seconds(),
		Latency:  a.latency,
		Requests: result.Requests{Total: a.requests, Failed: a.failed},
		Metrics:  map[string]float64{},
	}
	if a.iterations > 0 {
		run.Iterations.Started = a.iterations
		run.Iterations.Completed = a.iterations
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
	for _, n := range a.order {
		run.Steps = append(run.Steps, *a.steps[n])
	}
	for _, k := range a.errOrder {
		run.Errors = append(run.Errors, *a.errs[k])
	}
	if a.sawChecks {
		pass := int64(a.checksPass)
		run.Notes = append(run.Notes, fmt.Sprintf(checksNote, pass, a.checksTotal-pass))
	}
	if a.pooled {
		run.Notes = append(run.Notes, fmt.Sprintf("more than %d distinct request names: the rest are pooled in step %q", maxSteps, otherStep))
	}
	var lacks []string
	if a.unknownOutcome > 0 {
		lacks = append(lacks, result.RequestErrorPct)
		run.Notes = append(run.Notes, fmt.Sprintf("request errors not available: %d requests carry neither an expected_response nor a status tag", a.unknownOutcome))
	}
	finish(run, lacks...)
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
