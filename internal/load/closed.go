package load

import (
	"sync"
	"time"
)

// runClosed runs one goroutine per virtual user; each loops iterations
// until the window closes. Latency counts from each iteration's actual
// start: in a closed model, no iteration waits for a free worker, and
// without think time the next one starts as the last one ends.
func (e *engine) runClosed(workers []*worker) {
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			defer w.begin(e.hard)()
			now := time.Now()
			for e.hard.Err() == nil && now.Before(e.end) {
				measured := !now.Before(e.warmEnd)
				if measured && w.first.IsZero() {
					w.first = now
				}
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
