package gate

import (
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// DefaultAlpha is the one-sided significance level of every test.
const DefaultAlpha = 0.05

// DefaultMetrics returns the metrics gated when the policy names none
// (DESIGN.md §4), as a new slice.
func DefaultMetrics() []string {
	return []string{result.IterationsPerSec, result.LatencyP95, result.RequestErrorPct, result.LifecycleSuccess}
}

// DefaultFloors are the floors used until calibrate has measured the noise:
// a drop in percent for throughput and a rise in percent for p95 (the
// campaign figures of DESIGN.md §1), percentage points for the rates.
// Metrics without a default are reported, not gated, until calibrated.
var DefaultFloors = map[string]float64{
	result.IterationsPerSec: 6.7,
	result.RequestsPerSec:   6.7,
	result.LatencyP95:       51,
	result.RequestErrorPct:  1,
	result.LifecycleSuccess: 1,
}

// The least calibrated floors: 1 % for ratio metrics, 0.1 percentage
// points for rates. Below them a difference is within the resolution of a
// short benchmark, however quiet the calibration jobs were.
const (
	MinCalibratedFloorPercent = 1.0
	MinCalibratedFloorPoints  = 0.1
)

// Policy is how a comparison is judged.
type Policy struct {
	// Alpha is the one-sided level of the tests; 0 means DefaultAlpha.
	Alpha float64
	// Metrics are the gated metric keys; empty means DefaultMetrics.
	Metrics []string
	// Floors are user floors from the config (gate.floors): percent for
	// ratio metrics, percentage points for rates. They stand in for the
	// floor until the noise is measured (calibrated, or by the job in A/B),
	// replace the defaults, and make any metric gateable.
	Floors map[string]float64
	// MinEffect is the smallest change worth failing for (gate.min_effect),
	// in the units of Floors; it applies on top of every floor.
	MinEffect map[string]float64
	// Noise is the calibrated noise by metric key (logs for ratio metrics,
	// percentage points for rates).
	Noise map[string]stats.Noise
	// BaselineJobs is S_b, the number of jobs the baseline samples come
	// from; 0 counts as 1 (the most conservative).
	BaselineJobs int
	// SameJob is set for A/B comparisons measured in one job: the
	// between-job noise then cancels and is left out of the floor.
	SameJob bool
	// Paired is set for A/B runs made in pairs (one of each side per pair,
	// in the same order on both sides): metrics every run has are judged
	// on the pairs' differences, which cancel the job's drift.
	Paired bool
	// Context is what the caller knows about the comparison.
	Context Context
}

// Context holds facts only the caller can establish.
type Context struct {
	// NoBaseline: there is no baseline yet; the head runs pass and should
	// be recorded.
	NoBaseline bool
	// DefinitionChanged: the benchmark definition differs from the one the
	// baseline was recorded with; nothing is compared.
	DefinitionChanged bool
	// EnvDiffers: the environment fingerprint differs from the baseline's.
	EnvDiffers bool
	// EnvDiff optionally says how ("cpu_model: A → B").
	EnvDiff string
	// RemoteTarget: the target is on another machine (target.remote), so
	// the network is part of every measurement; every verdict says so.
	RemoteTarget bool
}

func (p Policy) alpha() float64 {
	if p.Alpha > 0 && p.Alpha < 1 {
		return p.Alpha
	}
	return DefaultAlpha
}

func (p Policy) metrics() []string {
	if len(p.Metrics) > 0 {
		return p.Metrics
	}
	return DefaultMetrics()
}

// CalibratedFloor is the floor the gate sets metric m, calibrated with nz,
// for a check of n head runs against baseSamples samples from baseJobs
// jobs with k gated metrics, on the comparison scale (before min_effect):
// what the gate uses for a calibrated metric against a stored baseline.
func CalibratedFloor(m result.Metric, nz stats.Noise, n, baseSamples, baseJobs, k int, alpha float64) float64 {
	return stats.CalibratedFloor(nz, n, baseSamples, baseJobs, false, alpha, k, leastFloor(m))
}

// leastFloor is the least calibrated floor on the comparison scale: a
// metric that measured no noise at all (an open-loop rate that always met
// its target) would otherwise have a floor of zero, and one cut iteration
// would fail the gate.
func leastFloor(m result.Metric) float64 {
	if m.Scale == result.Percent {
		return stats.ToScale(stats.Points, direction(m), MinCalibratedFloorPoints)
	}
	return stats.ToScale(stats.Ratio, direction(m), MinCalibratedFloorPercent)
}

// direction and scale say how stats compares metric m.
func direction(m result.Metric) stats.Direction {
	if m.Better == result.HigherIsBetter {
		return stats.LowerIsWorse
	}
	return stats.HigherIsWorse
}

func scale(m result.Metric) stats.Scale {
	if m.Scale == result.Percent {
		return stats.Points
	}
	return stats.Ratio
}
