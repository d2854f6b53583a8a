package load

import (
	"context"
	"time"
)

// requestTimer bounds each request of one worker on the net/http client
// (the fast client bounds them with deadlines), body read included, by
// RequestTimeout without a context and a timer per request: one context
// serves the worker's requests one after another, and one timer, re-armed
// per request, cancels it only when a request overruns. The next request
// then gets a fresh pair. A request that overruns fails with the cause
// context.DeadlineExceeded, as it would under context.WithTimeout.
type requestTimer struct {
	parent  context.Context
	timeout time.Duration
	ctx     context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer // nil before the first request and after one overran
}

func newRequestTimer(parent context.Context, timeout time.Duration) *requestTimer {
	return &requestTimer{parent: parent, timeout: timeout}
}

// start arms the timer for one request and returns the request's context.
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

// stop disarms the timer once the request is over, its body read and
// closed. It reports whether the timer fired first: then the context is
// cancelled (or about to be, by the timer's own goroutine), so the next
// start makes a new one.
func (t *requestTimer) stop() (expired bool) {
	if t.timer.Stop() {
		return false
	}
	t.timer = nil
	return true
}

// close releases the context when the worker ends.
func (t *requestTimer) close() {
	if t.timer != nil {
		t.timer.Stop()
		t.cancel(nil)
		t.timer = nil
	}
}
