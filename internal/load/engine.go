// Package load owns the load generator: the open model (iterations start
// as a Pacer schedules, on a bounded worker pool, the excess dropped and
// counted; latency from the scheduled start, so no coordinated omission),
// the closed model (virtual users looping), the warm-up and measure
// windows, and the aggregation into a result.Run. Requests go out through
// fasthttp by default, Go's net/http on request (client.go).
package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

var errGraceOver = errors.New("grace period after the measure window is over")

type engine struct {
	opt       Options
	plan      *scenario.Plan
	baseURL   string
	steps     []string
	transport transport
	coll      *collector
	live      liveCounts
	seq       *Sequence // the iterations' numbers: Options.Seq, or a fresh one

	start   time.Time // warm-up begins
	warmEnd time.Time // measure window begins
	end     time.Time // measure window ends: no iteration starts after it

	hard       context.Context // cancelled by the caller, or when the grace period is over
	cancelHard context.CancelCauseFunc
	dropped    int64 // written by the scheduler before it returns

	fatalOnce sync.Once
	fatal     error // why the run was stopped before its end; no result then
}

// abort stops the run: it cannot give a result, for the reason err.
func (e *engine) abort(err error) {
	e.fatalOnce.Do(func() { e.fatal = err })
	e.cancelHard(err)
}

// liveCounts are the figures a progress display reads while workers run.
type liveCounts struct {
	completed, failed, dropped, inflight, peak atomic.Int64
}

// Run offers load to the target at baseURL as opt says and returns the
// measured run, summarized. Failures under load are data in the result; an
// error is misuse (bad options or URL) or ctx cancelled: no partial result.
func Run(ctx context.Context, plan *scenario.Plan, baseURL string, opt Options) (*result.Run, error) {
	e, workers, err := newEngine(plan, baseURL, opt)
	if err != nil {
		return nil, err
	}
	e.hard, e.cancelHard = context.WithCancelCause(ctx)
	defer e.cancelHard(nil)
	// The connections close when Run returns, and at once when the run is
	// cancelled or its grace period is over (ending requests in flight).
	defer e.transport.close()
	stopClosing := context.AfterFunc(e.hard, e.transport.close)
	defer stopClosing()

	if err := e.setup(workers); err != nil {
		for _, w := range workers {
			if w.client != nil {
				w.client.close()
			}
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("load run interrupted in its setup: %w", ctx.Err())
		}
		return nil, err
	}
	if opt.OnSetupDone != nil {
		opt.OnSetupDone()
	}
	if opt.OnMeasure != nil && opt.Warmup <= 0 {
		opt.OnMeasure() // nothing to warm up: the sampling opens before the first iteration
	}
	e.start = time.Now()
	e.warmEnd = e.start.Add(opt.Warmup)
	e.end = e.warmEnd.Add(opt.Duration)
	if opt.OnMeasure != nil && opt.Warmup > 0 && opt.Model == Open { // a closed window opens in runClosed
		measure := time.AfterFunc(opt.Warmup, opt.OnMeasure)
		defer measure.Stop()
	}
	stopProgress := e.startProgress()
	if opt.Model == Open {
		e.runOpen(workers)
	} else {
		e.runClosed(workers)
	}
	stopProgress()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load run interrupted after %v: %w", time.Since(e.start).Round(time.Millisecond), err)
	}
	if e.fatal != nil {
		return nil, e.fatal
	}
	for _, w := range workers {
		w.flush()
	}
	return e.result(workers), nil
}

func newEngine(plan *scenario.Plan, baseURL string, opt Options) (*engine, []*worker, error) {
	if plan == nil {
		return nil, nil, errors.New("load: no scenario plan")
	}
	if err := opt.check(); err != nil {
		return nil, nil, fmt.Errorf("load options: %w", err)
	}
	e := &engine{opt: opt, plan: plan, baseURL: baseURL, steps: plan.StepNames(), seq: cmp.Or(opt.Seq, new(Sequence))}
	if e.opt.Setup == nil {
		e.opt.Setup = &SetupCache{} // this run's alone
	}
	e.coll = newCollector(len(e.steps))
	workers := make([]*worker, opt.workers())
	for i := range workers {
		w, err := newWorker(e, i)
		if err != nil {
			return nil, nil, err
		}
		workers[i] = w
	}
	var err error
	if e.transport, err = newTransport(opt, baseURL); err != nil {
		return nil, nil, fmt.Errorf("load options: %w", err)
	}
	return e, workers, nil
}

// finish waits for the workers after the window has closed: in-flight
// iterations get RequestTimeout to end, then they are cancelled.
func (e *engine) finish(wg *sync.WaitGroup) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	grace := time.NewTimer(e.opt.RequestTimeout)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		e.cancelHard(errGraceOver)
		<-done
	}
}

// sleepUntil sleeps until t, or until the run is cancelled (false).
func (e *engine) sleepUntil(t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-e.hard.Done():
		return false
	}
}
