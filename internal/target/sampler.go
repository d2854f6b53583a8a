package target

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// DefaultSampleEvery is the sampling period when none is given.
const DefaultSampleEvery = 100 * time.Millisecond

// procKey names one process: a pid is reused, a pid with its start time is not.
type procKey struct {
	pid   int
	start uint64
}

// cpuSpan is one process's CPU time when first and last seen: in clock
// ticks from /proc/<pid>/stat, and in nanoseconds from its threads'
// schedstat while every sample could read that (exact is false otherwise).
type cpuSpan struct {
	first, last           uint64
	firstNanos, lastNanos uint64
	// firstChild and lastChild are the reaped children's ticks, which
	// schedstat does not hold: the exact sum adds them.
	firstChild, lastChild uint64
	exact                 bool
}

// Sampler measures the CPU time and peak memory of a process tree (a pid
// and all its descendants) over a window, from /proc.
//
// CPU is counted per process as the growth of utime+stime+cutime+cstime
// between the first and the last sample that saw it; a process born during
// the window counts from zero, so short-lived children that a tree member
// reaps are included through the parent's cutime. (A child that a tree
// member reaps after the window started adds its whole lifetime's CPU to
// the parent; long-lived servers make that rare.)
type Sampler struct {
	root    int
	started time.Time
	stop    chan struct{}
	done    chan struct{}

	mu       sync.Mutex
	spans    map[procKey]*cpuSpan
	peakRSS  int64
	err      error
	rootGone bool // the root was missing from a sample after the first
}

// StartSampler takes a first sample of pid's tree now and then one every
// period (DefaultSampleEvery when ≤ 0) until Stop. A pid that is not
// running (or 0, unknown) yields no Resources and an error.
func StartSampler(pid int, every time.Duration) *Sampler {
	s := &Sampler{
		root:    pid,
		started: time.Now(),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		spans:   map[procKey]*cpuSpan{},
	}
	s.sample(true)
	go s.loop(durationOr(every, DefaultSampleEvery))
	return s
}

func (s *Sampler) loop(every time.Duration) {
	defer close(s.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.sample(false)
		}
	}
}

// Stop takes a last sample and returns the tree's CPU time over the window
// and its peak resident memory. A measurement that could not be taken is
// absent, never zero: with an error saying why, the Resources are nil
// when nothing was measured, and hold only the peak memory when the tree
// showed no CPU time at all. It is safe to call more than once.
func (s *Sampler) Stop() (*result.Resources, error) {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	s.sample(false)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.err != nil:
		return nil, s.err
	case s.rootGone:
		return nil, fmt.Errorf("process %d ended during the measure window", s.root)
	case s.peakRSS <= 0:
		return nil, fmt.Errorf("the samples of process %d showed no memory in use", s.root)
	}
	res := &result.Resources{CPUSeconds: s.cpuSeconds(), PeakRSSBytes: s.peakRSS}
	if res.CPUSeconds <= 0 {
		return res, fmt.Errorf("the samples of process %d showed no CPU time (less than the %d ms resolution of clock ticks?)", s.root, 1000/clockTicks)
	}
	return res, nil
}

// cpuSeconds adds up the tree's CPU time over the window: exact
// (schedstat) when every process's was, else from clock ticks.
func (s *Sampler) cpuSeconds() float64 {
	var ticks, nanos, childTicks uint64
	exact := len(s.spans) > 0
	for _, sp := range s.spans {
		ticks += sp.last - sp.first
		nanos += sp.lastNanos - sp.firstNanos
		childTicks += sp.lastChild - sp.firstChild
		exact = exact && sp.exact
	}
	if exact {
		return float64(nanos)/1e9 + float64(childTicks)/clockTicks
	}
	return float64(ticks) / clockTicks
}

// sample reads the tree once; the first sample sets the baseline of the
// processes already running.
func (s *Sampler) sample(first bool) {
	all, err := allStats()
	members := tree(all, s.root)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.err = err
		return
	}
	if len(members) == 0 || members[0].gone() { // members[0] is the root
		if first {
			s.err = errProcessGone(s.root)
		} else {
			s.rootGone = true
		}
		return
	}
	var rss int64
	for _, st := range members {
		rss += st.RSSPages
		key := procKey{st.PID, st.StartTime}
		nanos, exact := threadNanos(st.PID)
		sp, seen := s.spans[key]
		if !seen {
			// A process born during the window counts from zero.
			sp = &cpuSpan{exact: exact}
			if first {
				sp.first, sp.firstNanos, sp.firstChild = st.CPUTicks, nanos, st.ChildTicks
				sp.lastNanos, sp.lastChild = nanos, st.ChildTicks
			}
			s.spans[key] = sp
		}
		switch {
		case !exact:
			sp.exact = false // a thread's time may be missing: fall back to ticks
		case nanos >= sp.lastNanos:
			sp.lastNanos = nanos
		}
		if st.ChildTicks > sp.lastChild {
			sp.lastChild = st.ChildTicks
		}
		if st.CPUTicks > sp.last {
			sp.last = st.CPUTicks
		}
		if sp.last < sp.first {
			sp.last = sp.first
		}
	}
	if b := rss * int64(os.Getpagesize()); b > s.peakRSS {
		s.peakRSS = b
	}
}
