package target

import (
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

// cpuSpan is one process's CPU ticks when first and last seen.
type cpuSpan struct{ first, last uint64 }

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

	mu      sync.Mutex
	spans   map[procKey]*cpuSpan
	peakRSS int64
	err     error
}

// StartSampler takes a first sample of pid's tree now and then one every
// period (DefaultSampleEvery when ≤ 0) until Stop. A pid that is not
// running (or 0, unknown) yields zero Resources and an Err.
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
// and its peak resident memory. It is safe to call more than once.
func (s *Sampler) Stop() result.Resources {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	s.sample(false)
	s.mu.Lock()
	defer s.mu.Unlock()
	var ticks uint64
	for _, sp := range s.spans {
		ticks += sp.last - sp.first
	}
	return result.Resources{
		CPUSeconds:   float64(ticks) / clockTicks,
		PeakRSSBytes: s.peakRSS,
	}
}

// Err reports why sampling saw nothing (no /proc, or the process was gone
// from the start), or nil.
func (s *Sampler) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
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
	if first && len(members) == 0 {
		s.err = errProcessGone(s.root)
		return
	}
	var rss int64
	for _, st := range members {
		rss += st.RSSPages
		key := procKey{st.PID, st.StartTime}
		sp, seen := s.spans[key]
		if !seen {
			sp = &cpuSpan{}
			if first {
				sp.first = st.CPUTicks
			}
			s.spans[key] = sp
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
