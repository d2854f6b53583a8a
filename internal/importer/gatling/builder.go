package gatling

import (
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/hist"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// request is one REQUEST record, in milliseconds since the epoch.
type request struct {
	step       string
	start, end int64
	ok         bool
	message    string
}

// maxStepHistograms bounds the per-step histograms of one run (each takes
// about 190 KB): a log that names every URL apart must not exhaust memory.
const maxStepHistograms = 200

// runBuilder accumulates requests into a run with full histograms.
type runBuilder struct {
	run       result.Run
	steps     map[string]*result.Step
	stepOrder []string
	errs      map[errKey]*result.ErrorClass
	errOrder  []errKey
	first     int64
	last      int64
}

type errKey struct{ class, step string }

func newRunBuilder() *runBuilder {
	return &runBuilder{
		run:   result.Run{Latency: hist.New(), Metrics: map[string]float64{}},
		steps: map[string]*result.Step{},
		errs:  map[errKey]*result.ErrorClass{},
	}
}

func (b *runBuilder) add(q request) {
	st, ok := b.steps[q.step]
	if !ok {
		st = &result.Step{Name: q.step}
		if len(b.steps) < maxStepHistograms {
			st.Latency = hist.New()
		}
		b.steps[q.step] = st
		b.stepOrder = append(b.stepOrder, q.step)
	}
	d := time.Duration(q.end-q.start) * time.Millisecond
	st.Requests++
	if st.Latency != nil {
		st.Latency.Record(d)
	}
	b.run.Requests.Total++
	b.run.Latency.Record(d)
	if b.run.Requests.Total == 1 || q.start < b.first {
		b.first = q.start
	}
	if q.end > b.last {
		b.last = q.end
	}
	if q.ok {
		return
	}
	st.Failed++
	b.run.Requests.Failed++
	k := errKey{classify(q.message), q.step}
	e, found := b.errs[k]
	if !found {
		e = &result.ErrorClass{Class: k.class, Step: q.step, Sample: shorten(q.message)}
		b.errs[k] = e
		b.errOrder = append(b.errOrder, k)
	}
	e.Count++
}

func (b *runBuilder) finish(notes []string) *result.Run {
	r := b.run
	r.Started = time.UnixMilli(b.first).UTC()
	r.Window = float64(b.last-b.first) / 1000
	for _, name := range b.stepOrder {
		r.Steps = append(r.Steps, *b.steps[name])
	}
	for _, k := range b.errOrder {
		r.Errors = append(r.Errors, *b.errs[k])
	}
	r.Notes = append(r.Notes, notes...)
	if n := len(b.steps); n > maxStepHistograms {
		r.Notes = append(r.Notes, fmt.Sprintf("%d distinct %s: per-step latency kept for the first %d only", n, "request names", maxStepHistograms))
	}
	r.Summarize()
	return &r
}
