package report

import (
	"math"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// stepFigures are one step's figures over all head runs: summed counts and
// the median over runs of each run's latency percentiles.
type stepFigures struct {
	Name     string  `json:"name"`
	Requests int64   `json:"requests"`
	Failed   int64   `json:"failed"`
	P50      float64 `json:"-"`
	P95      float64 `json:"-"`
	P99      float64 `json:"-"`
}

// errorFigures are one error class of one step, summed over the head runs.
type errorFigures struct {
	Class  string `json:"class"`
	Step   string `json:"step,omitempty"`
	Count  int64  `json:"count"`
	Sample string `json:"sample,omitempty"`
}

func steps(runs []result.Run) []stepFigures {
	var order []string
	byName := map[string]*stepFigures{}
	perRun := map[string][3][]float64{} // each run's p50, p95 and p99 of the step
	for _, r := range runs {
		for _, st := range r.Steps {
			sf, ok := byName[st.Name]
			if !ok {
				sf = &stepFigures{Name: st.Name}
				byName[st.Name] = sf
				order = append(order, st.Name)
			}
			sf.Requests += st.Requests
			sf.Failed += st.Failed
			qs := perRun[st.Name]
			for i, v := range stepQuantiles(st) {
				if !math.IsNaN(v) {
					qs[i] = append(qs[i], v)
				}
			}
			perRun[st.Name] = qs
		}
	}
	out := make([]stepFigures, 0, len(order))
	for _, name := range order {
		sf, qs := byName[name], perRun[name]
		sf.P50, sf.P95, sf.P99 = stats.Median(qs[0]), stats.Median(qs[1]), stats.Median(qs[2])
		out = append(out, *sf)
	}
	return out
}

// stepQuantileKeys are the summary metrics of the step percentiles, for
// steps known only by their summaries (imports).
var stepQuantileKeys = [3]string{result.LatencyP50, result.LatencyP95, result.LatencyP99}

// stepQuantiles reads a step's p50, p95 and p99 in ms from its histogram
// (one walk over it), or from its summary metrics when only those are
// known; NaN for a percentile not known.
func stepQuantiles(st result.Step) [3]float64 {
	var out [3]float64
	if st.Latency != nil && st.Latency.Count() > 0 {
		for i, d := range st.Latency.Quantiles(0.50, 0.95, 0.99) {
			out[i] = float64(d) / float64(time.Millisecond)
		}
		return out
	}
	for i, key := range stepQuantileKeys {
		out[i] = math.NaN()
		if v, ok := st.Metrics[key]; ok {
			out[i] = v
		}
	}
	return out
}

func errorClasses(runs []result.Run) []errorFigures {
	type key struct{ class, step string }
	var order []key
	byKey := map[key]*errorFigures{}
	for _, r := range runs {
		for _, e := range r.Errors {
			k := key{e.Class, e.Step}
			ef, ok := byKey[k]
			if !ok {
				ef = &errorFigures{Class: e.Class, Step: e.Step, Sample: e.Sample}
				byKey[k] = ef
				order = append(order, k)
			}
			ef.Count += e.Count
		}
	}
	out := make([]errorFigures, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out
}
