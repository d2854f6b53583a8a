package importer

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// MessageClasses puts a tool's free-text failure message in an error
// class: an HTTP status failure, else a timeout, else a transport failure,
// else a failed expectation (a check or assertion of the script's own).
type MessageClasses struct {
	// Status, when set, reports a message that names an HTTP status
	// failure; it sees the message as written.
	Status func(msg string) bool
	// Timeout and Connection are lower-case fragments of the messages of
	// timeouts and of transport failures.
	Timeout, Connection []string
}

func (c MessageClasses) Class(msg string) string {
	lower := strings.ToLower(msg)
	in := func(f string) bool { return strings.Contains(lower, f) }
	switch {
	case c.Status != nil && c.Status(msg):
		return result.ErrStatus
	case slices.ContainsFunc(c.Timeout, in):
		return result.ErrTimeout
	case slices.ContainsFunc(c.Connection, in):
		return result.ErrConnection
	}
	return result.ErrExpect
}

// OneLine keeps a message to one readable line: white space folded, and
// at most 200 characters.
func OneLine(s string) string { return Clip(strings.Join(strings.Fields(s), " "), 200) }

func Digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// Clip cuts s to at most n characters, marking a cut with "…".
func Clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// DropLatencies deletes the latency metrics of a run whose tool timed
// nothing (every request failed), or only those it printed as 0.
func DropLatencies(m map[string]float64, zeroOnly bool) {
	for _, k := range []string{result.LatencyMax, result.LatencyMean, result.LatencyP50, result.LatencyP90, result.LatencyP95, result.LatencyP99} {
		if !zeroOnly || m[k] == 0 {
			delete(m, k)
		}
	}
}

// SplitCSV splits one line of a CSV file (no line break) into its fields,
// slices of line or, for a line with a quote, of a copy. Most rows of a
// per-request file hold no quote, and splitting those at the delimiter is
// several times cheaper than encoding/csv, which reads a quoted row, so
// that both read every line alike. dst is reused.
func SplitCSV(dst [][]byte, line []byte, comma byte) ([][]byte, error) {
	if bytes.IndexByte(line, '"') < 0 {
		return Split(dst, line, comma), nil
	}
	dst = dst[:0]
	cr := csv.NewReader(bytes.NewReader(line))
	cr.Comma = rune(comma)
	cr.FieldsPerRecord = -1
	f, err := cr.Read()
	if err != nil {
		return dst, err
	}
	for _, s := range f {
		dst = append(dst, []byte(s))
	}
	return dst, nil
}

// Split splits line at every sep into dst, which it reuses.
func Split[S ~string | ~[]byte](dst []S, line S, sep byte) []S {
	dst, start := dst[:0], 0
	for i := 0; i < len(line); i++ {
		if line[i] == sep {
			dst, start = append(dst, line[start:i]), i+1
		}
	}
	return append(dst, line[start:])
}

// maxInterned bounds the strings an Interner keeps: a file of a distinct
// URL per request must not keep them all twice.
const maxInterned = 1 << 14

// Interner hands out one string per distinct content, so that the names
// and tags a per-request file repeats on every line cost no allocation.
// The zero value is ready to use.
type Interner struct{ m map[string]string }

// maxInternedLen is the longest string an Interner keeps: a long one is
// rare, and keeping it would hold it for the whole import.
const maxInternedLen = 1 << 10

// String is b as a string, the same one for the same bytes (up to
// maxInterned distinct ones of up to maxInternedLen bytes; else a new
// string each time).
func (in *Interner) String(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = map[string]string{}
	}
	if len(in.m) < maxInterned && len(s) <= maxInternedLen {
		in.m[s] = s
	}
	return s
}

// Summarize drops what result JSON cannot hold (absurd figures such as
// 1e308 × 100 make infinities) and computes the derived metrics, each only
// from the counts the file has (result.Run.Summarize).
func Summarize(run *result.Run) {
	if math.IsInf(run.Window, 0) || math.IsNaN(run.Window) || run.Window < 0 {
		run.Window = 0
	}
	maps.DeleteFunc(run.Metrics, func(_ string, v float64) bool { return math.IsInf(v, 0) || math.IsNaN(v) })
	run.Summarize()
}

var Percentiles = map[float64]string{50: result.LatencyP50, 90: result.LatencyP90, 95: result.LatencyP95, 99: result.LatencyP99}

// Millis reads a tool's duration ("850.00us", "10.57ms", "1.50m") in
// milliseconds.
func Millis(s string) (float64, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("expected a duration such as 10.57ms, got %q", s)
	}
	return float64(d) / float64(time.Millisecond), nil
}

// AddError lists n requests of a class in the run's errors, when there are
// any.
func AddError(run *result.Run, class string, n int64, sample string) {
	if n > 0 {
		run.Errors = append(run.Errors, result.ErrorClass{Class: class, Count: n, Sample: sample})
	}
}

// Percentile sets the metric of the percentile p ("95", "99.00"), when
// there is one, to v.
func Percentile(metrics map[string]float64, p string, v float64) {
	f, _ := strconv.ParseFloat(p, 64)
	if key, ok := Percentiles[f]; ok {
		metrics[key] = v
	}
}
