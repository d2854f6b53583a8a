package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// Error classes in report order; a class's index is its slot in a worker's table.
var classes = [...]string{result.ErrStatus, result.ErrExpect, result.ErrTimeout, result.ErrConnection}

const (
	slotStatus = iota
	slotExpect
	slotTimeout
	slotConnection
)

// worker runs iterations on one goroutine; its plain counters are read after.
type worker struct {
	e       *engine
	id      int    // 0-based: the VU (closed model) or the slot (open model)
	client  client // sends the requests; set by begin
	exec    *scenario.Executor
	batch   []sample
	ended   time.Time         // when the last step ended
	its     result.Iterations // Started, Completed, Succeeded
	cut     int64             // iterations interrupted at the end of the grace period
	reqs    []stepCount       // by step ID
	errs    []errorCount      // by step ID × class slot
	recheck bool              // its first iteration confirms a reused session (SetupCache.Recheck)
	login   int               // keys its session in the SetupCache
	leader  *worker           // whose login it shares (nil: its own)
	// first is when its first measured iteration started, next when it
	// would start the one after its last (closed model): its busy time.
	first, next time.Time
}

type stepCount struct{ total, failed int64 }

type errorCount struct {
	count  int64
	sample string
}

type outcome int

const (
	passed outcome = iota
	failed
	aborted // the engine cancelled the request: not a result
)

func newWorker(e *engine, id int) (*worker, error) {
	x, err := e.plan.NewExecutor(e.baseURL, e.opt.FirstVU+id)
	if err != nil {
		return nil, err
	}
	n := len(e.steps)
	return &worker{
		e: e, id: id, exec: x, batch: make([]sample, 0, batchSize),
		reqs: make([]stepCount, n), errs: make([]errorCount, n*len(classes)),
	}, nil
}

// begin gives the worker its client (unless its setup did) and returns its release.
func (w *worker) begin(run context.Context) (end func()) {
	if w.client == nil {
		w.client = w.e.transport.client(run)
	}
	return w.client.close
}

// iterate runs iteration seq, its latency counted from origin (the
// scheduled start in the open model), and returns when its last step
// ended; it stops at its first failed step.
func (w *worker) iterate(seq uint64, origin time.Time, measured bool) (ended time.Time) {
	l := &w.e.live
	for n, p := l.inflight.Add(1), l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	defer w.e.live.inflight.Add(-1)
	w.exec.Begin(seq)
	if err := w.exec.Err(); err != nil {
		w.e.abort(err) // the feed ran out of rows (at_end: fail)
		return time.Now()
	}
	out := passed
	for i := 0; i < w.exec.Steps() && out == passed; i++ {
		out = w.step(i, measured)
	}
	if w.recheck {
		defer w.renew(out) // after it is counted: it was sent and answered
	}
	if !measured {
		return w.ended
	}
	w.its.Started++
	switch out {
	case aborted:
		w.cut++
		return w.ended
	case failed:
		w.e.live.failed.Add(1)
	default:
		w.its.Succeeded++
	}
	w.its.Completed++
	w.e.live.completed.Add(1)
	w.record(kindIteration, 0, w.ended.Sub(origin))
	return w.ended
}

func (w *worker) step(i int, measured bool) outcome {
	id := w.exec.StepID(i)
	req, err := w.exec.Request(i)
	if err != nil {
		w.ended = time.Now()
		if measured {
			w.reqs[id].total++
			if e := w.fail(id, slotExpect); e.sample == "" {
				e.sample = w.exec.Mask(err.Error())
			}
		}
		return failed
	}
	start := time.Now()
	fail, expired, err := w.exchange(req, i)
	w.ended = time.Now()
	took := w.ended.Sub(start)
	if err != nil && w.e.hard.Err() != nil {
		return aborted
	}
	if !measured {
		if err != nil || fail != nil {
			return failed
		}
		return passed
	}
	return w.tally(id, took, fail, err, expired)
}

// tally counts one measured request and its failure, if any; expired: the
// request timed out, whatever error the client made of it.
func (w *worker) tally(id int, took time.Duration, fail *scenario.Failure, err error, expired bool) outcome {
	w.reqs[id].total++
	w.record(kindRequest, id, took)
	switch {
	case err != nil:
		slot := transportSlot(err)
		if expired {
			slot = slotTimeout
		}
		if e := w.fail(id, slot); e.sample == "" && slot == slotTimeout {
			e.sample = w.exec.Mask(fmt.Sprintf("no response within %v: %v", w.e.opt.RequestTimeout, err))
		} else if e.sample == "" {
			e.sample = w.exec.Mask(err.Error())
		}
	case fail != nil:
		slot := slotExpect
		if fail.Kind == scenario.StatusMismatch {
			slot = slotStatus
		}
		if e := w.fail(id, slot); e.sample == "" {
			e.sample = w.exec.Mask(fail.Message())
		}
	default:
		return passed
	}
	return failed
}

// exchange sends step i's request and checks the response, body included.
func (w *worker) exchange(req *scenario.Request, i int) (fail *scenario.Failure, expired bool, err error) {
	resp, err := w.client.send(req)
	if err == nil {
		fail, err = w.exec.Check(i, resp)
	}
	return fail, w.client.done(), err
}

// fail counts a failed request and returns its class's counter, whose
// sample the caller fills the first time (messages cost allocations).
func (w *worker) fail(step, slot int) *errorCount {
	w.reqs[step].failed++
	e := &w.errs[step*len(classes)+slot]
	e.count++
	return e
}

func (w *worker) record(kind sampleKind, step int, d time.Duration) {
	w.batch = append(w.batch, sample{d: d, step: int32(step), kind: kind})
	if len(w.batch) == cap(w.batch) {
		w.flush()
	}
}

func (w *worker) flush() {
	w.e.coll.flush(w.batch)
	w.batch = w.batch[:0]
}

func transportSlot(err error) int {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return slotTimeout
	case errors.Is(err, errBodyTooLarge):
		return slotExpect
	}
	return slotConnection
}
