package jmeter

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// StatisticsFormat reads the statistics.json of JMeter's HTML dashboard:
// an object of per-label summaries plus a "Total" entry.
type StatisticsFormat struct{}

func (StatisticsFormat) Name() string { return "jmeter-statistics-json" }

func (StatisticsFormat) Sniff(_ string, head []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	return len(t) > 0 && t[0] == '{' &&
		bytes.Contains(head, []byte(`"sampleCount"`)) &&
		bytes.Contains(head, []byte(`"transaction"`)) &&
		bytes.Contains(head, []byte(`"meanResTime"`))
}

// labelStats is one entry. Pointers tell a missing figure from a zero.
type labelStats struct {
	Transaction string   `json:"transaction"`
	SampleCount *int64   `json:"sampleCount"`
	ErrorCount  *int64   `json:"errorCount"`
	ErrorPct    *float64 `json:"errorPct"`
	Mean        *float64 `json:"meanResTime"`
	Median      *float64 `json:"medianResTime"`
	Max         *float64 `json:"maxResTime"`
	Pct1        *float64 `json:"pct1ResTime"`
	Pct2        *float64 `json:"pct2ResTime"`
	Pct3        *float64 `json:"pct3ResTime"`
	Throughput  *float64 `json:"throughput"`
}

// metrics maps the entry's figures to metric keys. pct1–pct3 are read as
// p90/p95/p99, JMeter's defaults (aggregate_rpt_pct1..3); the file does not
// say which percentiles they are.
func (s labelStats) metrics() map[string]float64 {
	m := map[string]float64{}
	put := func(key string, v *float64) {
		if v != nil {
			m[key] = *v
		}
	}
	put(result.LatencyMean, s.Mean)
	put(result.LatencyP50, s.Median)
	put(result.LatencyP90, s.Pct1)
	put(result.LatencyP95, s.Pct2)
	put(result.LatencyP99, s.Pct3)
	put(result.LatencyMax, s.Max)
	put(result.RequestsPerSec, s.Throughput)
	put(result.RequestErrorPct, s.ErrorPct)
	return m
}

const totalKey = "Total"

func (StatisticsFormat) Import(name string, r io.Reader) (*result.Run, error) {
	var entries map[string]labelStats
	if _, err := importer.DecodeJSON(name, r, &entries,
		`expected the dashboard's statistics.json: an object of {"transaction", "sampleCount", …} entries`); err != nil {
		return nil, err
	}
	total, ok := entries[totalKey]
	if !ok {
		return nil, &importer.Unsupported{File: name, Reason: `no "Total" entry: not a complete JMeter dashboard statistics.json`}
	}
	if total.SampleCount == nil {
		return nil, &importer.SyntaxError{File: name, Msg: `the "Total" entry has no sampleCount`}
	}
	if err := checkCounts(name, total); err != nil {
		return nil, err
	}
	run := &result.Run{Metrics: total.metrics()}
	run.Requests = result.Requests{Total: *total.SampleCount, Counted: result.CountTotal}
	if total.ErrorCount != nil {
		run.Requests.Failed, run.Requests.Counted = *total.ErrorCount, result.CountRequests
	} else {
		delete(run.Metrics, result.RequestErrorPct)
	}
	delete(entries, totalKey)
	labels := slices.Sorted(maps.Keys(entries))
	for _, label := range labels {
		run.Steps = append(run.Steps, step(label, entries[label]))
	}
	run.Notes = []string{"summary file: figures as JMeter's dashboard computed them; pct1/pct2/pct3 read as p90/p95/p99 (JMeter's defaults)"}
	for _, l := range labels {
		m := subSampleLabel.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if _, parent := slices.BinarySearch(labels, m[1]); parent { // labels are sorted
			run.Notes = append(run.Notes, fmt.Sprintf("the Total counts sub-samples such as %q along with their parent %q: requests are counted more than once", l, m[1]))
			break
		}
	}
	return run, nil
}

// checkCounts rejects a Total that counts nothing or counts impossibly.
func checkCounts(name string, total labelStats) error {
	n := *total.SampleCount
	switch {
	case n < 0:
		return &importer.SyntaxError{File: name, Msg: fmt.Sprintf(`the "Total" sampleCount is %d`, n)}
	case n == 0:
		return &importer.Unsupported{File: name, Reason: `the "Total" entry counts no samples`}
	case total.ErrorCount != nil && (*total.ErrorCount < 0 || *total.ErrorCount > n):
		return &importer.SyntaxError{File: name, Msg: fmt.Sprintf(`the "Total" errorCount %d is not between 0 and the sampleCount %d`, *total.ErrorCount, n)}
	}
	return nil
}

func step(label string, s labelStats) result.Step {
	st := result.Step{Name: label, Metrics: s.metrics()}
	if s.Transaction != "" {
		st.Name = s.Transaction
	}
	if s.SampleCount != nil {
		st.Requests = *s.SampleCount
	}
	if s.ErrorCount != nil {
		st.Failed = *s.ErrorCount
	}
	return st
}

var subSampleLabel = regexp.MustCompile(`^(.+)-[0-9]+$`)
