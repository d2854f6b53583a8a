package gate

import (
	"fmt"
	"math"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// metricPolicy is what the gate will do with one metric.
type metricPolicy struct {
	meta   result.Metric
	gated  bool
	source FloorSource
	// userFloor is the configured or default floor in user units; NaN for
	// measured floors.
	userFloor float64
	// minEffect is gate.min_effect in user units (0 when unset);
	// minEffectSet: the config names the metric.
	minEffect    float64
	minEffectSet bool
	// paired: A/B runs made in pairs (ABBA), judged on the pairs'
	// differences, which cancel the drift a job sees.
	paired bool
	// setByLoad: some run says the load fixes this metric: never gated.
	setByLoad bool
	noise     *stats.Noise
	note      string
}

func (mp metricPolicy) direction() stats.Direction { return direction(mp.meta) }
func (mp metricPolicy) scale() stats.Scale         { return scale(mp.meta) }
func (mp metricPolicy) percent() bool              { return mp.meta.Scale == result.Percent }

// metricPolicies decides, for every metric present on either side and
// every gated metric, whether it is gated and by which floor.
func metricPolicies(base, head []result.Run, p Policy) ([]metricPolicy, []stats.Warning) {
	var warnings []stats.Warning
	gated := map[string]bool{}
	for _, key := range p.metrics() {
		if _, ok := result.Lookup(key); !ok {
			warnings = append(warnings, stats.Warn(WarnUnknownMetric, fmt.Sprintf("gate.metrics: unknown metric %q is ignored", key)))
			continue
		}
		gated[key] = true
	}
	fixed := setByLoad(base, head)
	substituted := throughputSubstitute(base, head, gated, fixed)

	var out []metricPolicy
	for _, m := range result.Catalogue(append(result.KeysOf(base, head), p.metrics()...)...) {
		present := hasKey(base, m.Key) || hasKey(head, m.Key)
		replaced := substituted && m.Key == result.IterationsPerSec
		if !present && !gated[m.Key] && !replaced {
			continue
		}
		mp := policyOne(m, gated[m.Key] && !fixed[m.Key], p)
		if fixed[m.Key] {
			mp.setByLoad, mp.note = true, setByLoadNote
		}
		if substituted {
			mp = substituteNotes(mp, p)
		}
		out = append(out, mp)
	}
	return out, warnings
}

const setByLoadNote = "set by the load (an open-loop rate is the offered rate): never gated"

func setByLoad(base, head []result.Run) map[string]bool {
	out := map[string]bool{}
	for _, r := range append(slices.Clip(base), head...) {
		for _, key := range r.SetByLoad {
			out[key] = true
		}
	}
	return out
}

// substituteNotes explains the throughput substitution on both metrics and
// lets a configured iterations/s floor apply to requests/s.
func substituteNotes(mp metricPolicy, p Policy) metricPolicy {
	switch mp.meta.Key {
	case result.IterationsPerSec:
		mp.note = "not measured on both sides; requests/s is gated as the throughput"
	case result.RequestsPerSec:
		if f, ok := p.Floors[result.IterationsPerSec]; ok && mp.source != FromConfig {
			mp.source, mp.userFloor, mp.noise = FromConfig, f, nil
		}
		mp.note = "gated as the throughput (iterations/s not available)"
	}
	return mp
}

// throughputSubstitute gates requests/s for iterations/s when a side lacks
// the latter and both have the former (imported tools), unless the load
// fixes either: a throughput that cannot move stands in for nothing.
func throughputSubstitute(base, head []result.Run, gated, fixed map[string]bool) bool {
	if !gated[result.IterationsPerSec] || fixed[result.IterationsPerSec] || fixed[result.RequestsPerSec] ||
		(allHave(base, result.IterationsPerSec) && allHave(head, result.IterationsPerSec)) ||
		!allHave(base, result.RequestsPerSec) || !allHave(head, result.RequestsPerSec) {
		return false
	}
	gated[result.RequestsPerSec] = true
	delete(gated, result.IterationsPerSec)
	return true
}

func policyOne(m result.Metric, wanted bool, p Policy) metricPolicy {
	mp := metricPolicy{meta: m, source: NoFloor, userFloor: math.NaN()}
	mp.minEffect, mp.minEffectSet = p.MinEffect[m.Key]
	// A measured floor first; the config's, then the defaults, stand in
	// until the noise is measured.
	if nz, ok := p.Noise[m.Key]; ok && wanted && nz.Check() == nil {
		mp.gated, mp.source, mp.noise = true, FromCalibration, &nz
		return mp
	}
	if p.SameJob && wanted {
		// Both sides share the job: the noise that matters is this job's,
		// and both sides' spread measures it.
		mp.gated, mp.source = true, FromJob
		return mp
	}
	if f, ok := p.Floors[m.Key]; ok && wanted {
		mp.gated, mp.source, mp.userFloor = true, FromConfig, f
		return mp
	}
	if f, ok := DefaultFloors[m.Key]; ok && wanted {
		mp.gated, mp.source, mp.userFloor = true, FromDefault, f
		return mp
	}
	if wanted {
		measure, _, _ := p.Context.calibrateAdvice()
		mp.note = fmt.Sprintf("report-only: no measured floor yet; run %s or set gate.floors.%s", measure, m.Key)
	}
	return mp
}

func (mp metricPolicy) input(base, head []float64, k int, p Policy) stats.Input {
	in := stats.Input{
		Head: head, Base: base, Direction: mp.direction(), Scale: mp.scale(), Paired: mp.paired,
		Noise: mp.noise, BaseJobs: p.BaselineJobs, SameJob: p.SameJob, Alpha: p.Level(), K: k,
		Floor: stats.FloorFixed, FixedFloor: mp.toScale(mp.userFloor),
		LeastFloor: leastFloor(mp.meta), MinEffect: mp.toScale(mp.minEffect),
		Detect: mp.gated,
	}
	switch {
	case mp.noise != nil:
		in.Floor = stats.FloorCalibrated
	case mp.source == FromJob:
		in.Floor = stats.FloorSpread
	}
	return in
}

// toScale and fromScale convert between user units (percent or points
// worse) and the comparison scale.
func (mp metricPolicy) toScale(userWorse float64) float64 {
	return stats.ToScale(mp.scale(), mp.direction(), userWorse)
}

func (mp metricPolicy) fromScale(w float64) float64 {
	return stats.FromScale(mp.scale(), mp.direction(), w)
}

func hasKey(runs []result.Run, key string) bool {
	return slices.ContainsFunc(runs, func(r result.Run) bool { _, ok := r.Value(key); return ok })
}

func allHave(runs []result.Run, key string) bool {
	return len(runs) > 0 && !slices.ContainsFunc(runs, func(r result.Run) bool { _, ok := r.Value(key); return !ok })
}

// centers are the sides' centres a paired estimate is made of: geometric
// means (the mean log difference is their log ratio), means for rates.
func (mp metricPolicy) centers(base, head []float64) (kind string, b, h float64) {
	if mp.percent() {
		return "mean", stats.Mean(base), stats.Mean(head)
	}
	return "geometric mean", geoMean(base), geoMean(head)
}

func geoMean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		if !(x > 0) {
			return math.NaN()
		}
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}
