package k6

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// stats are one metric's figures by k6 stat name ("avg", "p(95)", …).
type stats map[string]float64

// summary is what the k6 summary layouts carry, reduced to numbers.
type summary struct {
	metrics    map[string]stats
	durationS  float64 // the run time when the file states it; else 0
	thresholds []threshold
}

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
	{"avg", result.LatencyMean}, {"med", result.LatencyP50}, {"p(90)", result.LatencyP90},
	{"p(95)", result.LatencyP95}, {"p(99)", result.LatencyP99}, {"max", result.LatencyMax},
}

var iterationKeys = []struct{ stat, key string }{{"med", result.IterationP50}, {"p(95)", result.IterationP95}, {"p(99)", result.IterationP99}}

// fromSummary maps a k6 summary onto a run: only the figures the file has.
func fromSummary(file string, s summary) (*result.Run, error) {
	dur, ok := s.metrics["http_req_duration"]
	if !ok {
		return nil, &importer.Unsupported{File: file, Reason: unsupportedReason(func(p string) bool {
			return slices.ContainsFunc(slices.Collect(maps.Keys(s.metrics)), func(n string) bool { return strings.HasPrefix(n, p) })
		})}
	}
	run := &result.Run{Metrics: map[string]float64{}}
	copyStats(run.Metrics, dur, trendKeys)
	if reqs, ok := s.metrics["http_reqs"]; ok {
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
	copyStats(run.Metrics, s.metrics["iteration_duration"], iterationKeys)
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
	importer.Summarize(run) // without a request count, no rate is derived from one
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

// submetricRe matches a per-request submetric: http_reqs{url:https://x/}.
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
	var steps []result.Step
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		steps = append(steps, *byName[name])
	}
	return steps
}

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

// SummaryExport reads `k6 run --summary-export` JSON: each metric's stats
// sit directly in its object ({"avg":…, "p(95)":…}).
type SummaryExport struct{}

// HandleSummary reads the JSON a handleSummary(data) callback writes with
// JSON.stringify(data): each metric's stats sit under "values".
type HandleSummary struct{}

func (SummaryExport) Name() string { return "k6-summary-export" }
func (HandleSummary) Name() string { return "k6-handlesummary" }

// valuesRe finds handleSummary's per-metric "values" object.
var valuesRe = regexp.MustCompile(`"values"\s*:\s*\{`)

// looksLikeSummary: one JSON document (not NDJSON) whose "metrics" hold
// metrics every k6 test emits.
func looksLikeSummary(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 || t[0] != '{' || looksLikeNDJSON(head) || (MachineSummary{}).Sniff("", head) {
		return false
	}
	return bytes.Contains(t, []byte(`"metrics"`)) &&
		(bytes.Contains(t, []byte(`"root_group"`)) || bytes.Contains(t, []byte(`"vus"`)) ||
			bytes.Contains(t, []byte(`"data_sent"`)))
}

func (SummaryExport) Sniff(_ string, head []byte) bool {
	return looksLikeSummary(head) && !valuesRe.Match(head)
}

func (HandleSummary) Sniff(_ string, head []byte) bool {
	return looksLikeSummary(head) && valuesRe.Match(head)
}

const exportWhat = "k6 --summary-export object with a \"metrics\" object"

func (SummaryExport) Import(name string, r io.Reader) (*result.Run, error) {
	var doc struct {
		Metrics map[string]map[string]json.RawMessage `json:"metrics"`
		Results json.RawMessage                       `json:"results"`
	}
	if _, err := importer.DecodeJSON(name, r, &doc, "expected a "+exportWhat); err != nil {
		return nil, err
	}
	if doc.Metrics == nil {
		return nil, noMetrics(name, doc.Results, exportWhat)
	}
	s := summary{metrics: map[string]stats{}}
	for k, v := range doc.Metrics {
		if _, ok := v["values"]; ok {
			return nil, &importer.SyntaxError{File: name, Msg: fmt.Sprintf(
				"metric %q keeps its figures under \"values\": this is handleSummary JSON, not --summary-export (use --format k6-handlesummary)", k)}
		}
		s.metrics[k] = numbers(v)
		// The export writes whether each threshold failed: false is a pass.
		var failed map[string]bool
		if t, ok := v["thresholds"]; ok && json.Unmarshal(t, &failed) == nil {
			for expr, f := range failed {
				s.thresholds = append(s.thresholds, threshold{metric: k, expr: expr, ok: !f})
			}
		}
	}
	return fromSummary(name, s)
}

const handleWhat = "k6 handleSummary object with \"metrics\" entries holding \"values\""

func (HandleSummary) Import(name string, r io.Reader) (*result.Run, error) {
	var doc struct {
		Metrics map[string]struct {
			Values     map[string]json.RawMessage `json:"values"`
			Thresholds map[string]struct {
				OK bool `json:"ok"`
			} `json:"thresholds"`
		} `json:"metrics"`
		State struct {
			TestRunDurationMs float64 `json:"testRunDurationMs"`
		} `json:"state"`
		Results json.RawMessage `json:"results"`
	}
	if _, err := importer.DecodeJSON(name, r, &doc, "expected a "+handleWhat); err != nil {
		return nil, err
	}
	if doc.Metrics == nil {
		return nil, noMetrics(name, doc.Results, handleWhat)
	}
	s := summary{metrics: map[string]stats{}, durationS: doc.State.TestRunDurationMs / 1000}
	for k, v := range doc.Metrics {
		if v.Values == nil {
			return nil, &importer.SyntaxError{File: name, Msg: fmt.Sprintf(
				"metric %q has no \"values\" object: this is not handleSummary JSON (a --summary-export file is read with --format k6-summary-export)", k)}
		}
		s.metrics[k] = numbers(v.Values)
		for expr, t := range v.Thresholds {
			s.thresholds = append(s.thresholds, threshold{metric: k, expr: expr, ok: t.OK})
		}
	}
	return fromSummary(name, s)
}

// noMetrics refuses a summary without the legacy "metrics" object.
func noMetrics(name string, results json.RawMessage, what string) error {
	if results != nil {
		return &importer.SyntaxError{File: name, Msg: `"results" instead of "metrics": this is k6's machine-readable summary (--new-machine-readable-summary); use --format k6-summary`}
	}
	return &importer.SyntaxError{File: name, Msg: "no \"metrics\" object; expected a " + what}
}

// MachineSummary reads k6's machine-readable summary (schema 1.x, written
// from k6 1.5 on with --new-machine-readable-summary): {"version",
// "config": {"duration"}, "results": {"metrics": [{"name", "type",
// "values"}], "checks"}}. Rates hold "matches" and "total"; a counter's
// rate comes from the duration. k6's JavaScript runtime writes snake case
// ("k6_version", percentiles "p95") where the schema spells "k6Version"
// and "p(95)": both are read.
type MachineSummary struct{}

func (MachineSummary) Name() string { return "k6-summary" }

// machineRe finds the metadata's k6 version, which only this layout has.
var machineRe = regexp.MustCompile(`"k6(Version|_version)"\s*:`)

func (MachineSummary) Sniff(_ string, head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && machineRe.Match(t) && bytes.Contains(t, []byte(`"results"`))
}

const machineWhat = `k6 machine-readable summary with "version", "config" and "results"`

// machineDoc: pointers and maps, so that what the file lacks stays unknown.
type machineDoc struct {
	Version *string `json:"version"`
	Config  struct {
		Duration *float64 `json:"duration"`
	} `json:"config"`
	Results *struct {
		Metrics []struct {
			Name   string                     `json:"name"`
			Type   string                     `json:"type"`
			Values map[string]json.RawMessage `json:"values"`
		} `json:"metrics"`
		Checks *struct {
			Results []struct {
				Passes, Fails float64
			} `json:"results"`
		} `json:"checks"`
	} `json:"results"`
}

func (MachineSummary) Import(name string, r io.Reader) (*result.Run, error) {
	var doc machineDoc
	if _, err := importer.DecodeJSON(name, r, &doc, "expected a "+machineWhat); err != nil {
		return nil, err
	}
	if doc.Version == nil || doc.Results == nil || doc.Results.Metrics == nil {
		return nil, &importer.SyntaxError{File: name, Msg: `no "version" or "results.metrics"; expected a ` + machineWhat}
	}
	s := summary{metrics: map[string]stats{}}
	if d := doc.Config.Duration; d != nil && *d > 0 {
		s.durationS = *d
	}
	for i, m := range doc.Results.Metrics {
		if m.Name == "" || m.Values == nil {
			return nil, &importer.SyntaxError{File: name, Msg: fmt.Sprintf(`results.metrics[%d] has no "name" or "values"; expected a %s`, i, machineWhat)}
		}
		st := numbers(m.Values)
		percentileNames(st)
		if m.Type == "rate" { // the legacy layouts' passes and fails
			if matches, ok := st["matches"]; ok {
				st["passes"] = matches
				if total, ok := st["total"]; ok {
					st["fails"] = total - matches
				}
			}
		}
		s.metrics[m.Name] = st
	}
	if c := doc.Results.Checks; c != nil && len(c.Results) > 0 {
		var passes, fails float64
		for _, r := range c.Results {
			passes, fails = passes+r.Passes, fails+r.Fails
		}
		s.metrics["checks"] = stats{"passes": passes, "fails": fails}
	}
	run, err := fromSummary(name, s)
	if err != nil {
		return nil, err
	}
	run.Notes = append(run.Notes, fmt.Sprintf("k6 machine-readable summary, schema %s: it holds no thresholds", importer.Clip(*doc.Version, 20)))
	return run, nil
}

// percentileNames renames the percentiles k6 writes as "p90", "p95" to the
// "p(90)", "p(95)" the other summary layouts (and the schema) use, so that
// one table maps them onto the run.
func percentileNames(st stats) {
	for k, v := range st {
		if len(k) > 1 && k[0] == 'p' && k[1] >= '0' && k[1] <= '9' {
			if _, both := st["p("+k[1:]+")"]; !both {
				st["p("+k[1:]+")"] = v
			}
			delete(st, k)
		}
	}
}
