// Package rawrun owns building a result.Run from per-request records: the
// latency histogram and counts, one step per request name and one error
// class per class, step and detail, in the order first seen, with the
// steps bounded. The time a run covers is the caller's (see Span).
package rawrun

import (
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// MaxSteps bounds the steps of one run that get a latency histogram (each
// takes about 190 KB): a file that names every URL apart must not exhaust
// memory.
const MaxSteps = 200

// Options say how a Builder names and bounds its steps.
type Options struct {
	// What the step names are, for the note on steps past MaxSteps.
	What string
	// Pool, when set, is the step that takes the requests of every name
	// past MaxSteps. When empty, such steps are kept, without a latency
	// histogram.
	Pool string
	// Budget, when set and Pool is empty, is the number of step
	// histograms left to the builders that share it: those of the runs
	// of one file, so that a file of many runs is bounded as one run is.
	Budget *int
}

type Builder struct {
	opts     Options
	latency  *hist.Histogram
	requests result.Requests // both counted: every request is a record
	steps    map[string]*result.Step
	order    []string
	errs     map[errKey]*result.ErrorClass
	errOrder []errKey
	pooled   bool
	bare     int // steps kept without a histogram
}

// errKey is one error class of one step; detail splits a class further,
// e.g. by HTTP status.
type errKey struct{ class, step, detail string }

func New(opts Options) *Builder {
	return &Builder{
		opts:     opts,
		latency:  hist.New(),
		requests: result.Requests{Counted: result.CountRequests},
		steps:    map[string]*result.Step{},
		errs:     map[errKey]*result.ErrorClass{},
	}
}

func (b *Builder) Requests() result.Requests { return b.requests }

// Request records one request of the named step that took d, and returns
// the step it was counted in (maybe the pool).
func (b *Builder) Request(step string, d time.Duration) *result.Step {
	st := b.step(step)
	st.Requests++
	if st.Latency != nil {
		st.Latency.Record(d)
	}
	b.requests.Total++
	b.latency.Record(d)
	return st
}

// Fail counts the request just recorded in st as failed in the error class
// of this class, step and detail; sample is a new class's message.
func (b *Builder) Fail(st *result.Step, class, detail, sample string) {
	st.Failed++
	b.requests.Failed++
	k := errKey{class, st.Name, detail}
	e, ok := b.errs[k]
	if !ok {
		e = &result.ErrorClass{Class: class, Step: st.Name, Sample: sample}
		b.errs[k] = e
		b.errOrder = append(b.errOrder, k)
	}
	e.Count++
}

func (b *Builder) step(name string) *result.Step {
	if st, ok := b.steps[name]; ok {
		return st
	}
	if b.opts.Pool != "" && len(b.order) >= MaxSteps {
		b.pooled = true
		name = b.opts.Pool
		if st, ok := b.steps[name]; ok {
			return st
		}
	}
	st := &result.Step{Name: name}
	if b.opts.Pool != "" || (len(b.steps) < MaxSteps && b.takeBudget()) {
		st.Latency = hist.New()
	} else {
		b.bare++
	}
	b.steps[name] = st
	b.order = append(b.order, name)
	return st
}

func (b *Builder) takeBudget() bool {
	ok := b.opts.Budget == nil || *b.opts.Budget > 0
	if ok && b.opts.Budget != nil {
		*b.opts.Budget--
	}
	return ok
}

// Run returns the run built so far, with these notes and one on the steps
// past MaxSteps; Started, Window and the metrics are the caller's.
func (b *Builder) Run(notes ...string) *result.Run {
	r := &result.Run{Latency: b.latency, Requests: b.requests, Metrics: map[string]float64{}}
	for _, name := range b.order {
		r.Steps = append(r.Steps, *b.steps[name])
	}
	for _, k := range b.errOrder {
		r.Errors = append(r.Errors, *b.errs[k])
	}
	r.Notes = append(r.Notes, notes...)
	switch {
	case b.pooled:
		r.Notes = append(r.Notes, fmt.Sprintf("more than %d distinct %s: the rest are pooled in step %q", MaxSteps, b.opts.What, b.opts.Pool))
	case b.opts.Pool == "" && b.bare > 0:
		r.Notes = append(r.Notes, fmt.Sprintf("%d distinct %s: per-step latency kept for the first %d only", len(b.steps), b.opts.What, len(b.steps)-b.bare))
	}
	return r
}

// Span is the time a run's records cover: from the earliest start to the
// latest end. The zero Span has seen nothing.
type Span struct {
	First, Last time.Time
}

func (s *Span) Add(start, end time.Time) {
	if s.First.IsZero() || start.Before(s.First) {
		s.First = start
	}
	if end.After(s.Last) {
		s.Last = end
	}
}

func (s Span) Seconds() float64 { return s.Last.Sub(s.First).Seconds() }
