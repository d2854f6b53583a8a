package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
	"gonum.org/v1/gonum/stat/distuv"
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
	// runs are each run's p50, p95, p99 and error rate (percent) of the
	// step, by the run's place in its side (NaN where it did not run the
	// step), and each run's requests and failed requests: the bounds of a
	// change base → head come from them.
	runs   [4][]float64
	counts [][2]int64
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
	for ri, r := range runs {
		for _, st := range r.Steps {
			sf, ok := byName[st.Name]
			if !ok {
				sf = &stepFigures{Name: st.Name}
				for i := range sf.runs {
					sf.runs[i] = constant(math.NaN(), len(runs))
				}
				sf.counts = make([][2]int64, len(runs))
				byName[st.Name] = sf
				order = append(order, st.Name)
			}
			sf.Requests += st.Requests
			sf.Failed += st.Failed
			sf.counts[ri] = [2]int64{st.Requests, st.Failed}
			q := stepQuantiles(st)
			sf.runs[0][ri], sf.runs[1][ri], sf.runs[2][ri] = q[0], q[1], q[2]
			if st.Requests > 0 {
				sf.runs[3][ri] = 100 * float64(st.Failed) / float64(st.Requests)
			}
		}
	}
	out := make([]stepFigures, 0, len(order))
	for _, name := range order {
		sf := byName[name]
		sf.P50, sf.P95, sf.P99 = stats.Median(finiteOf(sf.runs[0])), stats.Median(finiteOf(sf.runs[1])), stats.Median(finiteOf(sf.runs[2]))
		out = append(out, *sf)
	}
	return out
}

// finiteOf is xs without its NaNs.
func finiteOf(xs []float64) []float64 {
	return slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
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
// (or that has no runs) has no figures; its values are NaN. k is how many
// changes the table shows (3 a step): the bounds of each hold for all of
// them together.
type stepChange struct {
	Name             string
	Base, Head       stepFigures
	hasBase, hasHead bool
	k                int
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
	for i := range out {
		out[i].k = 3 * len(out)
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

// sidePair is one figure of a step on both sides, NaN where not known,
// with each run's figure (bs, hs) for the change's bounds; points is set
// for a rate, whose change is in percentage points.
type sidePair struct {
	Base, Head float64
	bs, hs     []float64
	points     bool
	k          int
}

func (c stepChange) pair(i int, of func(stepFigures) float64) sidePair {
	p := sidePair{Base: math.NaN(), Head: math.NaN(), points: i == 3, k: c.k}
	if c.hasBase {
		p.Base, p.bs = of(c.Base), c.Base.runs[i]
	}
	if c.hasHead {
		p.Head, p.hs = of(c.Head), c.Head.runs[i]
	}
	return p
}

func (c stepChange) p50() sidePair    { return c.pair(0, func(s stepFigures) float64 { return s.P50 }) }
func (c stepChange) p95() sidePair    { return c.pair(1, func(s stepFigures) float64 { return s.P95 }) }
func (c stepChange) p99() sidePair    { return c.pair(2, func(s stepFigures) float64 { return s.P99 }) }
func (c stepChange) errors() sidePair { return c.pair(3, stepFigures.errorRate) }

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

// change is head against base as the table states it: in percent, in
// points for a rate.
func (p sidePair) change() float64 {
	if p.points {
		return p.Head - p.Base
	}
	return p.ratioChange()
}

// stepEstimate is a step's change head against base with its bounds, in
// percent (points for a rate); score is how far the change is beyond its
// noise, its distance from zero over the bounds' half width (above 1: the
// bounds are clear of zero).
type stepEstimate struct {
	Mid, Lo, Hi, score float64
}

// beyond reports whether the bounds are clear of zero: the step moved by
// more than its own noise.
func (e stepEstimate) beyond() bool { return e.score > 1 }

// estimate is the change of the figure head against base, as the table
// shows it (of the sides' medians; for a rate, of its totals), with bounds
// from the runs' spread: where both sides have as many runs (the blocks of
// an A/B job) the spread of the runs' changes, paired by place; else the
// sides' own spreads (their runs are then independent). Latencies are
// compared on the log scale, their standard error that of a median;
// rates in points. The bounds are Student's t at 95 % for all k changes
// of the table together, so that an A/A job's table of many steps marks
// none as moved by chance. ok false with fewer than two runs (or pairs) a
// side.
func (p sidePair) estimate() (e stepEstimate, ok bool) {
	on := func(xs []float64, i int) (float64, bool) {
		if i >= len(xs) || math.IsNaN(xs[i]) || (!p.points && !(xs[i] > 0)) {
			return 0, false
		}
		if p.points {
			return xs[i], true
		}
		return math.Log(xs[i]), true
	}
	var b, h, d []float64
	for i := range max(len(p.bs), len(p.hs)) {
		bv, bok := on(p.bs, i)
		hv, hok := on(p.hs, i)
		if bok {
			b = append(b, bv)
		}
		if hok {
			h = append(h, hv)
		}
		if bok && hok {
			d = append(d, hv-bv)
		}
	}
	var se float64
	var n int
	switch {
	case len(p.bs) == len(p.hs) && len(d) >= 2:
		n = len(d)
		se = stats.SampleSD(d) / math.Sqrt(float64(n))
	case len(b) >= 2 && len(h) >= 2:
		n = min(len(b), len(h)) // fewer degrees of freedom than Welch's: the bounds err wide
		sb, sh := stats.SampleSD(b), stats.SampleSD(h)
		se = math.Sqrt(sb*sb/float64(len(b)) + sh*sh/float64(len(h)))
	default:
		return stepEstimate{}, false
	}
	mid, user := p.Head-p.Base, func(w float64) float64 { return w }
	if !p.points {
		mid, user = math.Log(p.Head/p.Base), func(w float64) float64 { return 100 * math.Expm1(w) }
		se *= math.Sqrt(stats.MedianFactor(n))
	}
	if math.IsNaN(mid) || math.IsInf(mid, 0) {
		return stepEstimate{}, false
	}
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1-0.025/float64(max(p.k, 1))) * se
	e = stepEstimate{Mid: user(mid), Lo: user(mid - half), Hi: user(mid + half)}
	switch {
	case half > 0:
		e.score = math.Abs(mid) / half
	case mid != 0:
		e.score = math.Inf(1)
	}
	return e, true
}

// moved is how far a step moved beyond its own noise: the largest score
// of its p50, p95 and error rate; NaN when nothing could be bounded.
func (c stepChange) moved() float64 {
	m := math.NaN()
	for _, p := range []sidePair{c.p50(), c.p95(), c.errors()} {
		if e, ok := p.estimate(); ok && !(e.score <= m) {
			m = e.score
		}
	}
	return m
}

// movedFirst orders the steps by how far they moved beyond their noise
// (moved), then by the largest of their changes; steps that cannot be
// compared last (cmp.Compare puts NaN first), each group in its own order.
func movedFirst(cs []stepChange) []stepChange {
	size := func(c stepChange) float64 {
		m := math.Inf(-1)
		for _, p := range []sidePair{c.p50(), c.p95(), c.errors()} {
			if v := math.Abs(p.change()); v > m { // a NaN, nothing to compare, never is
				m = v
			}
		}
		return m
	}
	out := slices.Clone(cs)
	slices.SortStableFunc(out, func(a, b stepChange) int {
		return cmp.Or(cmp.Compare(b.moved(), a.moved()), cmp.Compare(size(b), size(a)))
	})
	return out
}

// figureCell is a step's figure base → head with its change and the
// change's bounds: "9.90 → 12.87 ms, +30.0 % (+28.1 … +31.9)" (in Markdown,
// md, the change on a line of its own, in bold) where the bounds are clear
// of zero, and ", within noise" after them where they are not; without
// bounds (one run a side) ", noise unknown"; one side's figure where only
// it ran. An error rate neither side had is "none".
func figureCell(p sidePair, unit string, md bool) string {
	if p.points && p.Base == 0 && p.Head == 0 {
		return "none"
	}
	fromTo := formatValue(p.Base, "") + " → " + formatValue(p.Head, unit)
	if math.IsNaN(p.Base) || math.IsNaN(p.Head) {
		return fromTo
	}
	if md { // the change on a line of its own: a narrow column wraps it whole
		return fromTo + "<br>" + changeText(p, md)
	}
	return fromTo + ", " + changeText(p, md)
}

// changeText is the change of a figure with its bounds and whether it is
// beyond them (figureCell).
func changeText(p sidePair, md bool) string {
	format, unit := "%.1f", " %"
	if p.points {
		format, unit = "%.2f", " pp"
	}
	e, ok := p.estimate()
	if !ok { // one run a side: the change alone says nothing of the noise
		if math.IsNaN(p.change()) {
			return "—"
		}
		return signed(p.change(), format) + unit + ", noise unknown"
	}
	change := signed(e.Mid, format) + unit
	lo, hi := signed(e.Lo, format), signed(e.Hi, format)
	if !p.points { // beyond a factor of ten the bounds say only that: few runs and much noise
		if e.Lo < -90 {
			lo = "<\u00a0−90" // no break inside a bound
		}
		if e.Hi > 900 {
			hi = ">\u00a0+900"
		}
	}
	bounds := " (" + lo + " … " + hi + ")"
	if e.Lo == e.Hi { // every run changed alike: no noise to bound
		bounds = ""
	}
	switch {
	case e.Mid == 0:
		return change
	case !e.beyond():
		return change + bounds + ", within noise"
	case md:
		return "**" + change + "**" + bounds
	}
	return change + bounds
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
// are, that they are not gated, what the bounds are, and its order.
func stepsTitle(in Input) string {
	over := fmt.Sprintf("%d %s a side", len(in.Head), runWord(in, len(in.Head)))
	if len(in.Base) != len(in.Head) {
		over = fmt.Sprintf("%d %s %s and %d head %s", len(in.Base), baseName(in), runWord(in, len(in.Base)), len(in.Head), runWord(in, len(in.Head)))
	}
	return fmt.Sprintf("Per step, %s → head (medians over %s; not gated; each change with its 95 %% bounds, all steps' together; the steps that moved beyond their noise first)", baseName(in), over)
}
