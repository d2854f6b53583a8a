// Package artillery owns the importer of Artillery's JSON report
// (`artillery run --output report.json`): 2.x's counters and summaries and
// 1.x's fixed fields, Artillery's own figures. Its ensure checks are
// printed to the console, not into this file.
package artillery

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() { importer.Register(Report{}) }

type Report struct{}

func (Report) Name() string { return "artillery-json" }

func (Report) Sniff(_ string, head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"aggregate"`)) &&
		(bytes.Contains(t, []byte(`"http.requests"`)) || bytes.Contains(t, []byte(`"vusers.created"`)) ||
			bytes.Contains(t, []byte(`"engine.http.requests"`)) || bytes.Contains(t, []byte(`"core.vusers.created.total"`)) ||
			bytes.Contains(t, []byte(`"scenariosCreated"`)))
}

// doc is both layouts: 2.x fills counters and summaries, 1.x the rest.
type doc struct {
	Aggregate *struct {
		Counters      map[string]float64            `json:"counters"`
		Summaries     map[string]map[string]float64 `json:"summaries"`
		FirstMetricAt *float64                      `json:"firstMetricAt"`
		LastMetricAt  *float64                      `json:"lastMetricAt"`

		ScenariosCreated   *float64            `json:"scenariosCreated"`
		ScenariosCompleted *float64            `json:"scenariosCompleted"`
		RequestsCompleted  *float64            `json:"requestsCompleted"`
		Latency            map[string]*float64 `json:"latency"`
		RPS                *struct {
			Mean float64 `json:"mean"`
		} `json:"rps"`
		Errors map[string]float64 `json:"errors"`
		Codes  map[string]float64 `json:"codes"`
	} `json:"aggregate"`
}

const what = `JSON report of Artillery with an "aggregate" object`

func (Report) Import(name string, r io.Reader) (*result.Run, error) {
	var d doc
	if _, err := importer.DecodeJSON(name, r, &d, "expected a "+what); err != nil {
		return nil, err
	}
	a := d.Aggregate
	switch {
	case a == nil:
		return nil, &importer.SyntaxError{File: name, Msg: `no "aggregate" object; expected a ` + what}
	case a.Counters != nil && a.Summaries != nil:
		return v2(name, d)
	case a.RequestsCompleted != nil && a.Latency != nil:
		return v1(name, d)
	}
	return nil, &importer.SyntaxError{File: name, Msg: `the aggregate has neither 2.x's "counters" and "summaries" nor 1.x's "requestsCompleted" and "latency"; expected a ` + what}
}

var v2Latency = []struct{ stat, key string }{
	{"mean", result.LatencyMean}, {"median", result.LatencyP50}, {"p90", result.LatencyP90},
	{"p95", result.LatencyP95}, {"p99", result.LatencyP99}, {"max", result.LatencyMax},
}

// v1Latency maps 1.x latency fields to metrics; 1.x has no mean or p90.
var v1Latency = []struct{ stat, key string }{
	{"median", result.LatencyP50}, {"p95", result.LatencyP95}, {"p99", result.LatencyP99}, {"max", result.LatencyMax},
}

func copyStats(dst, src map[string]float64, keys []struct{ stat, key string }) {
	for _, k := range keys {
		if v, ok := src[k.stat]; ok && v >= 0 {
			dst[k.key] = v
		}
	}
}

// known drops the stats 1.x writes as null: a run without a response
// has "latency": {"min": null, …}, which is no latency, not 0 ms.
func known(stats map[string]*float64) map[string]float64 {
	out := make(map[string]float64, len(stats))
	for k, v := range stats {
		if v != nil {
			out[k] = *v
		}
	}
	return out
}

// v2 reads 2.x: a request failed when its status is outside 2xx/3xx or
// it got no response (an errors.* counter). Artillery counts in errors.*
// the scenario's own errors too (a function the script lacks, a capture
// that matched nothing), which fail no request: errors count as failed
// requests only up to the requests that got no response.
func v2(name string, d doc) (*result.Run, error) {
	a := d.Aggregate
	a.Counters, a.Summaries = modernNames(a.Counters), modernNames(a.Summaries)
	c := a.Counters
	total, ok := c["http.requests"]
	if !ok {
		return nil, &importer.Unsupported{File: name, Reason: "no http.requests (or 2.0's engine.http.requests) counter: the Artillery report holds no HTTP requests (a test of another engine, such as socket.io or a browser?)"}
	}
	run := &result.Run{Requests: result.Requests{Total: importer.Count(total), Counted: result.CountRequests}, Metrics: map[string]float64{}}
	copyStats(run.Metrics, a.Summaries["http.response_time"], v2Latency)
	codes, errs := map[string]float64{}, map[string]float64{}
	for k, v := range c {
		if code, ok := strings.CutPrefix(k, "http.codes."); ok {
			codes[code] = v
		} else if e, ok := strings.CutPrefix(k, "errors."); ok {
			errs[e] = v
		}
	}
	responses, ok := c["http.responses"]
	if !ok {
		for _, n := range codes {
			responses += n
		}
	}
	failures(run, codes, errs, max(0, run.Requests.Total-importer.Count(responses)))
	if a.FirstMetricAt != nil && a.LastMetricAt != nil && *a.LastMetricAt > *a.FirstMetricAt {
		first := time.UnixMilli(int64(*a.FirstMetricAt)).UTC()
		if err := importer.CheckTime(first); err != nil {
			return nil, &importer.SyntaxError{File: name, Msg: "firstMetricAt: " + err.Error()}
		}
		run.Started, run.Window = first, (*a.LastMetricAt-*a.FirstMetricAt)/1000
	}
	if created, ok := c["vusers.created"]; ok {
		run.Iterations.Started = importer.Count(created)
		run.Iterations.Completed = importer.Count(c["vusers.completed"]) + importer.Count(c["vusers.failed"])
		run.Iterations.Counted = result.CountStarted | result.CountCompleted
	}
	lifecycleSuccess(run, c)
	run.Steps = endpointSteps(a.Counters, a.Summaries)
	if ok, failed := c["plugins.expect.ok"], c["plugins.expect.failed"]; ok+failed > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("Artillery expect checks: %d passed, %d failed", importer.Count(ok), importer.Count(failed)))
	}
	return finish(run), nil
}

// oldNames are the names of the first Artillery 2.0 releases, which the
// later ones shortened: "engine.http.requests", "engine.http.codes.200",
// "engine.http.response_time", "core.vusers.created.total",
// "core.vusers.completed".
var oldNames = []struct{ old, now string }{
	{"core.vusers.created.total", "vusers.created"},
	{"core.vusers.", "vusers."},
	{"engine.http.", "http."},
}

// modernNames gives a 2.0 report's metrics their later names, so that one
// reading serves both; a name the report also has in the later form
// keeps that one.
func modernNames[V any](m map[string]V) map[string]V {
	out := maps.Clone(m)
	for k, v := range m {
		for _, n := range oldNames {
			if rest, ok := strings.CutPrefix(k, n.old); ok {
				if _, both := m[n.now+rest]; !both {
					out[n.now+rest] = v
				}
				delete(out, k)
				break
			}
		}
	}
	return out
}

// lifecycleSuccess takes a 2.x virtual user as an iteration: it
// succeeded when Artillery counted it completed (vusers.completed), and
// failed when it ended in an error (vusers.failed: a request without a
// response, a failed expect check). Artillery does not fail a user on an
// error status, so neither does this share.
func lifecycleSuccess(run *result.Run, c map[string]float64) {
	ok, failed := c["vusers.completed"], c["vusers.failed"]
	done := importer.Count(ok) + importer.Count(failed)
	if done == 0 {
		return
	}
	run.Iterations.Succeeded = importer.Count(ok)
	run.Iterations.Counted |= result.CountSucceeded
	run.Metrics[result.LifecycleSuccess] = 100 * float64(run.Iterations.Succeeded) / float64(done)
}

// v1 reads 1.x: responses are requestsCompleted, the others are errors.
func v1(name string, d doc) (*result.Run, error) {
	a := d.Aggregate
	run := &result.Run{Metrics: map[string]float64{}}
	copyStats(run.Metrics, known(a.Latency), v1Latency)
	run.Requests.Total, run.Requests.Counted = importer.Count(*a.RequestsCompleted), result.CountRequests
	for _, n := range a.Errors {
		run.Requests.Total += importer.Count(n)
	}
	failures(run, a.Codes, a.Errors, -1) // 1.x's errors are its requests without a response
	if a.RPS != nil && a.RPS.Mean > 0 {
		run.Metrics[result.RequestsPerSec] = a.RPS.Mean
	}
	if a.ScenariosCreated != nil {
		run.Iterations.Started, run.Iterations.Counted = importer.Count(*a.ScenariosCreated), result.CountStarted
		if a.ScenariosCompleted != nil {
			run.Iterations.Completed, run.Iterations.Counted = importer.Count(*a.ScenariosCompleted), result.CountStarted|result.CountCompleted
		}
	}
	if run.Requests.Total == 0 {
		return nil, &importer.Unsupported{File: name, Reason: "Artillery 1.x report of 0 requests"}
	}
	run.Notes = append(run.Notes, "Artillery 1.x reports no measured duration: the window is unknown")
	return finish(run), nil
}

// failures counts failed requests: statuses outside 2xx/3xx, then the
// errors of requests without a response, each an error class, timeouts
// and connection errors first. Errors beyond unanswered (the requests
// without a response; < 0: no bound) failed no request: a note says them.
func failures(run *result.Run, codes, errs map[string]float64, unanswered int64) {
	for _, code := range slices.Sorted(maps.Keys(codes)) {
		if n, err := strconv.Atoi(code); err == nil && (n < 200 || n >= 400) {
			run.Requests.Failed += importer.Count(codes[code])
			importer.AddError(run, result.ErrStatus, importer.Count(codes[code]), "status "+code)
		}
	}
	keys := slices.Sorted(maps.Keys(errs))
	sort.SliceStable(keys, func(i, j int) bool {
		return errorClasses.Class(keys[i]) != result.ErrExpect && errorClasses.Class(keys[j]) == result.ErrExpect
	})
	var other []string
	for _, e := range keys {
		n := importer.Count(errs[e])
		if unanswered >= 0 {
			n = min(n, unanswered)
			unanswered -= n
		}
		if rest := importer.Count(errs[e]) - n; rest > 0 {
			other = append(other, fmt.Sprintf("%d × %s", rest, importer.OneLine(e)))
		}
		run.Requests.Failed += n
		importer.AddError(run, errorClasses.Class(e), n, importer.OneLine(e))
	}
	run.Requests.Failed = min(run.Requests.Failed, run.Requests.Total)
	if len(other) > 0 {
		run.Notes = append(run.Notes, "Artillery counted errors that failed no request (every other request got a response): "+strings.Join(other, ", "))
	}
}

// errorClasses classes Node's error codes (ETIMEDOUT, ECONNREFUSED, …).
var errorClasses = importer.MessageClasses{
	Timeout:    []string{"timedout", "timeout"},
	Connection: []string{"econn", "enotfound", "eai_again", "epipe", "socket", "ehostunreach", "enetunreach"},
}

// endpointSteps builds steps from the metrics-by-endpoint plugin's figures.
func endpointSteps(counters map[string]float64, summaries map[string]map[string]float64) []result.Step {
	const prefix = "plugins.metrics-by-endpoint.response_time."
	var steps []result.Step
	for _, key := range slices.Sorted(maps.Keys(summaries)) {
		path, ok := strings.CutPrefix(key, prefix)
		if !ok {
			continue
		}
		st := result.Step{Name: path, Metrics: map[string]float64{}}
		copyStats(st.Metrics, summaries[key], v2Latency)
		st.Requests = importer.Count(summaries[key]["count"])
		codesPrefix := "plugins.metrics-by-endpoint." + path + ".codes."
		for k, v := range counters {
			if code, ok := strings.CutPrefix(k, codesPrefix); ok {
				if n, err := strconv.Atoi(code); err == nil && (n < 200 || n >= 400) {
					st.Failed += importer.Count(v)
				}
			}
		}
		steps = append(steps, st)
	}
	return steps
}

func finish(run *result.Run) *result.Run {
	run.Summarize()
	if run.Requests.Total == 0 {
		delete(run.Metrics, result.RequestErrorPct)
	}
	return run
}
