package target

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// Counters reads a service's work counters (target.counters): named
// samples of a Prometheus endpoint, or a command's JSON object. Growth is
// what a window between two reads did.
type Counters struct {
	Sources  []config.CounterSource
	BaseURL  string // for a source's prometheus.path
	Client   *http.Client
	Children Children // runs the command sources
}

// CounterSnapshot is every counter read at one moment, by
// "<source>.<counter>"; a source not read is absent, with a note.
type CounterSnapshot struct {
	Values     map[string]float64
	Notes      []string
	Statements map[string]result.Statement // pg_stat_statements', by Key
	read       map[string]bool             // the sources read
}

func (c Counters) Read(ctx context.Context) CounterSnapshot {
	snap := CounterSnapshot{Values: map[string]float64{}, read: map[string]bool{}}
	for _, s := range c.Sources {
		values, stmts, err := c.readSource(ctx, s)
		if err != nil {
			snap.Notes = append(snap.Notes, fmt.Sprintf("counters %s not read: %v", s.Name, err))
			continue
		}
		snap.read[s.Name] = true
		for k, v := range values {
			snap.Values[s.Name+"."+k] = v
		}
		if len(stmts) > 0 && snap.Statements == nil {
			snap.Statements = map[string]result.Statement{}
		}
		maps.Copy(snap.Statements, stmts)
	}
	return snap
}

// readSource reads a source's counters, and pg_stat_statements' statements.
func (c Counters) readSource(ctx context.Context, s config.CounterSource) (values map[string]float64, stmts map[string]result.Statement, err error) {
	if s.PGStatStatements != nil {
		return c.readPGStat(ctx, s)
	}
	ctx, cancel := context.WithTimeout(ctx, durationOr(s.Timeout.D(), config.DefaultCounterTimeout.D()))
	defer cancel()
	if p := s.Prometheus; p != nil {
		values, err = c.readPrometheus(ctx, cmp.Or(p.URL, joinURL(c.BaseURL, p.Path)), p.Metrics)
		return values, nil, err
	}
	out, saw, err := runCommand(ctx, s.Command, c.Children)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", saw, err)
	}
	values, err = parseJSONCounters(out)
	return values, nil, err
}

func (c Counters) readPrometheus(ctx context.Context, url string, names []string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := cmp.Or(c.Client, &http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return nil, fmt.Errorf("GET %s: status %d: %s", url, resp.StatusCode, snippet(body))
	}
	sums, err := ParsePrometheusText(io.LimitReader(resp.Body, 64<<20), names)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	missing := slices.DeleteFunc(slices.Clone(names), func(n string) bool { _, ok := sums[n]; return ok })
	if len(missing) > 0 {
		return sums, fmt.Errorf("GET %s has no sample named %s", url, strings.Join(missing, ", "))
	}
	return sums, nil
}

// ParsePrometheusText sums each of names over its label sets in the
// Prometheus text format; a named sample that is not a finite number is an
// error.
func ParsePrometheusText(r io.Reader, names []string) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		name, rest, err := splitSample(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if !slices.Contains(names, name) {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("line %d: sample %s has no value", line, name)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("line %d: sample %s has value %q, want a finite number", line, name, snippet([]byte(fields[0])))
		}
		out[name] += v
	}
	return out, sc.Err()
}

// splitSample splits a sample line into its name and what follows its
// label set (whose quoted values may hold '}', spaces and \").
func splitSample(line string) (name, rest string, err error) {
	end := strings.IndexAny(line, "{ \t")
	if end < 0 {
		return line, "", nil
	}
	name = line[:end]
	if line[end] != '{' {
		return name, line[end:], nil
	}
	inQuote, escaped := false, false
	for i := end + 1; i < len(line); i++ {
		switch ch := line[i]; {
		case escaped:
			escaped = false
		case ch == '\\' && inQuote:
			escaped = true
		case ch == '"':
			inQuote = !inQuote
		case ch == '}' && !inQuote:
			return name, line[i+1:], nil
		}
	}
	return "", "", fmt.Errorf("label set of %s is not closed", name)
}

// parseJSONCounters reads a command's JSON object of counters; a member
// that is not a number (a null from an empty sum) is an error: a counter
// not read is absent, never zero.
func parseJSONCounters(out []byte) (map[string]float64, error) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(out)))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("stdout %q is not a JSON object of counters: %v", snippet(out), err)
	}
	values := map[string]float64{}
	var bad []string
	for k, v := range obj {
		n, isNumber := v.(json.Number)
		f, err := n.Float64()
		switch {
		case !config.CounterName.MatchString(k):
			bad = append(bad, fmt.Sprintf("%q (not a counter name: letters, digits and _)", snippet([]byte(k))))
		case !isNumber:
			bad = append(bad, fmt.Sprintf("%s (%v)", k, v))
		case err != nil:
			bad = append(bad, k)
		default:
			values[k] = f
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return nil, fmt.Errorf("members that are not numeric counters: %s", strings.Join(bad, ", "))
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("stdout %q names no counter", snippet(out))
	}
	return values, nil
}

// Growth is each counter's growth; one missing at either end, or that went
// down (the service restarted), is absent with a note.
func Growth(before, after CounterSnapshot) (map[string]float64, []string) {
	notes := append(slices.Clone(before.Notes), after.Notes...)
	failed := func(k string) bool { // its source's note says so already
		source, _, _ := strings.Cut(k, ".")
		return slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, "counters "+source+" ") })
	}
	out := map[string]float64{}
	for _, k := range slices.Sorted(maps.Keys(after.Values)) {
		a := after.Values[k]
		b, ok := before.Values[k]
		switch {
		case !ok && !failed(k):
			notes = append(notes, fmt.Sprintf("counter %s was not read at the window's start", k))
		case !ok:
		case a < b:
			notes = append(notes, fmt.Sprintf("counter %s went down during the window (%g → %g): the service restarted or reset it", k, b, a))
		default:
			out[k] = a - b
		}
	}
	for _, k := range slices.Sorted(maps.Keys(before.Values)) {
		if _, ok := after.Values[k]; !ok && !failed(k) {
			notes = append(notes, fmt.Sprintf("counter %s was not read at the window's end", k))
		}
	}
	return out, notes
}
