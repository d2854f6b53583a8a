package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
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

// stepChange is one step's figures on both sides, joined by name: what a
// reviewer reads to see which step moved. A side the step did not run on
// (or that has no runs) has no figures; its values are NaN.
type stepChange struct {
	Name             string
	Base, Head       stepFigures
	hasBase, hasHead bool
}

// stepChanges joins the base and head runs' per-step figures by step name,
// in the head's order, then the steps only the base ran.
func stepChanges(base, head []result.Run) []stepChange {
	var out []stepChange
	at := map[string]int{}
	for _, h := range steps(head) {
		at[h.Name] = len(out)
		out = append(out, stepChange{Name: h.Name, Head: h, hasHead: true})
	}
	for _, b := range steps(base) {
		if i, ok := at[b.Name]; ok {
			out[i].Base, out[i].hasBase = b, true
			continue
		}
		out = append(out, stepChange{Name: b.Name, Base: b, hasBase: true})
	}
	return out
}

// hasBaseSteps reports whether any step has figures of the base side: only
// then do the reports show base → head per step.
func hasBaseSteps(cs []stepChange) bool {
	for _, c := range cs {
		if c.hasBase {
			return true
		}
	}
	return false
}

// sidePair is one figure of a step on both sides; NaN where not known.
type sidePair struct{ Base, Head float64 }

func (c stepChange) pair(of func(stepFigures) float64) sidePair {
	p := sidePair{math.NaN(), math.NaN()}
	if c.hasBase {
		p.Base = of(c.Base)
	}
	if c.hasHead {
		p.Head = of(c.Head)
	}
	return p
}

func (c stepChange) p50() sidePair    { return c.pair(func(s stepFigures) float64 { return s.P50 }) }
func (c stepChange) p95() sidePair    { return c.pair(func(s stepFigures) float64 { return s.P95 }) }
func (c stepChange) p99() sidePair    { return c.pair(func(s stepFigures) float64 { return s.P99 }) }
func (c stepChange) errors() sidePair { return c.pair(stepFigures.errorRate) }

// errorRate is the step's failed requests in percent of its requests; NaN
// without requests (a rate of nothing is not 0 %).
func (s stepFigures) errorRate() float64 {
	if s.Requests == 0 {
		return math.NaN()
	}
	return 100 * float64(s.Failed) / float64(s.Requests)
}

// ratioChange is head against base in percent: never below −100 %; NaN
// where a side is missing or the base is not positive.
func (p sidePair) ratioChange() float64 {
	if !(p.Base > 0) || math.IsNaN(p.Head) {
		return math.NaN()
	}
	return 100 * (p.Head/p.Base - 1)
}

// pointChange is head minus base, for rates in percentage points.
func (p sidePair) pointChange() float64 { return p.Head - p.Base }

// moved is how far a step moved: the largest of its p50 and p95 changes
// in percent and its error rate's change in percentage points (a point of
// errors weighs as a percent of latency); NaN when nothing is comparable.
func (c stepChange) moved() float64 {
	m := math.NaN()
	for _, v := range []float64{c.p50().ratioChange(), c.p95().ratioChange(), c.errors().pointChange()} {
		if !math.IsNaN(v) && (math.IsNaN(m) || math.Abs(v) > m) {
			m = math.Abs(v)
		}
	}
	return m
}

// movedFirst orders the steps by how far they moved, the largest first;
// steps that cannot be compared last, each group in its own order.
func movedFirst(cs []stepChange) []stepChange {
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b stepChange) int {
		ma, mb := a.moved(), b.moved()
		switch {
		case math.IsNaN(ma) && math.IsNaN(mb):
			return 0
		case math.IsNaN(ma):
			return 1
		case math.IsNaN(mb):
			return -1
		}
		return cmp.Compare(mb, ma)
	})
	return out
}

// latencyCell is a step's latency percentile as "base → head (change)":
// "4.55 → 8.29 ms (+82.2 %)", or one side's figure where only it ran.
func latencyCell(p sidePair) string {
	if math.IsNaN(p.Base) || math.IsNaN(p.Head) {
		return formatValue(p.Base, "") + " → " + formatValue(p.Head, "ms")
	}
	return formatValue(p.Base, "") + " → " + formatValue(p.Head, "ms") + " (" + percentChange(p.ratioChange()) + ")"
}

// errorCell is a step's error rate as "base → head (change)"; "none" when
// neither side failed a request.
func errorCell(p sidePair) string {
	if p.Base == 0 && p.Head == 0 {
		return "none"
	}
	if math.IsNaN(p.Base) || math.IsNaN(p.Head) {
		return formatValue(p.Base, "") + " → " + formatValue(p.Head, "%")
	}
	return formatValue(p.Base, "") + " → " + formatValue(p.Head, "%") + " (" + pointsChange(p.pointChange()) + ")"
}

// percentChange and pointsChange print a change with its sign and unit;
// "—" when it cannot be computed.
func percentChange(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return signed(v, "%.1f") + " %"
}

func pointsChange(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return signed(v, "%.2f") + " pp"
}

// requestsCell is a step's requests on both sides: "1200 → 900".
func requestsCell(c stepChange) string {
	count := func(ok bool, n int64) string {
		if !ok {
			return "n/a"
		}
		return fmt.Sprint(n)
	}
	return count(c.hasBase, c.Base.Requests) + " → " + count(c.hasHead, c.Head.Requests)
}

// stepsTitle heads the per-step table of both sides: what its figures
// are, that they are not gated, and its order.
func stepsTitle(in Input) string {
	over := fmt.Sprintf("%d %s a side", len(in.Head), runWord(in, len(in.Head)))
	if len(in.Base) != len(in.Head) {
		over = fmt.Sprintf("%d %s %s and %d head %s", len(in.Base), baseName(in), runWord(in, len(in.Base)), len(in.Head), runWord(in, len(in.Head)))
	}
	return fmt.Sprintf("Per step, %s → head (medians over %s; not gated; the steps that moved most first)", baseName(in), over)
}
