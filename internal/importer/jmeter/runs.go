package jmeter

import (
	"fmt"
	"time"
)

// JMeter appends to a results file that already exists, with no new header
// row, so a JTL written by several runs holds them one after another. Read
// as one run it would pool them and cover the pause between them. The rule
// that splits them: a new run starts at a sample that lies more than the
// run's gap (see runSplitter.gap) outside the time the current run's
// samples cover: after the last of them ended, or before the first began
// (a file put together in another order). Inside one run JMeter keeps at
// least one sample in flight, or pauses in proportion to its own pacing.
const (
	// minRunGap is the smallest pause that ends a run.
	minRunGap = 10 * time.Second
	// gapSpacings is how many times the run's mean spacing between sample
	// starts a pause must exceed, so that a slow plan (one thread with
	// long think times) is not cut at each request.
	gapSpacings = 100
	// minRunSamples is how many samples a run holds before its pacing
	// is known; before, only a pause of earlyRunGap ends it (a run
	// stopped after a request or two).
	minRunSamples = 10
	earlyRunGap   = 5 * time.Minute
	// maxRuns bounds the runs of one file, each holding histograms.
	maxRuns = 100
)

// runSplitter watches the samples of one file in file order and tells
// where a new run begins.
type runSplitter struct {
	n                     int
	firstStart, lastStart time.Time
	lastEnd               time.Time
}

// gap is the pause that ends the current run: minRunGap, or gapSpacings
// times the mean spacing of its sample starts when that is longer; while
// the run is too short to know its spacing, earlyRunGap.
func (r *runSplitter) gap() time.Duration {
	if r.n < minRunSamples {
		return earlyRunGap
	}
	spacing := r.lastStart.Sub(r.firstStart) / time.Duration(r.n-1)
	return max(minRunGap, gapSpacings*spacing)
}

// next reports whether s begins a new run, and the pause before it; s is
// then the first sample of the run that follows.
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
