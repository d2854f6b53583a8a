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
	p50s, p95s := map[string][]float64{}, map[string][]float64{}
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
			if v, ok := stepQuantile(st, 0.50, result.LatencyP50); ok {
				p50s[st.Name] = append(p50s[st.Name], v)
			}
			if v, ok := stepQuantile(st, 0.95, result.LatencyP95); ok {
				p95s[st.Name] = append(p95s[st.Name], v)
			}
		}
	}
	out := make([]stepFigures, 0, len(order))
	for _, name := range order {
		sf := byName[name]
		sf.P50, sf.P95 = stats.Median(p50s[name]), stats.Median(p95s[name])
		out = append(out, *sf)
	}
	return out
}

// stepQuantile reads a step's latency percentile in ms from its histogram,
// or from its summary metrics when only those are known (imports).
func stepQuantile(st result.Step, q float64, key string) (float64, bool) {
	if st.Latency != nil && st.Latency.Count() > 0 {
		return float64(st.Latency.Quantile(q)) / float64(time.Millisecond), true
	}
	v, ok := st.Metrics[key]
	return v, ok && !math.IsNaN(v)
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
