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
	// runs are each run's p50, p95 and p99 of the step (NaN where it did
	// not run it) and counts its requests and failed requests, by the
	// run's place in its side: the bounds of a change base → head come
	// from them.
	runs   [3][]float64
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
	var out []stepFigures
	at := map[string]int{}
	for ri, r := range runs {
		for _, st := range r.Steps {
			i, ok := at[st.Name]
			if !ok {
				i, at[st.Name] = len(out), len(out)
				sf := stepFigures{Name: st.Name, counts: make([][2]int64, len(runs))}
				for q := range sf.runs {
					sf.runs[q] = constant(math.NaN(), len(runs))
				}
				out = append(out, sf)
			}
			sf := &out[i]
			sf.Requests += st.Requests
			sf.Failed += st.Failed
			sf.counts[ri] = [2]int64{st.Requests, st.Failed}
			q := stepQuantiles(st)
			sf.runs[0][ri], sf.runs[1][ri], sf.runs[2][ri] = q[0], q[1], q[2]
		}
	}
	for i := range out {
		sf := &out[i]
		sf.P50, sf.P95, sf.P99 = stats.Median(finiteOf(sf.runs[0])), stats.Median(finiteOf(sf.runs[1])), stats.Median(finiteOf(sf.runs[2]))
	}
	return out
}

// finiteOf is xs without its NaNs.
func finiteOf(xs []float64) []float64 {
	return slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
}

// stepQuantiles reads a step's p50, p95 and p99 in ms from its histogram
// (one walk over it), or from its summary metrics when only those are
// known (imports); NaN for a percentile not known.
func stepQuantiles(st result.Step) [3]float64 {
	var out [3]float64
	if st.Latency != nil && st.Latency.Count() > 0 {
		for i, d := range st.Latency.Quantiles(0.50, 0.95, 0.99) {
			out[i] = float64(d) / float64(time.Millisecond)
		}
		return out
	}
	for i, key := range []string{result.LatencyP50, result.LatencyP95, result.LatencyP99} {
		out[i] = math.NaN()
		if v, ok := st.Metrics[key]; ok {
			out[i] = v
		}
	}
	return out
}

// perRun is each run's figure i: a percentile (0–2), or the error rate.
func (s stepFigures) perRun(i int) []float64 {
	if i < 3 {
		return s.runs[i]
	}
	out := make([]float64, len(s.counts))
	for r, c := range s.counts {
		out[r] = errorRate(c[0], c[1])
	}
	return out
}

// errorRate is failed requests in percent of requests; NaN without
// requests (a rate of nothing is not 0 %).
func errorRate(requests, failed int64) float64 {
	if requests == 0 {
		return math.NaN()
	}
	return 100 * float64(failed) / float64(requests)
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
// (or that has no runs) has no figures; its values are NaN. P50, P95, P99
// and Errors are its figures base → head with their estimates, made once;
// moved is how far it moved beyond its noise (the largest score of p50,
// p95 and error rate; NaN when none could be bounded), size its largest
// change.
type stepChange struct {
	Name                  string
	Base, Head            stepFigures
	hasBase, hasHead      bool
	P50, P95, P99, Errors sidePair
	moved, size           float64
}

// stepChanges joins the base and head runs' per-step figures by step name,
// in the head's order, then the steps only the base ran; then orders them
// by how far they moved beyond their noise, then by their largest change,
// steps that cannot be compared last (cmp.Compare puts NaN first). The
// bounds are for all the table's changes together (3 a step).
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
	k := 3 * len(out)
	for i := range out {
		c := &out[i]
		c.P50, c.P95, c.P99, c.Errors = c.pair(0, k), c.pair(1, k), c.pair(2, k), c.pair(3, k)
		c.moved, c.size = math.NaN(), math.Inf(-1)
		for _, p := range []sidePair{c.P50, c.P95, c.Errors} {
			if p.ok && !(p.est.score <= c.moved) {
				c.moved = p.est.score
			}
			if v := math.Abs(p.change()); v > c.size { // a NaN, nothing to compare, never is
				c.size = v
			}
		}
	}
	slices.SortStableFunc(out, func(a, b stepChange) int {
		return cmp.Or(cmp.Compare(b.moved, a.moved), cmp.Compare(b.size, a.size))
	})
	return out
}

// hasBaseSteps reports whether any step has figures of the base side: only
// then do the reports show base → head per step.
func hasBaseSteps(cs []stepChange) bool {
	return slices.ContainsFunc(cs, func(c stepChange) bool { return c.hasBase })
}

// pair is figure i (p50, p95, p99, error rate) on both sides.
func (c stepChange) pair(i, k int) sidePair {
	of := func(s stepFigures, ok bool) (float64, []float64) {
		if !ok {
			return math.NaN(), nil
		}
		return [4]float64{s.P50, s.P95, s.P99, errorRate(s.Requests, s.Failed)}[i], s.perRun(i)
	}
	b, bs := of(c.Base, c.hasBase)
	h, hs := of(c.Head, c.hasHead)
	return newSidePair(b, h, bs, hs, i == 3, k)
}

// sidePair is one figure of a step on both sides, NaN where not known,
// with the change's estimate (ok false where it has none); points is set
// for a rate, whose change is in percentage points.
type sidePair struct {
	Base, Head float64
	points, ok bool
	est        stepEstimate
}

func newSidePair(base, head float64, bs, hs []float64, points bool, k int) sidePair {
	p := sidePair{Base: base, Head: head, points: points}
	p.est, p.ok = p.estimate(bs, hs, k)
	return p
}

// none reports an error rate neither side had.
func (p sidePair) none() bool { return p.points && p.Base == 0 && p.Head == 0 }

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
// bounds are clear of zero, the step moved by more than its own noise).
type stepEstimate struct {
	Mid, Lo, Hi, score float64
}

// estimate is the change of the figure head against base, as the table
// shows it (of the sides' medians; for a rate, of its totals), with bounds
// from the runs' spread (bs, hs): where both sides have as many runs (the
// blocks of an A/B job) the spread of the runs' changes, paired by place;
// else the sides' own spreads (their runs are then independent).
// Latencies are compared on the log scale, their standard error that of a
// median; rates in points. The bounds are Student's t at 95 % for all k
// changes of the table together, so that an A/A job's table of many steps
// marks none as moved by chance. ok false with fewer than two runs (or
// pairs) a side.
func (p sidePair) estimate(bs, hs []float64, k int) (e stepEstimate, ok bool) {
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
	for i := range max(len(bs), len(hs)) {
		bv, bok := on(bs, i)
		hv, hok := on(hs, i)
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
	case len(bs) == len(hs) && len(d) >= 2:
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
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1-0.025/float64(max(k, 1))) * se
	e = stepEstimate{Mid: user(mid), Lo: user(mid - half), Hi: user(mid + half)}
	switch {
	case half > 0:
		e.score = math.Abs(mid) / half
	case mid != 0:
		e.score = math.Inf(1)
	}
	return e, true
}

// figureCell is a step's figure base → head with its change and the
// change's bounds: "9.90 → 12.87 ms, +30.0 % (+28.1 … +31.9)" (in Markdown,
// md, the change on a line of its own, in bold) where the bounds are clear
// of zero, and ", within noise" after them where they are not; without
// bounds (one run a side) ", noise unknown"; one side's figure where only
// it ran. An error rate neither side had is "none".
func figureCell(p sidePair, unit string, md bool) string {
	if p.none() {
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
	e := p.est
	if !p.ok { // one run a side: the change alone says nothing of the noise
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
	case e.score <= 1:
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
