package runner

import (
	"maps"
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
	TimeOther    = "other"    // the rest of a job: the look after each block, closing the windows' samplers, …
)

// SpentOrder is the order the stages are reported in.
var SpentOrder = []string{TimeBuild, TimeStart, TimePrepare, TimeDrain, TimeSetup, TimeLoad, TimeWarmup, TimeCounters, TimeOther, TimeMeasured}

type Spent map[string]time.Duration

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

func (b *Benchmark) timed(k string, began time.Time) { b.spend(k, time.Since(began)) }

func (b *Benchmark) SpentSoFar() Spent {
	b.mu.Lock()
	defer b.mu.Unlock()
	return maps.Clone(b.spent)
}
