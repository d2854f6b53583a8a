package result

import "time"

// Warmup is the warm-up (Found) an A/B job's first block found for a
// phase where the sides' work per iteration still fell after load.warmup
// (Configured). Metric is what was watched (CPU per iteration, else the
// median latency), Slices each side's value (base, head) per Slice after
// the first; Capped, that the sides still got faster at the bound.
type Warmup struct {
	Phase                    string
	Configured, Slice, Found time.Duration
	Metric                   string
	Slices                   [2][]float64
	Capped                   bool
}
