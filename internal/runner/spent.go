package runner

import (
	"fmt"
	"strings"
	"time"
)

// Where a benchmark's wall time goes, by stage: what a pair or block of an
// A/B job costs beyond its measured windows (issue 19: the lever is how
// many comparisons a minute buys).
const (
	TimeBuild    = "build"    // the build commands, before the first unit
	TimeStart    = "start"    // starting and stopping targets
	TimePrepare  = "prepare"  // dataset reset, verify and the drain before a window
	TimeDrain    = "drain"    // the drain after a run
	TimeSetup    = "setup"    // the setup steps (logins) before the load clock starts
	TimeLoad     = "engine"   // the load engine's time outside setup, warm-up and window: starting the workers, the last answers
	TimeWarmup   = "warm-up"  // warm-up before a measured window
	TimeMeasured = "measured" // measured windows
	TimeCounters = "counters" // reading the work counters around a block's phase
)

// spentOrder is the order the stages are reported in.
var spentOrder = []string{TimeBuild, TimeStart, TimePrepare, TimeDrain, TimeSetup, TimeLoad, TimeWarmup, TimeCounters, TimeMeasured}

// Spent is wall time by stage.
type Spent map[string]time.Duration

// Total is the time of all stages.
func (s Spent) Total() time.Duration {
	var t time.Duration
	for _, d := range s {
		t += d
	}
	return t
}

// String is "start 1.2 s, prepare 0.4 s, …", in a fixed order, with each
// stage's share of the total.
func (s Spent) String() string {
	total := s.Total()
	if total <= 0 {
		return ""
	}
	var parts []string
	for _, k := range spentOrder {
		if d, ok := s[k]; ok && d > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f s (%.0f %%)", k, d.Seconds(), 100*d.Seconds()/total.Seconds()))
		}
	}
	return strings.Join(parts, ", ")
}

// spend adds d to stage k (a negative d, from a clock that ran short, is
// dropped).
func (b *Benchmark) spend(k string, d time.Duration) {
	if d <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent == nil {
		b.spent = Spent{}
	}
	b.spent[k] += d
}

// timed adds the time since began to stage k; for defer.
func (b *Benchmark) timed(k string, began time.Time) { b.spend(k, time.Since(began)) }

// SpentSoFar is a copy of the time spent by stage so far.
func (b *Benchmark) SpentSoFar() Spent {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := Spent{}
	for k, d := range b.spent {
		out[k] = d
	}
	return out
}
