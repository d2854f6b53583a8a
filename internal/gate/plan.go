package gate

import (
	"fmt"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
	"math"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// plan is what the gate will do with one metric.
type plan struct {
	meta   result.Metric
	gated  bool
	source FloorSource
	// userFloor is the configured or default floor in the metric's user
	// units (percent or percentage points); NaN for calibrated floors,
	// which depend on the sample sizes.
	userFloor float64
	// minEffect is gate.min_effect in user units (0 when unset): no floor
	// is below it.
	minEffect float64
	// paired: A/B runs made in pairs (ABBA), judged on the pairs'
	// differences, which cancel the drift a job sees.
	paired bool
	noise  *stats.Noise
	note   string
}

func (pl plan) direction() stats.Direction {
	if pl.meta.Better == result.HigherIsBetter {
		return stats.LowerIsWorse
	}
	return stats.HigherIsWorse
}

func (pl plan) percent() bool { return pl.meta.Scale == result.Percent }

// planMetrics decides, for every metric present on either side and every
// gated metric, whether it is gated and by which floor. It returns the
// plans in catalogue order plus warnings about the policy.
func planMetrics(base, head []result.Run, p Policy) ([]plan, []string) {
	var warnings []string
	gated := map[string]bool{}
	for _, key := range p.metrics() {
		if _, ok := result.Lookup(key); !ok {
			warnings = append(warnings, fmt.Sprintf("gate.metrics: unknown metric %q is ignored", key))
			continue
		}
		gated[key] = true
	}
	substituted := throughputSubstitute(base, head, gated)

	var plans []plan
	for _, m := range result.Metrics {
		present := hasKey(base, m.Key) || hasKey(head, m.Key)
		replaced := substituted && m.Key == result.IterationsPerSec
		if !present && !gated[m.Key] && !replaced {
			continue
		}
		pl := planOne(m, gated[m.Key], p)
		if substituted {
			pl = substituteNotes(pl, p)
		}
		plans = append(plans, pl)
	}
	return plans, warnings
}

// substituteNotes explains the throughput substitution on both metrics and
// lets a configured iterations/s floor apply to requests/s.
func substituteNotes(pl plan, p Policy) plan {
	switch pl.meta.Key {
	case result.IterationsPerSec:
		pl.note = "not measured on both sides; requests/s is gated as the throughput"
	case result.RequestsPerSec:
		if f, ok := p.Floors[result.IterationsPerSec]; ok && pl.source != FromConfig {
			pl.source, pl.userFloor, pl.noise = FromConfig, f, nil
		}
		pl.note = "gated as the throughput (iterations/s not available)"
	}
	return pl
}

// throughputSubstitute gates requests/s in place of iterations/s when a
// side lacks iterations/s but both have requests/s (imported tools).
func throughputSubstitute(base, head []result.Run, gated map[string]bool) bool {
	if !gated[result.IterationsPerSec] {
		return false
	}
	if allHave(base, result.IterationsPerSec) && allHave(head, result.IterationsPerSec) {
		return false
	}
	if !allHave(base, result.RequestsPerSec) || !allHave(head, result.RequestsPerSec) {
		return false
	}
	gated[result.RequestsPerSec] = true
	delete(gated, result.IterationsPerSec)
	return true
}

func planOne(m result.Metric, wanted bool, p Policy) plan {
	pl := plan{meta: m, source: NoFloor, userFloor: math.NaN()}
	pl.minEffect = p.MinEffect[m.Key]
	// A measured floor first; the config's, then the defaults, stand in
	// until the noise is measured.
	if nz, ok := p.Noise[m.Key]; ok && wanted && nz.Check() == nil {
		pl.gated, pl.source, pl.noise = true, FromCalibration, &nz
		return pl
	}
	if p.SameJob && wanted {
		// Both sides share the job: the noise that matters is this job's,
		// and both sides' spread measures it.
		pl.gated, pl.source = true, FromJob
		return pl
	}
	if f, ok := p.Floors[m.Key]; ok && wanted {
		pl.gated, pl.source, pl.userFloor = true, FromConfig, f
		return pl
	}
	if f, ok := DefaultFloors[m.Key]; ok && wanted {
		pl.gated, pl.source, pl.userFloor = true, FromDefault, f
		return pl
	}
	if wanted {
		pl.note = fmt.Sprintf("report-only: no measured floor yet; run tailgate calibrate or set gate.floors.%s", m.Key)
	}
	return pl
}

// logFloor is the floor on the comparison scale for the head runs against
// the baseline samples with k gated metrics.
func (pl plan) logFloor(base, head []float64, k int, p Policy) float64 {
	return math.Max(pl.noiseFloor(base, head, k, p), pl.toScale(pl.minEffect))
}

// noiseFloor is the floor the noise alone sets: measured, else the
// config's or the default.
func (pl plan) noiseFloor(base, head []float64, k int, p Policy) float64 {
	n, m := len(head), len(base)
	switch {
	case pl.paired:
		return math.Max(pl.pairFloor(base, head, k, p), pl.toScale(pl.resolution()))
	case pl.noise != nil:
		return math.Max(stats.Floor(*pl.noise, n, m, p.BaselineJobs, p.SameJob, p.alpha(), k), pl.toScale(pl.resolution()))
	case pl.source == FromJob:
		return math.Max(pl.jobFloor(base, head, k, p), pl.toScale(pl.resolution()))
	}
	return pl.toScale(pl.userFloor)
}

// pairFloor is the floor of a paired A/B comparison: the spread of the
// pairs' differences, t(1−α/K, n−1)·sd(d)·sqrt(c_n/n); +Inf without it.
func (pl plan) pairFloor(base, head []float64, k int, p Policy) float64 {
	d, err := pl.differences(base, head)
	if err != nil || len(d) < 2 {
		return math.Inf(1)
	}
	sd := math.Sqrt(stat.Variance(d, nil))
	n := len(d)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - p.alpha()/float64(max(k, 1)))
	return t * sd * math.Sqrt(stats.MedianFactor(n)/float64(n))
}

// differences are the pairs' differences on the comparison scale, bigger
// is worse: d_k = dir·(scale(head_k) − scale(base_k)).
func (pl plan) differences(base, head []float64) ([]float64, error) {
	hs, err := pl.scale(head)
	if err != nil {
		return nil, err
	}
	bs, err := pl.scale(base)
	if err != nil {
		return nil, err
	}
	d := make([]float64, len(hs))
	for i := range hs {
		d[i] = pl.direction().Sign() * (hs[i] - bs[i])
	}
	return d, nil
}

// jobFloor is the floor measured in this job (A/B): the spread of both
// sides' runs, pooled, with a Student t quantile for the few degrees of
// freedom that estimate has: t(1−α/K, n+m−2)·σ̂·sqrt(c_n/n + c_m/m).
// Without two runs on some side there is no spread to measure: +Inf, so
// nothing is called a regression.
func (pl plan) jobFloor(base, head []float64, k int, p Policy) float64 {
	hs, err1 := pl.scale(head)
	bs, err2 := pl.scale(base)
	sd, ok := pooledSD(hs, bs)
	if err1 != nil || err2 != nil || !ok {
		return math.Inf(1)
	}
	n, m := len(head), len(base)
	df := float64(n + m - 2)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - p.alpha()/float64(max(k, 1)))
	return t * sd * math.Sqrt(stats.MedianFactor(n)/float64(n)+stats.MedianFactor(m)/float64(m))
}

// resolution is the least calibrated floor, in user units: a metric that
// measured no noise at all (an open-loop rate that always met its target)
// would otherwise have a floor of zero, and one cut iteration would fail
// the gate.
func (pl plan) resolution() float64 {
	if pl.percent() {
		return MinCalibratedFloorPoints
	}
	return MinCalibratedFloorPercent
}

// toScale converts an effect in user units (percent worse, or percentage
// points worse) to the comparison scale, where bigger is worse.
func (pl plan) toScale(userWorse float64) float64 {
	switch {
	case pl.percent():
		return userWorse
	case pl.direction() == stats.LowerIsWorse:
		return stats.DropFloor(userWorse / 100)
	default:
		return stats.RiseFloor(userWorse / 100)
	}
}

// fromScale is the inverse of toScale.
func (pl plan) fromScale(w float64) float64 {
	switch {
	case pl.percent():
		return w
	case pl.direction() == stats.LowerIsWorse:
		return 100 * -math.Expm1(-w)
	default:
		return 100 * math.Expm1(w)
	}
}

// values returns the metric's values of the runs that carry it.
func values(runs []result.Run, key string) []float64 {
	var out []float64
	for i := range runs {
		if v, ok := runs[i].Value(key); ok {
			out = append(out, v)
		}
	}
	return out
}

func hasKey(runs []result.Run, key string) bool {
	return slices.ContainsFunc(runs, func(r result.Run) bool { _, ok := r.Value(key); return ok })
}

func allHave(runs []result.Run, key string) bool {
	return len(runs) > 0 && !slices.ContainsFunc(runs, func(r result.Run) bool { _, ok := r.Value(key); return !ok })
}
