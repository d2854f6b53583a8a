package jmeter

import (
	"fmt"
	"strconv"
	"strings"
	"time"

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

// maxElapsedMS bounds a sample's elapsed time, far above any real one, so
// that a corrupt value cannot overflow a time.Duration.
const maxElapsedMS = 366 * 24 * 3600 * 1000

// parseElapsed reads an elapsed time in whole milliseconds.
func parseElapsed(s string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || v < 0 || v > maxElapsedMS {
		return 0, fmt.Errorf("%q is not a whole number of milliseconds", s)
	}
	return v, nil
}

// transactionPrefix starts the response message JMeter's Transaction
// Controller gives the samples it generates.
const transactionPrefix = "Number of samples in transaction"

func (s sample) isTransaction() bool { return strings.HasPrefix(s.message, transactionPrefix) }

// isSubSampleOf reports whether s is a redirect hop or embedded resource of
// parent: labelled "<parent>-<n>" (or "-<n>-<m>" for nested ones), on the
// same thread and starting within the parent's time.
func (s sample) isSubSampleOf(parent sample) bool {
	if s.thread != parent.thread || !strings.HasPrefix(s.label, parent.label+"-") {
		return false
	}
	if !isDashedDigits(s.label[len(parent.label)+1:]) {
		return false
	}
	return !s.start.Before(parent.start) && !s.start.After(parent.end())
}

func isDashedDigits(s string) bool {
	for _, part := range strings.Split(s, "-") {
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return false
		}
	}
	return true
}

// setSuccess reads a success flag; false when it is neither true nor false.
func (s *sample) setSuccess(v string) bool {
	v = strings.TrimSpace(v)
	s.success, s.hasSuccess = v == "true", true
	return v == "true" || v == "false"
}

// runBuilder accumulates samples into a run.
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

// sampleFilter applies the request rules of the package doc to a stream of
// samples in file order.
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

// finish builds the run, with notes on what was excluded and why.
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
