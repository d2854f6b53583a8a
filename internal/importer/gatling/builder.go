package gatling

import (
	"time"

	"github.com/tailgate-ci/tailgate/internal/importer"
	"github.com/tailgate-ci/tailgate/internal/importer/rawrun"
	"github.com/tailgate-ci/tailgate/internal/result"
)

// request is one REQUEST record, in milliseconds since the epoch.
type request struct {
	step       string
	start, end int64
	ok         bool
	message    string
}

// runBuilder accumulates requests into a run with full histograms. The
// span stays in the log's epoch milliseconds, so that the window is their
// exact difference.
type runBuilder struct {
	rb          *rawrun.Builder
	first, last int64
}

func newRunBuilder() *runBuilder {
	return &runBuilder{rb: rawrun.New(rawrun.Options{What: "request names"})}
}

func (b *runBuilder) count() int64 { return b.rb.Requests().Total }

func (b *runBuilder) add(q request) {
	st := b.rb.Request(q.step, time.Duration(q.end-q.start)*time.Millisecond)
	if b.count() == 1 || q.start < b.first {
		b.first = q.start
	}
	if q.end > b.last {
		b.last = q.end
	}
	if !q.ok {
		b.rb.Fail(st, koClasses.Class(q.message), "", importer.OneLine(q.message))
	}
}

func (b *runBuilder) finish(notes []string) *result.Run {
	r := b.rb.Run(notes...)
	r.Started = time.UnixMilli(b.first).UTC()
	r.Window = float64(b.last-b.first) / 1000
	r.Summarize()
	return r
}
