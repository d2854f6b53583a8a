package jmeter

import (
	"fmt"
	"time"
)

// JMeter appends to an existing results file without a new header, so a
// JTL may hold several runs. A new run starts at a sample more than the
// run's gap outside the time its samples cover (after the last ended, or
// before the first began): within a run JMeter keeps a sample in flight or
// pauses in proportion to its own pacing.
const (
	minRunGap = 10 * time.Second
	// gapSpacings times the mean spacing of sample starts, so that a slow
	// plan (long think times) is not cut at each request.
	gapSpacings = 100
	// Before minRunSamples the pacing is unknown: only earlyRunGap ends a run.
	minRunSamples = 10
	earlyRunGap   = 5 * time.Minute
	maxRuns       = 100 // each run holds histograms
)

// runSplitter watches a file's samples in order and tells where a run begins.
type runSplitter struct {
	n                     int
	firstStart, lastStart time.Time
	lastEnd               time.Time
}

func (r *runSplitter) gap() time.Duration {
	if r.n < minRunSamples {
		return earlyRunGap
	}
	spacing := r.lastStart.Sub(r.firstStart) / time.Duration(r.n-1)
	return max(minRunGap, gapSpacings*spacing)
}

// next reports whether s begins a new run, and the pause before it.
func (r *runSplitter) next(s sample) (newRun bool, pause time.Duration) {
	if r.n > 0 {
		g := r.gap()
		if p := s.start.Sub(r.lastEnd); p > g {
			newRun, pause = true, p
		} else if p := r.firstStart.Sub(s.end()); p > g {
			newRun, pause = true, p
		}
	}
	if newRun {
		*r = runSplitter{}
	}
	r.add(s)
	return newRun, pause
}

func (r *runSplitter) add(s sample) {
	if r.n == 0 || s.start.Before(r.firstStart) {
		r.firstStart = s.start
	}
	if r.n == 0 || s.start.After(r.lastStart) {
		r.lastStart = s.start
	}
	if r.n == 0 || s.end().After(r.lastEnd) {
		r.lastEnd = s.end()
	}
	r.n++
}

// splitNote tells a run of an appended file where it lies.
func splitNote(k, n, line int, pause time.Duration) string {
	if k == 1 {
		return fmt.Sprintf("run 1 of %d appended in this file (JMeter appends to an existing results file); the next starts after a pause in the timestamps longer than %v and 100 times the run's spacing", n, minRunGap)
	}
	return fmt.Sprintf("run %d of %d appended in this file: starts at line %d, %s away from the run before it", k, n, line, pause.Round(time.Second))
}
