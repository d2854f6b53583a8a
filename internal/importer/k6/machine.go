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

// MachineSummary reads k6's machine-readable end-of-test summary (schema
// 1.x), which both --summary-export and handleSummary write from k6 1.5 on
// with --new-machine-readable-summary, and which k6 plans as the default:
// {"version", "config": {"duration"}, "metadata": {"k6_version"},
// "results": {"metrics": [{"name", "type", "values"}], "checks"}}. Rates
// hold "matches" and "total" rather than passes and fails; counters hold a
// count only, so the rate comes from the run's duration. k6 writes the
// document through its JavaScript runtime, which names fields in snake
// case: "k6_version", and a trend's percentiles "p90" and "p95" (k6's own
// test of the flag asserts these), where its schema spells "k6Version" and
// "p(90)"; both spellings are read.
type MachineSummary struct{}

func init() { importer.Register(MachineSummary{}) }

func (MachineSummary) Name() string { return "k6-summary" }

// machineRe finds the metadata's k6 version, which only this layout has.
var machineRe = regexp.MustCompile(`"k6(Version|_version)"\s*:`)

func (MachineSummary) Sniff(_ string, head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && machineRe.Match(t) && bytes.Contains(t, []byte(`"results"`))
}

const machineWhat = `k6 machine-readable summary with "version", "config" and "results"`

// machineDoc is the layout; every figure is a pointer or a map so that
// what the file lacks stays unknown.
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
