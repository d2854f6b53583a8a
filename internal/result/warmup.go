package result

import "time"

// Warmup is the warm-up an A/B job's first block found for a phase,
// longer than load.warmup (Configured) where the sides' work per
// iteration still fell after it: every later block warmed up for Found.
// Metric is what was watched (CPU per iteration where the sides'
// processes are measured, else the median latency), Slices each side's
// value (base, head) in load.warmup's slice and in each later one of
// length Slice; Capped, that the sides still got faster when the warm-up
// reached its bound.
type Warmup struct {
	Phase                    string
	Configured, Slice, Found time.Duration
	Metric                   string
	Slices                   [2][]float64
	Capped                   bool
}
