package gate

import (
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// HistoryJob is one recorded job of main's history, oldest first.
type HistoryJob struct {
	Commit, Ref, Job string
	Time             time.Time
	// Machine: environment fingerprint; Runner: CI machine image ("":
	// unknown); Tool: Go and tailgate versions; Definition: its hash.
	Machine, Runner, Tool, Definition string
	Runs                              []result.Run
}

type HistoryPolicy struct {
	// Alpha is the false-alarm rate of the whole analysis, split evenly
	// over the gated metrics; 0 means DefaultAlpha.
	Alpha float64
	// Metrics are the gated metric keys; empty means DefaultMetrics.
	Metrics []string
	// MinEffect is gate.min_effect: no step smaller is a change point.
	MinEffect map[string]float64
	// Seed makes the permutation tests and bootstraps repeatable.
	Seed uint64
}

type HistoryMetric struct {
	Meta result.Metric
	// Jobs index the history's jobs that measured it; Values, Runs theirs.
	Jobs   []int
	Values []float64
	Runs   [][]float64
	// Floor: smallest step counted (percent, points for rates); Alpha: each test's level.
	Floor, Alpha float64
	Changes      []HistoryChange
	// Side is the fewest jobs a step needs on each side at Alpha (0: none),
	// Needed the fewest jobs that can show one, Visible the smallest step
	// shown with 80 % power mid-history (+Inf when Side is 0).
	Side, Needed int
	Visible      float64
	// Seen is the step the values show (best split, beyond the floor and the
	// neighbours' noise) when the search confirmed none.
	Seen *HistoryChange
	Note string // why the metric was not analysed
}

type HistoryChange struct {
	// At is the history index of the first job at the new level (the
	// best estimate); First…Last the jobs it may be (inclusive): the
	// change came with one of the commits after job First−1 up to job
	// Last.
	At, First, Last int
	// Before and After are the medians of the levels; Change, Lo and Hi
	// the step and its bounds in percent (points for rates), signed as
	// the values move.
	Before, After, Change, Lo, Hi, P float64
	// Worse: the step is in the metric's bad direction.
	Worse bool
	// Environment lists what changed in the range besides the code;
	// ByEnvironment: machine, runner or definition did, so maybe not the code.
	Environment   []EnvChange
	ByEnvironment bool
}

// EnvChange is a change between consecutive jobs besides the code, at the later one's Commit (or Job): What ("machine",
// "runner", "definition" or "tool") went From → To (report words it).
type EnvChange struct{ What, From, To, Commit, Job string }

// Regression reports whether the change is a regression of the code: worse,
// and with no change of machine, runner or definition in its range.
func (c HistoryChange) Regression() bool { return c.Worse && !c.ByEnvironment }

type HistoryVerdict struct {
	Jobs    int
	Metrics []HistoryMetric
}

// TooFew: these jobs can show no step at all, or Seen has too few on a side.
func (hm HistoryMetric) TooFew() bool {
	if hm.Side == 0 || hm.Seen == nil {
		return hm.Side == 0
	}
	i, _ := slices.BinarySearch(hm.Jobs, hm.Seen.At)
	return min(i, len(hm.Values)-i) < hm.Side
}

// MainLevel answers "has main got slower?" from the change points of its
// jobs (HistoryVerdict) and its A/B chain (ChainVerdict).
type MainLevel struct {
	// Changed are the metrics whose latest change point is a regression,
	// Culprit those a commit's own A/B found regressed that no later
	// commits undid; Regressed the keys of both, once each.
	Changed   []HistoryMetric
	Culprit   []ChainMetric
	Regressed []string
	Crept     []ChainMetric // creep since ChainVerdict.From flagged
	// Unconfirmed: no change point, but a step the bad way (Seen).
	Unconfirmed []HistoryMetric
}

func Level(v HistoryVerdict, c ChainVerdict) MainLevel {
	var l MainLevel
	for _, m := range v.Metrics {
		switch n := len(m.Changes); {
		case n > 0 && m.Changes[n-1].Regression():
			l.Changed, l.Regressed = append(l.Changed, m), append(l.Regressed, m.Meta.Key)
		case n == 0 && m.Seen != nil && m.Seen.Worse:
			l.Unconfirmed = append(l.Unconfirmed, m)
		}
	}
	for _, m := range c.Metrics {
		if len(m.Culprits) > 0 && !m.Undone {
			l.Culprit = append(l.Culprit, m)
			if !slices.Contains(l.Regressed, m.Meta.Key) {
				l.Regressed = append(l.Regressed, m.Meta.Key)
			}
		}
		if m.Creep.Worse {
			l.Crept = append(l.Crept, m)
		}
	}
	return l
}

// AnalyzeHistory finds each gated metric's change points; a job's value is
// its runs' median (they share its drift), each test at Alpha/K, so a
// history without change gets one with probability at most Alpha.
func AnalyzeHistory(jobs []HistoryJob, p HistoryPolicy) (HistoryVerdict, error) {
	var all []result.Run
	for _, j := range jobs {
		all = append(all, j.Runs...)
	}
	fixed := setByLoad(all, nil)
	v := HistoryVerdict{Jobs: len(jobs)}
	analysed := 0
	for _, m := range gatedMetrics(p, func(key string) bool { return !fixed[key] && hasKey(all, key) }) {
		hm := seriesOf(jobs, m, historyFloor(m, p))
		if hm.enough() {
			analysed++
		}
		v.Metrics = append(v.Metrics, hm)
	}
	alpha := Policy{Alpha: p.Alpha}.Level() / float64(max(analysed, 1))
	for i := range v.Metrics {
		if err := findChanges(&v.Metrics[i], jobs, alpha, p.Seed+uint64(i)); err != nil {
			return HistoryVerdict{}, err
		}
	}
	return v, nil
}

func gatedMetrics(p HistoryPolicy, measured func(key string) bool) []result.Metric {
	wanted := (Policy{Metrics: p.Metrics}).metrics()
	var out []result.Metric
	for _, m := range result.Metrics {
		if slices.Contains(wanted, m.Key) && measured(m.Key) {
			out = append(out, m)
		}
	}
	return out
}

// historyFloor is the smallest step counted: gate.min_effect, and never
// below the least calibrated floor. The check's stored-baseline floors do
// not apply: they bound what 5 runs against a window can tell from one
// job's drift, while a change point compares levels of many jobs and its
// permutation test measures their spread itself.
func historyFloor(m result.Metric, p HistoryPolicy) float64 {
	least := MinCalibratedFloorPercent
	if m.Scale == result.Percent {
		least = MinCalibratedFloorPoints
	}
	return math.Max(least, p.MinEffect[m.Key])
}

// historyMinSegment is the fewest jobs a level holds in the search (the
// relocation may leave 2 at either end). A history of at most shortHistory
// jobs takes historyPermutations per test, so that its p, near its least
// possible value, is close and one more job does not flip it (longer ones
// take the default: a permutation costs the square of the jobs).
const (
	historyMinSegment   = 3
	historyPermutations = 1999
	shortHistory        = 60
)

func (hm HistoryMetric) enough() bool { return len(hm.Values) >= 2*historyMinSegment }

func seriesOf(jobs []HistoryJob, m result.Metric, floor float64) HistoryMetric {
	hm := HistoryMetric{Meta: m, Floor: floor}
	skipped := 0
	for i, j := range jobs {
		var runs []float64
		for _, r := range j.Runs {
			if v, ok := r.Metrics[m.Key]; ok && finite(v) {
				runs = append(runs, v)
			}
		}
		if len(runs) == 0 {
			continue
		}
		med := stats.Median(runs)
		if m.Scale == result.Ratio && med <= 0 {
			skipped++
			continue
		}
		hm.Jobs, hm.Values, hm.Runs = append(hm.Jobs, i), append(hm.Values, med), append(hm.Runs, runs)
	}
	if skipped > 0 {
		hm.Note = fmt.Sprintf("%d of the jobs left out: their median was 0, and a ratio needs positive values", skipped)
	}
	if !hm.enough() {
		hm.Note = fmt.Sprintf("too few jobs: %d measured it, at least %d are needed to find a change", len(hm.Values), 2*historyMinSegment)
	}
	return hm
}

func findChanges(hm *HistoryMetric, jobs []HistoryJob, alpha float64, seed uint64) error {
	if len(hm.Values) == 0 {
		return nil
	}
	sc := scale(hm.Meta)
	x, err := sc.Values(hm.Values)
	if err != nil {
		return fmt.Errorf("history of %s: %w", hm.Meta.Key, err)
	}
	floor := math.Abs(toChainScale(hm.Meta, hm.Floor))
	reach := stats.ReachOf(x, alpha, historyMinSegment)
	hm.Side, hm.Needed, hm.Visible = reach.Side, reach.Needed, math.Max(math.Abs(userChange(sc, reach.Step)), hm.Floor)
	if !hm.enough() {
		hm.Note = fmt.Sprintf("too few jobs: %d measured it, a step needs %d jobs or more", len(hm.Values), hm.Needed)
	} else {
		hm.Alpha = alpha
		o := stats.ChangePointOptions{Alpha: alpha, MinStep: floor, Seed: seed, MinSize: historyMinSegment}
		if len(x) <= shortHistory {
			o.Permutations = historyPermutations
		}
		cps, err := stats.ChangePoints(x, o)
		if err != nil {
			return fmt.Errorf("history of %s: %w", hm.Meta.Key, err)
		}
		for _, cp := range cps {
			hm.Changes = append(hm.Changes, hm.describe(jobs, cp))
		}
	}
	if len(hm.Changes) > 0 {
		return nil
	}
	// Seen: the best split into two levels, at least the floor, and
	// beyond the noise between neighbouring jobs as a test of that one
	// split at alpha over the places it could be would count it.
	ls, ok := stats.BestLevelStep(x)
	if ok && math.Abs(ls.Step) >= floor && ls.Z >= distuv.UnitNormal.Quantile(1-alpha/float64(max(len(x)-3, 1))) {
		nan := math.NaN()
		c := hm.describe(jobs, stats.ChangePoint{Index: ls.Index, First: ls.Index, Last: ls.Index, Before: ls.Before, After: ls.After, Step: ls.Step, Lo: nan, Hi: nan, P: nan})
		hm.Seen = &c
	}
	return nil
}

// describe is change point cp in the history's terms: jobs, medians,
// percent, and what changed besides the code within its range.
func (hm *HistoryMetric) describe(jobs []HistoryJob, cp stats.ChangePoint) HistoryChange {
	sc := scale(hm.Meta)
	c := HistoryChange{At: hm.Jobs[cp.Index], First: hm.Jobs[cp.First], Last: hm.Jobs[cp.Last],
		Before: stats.Median(hm.Values[cp.Index-cp.Before : cp.Index]), After: stats.Median(hm.Values[cp.Index : cp.Index+cp.After]),
		P: cp.P, Change: userChange(sc, cp.Step), Lo: userChange(sc, cp.Lo), Hi: userChange(sc, cp.Hi),
		Worse: direction(hm.Meta).Sign()*cp.Step > 0}
	c.Environment, c.ByEnvironment = environmentChanges(jobs[hm.Jobs[max(cp.First-1, 0)] : c.Last+1])
	return c
}

// userChange is a step on the comparison scale in percent (points for rates).
func userChange(sc stats.Scale, step float64) float64 {
	if sc == stats.Points {
		return step
	}
	return 100 * math.Expm1(step)
}

// environmentChanges lists what changed between consecutive jobs besides
// the code, and whether machine, runner or definition did (they move figures).
func environmentChanges(jobs []HistoryJob) (out []EnvChange, byEnv bool) {
	for i := 1; i < len(jobs); i++ {
		a, b := jobs[i-1], jobs[i]
		changes := []EnvChange{{"machine", a.Machine, b.Machine, b.Commit, b.Job}, {"runner", a.Runner, b.Runner, b.Commit, b.Job},
			{"definition", "", "", b.Commit, b.Job}, {"tool", a.Tool, b.Tool, b.Commit, b.Job}} // a definition's hashes are not shown
		for k, moved := range []bool{a.Machine != b.Machine, a.Runner != b.Runner, a.Definition != b.Definition, a.Tool != b.Tool} {
			if moved {
				out, byEnv = append(out, changes[k]), byEnv || k < 3
			}
		}
	}
	return slices.Compact(out), byEnv
}

// The chain of main: each commit judged against its parent by a
// same-runner A/B, which sees no drift between jobs. A step's culprit is
// the commit whose own A/B saw it; creep is the product of the commits'
// changes, the links' independent errors adding in variance on the log
// scale.

type ChainLink struct {
	Commit, Parent, Job string
	Time                time.Time
	// Metrics are the A/B's estimates by metric key.
	Metrics map[string]LinkMetric
}

// LinkMetric is a link's paired estimate: Change and 95 % bounds, signed
// as the values move, in percent (points for rates), and the A/B's Outcome.
type LinkMetric struct {
	Change, Lo, Hi float64
	Outcome        MetricOutcome
}

func (l ChainLink) regressed(key string) bool { return l.Metrics[key].Outcome == MetricRegression }

type ChainVerdict struct {
	Links []ChainLink
	// Spans are A/B jobs that judged a commit against an earlier point than
	// its parent (a tag): several links measured in one job (SplitChain).
	Spans []ChainLink
	// Since is the index of the first link the creep counts, and From
	// names where it starts ("v1.4 (3a9c5e7)", "2026-11-01").
	Since int
	From  string
	// Gaps are the links whose parent is not the previous link's commit.
	Gaps    []int
	Metrics []ChainMetric
}

type ChainMetric struct {
	Meta result.Metric
	// Culprits are the links whose own A/B found the metric regressed.
	Culprits []int
	// Creep is the product of the changes since ChainVerdict.Since.
	Creep Creep
	// Level is the product from the latest culprit to the newest link: is
	// main still at the level it regressed to? Valid with Culprits.
	Level Creep
	// Undone: the commits after the latest culprit are an improvement
	// their bounds confirm, leaving less than half the culprit's change.
	Undone bool
}

// Creep is a product of links' changes: in percent (points for rates),
// signed as the values move, with 95 % bounds.
type Creep struct {
	// Links is the commits it spans that estimated the metric.
	Links          int
	Change, Lo, Hi float64
	// Floor is the smallest change counted (as the history's floor).
	Floor float64
	// Worse: beyond the floor the bad way, with its bounds on that side
	// of zero.
	Worse bool
	// Span, when set, is the A/B that measured the creep's start to its
	// commit in one job (noise once, where ten links add it up), times the
	// links after it; SpanLinks counts the links it stands for, Chained is
	// their product.
	Span      *ChainLink
	SpanLinks int
	Chained   *Creep
}

// SplitChain separates main's A/B entries (oldest first) into links (a
// commit against its parent) and spans (several links in one job): an
// entry based on an earlier point of the chain than the last link's
// commit, or that commit again against another base (creep_since, a tag
// older than the chain). Another entry with a base not in the chain is a
// link after a gap.
func SplitChain(entries []ChainLink) (links, spans []ChainLink) {
	points := map[string]bool{}
	for _, e := range entries {
		if n := len(links); n > 0 && e.Parent != links[n-1].Commit {
			if last := links[n-1]; points[e.Parent] || (e.Commit == last.Commit && e.Parent != last.Parent) {
				spans = append(spans, e)
				continue
			}
		}
		links = append(links, e)
		points[e.Parent], points[e.Commit] = true, true
	}
	return links, spans
}

// IsSpan reports whether entry, appended to entries, would be a span.
func IsSpan(entries []ChainLink, entry ChainLink) bool {
	_, before := SplitChain(entries)
	_, after := SplitChain(append(entries[:len(entries):len(entries)], entry))
	return len(after) > len(before)
}

const z95 = 1.959963984540054 // the links' two-sided 95 % normal quantile

// AnalyzeChainFrom reads the chain of links (oldest first), the creep from
// link since on, named from, starting at commit start ("": link since's
// parent); a span from start measures it even before the chain's first link.
func AnalyzeChainFrom(links, spans []ChainLink, since int, start, from string, p HistoryPolicy) ChainVerdict {
	v := ChainVerdict{Links: links, Spans: spans, Since: since, From: from}
	for i := 1; i < len(links); i++ {
		if links[i].Parent != links[i-1].Commit {
			v.Gaps = append(v.Gaps, i)
		}
	}
	estimated := func(key string) bool {
		return slices.ContainsFunc(links, func(l ChainLink) bool { _, ok := l.Metrics[key]; return ok })
	}
	for _, m := range gatedMetrics(p, estimated) {
		cm := ChainMetric{Meta: m}
		for i, l := range links {
			if l.regressed(m.Key) {
				cm.Culprits = append(cm.Culprits, i)
			}
		}
		floor := historyFloor(m, p)
		cm.Creep = creepSince(links, spans, since, start, m, floor)
		if n := len(cm.Culprits); n > 0 {
			last := cm.Culprits[n-1]
			cm.Level = product(links[last:], m, floor)
			cm.Undone = undone(links[last].Metrics[m.Key], cm.Level, product(links[last+1:], m, floor), m)
		}
		v.Metrics = append(v.Metrics, cm)
	}
	return v
}

// undone: the links after a culprit improve the metric, bounds and all,
// and less than half its change is left (level: the product from it on).
func undone(culprit LinkMetric, level, after Creep, m result.Metric) bool {
	sign, worst := direction(m).Sign(), after.Hi // the bound of the later changes on the bad side
	if sign < 0 {
		worst = after.Lo
	}
	return after.Links > 0 && sign*worst < 0 && sign*level.Change < sign*culprit.Change/2
}

// creepSince is m's change from link since on: the furthest-reaching span
// from start (link since's parent when "") that estimated m times the
// links after it, else the links' product.
func creepSince(links, spans []ChainLink, since int, start string, m result.Metric, floor float64) Creep {
	chained := product(links[min(since, len(links)):], m, floor)
	if since >= len(links) {
		return chained
	}
	if start == "" {
		start = links[since].Parent
	}
	best, reach := -1, -1
	for i, s := range spans {
		if _, ok := s.Metrics[m.Key]; !ok || s.Parent != start {
			continue
		}
		k := slices.IndexFunc(links[since:], func(l ChainLink) bool { return l.Commit == s.Commit })
		if k >= 0 && since+k >= reach {
			best, reach = i, since+k
		}
	}
	if best < 0 {
		return chained
	}
	c := product(append([]ChainLink{spans[best]}, links[reach+1:]...), m, floor)
	c.Links, c.Span, c.SpanLinks, c.Chained = chained.Links, &spans[best], reach+1-since, &chained
	return c
}

// product multiplies the links' changes of metric m (adds, for rates); a
// link that did not estimate m is no change and does not count in Links.
func product(links []ChainLink, m result.Metric, floor float64) Creep {
	c := Creep{Floor: floor}
	var sum, variance float64
	var only LinkMetric
	for _, l := range links {
		lm, ok := l.Metrics[m.Key]
		if !ok {
			continue
		}
		only = lm
		w, lo, hi := toChainScale(m, lm.Change), toChainScale(m, lm.Lo), toChainScale(m, lm.Hi)
		se := (hi - lo) / (2 * z95)
		sum, variance = sum+w, variance+se*se
		c.Links++
	}
	half := z95 * math.Sqrt(variance)
	sc := scale(m)
	c.Change, c.Lo, c.Hi = userChange(sc, sum), userChange(sc, sum-half), userChange(sc, sum+half)
	if c.Links == 1 { // one A/B's estimate: its own bounds, as it said them
		c.Lo, c.Hi = only.Lo, only.Hi
	}
	// Worse only if even the bound nearer zero on the bad side is.
	sign, nearer := direction(m).Sign(), c.Lo
	if sign < 0 {
		nearer = c.Hi
	}
	c.Worse = sign*c.Change >= floor && sign*nearer > 0
	return c
}

// toChainScale is a change signed as the values move, in percent, on the
// log scale (points stay points); userChange is its inverse.
func toChainScale(m result.Metric, change float64) float64 {
	return stats.ToScale(scale(m), stats.HigherIsWorse, change)
}

// Compose is a change a of metric m followed by a change b, in its change
// units: percentages multiply, points add.
func Compose(m result.Metric, a, b float64) float64 {
	return userChange(scale(m), toChainScale(m, a)+toChainScale(m, b))
}

// LinkOf is the A/B verdict v as a link's metrics: each gated metric's
// estimate with 95 % bounds from its fixed-sample standard error and
// Student's t. The verdict's own repeated confidence bounds (levels α/K
// and β) are far wider at the early looks where a link's job stops: added
// up, they overstated a creep's bounds about twice (json-server, 10 links
// of +1.5 %: estimates spread 1.2 %, bounds implied 2.3 %). Without a
// standard error (an older verdict) they are read off the verdict's.
func LinkOf(v Verdict, p Policy) map[string]LinkMetric {
	gated := len(slices.DeleteFunc(slices.Clone(v.Findings), func(f Finding) bool { return !f.Gated || f.Outcome == NotAvailable }))
	zSpan := distuv.UnitNormal.Quantile(1-p.Level()/float64(max(gated, 1))) + distuv.UnitNormal.Quantile(1-stats.DefaultSeqBeta)
	out := map[string]LinkMetric{}
	for _, f := range v.Findings {
		m, ok := result.Lookup(f.Key)
		if !ok || !f.Gated || f.Outcome == NotAvailable || !finite(f.Estimate, f.Lower, f.Upper) {
			continue
		}
		// Estimate, Lower and Upper are in the bad direction; the link is
		// signed as the values move.
		sc, dir := scale(m), direction(m)
		w := dir.Sign() * stats.ToScale(sc, dir, f.Estimate)
		half := z95 * math.Abs(stats.ToScale(sc, dir, f.Upper)-stats.ToScale(sc, dir, f.Lower)) / zSpan
		if finite(f.StdErr) && f.DF > 0 {
			half = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(f.DF)}.Quantile(0.975) * f.StdErr
		}
		out[f.Key] = LinkMetric{Change: userChange(sc, w), Lo: userChange(sc, w-half), Hi: userChange(sc, w+half), Outcome: f.Outcome}
	}
	return out
}

func finite(xs ...float64) bool {
	return !slices.ContainsFunc(xs, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
}

// Judged is, among commits, the links whose A/B found key regressed and
// how many of the commits the chain judged.
func (v ChainVerdict) Judged(key string, commits []string) (culprits []int, judged int) {
	for i, l := range v.Links {
		if slices.Contains(commits, l.Commit) {
			judged++
			if l.regressed(key) {
				culprits = append(culprits, i)
			}
		}
	}
	return culprits, judged
}

// ChainProduct is product at the least calibrated floor.
func ChainProduct(links []ChainLink, m result.Metric) Creep {
	return product(links, m, historyFloor(m, HistoryPolicy{}))
}
