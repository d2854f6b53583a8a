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

// stepFigures are a step's figures over one side's runs: sums, medians,
// and each run's percentiles and counts (for the bounds of a change).
type stepFigures struct {
	Name          string  `json:"name"`
	Requests      int64   `json:"requests"`
	Failed        int64   `json:"failed"`
	P50, P95, P99 float64 `json:"-"`
	runs          [3][]float64
	counts        [][2]int64
}

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
				nan := func() []float64 { return constant(math.NaN(), len(runs)) }
				out = append(out, stepFigures{Name: st.Name, counts: make([][2]int64, len(runs)), runs: [3][]float64{nan(), nan(), nan()}})
			}
			sf := &out[i]
			sf.Requests, sf.Failed, sf.counts[ri] = sf.Requests+st.Requests, sf.Failed+st.Failed, [2]int64{st.Requests, st.Failed}
			for q, v := range stepQuantiles(st) {
				sf.runs[q][ri] = v
			}
		}
	}
	for i := range out {
		sf := &out[i]
		sf.P50, sf.P95, sf.P99 = stats.Median(finiteOf(sf.runs[0])), stats.Median(finiteOf(sf.runs[1])), stats.Median(finiteOf(sf.runs[2]))
	}
	return out
}

func finiteOf(xs []float64) []float64 { return slices.DeleteFunc(slices.Clone(xs), math.IsNaN) }

// stepQuantiles reads a step's p50, p95 and p99 in ms from its histogram,
// or from its summary metrics (imports); NaN for one not known.
func stepQuantiles(st result.Step) [3]float64 {
	var out [3]float64
	for i, key := range []string{result.LatencyP50, result.LatencyP95, result.LatencyP99} {
		out[i] = math.NaN()
		if v, ok := st.Metrics[key]; ok {
			out[i] = v
		}
	}
	if st.Latency != nil && st.Latency.Count() > 0 {
		for i, d := range st.Latency.Quantiles(0.50, 0.95, 0.99) {
			out[i] = float64(d) / float64(time.Millisecond)
		}
	}
	return out
}

// errorRate is failed requests in percent of requests; NaN without requests (a rate of nothing is not 0 %).
func errorRate(requests, failed int64) float64 {
	if requests == 0 {
		return math.NaN()
	}
	return 100 * float64(failed) / float64(requests)
}

func errorClasses(runs []result.Run) []errorFigures {
	out := []errorFigures{} // report.json's errors: never null
	for _, r := range runs {
		for _, e := range r.Errors {
			i := slices.IndexFunc(out, func(f errorFigures) bool { return f.Class == e.Class && f.Step == e.Step })
			if i < 0 {
				i, out = len(out), append(out, errorFigures{Class: e.Class, Step: e.Step, Sample: e.Sample})
			}
			out[i].Count += e.Count
		}
	}
	return out
}

// stepChange is one step on both sides (NaN where not run); P50, P95, P99 and Errors carry their
// estimates, made once; moved is the largest score (NaN: none bounded), size the largest change.
type stepChange struct {
	Name                  string
	Base, Head            stepFigures
	hasBase, hasHead      bool
	P50, P95, P99, Errors sidePair
	moved, size           float64
}

// stepChanges joins both sides' steps by name (head's order, then the
// base's own) and orders them by moved, then size, the incomparable last.
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
		} else {
			out = append(out, stepChange{Name: b.Name, Base: b, hasBase: true})
		}
	}
	for i := range out {
		c := &out[i]
		c.P50, c.P95, c.P99, c.Errors = c.pair(0, 3*len(out)), c.pair(1, 3*len(out)), c.pair(2, 3*len(out)), c.pair(3, 3*len(out))
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
	slices.SortStableFunc(out, func(a, b stepChange) int { return cmp.Or(cmp.Compare(b.moved, a.moved), cmp.Compare(b.size, a.size)) })
	return out
}

// hasBaseSteps reports whether any step has figures of the base side: only
// then do the reports show base → head per step.
func hasBaseSteps(cs []stepChange) bool {
	return slices.ContainsFunc(cs, func(c stepChange) bool { return c.hasBase })
}

func (c stepChange) pair(i, k int) sidePair {
	of := func(s stepFigures, ok bool) (float64, []float64) {
		if !ok {
			return math.NaN(), nil
		}
		perRun := append(s.runs[:], mapped(s.counts, func(c [2]int64) float64 { return errorRate(c[0], c[1]) }))
		return [4]float64{s.P50, s.P95, s.P99, errorRate(s.Requests, s.Failed)}[i], perRun[i]
	}
	b, bs := of(c.Base, c.hasBase)
	h, hs := of(c.Head, c.hasHead)
	return newSidePair(b, h, bs, hs, i == 3, k)
}

func newSidePair(base, head float64, bs, hs []float64, points bool, k int) sidePair {
	p := sidePair{Base: base, Head: head, points: points}
	p.est, p.ok = p.estimate(bs, hs, k)
	return p
}

// sidePair is one figure on both sides with its change's estimate (ok
// false without); points for a rate (changes in points).
type sidePair struct {
	Base, Head float64
	points, ok bool
	est        stepEstimate
}

func (p sidePair) none() bool { return p.points && p.Base == 0 && p.Head == 0 }

func (p sidePair) fromTo(unit string) string {
	return formatValue(p.Base, "") + " → " + formatValue(p.Head, unit)
}

// change is head against base: in points for a rate, else in percent (never below −100 %; NaN where a side is
// missing or the base is not positive).
func (p sidePair) change() float64 {
	switch {
	case p.points:
		return p.Head - p.Base
	case !(p.Base > 0) || math.IsNaN(p.Head):
		return math.NaN()
	}
	return 100 * (p.Head/p.Base - 1)
}

// stepEstimate is a change with its bounds; score is its distance from
// zero over the half width (above 1: beyond the step's noise).
type stepEstimate struct{ Mid, Lo, Hi, score float64 }

// estimate is the change head against base as the table shows it (of the sides' medians; of a rate's totals), with
// bounds from the runs' spread (bs, hs): where both sides have as many runs (an A/B job's blocks) the spread of the
// runs' changes paired by place, else the sides' own spreads. Latencies are compared on the log scale, their standard
// error that of a median; rates in points. The bounds are Student's t at 95 % for all k changes of the table together,
// so that an A/A job's many steps mark none as moved by chance. ok false with fewer than two runs (or pairs) a side.
func (p sidePair) estimate(bs, hs []float64, k int) (e stepEstimate, ok bool) {
	onScale := func(x float64) float64 { // NaN where not comparable
		switch {
		case p.points:
			return x
		case x > 0:
			return math.Log(x)
		}
		return math.NaN()
	}
	bs, hs = mapped(bs, onScale), mapped(hs, onScale)
	var d []float64
	for i := range min(len(bs), len(hs)) {
		if !math.IsNaN(bs[i] + hs[i]) {
			d = append(d, hs[i]-bs[i])
		}
	}
	b, h := finiteOf(bs), finiteOf(hs)
	se, n := 0.0, 0
	switch {
	case len(bs) == len(hs) && len(d) >= 2:
		n, se = len(d), stats.SampleSD(d)/math.Sqrt(float64(len(d)))
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

// figureCell is a figure base → head with its change (changeText); in Markdown the change on a line
// of its own, which a narrow column wraps whole; "none" for an error rate neither side had.
func figureCell(p sidePair, unit string, md bool) string {
	switch {
	case p.none():
		return "none"
	case math.IsNaN(p.Base) || math.IsNaN(p.Head):
		return p.fromTo(unit)
	case md:
		return p.fromTo(unit) + "<br>" + changeText(p, md)
	}
	return p.fromTo(unit) + ", " + changeText(p, md)
}

// changeText is a change with its bounds: bold in Markdown where they
// clear zero, "within noise" where not, "noise unknown" without.
func changeText(p sidePair, md bool) string {
	format, unit := changeFormat(p.points), " "+changeUnit(p.points)
	e := p.est
	if !p.ok {
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
	bounds := map[bool]string{false: " (" + lo + " … " + hi + ")"}[e.Lo == e.Hi] // every run changed alike: no noise to bound
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

func requestsCell(c stepChange) string {
	count := func(ok bool, n int64) string { return map[bool]string{true: fmt.Sprint(n), false: "n/a"}[ok] }
	return count(c.hasBase, c.Base.Requests) + " → " + count(c.hasHead, c.Head.Requests)
}

func stepsTitle(in Input) string {
	over := map[bool]string{true: fmt.Sprintf("%d %s a side", len(in.Head), runWord(in, len(in.Head))),
		false: fmt.Sprintf("%d %s %s and %d head %s", len(in.Base), baseName(in), runWord(in, len(in.Base)), len(in.Head), runWord(in, len(in.Head)))}[len(in.Base) == len(in.Head)]
	return fmt.Sprintf("Per step, %s → head (medians over %s; not gated; each change with its 95 %% bounds, all steps' together; the steps that moved beyond their noise first)", baseName(in), over)
}
