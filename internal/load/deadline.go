package load

import (
	"context"
	"time"
)

// requestTimer bounds each request of a net/http worker, body read included,
// with one context and one re-armed timer for its requests, not a pair per
// request: a request that overruns cancels the context (cause
// context.DeadlineExceeded), and the next one gets a fresh pair.
type requestTimer struct {
	parent  context.Context
	timeout time.Duration
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer // nil before the first request and after one overran
}

func (t *requestTimer) start() context.Context {
	if t.timer != nil {
		t.timer.Reset(t.timeout)
		return t.ctx
	}
	ctx, cancel := context.WithCancelCause(t.parent)
	t.ctx, t.cancel = ctx, cancel
	t.timer = time.AfterFunc(t.timeout, func() { cancel(context.DeadlineExceeded) })
	return t.ctx
}

// stop disarms the timer once the request is over, and reports whether it
// fired first (the next start then makes a new context).
func (t *requestTimer) stop() (expired bool) {
	if t.timer.Stop() {
		return false
	}
	t.timer = nil
	return true
}

func (t *requestTimer) close() {
	if t.timer != nil {
		t.timer.Stop()
		t.cancel(nil)
		t.timer = nil
	}
}
