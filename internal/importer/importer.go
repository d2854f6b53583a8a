// Package importer owns turning foreign load-test results (k6, Locust,
// JMeter, Gatling, vegeta, wrk, ab, hey, oha, bombardier, Artillery) into
// result.Run: the Format contract, its typed errors, and what the formats
// share in reading foreign files (a line reader that sees where a file was
// cut, text reports, JSON errors in words of JSON, the classing and
// shortening of messages and names). Each format is a sub-package that
// registers itself here (internal/importer/all links them in); nothing
// past this package knows which tool measured a run.
package importer

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// Format decodes one foreign file format into one run.
type Format interface {
	Name() string // for --format, e.g. "k6-summary-export"
	// Sniff reports whether a file with this name and these first bytes
	// (up to 64 KiB) is in this format.
	Sniff(name string, head []byte) bool
	// Import reads one file; name is for messages and, for formats spread
	// over several files, to find the siblings.
	Import(name string, r io.Reader) (*result.Run, error)
}

// SyntaxError is a file that does not parse: where, and what was expected.
type SyntaxError struct {
	File string
	Line int // 1-based; 0 when unknown
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Unsupported is a well-formed file that holds nothing tailgate can judge,
// e.g. a k6 browser test without HTTP request metrics.
type Unsupported struct {
	File   string
	Reason string
}

func (e *Unsupported) Error() string { return fmt.Sprintf("%s: %s", e.File, e.Reason) }

// formats is written by the sub-packages' init functions only, which run
// before anything reads it: it needs no lock.
var formats = map[string]Format{}

// Register makes formats available; sub-packages call it from init.
func Register(fs ...Format) {
	for _, f := range fs {
		if _, dup := formats[f.Name()]; dup {
			panic("importer: format registered twice: " + f.Name())
		}
		formats[f.Name()] = f
	}
}

func Lookup(name string) (Format, bool) {
	f, ok := formats[name]
	return f, ok
}

// Names lists the registered formats, sorted.
func Names() []string { return slices.Sorted(maps.Keys(formats)) }

func Detect(name string, head []byte) (Format, error) {
	for _, n := range Names() {
		if f := formats[n]; f.Sniff(name, head) {
			return f, nil
		}
	}
	return nil, fmt.Errorf("%s: format not recognised (known: %v); name it with --format", name, Names())
}

// MaxMillis bounds a request's time in milliseconds, far above any real
// one, so that a corrupt value cannot overflow a time.Duration.
const MaxMillis = 366 * 24 * 3600 * 1000

// CheckEpochMillis checks a timestamp in epoch milliseconds, as JMeter and
// Gatling write them: a value past the year 9999 is a corrupt file.
func CheckEpochMillis(ms int64) error {
	if ms < 0 || ms > 253402300799999 { // the last millisecond of 9999
		return fmt.Errorf("timestamp %d ms is outside the years 1970–9999", ms)
	}
	return nil
}

// CheckTime checks a time read from a file: result JSON (RFC 3339) holds
// the years 0–9999 only; the zero time (unknown) is valid.
func CheckTime(t time.Time) error {
	if !t.IsZero() && (t.Year() < 0 || t.Year() > 9999) {
		return fmt.Errorf("timestamp in the year %d; expected the years 0–9999", t.Year())
	}
	return nil
}

// Count reads a count a report holds as a JSON number: values outside what
// a count can be (negative, NaN, beyond 2^53) are clamped, never wrapped.
func Count(v float64) int64 {
	if !(v > 0) {
		return 0
	}
	return int64(min(v, 1<<53))
}
