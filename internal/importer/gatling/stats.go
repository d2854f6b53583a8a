package gatling

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// StatsFormat reads the report's js/stats.json (a tree of groups and
// requests), the same tree in js/stats.js, or js/global_stats.json (the
// top node's figures only).
type StatsFormat struct{}

func (StatsFormat) Name() string { return "gatling-stats-json" }

func (StatsFormat) Sniff(_ string, head []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || isStatsJS(t)) &&
		bytes.Contains(head, []byte(`"numberOfRequests"`)) &&
		(bytes.Contains(head, []byte(`"percentiles1"`)) || bytes.Contains(head, []byte(`"meanResponseTime"`)))
}

type figure struct {
	Total number `json:"total"`
	OK    number `json:"ok"`
	KO    number `json:"ko"`
}

// number is a figure that Gatling writes as a JSON number, a numeric
// string (2.x) or "-" when it has no value.
type number struct {
	V   float64
	Set bool
}

func (n *number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		if s == "" || s == "-" {
			return nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return &numberError{text: s}
		}
		n.V, n.Set = v, true
		return nil
	}
	err := json.Unmarshal(b, &n.V)
	n.Set = err == nil
	return err
}

// numberError is a figure that is neither a number nor "-".
type numberError struct{ text string }

func (e *numberError) Error() string { return fmt.Sprintf("%q is not a number", e.text) }

type statistics struct {
	NumberOfRequests *figure `json:"numberOfRequests"`
	Max              figure  `json:"maxResponseTime"`
	Mean             figure  `json:"meanResponseTime"`
	P1               figure  `json:"percentiles1"`
	P3               figure  `json:"percentiles3"`
	P4               figure  `json:"percentiles4"`
	RPS              figure  `json:"meanNumberOfRequestsPerSecond"`
}

// metrics maps the totals (OK and KO together, as raw imports count them).
// percentiles1–4 are read as p50/p75/p95/p99, Gatling's defaults; p75 has
// no metric.
func (s statistics) metrics() map[string]float64 {
	m := map[string]float64{}
	put := func(key string, n number) {
		if n.Set {
			m[key] = n.V
		}
	}
	put(result.LatencyMean, s.Mean.Total)
	put(result.LatencyP50, s.P1.Total)
	put(result.LatencyP95, s.P3.Total)
	put(result.LatencyP99, s.P4.Total)
	put(result.LatencyMax, s.Max.Total)
	put(result.RequestsPerSec, s.RPS.Total)
	if n := s.NumberOfRequests; n != nil && n.Total.Set && n.KO.Set && n.Total.V > 0 {
		m[result.RequestErrorPct] = 100 * n.KO.V / n.Total.V
	}
	return m
}

// node is a group or request of stats.json.
type node struct {
	Type     string      `json:"type"`
	Name     string      `json:"name"`
	Path     string      `json:"path"`
	Stats    *statistics `json:"stats"`
	Contents nodes       `json:"contents"`
}

// nodes keeps the report's order of a "contents" object.
type nodes []node

func (ns *nodes) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New(`"contents" is not an object`)
	}
	for dec.More() {
		if _, err := dec.Token(); err != nil { // the key
			return err
		}
		var n node
		if err := dec.Decode(&n); err != nil {
			return err
		}
		*ns = append(*ns, n)
	}
	return nil
}

// document is stats.json ("stats") or global_stats.json (figures on top).
type document struct {
	node
	statistics
}

func (StatsFormat) Import(name string, r io.Reader) (*result.Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	const expected = `expected Gatling's js/stats.json, js/stats.js or js/global_stats.json: an object with "numberOfRequests" figures`
	if isStatsJS(data) {
		if data, err = statsJSToJSON(data); err != nil {
			return nil, &importer.SyntaxError{File: name, Msg: err.Error() + "; " + expected}
		}
	}
	var doc document
	var ne *numberError
	if err := json.Unmarshal(data, &doc); errors.As(err, &ne) {
		// The decoder gives no offset for it: name the line of its first use.
		line := 0
		if at := bytes.Index(data, []byte(strconv.Quote(ne.text))); at >= 0 {
			line = importer.LineAt(data, int64(at))
		}
		return nil, &importer.SyntaxError{File: name, Line: line, Msg: fmt.Sprintf("%v; %s", ne, expected)}
	} else if err != nil {
		return nil, importer.JSONError(name, data, err, expected)
	}
	top, steps := doc.statistics, []result.Step(nil)
	if doc.Stats != nil {
		top = *doc.Stats
		steps = requestSteps(doc.Contents, nil)
	}
	n := top.NumberOfRequests
	if n == nil || !n.Total.Set {
		return nil, &importer.SyntaxError{File: name, Msg: "no numberOfRequests.total; " + expected}
	}
	if err := checkCounts(name, n); err != nil {
		return nil, err
	}
	run := &result.Run{Metrics: top.metrics(), Steps: steps}
	run.Requests = result.Requests{Total: int64(n.Total.V), Counted: result.CountTotal}
	if n.KO.Set { // "-" or absent: failures unknown, not zero
		run.Requests.Failed, run.Requests.Counted = int64(n.KO.V), result.CountRequests
	}
	run.Notes = []string{"summary file: figures as Gatling's report computed them; percentiles1/3/4 read as p50/p95/p99 (Gatling's defaults), no p90"}
	return run, nil
}

func checkCounts(name string, n *figure) error {
	total, ko := n.Total.V, n.KO.V
	switch {
	case total < 0 || total != math.Trunc(total) || total > math.MaxInt64/2:
		return &importer.SyntaxError{File: name, Msg: fmt.Sprintf("numberOfRequests.total %v is not a count", total)}
	case total == 0:
		return &importer.Unsupported{File: name, Reason: "the report counts no requests"}
	case ko < 0 || ko > total || ko != math.Trunc(ko):
		return &importer.SyntaxError{File: name, Msg: fmt.Sprintf("numberOfRequests.ko %v is not a count between 0 and the total %v", ko, total)}
	}
	return nil
}

func requestSteps(ns nodes, out []result.Step) []result.Step {
	for _, n := range ns {
		if n.Type == "REQUEST" && n.Stats != nil {
			st := result.Step{Name: cmp.Or(n.Path, n.Name), Metrics: n.Stats.metrics()}
			if c := n.Stats.NumberOfRequests; c != nil {
				st.Requests, st.Failed = int64(c.Total.V), int64(c.KO.V)
			}
			out = append(out, st)
		}
		out = requestSteps(n.Contents, out)
	}
	return out
}

// Gatling's HTML report (up to 3.13) writes js/stats.js beside
// js/stats.json: the same tree as a JavaScript statement, "var stats = {…}"
// followed by the report's functions, with the tree's own keys (type,
// name, path, pathFormatted, stats, contents) unquoted and each node's
// figures as JSON. Some reports keep only stats.js, so it is read too:
// the object is cut out and its bare keys quoted, which makes it the JSON
// of stats.json, line for line.

// statsJSPrefix opens js/stats.js.
var statsJSPrefix = []byte("var stats = ")

func isStatsJS(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), statsJSPrefix)
}

// statsJSToJSON returns the object of a stats.js as JSON. Bytes before the
// object become spaces and line breaks stay where they are, so that a
// decoding error's line is the line in the file.
func statsJSToJSON(data []byte) ([]byte, error) {
	at := bytes.Index(data, statsJSPrefix) + len(statsJSPrefix)
	open := bytes.IndexByte(data[at:], '{')
	if open < 0 {
		return nil, errors.New(`"var stats = " is not followed by an object`)
	}
	out := make([]byte, 0, len(data)+len(data)/8)
	for _, c := range data[:at+open] {
		if c != '\n' {
			c = ' '
		}
		out = append(out, c)
	}
	depth, inString, escaped, expectKey := 0, false, false, false
	for i := at + open; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == '"':
			inString, expectKey = true, false
		case c == '{':
			depth++
			expectKey = true
		case c == ',':
			expectKey = depth > 0
		case c == '}':
			depth--
			if depth == 0 {
				return append(out, c), nil
			}
		case expectKey && isIdentStart(c):
			j := i
			for j < len(data) && isIdent(data[j]) {
				j++
			}
			out = append(append(append(out, '"'), data[i:j]...), '"')
			i = j - 1
			expectKey = false
			continue
		case c != ' ' && c != '\t' && c != '\r' && c != '\n':
			expectKey = false
		}
		out = append(out, c)
	}
	return nil, errors.New("the stats object is not closed: the file is cut")
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isIdent(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }
