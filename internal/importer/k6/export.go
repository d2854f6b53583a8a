package k6

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

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

// looksLikeSummary: one JSON document (not NDJSON) with a k6 "metrics"
// object holding metrics every k6 test emits.
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

// noMetrics is the error for a summary without the legacy "metrics"
// object; one with "results" is k6's machine-readable summary, which its
// own format reads.
func noMetrics(name string, results json.RawMessage, what string) error {
	if results != nil {
		return &importer.SyntaxError{File: name, Msg: `"results" instead of "metrics": this is k6's machine-readable summary (--new-machine-readable-summary); use --format k6-summary`}
	}
	return &importer.SyntaxError{File: name, Msg: "no \"metrics\" object; expected a " + what}
}
