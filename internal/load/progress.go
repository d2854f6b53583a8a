package load

import (
	"sync"
	"time"
)

// startProgress calls Options.Progress every ProgressInterval from one
// goroutine; the returned function stops it after a final call.
func (e *engine) startProgress() (stop func()) {
	if e.opt.Progress == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(ProgressInterval)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				e.opt.Progress(e.snapshot())
			case <-quit:
				e.opt.Progress(e.snapshot())
				return
			}
		}
	})
	return func() { close(quit); wg.Wait() }
}

func (e *engine) snapshot() Progress {
	total := e.end.Sub(e.start)
	elapsed := min(time.Since(e.start), total)
	phase := PhaseMeasure
	if elapsed < e.opt.Warmup {
		phase = PhaseWarmup
	}
	return Progress{
		Phase:        phase,
		Elapsed:      elapsed,
		Total:        total,
		Completed:    e.live.completed.Load(),
		Failed:       e.live.failed.Load(),
		Dropped:      e.live.dropped.Load(),
		Inflight:     e.live.inflight.Load(),
		PeakInflight: e.live.peak.Load(),
	}
}
