// Package jmeter owns the Apache JMeter importers: JTL result files in CSV
// form ("jmeter-jtl-csv") and XML form ("jmeter-jtl-xml"), and the HTML
// dashboard's statistics.json ("jmeter-statistics-json").
//
// A transaction controller sample (response message "Number of samples in
// transaction : …") times samples that are in the file themselves, so it is
// no request unless the file holds nothing else. A sub-sample (redirect hop,
// embedded resource) is folded into its parent, whose elapsed time covers
// it: in XML it is nested in the parent; in CSV it is labelled
// "<parent label>-<n>", on the parent's thread, within the parent's time.
package jmeter

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// sample is one JTL row or element, in the units JMeter writes.
type sample struct {
	start      time.Time
	elapsedMS  int64
	label      string
	code       string // responseCode
	message    string // responseMessage
	thread     string
	failure    string // failureMessage or the first failed assertion
	success    bool
	hasSuccess bool // the file records success at all
}

func (s sample) end() time.Time { return s.start.Add(time.Duration(s.elapsedMS) * time.Millisecond) }

func parseElapsed(s string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || v < 0 || v > importer.MaxMillis {
		return 0, fmt.Errorf("%q is not a whole number of milliseconds", s)
	}
	return v, nil
}

// transactionPrefix starts a Transaction Controller sample's message.
const transactionPrefix = "Number of samples in transaction"

func (s sample) isTransaction() bool { return strings.HasPrefix(s.message, transactionPrefix) }

// isSubSampleOf reports whether s is a redirect hop or embedded resource of
// parent: labelled "<parent>-<n>" (or "-<n>-<m>" for nested ones), on the
// same thread and starting within the parent's time.
func (s sample) isSubSampleOf(parent sample) bool {
	n, ok := strings.CutPrefix(s.label, parent.label+"-")
	return ok && s.thread == parent.thread && !s.start.Before(parent.start) && !s.start.After(parent.end()) &&
		!slices.ContainsFunc(strings.Split(n, "-"), func(n string) bool { return !importer.Digits(n) })
}

// setSuccess reads a success flag; false when it is neither true nor false.
func (s *sample) setSuccess(v string) bool {
	v = strings.TrimSpace(v)
	s.success, s.hasSuccess = v == "true", true
	return v == "true" || v == "false"
}

type runBuilder struct {
	rb         *rawrun.Builder
	span       rawrun.Span
	hasSuccess bool
}

// newRunBuilder makes a builder; budget, when set, is the step histograms
// left to every run of the file (see rawrun.Options).
func newRunBuilder(budget *int) *runBuilder {
	return &runBuilder{rb: rawrun.New(rawrun.Options{What: "labels", Budget: budget})}
}

func (b *runBuilder) count() int64 { return b.rb.Requests().Total }

func (b *runBuilder) add(s sample) {
	st := b.rb.Request(s.label, time.Duration(s.elapsedMS)*time.Millisecond)
	b.span.Add(s.start, s.end())
	b.hasSuccess = b.hasSuccess || s.hasSuccess
	if !s.hasSuccess || s.success {
		return
	}
	class, msg := classify(s)
	b.rb.Fail(st, class, "", msg)
}

// finish returns the run with its summary metrics. A file without a success
// column says nothing about failures, so it gets no error rate.
func (b *runBuilder) finish(notes []string) *result.Run {
	r := b.rb.Run(notes...)
	r.Started = b.span.First.UTC()
	r.Window = b.span.Seconds()
	if !b.hasSuccess {
		r.Requests.Counted = result.CountTotal // failures unknown, not zero
		r.Notes = append(r.Notes, "the file does not record whether samples succeeded: no error rate")
	}
	r.Summarize()
	return r
}

// sampleFilter applies the package doc's request rules, in file order.
type sampleFilter struct {
	requests     *runBuilder
	transactions *runBuilder
	parents      map[string]sample // last request per thread
	folded       int
}

func newSampleFilter(budget *int) *sampleFilter {
	return &sampleFilter{requests: newRunBuilder(budget), transactions: newRunBuilder(budget), parents: map[string]sample{}}
}

// add takes a sample of a flat file (CSV), where sub-samples are known
// only by their label, thread and time.
func (f *sampleFilter) add(s sample) {
	if s.isTransaction() {
		f.transactions.add(s)
		return
	}
	if p, ok := f.parents[s.thread]; ok && s.isSubSampleOf(p) {
		f.folded++
		return
	}
	f.parents[s.thread] = s
	f.requests.add(s)
}

func (f *sampleFilter) finish(notes []string) *result.Run {
	if f.folded > 0 {
		notes = append(notes, fmt.Sprintf("%d sub-samples (redirect hops, embedded resources) folded into their parent request", f.folded))
	}
	tx := f.transactions.count()
	switch {
	case tx > 0 && f.requests.count() == 0:
		notes = append(notes, fmt.Sprintf("the file holds only transaction controller samples: imported its %d transactions as the requests", tx))
		return f.transactions.finish(notes)
	case tx > 0:
		notes = append(notes, fmt.Sprintf("%d transaction controller samples excluded: their requests are counted on their own", tx))
	}
	return f.requests.finish(notes)
}

func init() { importer.Register(CSVFormat{}, XMLFormat{}, StatisticsFormat{}) }

// nonHTTPPrefix starts the response code JMeter writes when a request got
// no HTTP response at all (the exception's class follows).
const nonHTTPPrefix = "Non HTTP response code:"

// classify puts a failed sample in an error class, with its cause.
func classify(s sample) (class, msg string) {
	code := strings.TrimSpace(s.code)
	if strings.HasPrefix(code, nonHTTPPrefix) {
		exc := strings.TrimSpace(strings.TrimPrefix(code, nonHTTPPrefix))
		msg = exc
		if m := strings.TrimSpace(s.message); m != "" {
			msg += ": " + strings.TrimSpace(strings.TrimPrefix(m, "Non HTTP response message:"))
		}
		return transportClass(exc), importer.OneLine(msg)
	}
	// A page whose embedded resource got no response says so in its message.
	if i := strings.Index(s.message, nonHTTPPrefix); i >= 0 {
		return transportClass(s.message[i:]), importer.OneLine(s.message)
	}
	if strings.Contains(s.failure, "lasted too long") { // Duration Assertion
		return result.ErrTimeout, importer.OneLine(s.failure)
	}
	status, err := strconv.Atoi(code)
	if err == nil && (status < 200 || status >= 400) {
		return result.ErrStatus, importer.OneLine(code + " " + s.message)
	}
	if s.failure != "" {
		return result.ErrExpect, importer.OneLine(s.failure)
	}
	if code == "" {
		return result.ErrExpect, "sample failed without a response code"
	}
	return result.ErrExpect, importer.OneLine("sample marked failed with response " + code + " " + s.message)
}

func transportClass(text string) string {
	if strings.Contains(strings.ToLower(text), "timeout") {
		return result.ErrTimeout
	}
	return result.ErrConnection
}

// JMeter appends to an existing results file without a new header, so a
// JTL may hold several runs. A new run starts at a sample more than the
// run's gap outside the time its samples cover (after the last ended, or
// before the first began): within a run JMeter keeps a sample in flight or
// pauses in proportion to its own pacing.
const (
	minRunGap = 10 * time.Second
	// gapSpacings times the mean spacing of sample starts, so that a slow
	// plan (long think times) is not cut at each request.
	gapSpacings = 100
	// Before minRunSamples the pacing is unknown: only earlyRunGap ends a run.
	minRunSamples = 10
	earlyRunGap   = 5 * time.Minute
	maxRuns       = 100 // each run holds histograms
)

// runSplitter watches a file's samples in order and tells where a run begins.
type runSplitter struct {
	n                     int
	firstStart, lastStart time.Time
	lastEnd               time.Time
}

func (r *runSplitter) gap() time.Duration {
	if r.n < minRunSamples {
		return earlyRunGap
	}
	spacing := r.lastStart.Sub(r.firstStart) / time.Duration(r.n-1)
	return max(minRunGap, gapSpacings*spacing)
}

// next reports whether s begins a new run, and the pause before it.
func (r *runSplitter) next(s sample) (newRun bool, pause time.Duration) {
	if r.n > 0 {
		g := r.gap()
		if p := s.start.Sub(r.lastEnd); p > g {
			newRun, pause = true, p
		} else if p := r.firstStart.Sub(s.end()); p > g {
			newRun, pause = true, p
		}
	}
	if newRun {
		*r = runSplitter{}
	}
	r.add(s)
	return newRun, pause
}

func (r *runSplitter) add(s sample) {
	if r.n == 0 || s.start.Before(r.firstStart) {
		r.firstStart = s.start
	}
	if r.n == 0 || s.start.After(r.lastStart) {
		r.lastStart = s.start
	}
	if r.n == 0 || s.end().After(r.lastEnd) {
		r.lastEnd = s.end()
	}
	r.n++
}

func splitNote(k, n, line int, pause time.Duration) string {
	if k == 1 {
		return fmt.Sprintf("run 1 of %d appended in this file (JMeter appends to an existing results file); the next starts after a pause in the timestamps longer than %v and 100 times the run's spacing", n, minRunGap)
	}
	return fmt.Sprintf("run %d of %d appended in this file: starts at line %d, %s away from the run before it", k, n, line, pause.Round(time.Second))
}
