package locust

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Column names across Locust versions (lower case): 0.x wrote
// "# requests"/"# failures" and "Method"; 0.13+ "Request Count" and "Type".
var (
	colType     = []string{"type", "method"}
	colCount    = []string{"request count", "# requests"}
	colFailures = []string{"failure count", "# failures"}
)

type column struct {
	names []string
	key   string
}

// percentileCols map Locust's percentile columns to metrics; tailgate has
// no key for its 66 %, 75 %, 80 %, 98 %, 99.9 % and others. A percentile
// column wins over the median column, which comes before it.
var (
	percentileCols = []column{{[]string{"50%"}, result.LatencyP50}, {[]string{"90%"}, result.LatencyP90},
		{[]string{"95%"}, result.LatencyP95}, {[]string{"99%"}, result.LatencyP99}}
	latencyCols = append([]column{{[]string{"average response time"}, result.LatencyMean},
		{[]string{"max response time"}, result.LatencyMax}, {[]string{"median response time"}, result.LatencyP50}}, percentileCols...)
)

// roundingNote: Locust stores response times in buckets of two significant
// digits, so its percentiles are rounded; mean and max are exact.
const roundingNote = "Locust rounds response-time percentiles to 2 significant digits (e.g. 1234 ms is reported as 1200 ms); mean and max are exact"

type statRow struct {
	name     string
	total    bool
	requests int64
	failed   int64
	rps      float64
	hasRPS   bool
	metrics  map[string]float64
}

// parseStats reads the stats table, with 0.x's distribution table.
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
		maps.Copy(s.metrics, percentiles[key])
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
	n, _, err1 := r.num(colCount...)
	f, _, err2 := r.num(colFailures...)
	rps, hasRPS, err3 := r.num("requests/s")
	if err := cmp.Or(err1, err2, err3); err != nil {
		return s, err
	}
	s.requests, s.failed, s.rps, s.hasRPS = int64(n), int64(f), rps, hasRPS
	for _, c := range latencyCols {
		v, ok, err := r.num(c.names...)
		if err != nil {
			return s, err
		}
		if ok && s.requests > 0 {
			s.metrics[c.key] = v
		}
	}
	return s, nil
}

// distPercentiles reads 0.x's _distribution.csv by "METHOD path" or "Total".
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
			v, ok, err := r.num(p.names...)
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

var statusRe = regexp.MustCompile(`\b[1-5]\d\d (Client|Server) Error\b|\bstatus(?: code)?:? [1-5]\d\d\b`)

// failureClasses classes Locust failure messages: an HTTP status error, a
// timeout, a transport failure in Python exception text, or else a failed
// expectation (catch_response failures carry the script's own text).
var failureClasses = importer.MessageClasses{
	Status:  statusRe.MatchString,
	Timeout: []string{"timed out", "timeout"},
	Connection: []string{
		"connectionerror", "remotedisconnected", "gaierror", "connectionrefused",
		"connectionreset", "newconnectionerror", "max retries", "brokenpipe",
		"broken pipe", "sslerror", "connection aborted", "connectionaborted", "connection refused",
	},
}

func parseFailures(t *table) ([]result.ErrorClass, error) {
	var out []result.ErrorClass
	for _, r := range t.rows {
		n, _, err := r.num("occurrences")
		if err != nil {
			return nil, err
		}
		msg := strings.Trim(r.str("error"), `"`)
		step := r.str("name")
		if m := strings.TrimSpace(r.str("method")); m != "" && m != "None" {
			step = m + " " + step
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		out = append(out, result.ErrorClass{Class: failureClasses.Class(msg), Step: cleanName(step), Count: int64(n), Sample: cleanName(msg)})
	}
	return out, nil
}

// nonUTF8Note: Locust 1.x on Windows wrote names in the system code page
// (often GBK). The encoding cannot be known for sure, so the bytes are kept
// visible rather than guessed.
const nonUTF8Note = "some names are not UTF-8 (probably GBK or another legacy code page); their non-ASCII bytes are written as \\xNN"

// cleanName writes every non-ASCII byte of a name that is not UTF-8 as
// \xNN: legacy multi-byte text can hold runs that happen to be valid
// UTF-8, and decoding those would print unrelated characters.
func cleanName(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			fmt.Fprintf(&b, `\x%02x`, c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
