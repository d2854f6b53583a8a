package load

import (
	"sync"
	"time"
)

// runClosed runs one goroutine per virtual user; each loops iterations
// until the window closes. Latency counts from each iteration's actual
// start: in a closed model, no iteration waits for a free worker, and
// without think time the next one starts as the last one ends.
//
// The window (and OnMeasure, after a warm-up) opens once every user ended
// its warm-up iteration, so the CPU sampled holds only iterations counted,
// as at the close; it closes at its nominal end (iterations/s: busy).
func (e *engine) runClosed(workers []*worker) {
	var wg, warm sync.WaitGroup
	warm.Add(len(workers))
	open := make(chan struct{})
	go func() {
		warm.Wait()
		if e.opt.OnMeasure != nil && e.opt.Warmup > 0 {
			e.opt.OnMeasure()
		}
		close(open)
	}()
	for _, w := range workers {
		wg.Go(func() {
			defer w.begin(e.hard)()
			warmed := sync.OnceFunc(warm.Done)
			defer warmed()
			now := time.Now()
			for e.hard.Err() == nil && now.Before(e.end) {
				if w.first.IsZero() && !now.Before(e.warmEnd) {
					warmed()
					if now = e.opened(open); e.hard.Err() != nil || !now.Before(e.end) {
						return
					}
					w.first = now
				}
				measured := !w.first.IsZero()
				now = w.iterate(e.opt.Part.seqOf(e.seq.take()), now, measured)
				if e.opt.Think > 0 {
					if !e.sleepUntil(now.Add(e.opt.Think)) {
						return
					}
					now = time.Now()
				}
				if measured {
					w.next = now
				}
			}
		})
	}
	e.sleepUntil(e.end)
	e.finish(&wg)
}

// opened waits for the window to open (or the run to end) and returns the time.
func (e *engine) opened(open <-chan struct{}) time.Time {
	select {
	case <-open:
	case <-e.hard.Done():
	}
	return time.Now()
}
