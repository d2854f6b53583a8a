package load

import (
	"sync"
	"sync/atomic"
	"time"
)

type job struct {
	seq      uint64
	due      time.Time
	measured bool
}

// runOpen feeds one goroutine per allowed in-flight iteration from the
// scheduler until the window closes; free counts the iterations that may still
// start (the scheduler takes, a worker gives back), so jobs never blocks.
func (e *engine) runOpen(workers []*worker) {
	jobs := make(chan job, len(workers))
	var free atomic.Int64
	free.Store(int64(len(workers)))
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			defer w.begin(e.hard)()
			for j := range jobs {
				if j.measured {
					w.record(kindLag, 0, time.Since(j.due))
				}
				w.iterate(j.seq, j.due, j.measured)
				free.Add(1)
			}
		})
	}
	e.schedule(jobs, &free)
	close(jobs)
	e.finish(&wg)
}

// schedule offers every iteration the Pacer makes due before the window
// closes. An iteration whose time has come while every worker is busy is
// dropped: offered work that never started, counted when measured.
func (e *engine) schedule(jobs chan<- job, free *atomic.Int64) {
	nap := newSleeper()
	defer nap.close()
	total := e.end.Sub(e.start)
	var dropped int64
	defer func() { e.dropped = dropped }()
	for k := uint64(0); ; k++ {
		hits := e.opt.Part.seqOf(k) // this shard's k-th hit of the whole schedule
		at, stop := e.opt.Pacer.Pace(0, hits)
		if stop || at >= total {
			e.sleepUntil(e.end) // the window lasts its full length
			return
		}
		due := e.start.Add(at)
		if !e.waitUntil(nap, due, k) {
			return
		}
		measured := at >= e.opt.Warmup
		switch {
		case free.Load() > 0:
			free.Add(-1)
			jobs <- job{seq: e.opt.Part.seqOf(e.seq.take()), due: due, measured: measured}
		case measured:
			dropped++
			e.live.dropped.Add(1)
		}
	}
}

// maxNap bounds one uninterruptible sleep, so cancellation is seen
// quickly; minNap bounds the wake-ups per second (at shorter gaps every
// hit come due starts at once, the lag recorded).
const (
	maxNap = 20 * time.Millisecond
	minNap = 100 * time.Microsecond
)

// waitUntil sleeps until due; false when the run is cancelled.
func (e *engine) waitUntil(nap *sleeper, due time.Time, hits uint64) bool {
	for {
		wait := time.Until(due)
		if wait <= 0 {
			// Behind schedule: no sleep, but look at cancellation now and then.
			return hits%256 != 0 || e.hard.Err() == nil
		}
		if e.hard.Err() != nil {
			return false
		}
		nap.sleep(min(max(wait, minNap), maxNap))
	}
}
