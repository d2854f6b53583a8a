// Package k6 owns the k6 importers: the end-of-test summaries (k6's own
// figures) and the sample streams (--out json and --out csv).
package k6

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// otherStep pools the requests past rawrun.MaxSteps distinct names (an
// unnamed request is named by its URL, which can be unbounded).
const otherStep = "(other requests)"

// point is one k6 sample as both raw formats carry it.
type point struct {
	metric string
	time   time.Time
	value  float64
	tag    func(key string) string
}

type aggregator struct {
	span                  rawrun.Span
	requests              *rawrun.Builder
	iterLat               *hist.Histogram
	iterations            int64
	dropped, checksPass   float64
	checksTotal           int64
	sawDropped, sawChecks bool
	prefixes              map[string]bool
	unknownOutcome        int64 // requests without expected_response or status tag
	// perSecond counts requests by second when the timestamps are whole
	// seconds (CSV's default): see coarseWindow.
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

// stepName names a request's step by its method and name tag (k6 sets it
// to the URL when the script does not).
func stepName(p point) string {
	name := p.tag("name")
	if name == "" {
		name = p.tag("url")
	}
	name = importer.ClipName(name)
	if m := p.tag("method"); m != "" {
		name = m + " " + name
	}
	return cmp.Or(name, "(unnamed)")
}

// run is the run of the samples added, with these notes last.
func (a *aggregator) run(file string, last ...string) (*result.Run, error) {
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
	run.Notes = append(run.Notes, last...)
	importer.Summarize(run)
	return run, nil
}

// millis converts k6's millisecond values to a duration, kept in range
// (the histogram clamps at an hour anyway).
func millis(v float64) time.Duration {
	if v < 0 || math.IsNaN(v) {
		return 0
	}
	return time.Duration(min(v, 1e10) * float64(time.Millisecond))
}

// coarseWindow estimates the time whole-second timestamps cover: first to
// last stamp is D seconds where the run took between D-1 and D+1 (±20 % on
// a 5 s run). The seconds between are whole; how much of the first and the
// last the run covered is told by their requests against the mean of those
// between. With none between, first to last stays the estimate.
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

func init() { importer.Register(SummaryExport{}, HandleSummary{}, MachineSummary{}, NDJSON{}, CSV{}) }

// checksNote: a check is one assertion on one call, and k6 does not say its
// iteration, so checks cannot give lifecycle success.
const checksNote = "k6 checks: %d passed, %d failed (not mapped to lifecycle success: checks are per assertion, not per iteration)"

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

// unsupportedReason names the kind of test a result without
// http_req_duration is, when its metric prefixes show it.
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

// NDJSON reads `k6 run --out json`: a Metric or Point object per line.
type NDJSON struct{}

func (NDJSON) Name() string { return "k6-ndjson" }

// ndLine is one line of k6's JSON output, old layout or new.
type ndLine struct {
	Type   string `json:"type"`
	Metric string `json:"metric"`
	Data   struct {
		Time  time.Time      `json:"time"`
		Value float64        `json:"value"`
		Tags  map[string]any `json:"tags"`
	} `json:"data"`
}

func looksLikeNDJSON(head []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, " \t\r\n\ufeff"), []byte{'\n'})
	var l struct {
		Type   string `json:"type"`
		Metric string `json:"metric"`
	}
	if json.Unmarshal(bytes.TrimRight(first, "\r"), &l) != nil {
		return false
	}
	return (l.Type == "Metric" || l.Type == "Point") && l.Metric != ""
}

func (NDJSON) Sniff(_ string, head []byte) bool { return looksLikeNDJSON(head) }

const ndWhat = `a k6 --out json line: {"type":"Metric"|"Point","metric":…,"data":{…}}`

func (NDJSON) Import(name string, r io.Reader) (*result.Run, error) {
	agg := newAggregator()
	var pv pointView
	fastTag := pv.tag
	notes, err := importer.NewLineReader(r).Rows(name, true, func(b []byte) error {
		if pv.read(b) {
			agg.add(point{metric: pv.strs.String(pv.metric), time: pv.time, value: pv.value, tag: fastTag})
			return nil
		}
		var l ndLine
		if err := json.Unmarshal(b, &l); err != nil {
			return fmt.Errorf("%v; expected %s", err, ndWhat)
		} else if l.Type != "Metric" && l.Type != "Point" {
			return fmt.Errorf("unknown type %q; expected %s", l.Type, ndWhat)
		} else if l.Type == "Point" {
			tags := l.Data.Tags
			agg.add(point{metric: l.Metric, time: l.Data.Time, value: l.Data.Value, tag: func(k string) string {
				s, _ := tags[k].(string)
				return s
			}})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return agg.run(name, notes...)
}

// CSV reads `k6 run --out csv`: a header, then one sample per line.
type CSV struct{}

func (CSV) Name() string { return "k6-csv" }

const csvHeaderStart = "metric_name,timestamp,metric_value"

func (CSV) Sniff(_ string, head []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(head, "\ufeff"), []byte(csvHeaderStart))
}

func (CSV) Import(name string, r io.Reader) (*result.Run, error) {
	lines := importer.NewLineReader(r)
	if !lines.Scan() {
		if err := lines.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, &importer.SyntaxError{File: name, Line: 1, Msg: "empty file; expected a k6 CSV header starting " + csvHeaderStart}
	}
	cols, err := importer.SplitCSV(nil, bytes.TrimPrefix(lines.Bytes(), []byte("\ufeff")), ',')
	if err != nil || !bytes.HasPrefix(bytes.Join(cols, []byte(",")), []byte(csvHeaderStart)) {
		return nil, &importer.SyntaxError{File: name, Line: 1, Msg: "expected a k6 CSV header starting " + csvHeaderStart}
	}
	index := map[string]int{}
	for i, c := range cols {
		index[string(c)] = i
	}
	agg := newAggregator()
	agg.perSecond = map[int64]int64{}
	coarse := true
	row := &csvRow{index: index, cols: len(cols)}
	notes, err := lines.Rows(name, false, func(line []byte) error {
		p, whole, err := row.point(line)
		if err == nil {
			coarse = coarse && whole
			agg.add(p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if coarse {
		notes = append([]string{"timestamps have 1 s resolution: the window is estimated from the requests in the first and last second against the whole seconds between"}, notes...)
	} else {
		agg.perSecond = nil // the timestamps tell the window as they are
	}
	return agg.run(name, notes...)
}

// csvRow reads sample lines in place, interning the strings it hands out.
type csvRow struct {
	index  map[string]int
	cols   int
	fields [][]byte
	strs   importer.Interner
	tagFn  func(string) string
}

// point parses one sample line (its tags valid until the next); whole says
// the timestamp was in whole seconds.
func (r *csvRow) point(b []byte) (point, bool, error) {
	var err error
	if r.fields, err = importer.SplitCSV(r.fields, b, ','); err != nil {
		return point{}, false, fmt.Errorf("%v; expected a k6 CSV sample line", err)
	}
	f := r.fields
	if len(f) != r.cols {
		return point{}, false, fmt.Errorf("%d fields, expected %d as in the header", len(f), r.cols)
	}
	ts, whole, err := parseTimestamp(string(f[1]))
	if err == nil {
		err = importer.CheckTime(ts)
	}
	if err != nil {
		return point{}, false, fmt.Errorf("timestamp %q: expected Unix time or RFC 3339", f[1])
	}
	v, err := strconv.ParseFloat(string(f[2]), 64)
	if err != nil {
		return point{}, false, fmt.Errorf("metric_value %q: expected a number", f[2])
	}
	if r.tagFn == nil {
		r.tagFn = r.tag
	}
	return point{metric: r.strs.String(f[0]), time: ts, value: v, tag: r.tagFn}, whole, nil
}

// tag is the current row's value of a tag column, "" without one.
func (r *csvRow) tag(k string) string {
	if i, ok := r.index[k]; ok {
		return r.strs.String(r.fields[i])
	}
	return ""
}

// parseTimestamp reads k6's timeFormat variants: Unix seconds (the
// default), milli-, micro- or nanoseconds by magnitude, and RFC 3339.
func parseTimestamp(s string) (t time.Time, whole bool, err error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		switch {
		case n > 1e17:
			return time.Unix(0, n), false, nil
		case n > 1e14:
			return time.UnixMicro(n), false, nil
		case n > 1e11:
			return time.UnixMilli(n), false, nil
		}
		return time.Unix(n, 0), true, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && math.Abs(f) < 1e11 {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9)), false, nil
	}
	t, err = time.Parse(time.RFC3339Nano, s)
	return t, false, err
}
