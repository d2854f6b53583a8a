package gate

import (
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// DefaultAlpha is the one-sided significance level of every test.
const DefaultAlpha = 0.05

// DefaultMetrics returns the metrics gated when the policy names none
// (DESIGN.md §4), as a new slice. Each is gated where both sides measured
// it and is "not available" elsewhere, outside K.
func DefaultMetrics() []string {
	return []string{result.IterationsPerSec, result.LatencyP95, result.RequestErrorPct, result.LifecycleSuccess,
		result.DroppedPct, result.CPUPerIteration}
}

// DefaultFloors are the floors used until calibrate has measured the noise:
// percent for ratio metrics (the campaign figures of DESIGN.md §1),
// percentage points for rates. Metrics without one are reported, not
// gated, until calibrated. CPU per iteration's 20 % stands above a clean
// build's largest move between jobs (+14 %, issue 10) combined with the
// 5–8 % two processes of one build differ (≈ 16 %), rounded up.
var DefaultFloors = map[string]float64{
	result.IterationsPerSec: 6.7,
	result.RequestsPerSec:   6.7,
	result.LatencyP95:       51,
	result.RequestErrorPct:  1,
	result.LifecycleSuccess: 1,
	result.DroppedPct:       1,
	result.CPUPerIteration:  20,
	// The whole path's CPU varies as the target's does (its parts share
	// the same cores and the same contention).
	result.PathCPUPerIteration: 20,
}

// DefaultMinEffect is the smallest change worth failing for when
// gate.min_effect does not name the metric, in the units of the floors:
// what sequential A/B judges against. Fixed-sample comparisons apply only
// a configured min_effect. Throughput and cost 5 %: what 20 pairs detect
// at run CVs of 2–5 %. Latencies 20 %: at 10 % the p95 of even a quiet
// service left 46 % of simulated clean jobs undecided at 20 pairs, against
// 6 % at 20 % (sequential_evidence_test.go). Rates 1 percentage point.
var DefaultMinEffect = map[string]float64{
	result.IterationsPerSec: 5,
	result.RequestsPerSec:   5,
	result.CPUPerIteration:  5,
	result.PeakRSS:          5,
	result.LatencyMean:      20,
	result.LatencyP50:       20,
	result.LatencyP90:       20,
	result.LatencyP95:       20,
	result.LatencyP99:       20,
	result.LatencyMax:       20,
	result.IterationP50:     20,
	result.IterationP95:     20,
	result.IterationP99:     20,
	result.ScheduleLagP99:   20,
	result.RequestErrorPct:  1,
	result.LifecycleSuccess: 1,
	result.DroppedPct:       1,

	result.PathCPUPerIteration: 5,
}

// FootprintMinEffect is the default min_effect (percent) of part.* and
// counter.* metrics: as CPU per iteration's; the near-deterministic
// counters (queries, system calls) resolve it in few pairs.
const FootprintMinEffect = 5

// defaultMinEffect is DefaultMinEffect's value for key, or
// FootprintMinEffect for a part's or a counter's metric.
func defaultMinEffect(key string) float64 {
	if v, ok := DefaultMinEffect[key]; ok || !result.IsFootprint(key) {
		return v
	}
	return FootprintMinEffect
}

// A calibration is firm when it comes from at least RecommendedCalibrationJobs
// jobs spread over at least MinCalibrationSpan (stats.md §6.5): jobs back
// to back see none of the drift between CI jobs hours apart (issue 10).
const (
	RecommendedCalibrationJobs = 10
	MinCalibrationSpan         = 30 * time.Minute
)

// The least calibrated floors (percent, points for rates): below them a
// difference is within a short benchmark's resolution, however quiet.
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
	// Floors are gate.floors (percent, points for rates): until the noise
	// is measured they replace the defaults and make any metric gateable.
	Floors map[string]float64
	// MinEffect is gate.min_effect in the units of Floors: Judge applies it
	// on top of every floor, JudgeSequential judges against it; a metric it
	// does not name takes DefaultMinEffect.
	MinEffect map[string]float64
	// Noise is the calibrated noise by metric key (logs; points for rates).
	Noise map[string]stats.Noise
	// BaselineJobs is S_b, the baseline samples' jobs; 0 counts as 1.
	BaselineJobs int
	// SameJob: A/B in one job; the between-job noise cancels, out of the floor.
	SameJob bool
	// Paired: A/B runs made in pairs; metrics every run has are judged on
	// the pairs' differences, which cancel the job's drift.
	Paired bool
	// AllowMissing accepts, in a sequential A/B verdict, a gated metric
	// that one side measured and the other lost as inconclusive; without
	// it the verdict names it in Incomplete (ab.allow_missing).
	AllowMissing bool
	// Context is what the caller knows about the comparison.
	Context Context
}

type Context struct {
	// NoBaseline: there is no baseline yet; the head runs pass and should
	// be recorded.
	NoBaseline bool
	// DefinitionChanged: the benchmark definition differs from the one the
	// baseline was recorded with; nothing is compared.
	DefinitionChanged bool
	// EnvDiffers: the environment fingerprint differs from the baseline's;
	// EnvDiff optionally says how ("cpu_model: A → B").
	EnvDiffers bool
	EnvDiff    string
	// CalibrationJobs is the A/A jobs behind the calibrated noise (0 when
	// unknown), CalibrationSpan the time from the first to the last.
	CalibrationJobs int
	CalibrationSpan time.Duration
	// RemoteTarget: the target is on another machine (target.remote), so
	// the network is part of every measurement; every verdict says so.
	RemoteTarget bool
	// CalibrateCommand, when not `tailgate calibrate` (the demo's), is
	// the command the warnings that advise calibrating name.
	CalibrateCommand string
}

// calibrateAdvice is how the warnings tell the user to measure the noise
// (appending names the CI-job-by-job way, spreading the one-call way).
func (c Context) calibrateAdvice() (measure, appendJobs, spread string) {
	if c.CalibrateCommand != "" {
		return c.CalibrateCommand, c.CalibrateCommand + " in later jobs", c.CalibrateCommand + " again later"
	}
	return "tailgate calibrate", "tailgate calibrate --append in later CI jobs", "tailgate calibrate --pause, or add them with --append in later CI jobs"
}

// Level is the policy's α, DefaultAlpha when it gives none in (0, 1).
func (p Policy) Level() float64 {
	if p.Alpha > 0 && p.Alpha < 1 {
		return p.Alpha
	}
	return DefaultAlpha
}

// Gates reports whether the policy names metric key among those it gates
// (a metric the load sets is still never gated): what a job may ask
// before any look has judged a block.
func (p Policy) Gates(key string) bool { return slices.Contains(p.metrics(), key) }

func (p Policy) metrics() []string {
	if len(p.Metrics) > 0 {
		return p.Metrics
	}
	return DefaultMetrics()
}

// CalibratedFloor is the floor (comparison scale, before min_effect) of
// metric m calibrated with nz, for n head runs against baseSamples samples
// from baseJobs jobs with k gated metrics, against a stored baseline.
func CalibratedFloor(m result.Metric, nz stats.Noise, n, baseSamples, baseJobs, k int, alpha float64) float64 {
	return stats.CalibratedFloor(nz, n, baseSamples, baseJobs, false, alpha, k, leastFloor(m))
}

// leastFloor is the least calibrated floor on the comparison scale: else a
// metric with no noise at all (an open-loop rate always on target) would
// have floor 0, and one cut iteration would fail the gate.
func leastFloor(m result.Metric) float64 {
	if m.Scale == result.Percent {
		return stats.ToScale(stats.Points, direction(m), MinCalibratedFloorPoints)
	}
	return stats.ToScale(stats.Ratio, direction(m), MinCalibratedFloorPercent)
}

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
