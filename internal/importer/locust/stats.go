package locust

import (
	"fmt"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Column names across Locust versions (lower case): 0.x wrote
// "# requests"/"# failures" and "Method"; 0.13+ "Request Count" and "Type".
var (
	colType     = []string{"type", "method"}
	colCount    = []string{"request count", "# requests"}
	colFailures = []string{"failure count", "# failures"}
	colMedian   = []string{"median response time"}
	colAvg      = []string{"average response time"}
	colMax      = []string{"max response time"}
	colRPS      = []string{"requests/s"}
)

// percentileCols maps Locust's percentile columns to metrics. Locust also
// writes 66 %, 75 %, 80 %, 98 %, 99.9 % and more, which tailgate has no key for.
var percentileCols = []struct{ col, key string }{
	{"50%", result.LatencyP50},
	{"90%", result.LatencyP90},
	{"95%", result.LatencyP95},
	{"99%", result.LatencyP99},
}

// roundingNote: Locust stores response times in buckets of two significant
// digits, so its percentiles are rounded; mean and max are exact.
const roundingNote = "Locust rounds response-time percentiles to 2 significant digits (e.g. 1234 ms is reported as 1200 ms); mean and max are exact"

// statRow is one row of the stats table in tailgate's terms.
type statRow struct {
	name     string
	total    bool
	requests int64
	failed   int64
	rps      float64
	hasRPS   bool
	metrics  map[string]float64
}

// parseStats reads the stats (or 0.x requests) table and the 0.x
// distribution table that holds its percentiles.
func parseStats(t *table, dist *table) ([]statRow, error) {
	for _, need := range [][]string{{"name"}, colCount, colFailures} {
		if !t.has(need...) {
			return nil, &importer.SyntaxError{File: t.file, Line: 1, Msg: fmt.Sprintf("no %q column; expected a Locust stats header (Type,Name,Request Count,Failure Count,…)", need[0])}
		}
	}
	percentiles, err := distPercentiles(dist)
	if err != nil {
		return nil, err
	}
	var rows []statRow
	for _, r := range t.rows {
		s, err := statOf(r)
		if err != nil {
			return nil, err
		}
		key := s.name
		if s.total {
			key = "Total"
		}
		for k, v := range percentiles[key] {
			s.metrics[k] = v
		}
		rows = append(rows, s)
	}
	return rows, nil
}

func statOf(r row) (statRow, error) {
	typ, name := strings.TrimSpace(r.str(colType...)), r.str("name")
	s := statRow{name: name, metrics: map[string]float64{}}
	s.total = (typ == "" || typ == "None") && (name == "Aggregated" || name == "Total")
	if typ != "" && typ != "None" {
		s.name = typ + " " + name
	}
	n, _, err := r.num(colCount...)
	if err != nil {
		return s, err
	}
	f, _, err := r.num(colFailures...)
	if err != nil {
		return s, err
	}
	s.requests, s.failed = int64(n), int64(f)
	if s.rps, s.hasRPS, err = r.num(colRPS...); err != nil {
		return s, err
	}
	for _, c := range []struct {
		cols []string
		key  string
	}{{colAvg, result.LatencyMean}, {colMax, result.LatencyMax}, {colMedian, result.LatencyP50}} {
		v, ok, err := r.num(c.cols...)
		if err != nil {
			return s, err
		}
		if ok && s.requests > 0 {
			s.metrics[c.key] = v
		}
	}
	for _, p := range percentileCols {
		v, ok, err := r.num(p.col)
		if err != nil {
			return s, err
		}
		if ok && s.requests > 0 {
			s.metrics[p.key] = v // the percentile column wins over the median column
		}
	}
	return s, nil
}

// distPercentiles reads the 0.x _distribution.csv, keyed by its "METHOD
// path" names and "Total".
func distPercentiles(dist *table) (map[string]map[string]float64, error) {
	out := map[string]map[string]float64{}
	if dist == nil {
		return out, nil
	}
	for _, r := range dist.rows {
		name := r.str("name")
		if name == "None Total" {
			name = "Total"
		}
		m := map[string]float64{}
		for _, p := range percentileCols {
			v, ok, err := r.num(p.col)
			if err != nil {
				return nil, err
			}
			if ok {
				m[p.key] = v
			}
		}
		out[name] = m
	}
	return out, nil
}
