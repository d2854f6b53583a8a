package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// chainOf is n links of main, each commit's CPU per iteration change
// against its parent drawn around truth(i) percent with a standard error
// of se percent (fixed seed), its 95 % bounds ±1.96 se, and the A/B's
// outcome: a regression where the lower bound clears 5 % (min_effect).
func chainOf(seed uint64, n int, se float64, truth func(i int) float64) []ChainLink {
	rng := rand.New(rand.NewPCG(seed*0x9e3779b97f4a7c15, 0xda3e39cb94b95bdb)) // small seeds spread over the state
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	links := make([]ChainLink, n)
	for i := range links {
		c := truth(i) + se*rng.NormFloat64()
		lm := LinkMetric{Change: c, Lo: c - z95*se, Hi: c + z95*se, Outcome: MetricPass}
		if lm.Lo > 0 && c > 5 {
			lm.Outcome = MetricRegression
		}
		links[i] = ChainLink{Commit: fmt.Sprintf("c%02d", i+1), Parent: fmt.Sprintf("c%02d", i), Job: fmt.Sprint(i), Time: t0.Add(time.Duration(i) * 24 * time.Hour),
			Metrics: map[string]LinkMetric{result.CPUPerIteration: lm}}
	}
	return links
}

func chainMetric(t *testing.T, v ChainVerdict, key string) ChainMetric {
	t.Helper()
	for _, m := range v.Metrics {
		if m.Meta.Key == key {
			return m
		}
	}
	t.Fatalf("no metric %s in the chain", key)
	return ChainMetric{}
}

// Ten commits of +1.5 % each, every one inside its own A/B's noise (a
// standard error of 0.9 %: 95 % bounds of ±1.8 % that hold zero): the
// chain multiplies them to about +16 % (1.015¹⁰ = +16.1 %) with bounds
// propagated from the links' (√10 × 0.9 % ≈ 2.8 % on the log scale), and
// flags the creep in nearly every one of 200 chains (fixed seeds); ten
// links around 0 % are flagged in at most 5 % (the bounds are 95 %, the
// bad side 2.5 %).
func TestChainCreepOfSmallSteps(t *testing.T) {
	t.Parallel()
	const chains = 200
	var flagged, falseAlarms, culprits int
	var creeps []float64
	for seed := uint64(1); seed <= chains; seed++ {
		v := AnalyzeChain(chainOf(seed, 10, 0.9, func(int) float64 { return 1.5 }), nil, 0, "c00", HistoryPolicy{})
		cpu := chainMetric(t, v, result.CPUPerIteration)
		culprits += len(cpu.Culprits)
		c := cpu.Creep
		if c.Links != 10 || !(c.Lo < c.Change && c.Change < c.Hi) {
			t.Fatalf("seed %d: creep %+v, want 10 links and the estimate inside its bounds", seed, c)
		}
		if half := math.Log1p(c.Hi/100) - math.Log1p(c.Change/100); math.Abs(half-z95*0.009*math.Sqrt(10)) > 0.003 {
			t.Errorf("seed %d: the upper bound is %.4f above the estimate on the log scale, want %.4f", seed, half, z95*0.009*math.Sqrt(10))
		}
		if c.Worse {
			flagged++
		}
		creeps = append(creeps, c.Change)
		flat := AnalyzeChain(chainOf(seed, 10, 0.9, func(int) float64 { return 0 }), nil, 0, "c00", HistoryPolicy{})
		if chainMetric(t, flat, result.CPUPerIteration).Creep.Worse {
			falseAlarms++
		}
	}
	if med := median(creeps); med < 14.5 || med > 17.5 {
		t.Errorf("median creep %+.1f %%, want about +16.1 %%", med)
	}
	if flagged < chains*95/100 || falseAlarms > chains*5/100 || culprits > chains/20 {
		t.Errorf("flagged %d of %d creeping chains, %d of %d flat ones; %d links named culprits", flagged, chains, falseAlarms, chains, culprits)
	}
	t.Logf("flagged %d/%d creeping, %d/%d flat; median creep %+.1f %%", flagged, chains, falseAlarms, chains, median(creeps))
}

// A +10 % step at commit 7 is named by its own A/B, and main sits at the
// regressed level; a later −10 % fix leaves it at no regressed level (the
// culprit stays named). Creep since commit 8 (after the step) is not
// flagged. Unchanged commits after the step whose A/Bs are noisy (a
// standard error of 3 %, as a short A/B of a real service has) leave main
// at the regressed level though their noise, added up, makes the level
// unconfirmable (bench/history/chain.sh on json-server: +10.1 % at commit
// 6, then six links of −3.6 … +1.0 %).
func TestChainNamesTheCulprit(t *testing.T) {
	t.Parallel()
	step := func(i int) float64 {
		if i == 6 {
			return 10
		}
		return 0
	}
	for seed := uint64(1); seed <= 10; seed++ {
		v := AnalyzeChain(chainOf(seed, 12, 1.0, step), nil, 0, "c00", HistoryPolicy{})
		cpu := chainMetric(t, v, result.CPUPerIteration)
		if len(cpu.Culprits) != 1 || v.Links[cpu.Culprits[0]].Commit != "c07" || len(Level(HistoryVerdict{}, v).Culprit) != 1 {
			t.Errorf("seed %d: culprits %v current %d, want c07 and main at the regressed level", seed, cpu.Culprits, len(Level(HistoryVerdict{}, v).Culprit))
		}
		if late := AnalyzeChain(v.Links, nil, 7, "c07", HistoryPolicy{}); len(Level(HistoryVerdict{}, late).Crept) != 0 {
			t.Errorf("seed %d: creep since c07 flagged: %+v", seed, late.Metrics[0].Creep)
		}
		// the fix's chain has quieter links (0.5 %): with 1 %, the five
		// unchanged commits between the step and the fix can add up to
		// half the step (seed 6: +4.3 %), and main is then fairly read as
		// still about half regressed
		fixed := chainOf(seed, 13, 0.5, func(i int) float64 {
			if i == 12 {
				return -9.1
			}
			return step(i)
		})
		fv := AnalyzeChain(fixed, nil, 0, "c00", HistoryPolicy{})
		if len(chainMetric(t, fv, result.CPUPerIteration).Culprits) != 1 || len(Level(HistoryVerdict{}, fv).Culprit) != 0 {
			t.Errorf("seed %d: after the fix current %d, want 0 (culprit still named)", seed, len(Level(HistoryVerdict{}, fv).Culprit))
		}
		noisy := chainOf(seed, 12, 3.0, step)
		noisy[6].Metrics[result.CPUPerIteration] = LinkMetric{Change: 10.1, Lo: 4.4, Hi: 16.1, Outcome: MetricRegression}
		for i := range noisy {
			if lm := noisy[i].Metrics[result.CPUPerIteration]; i != 6 && lm.Outcome == MetricRegression {
				lm.Outcome = MetricPass // one culprit, as in the chain.sh run
				noisy[i].Metrics[result.CPUPerIteration] = lm
			}
		}
		nv := AnalyzeChain(noisy, nil, 0, "c00", HistoryPolicy{})
		ncpu := chainMetric(t, nv, result.CPUPerIteration)
		if ncpu.Undone || len(Level(HistoryVerdict{}, nv).Culprit) != 1 {
			t.Errorf("seed %d: noisy unchanged commits after the step: undone %v, current %d, level %+v; want main still at the regressed level",
				seed, ncpu.Undone, len(Level(HistoryVerdict{}, nv).Culprit), ncpu.Level)
		}
	}
}

// A link whose parent is not the previous link's commit is a gap: the
// commits between were not judged, and the chain says where.
func TestChainGaps(t *testing.T) {
	t.Parallel()
	links := chainOf(1, 5, 1, func(int) float64 { return 0 })
	links[3].Parent = "elsewhere"
	if v := AnalyzeChain(links, nil, 0, "", HistoryPolicy{}); len(v.Gaps) != 1 || v.Gaps[0] != 3 {
		t.Errorf("gaps %v, want [3]", v.Gaps)
	}
}

// LinkOf reads a sequential A/B's finding as a link: signed as the values
// move (a throughput drop is negative), with 95 % bounds no narrower than
// the A/B's own repeated bounds imply.
func TestLinkOfSignsAndBounds(t *testing.T) {
	t.Parallel()
	v := Verdict{Findings: []Finding{
		{Key: result.CPUPerIteration, Gated: true, Outcome: MetricRegression, Estimate: 10, Lower: 6, Upper: 14},
		{Key: result.IterationsPerSec, Gated: true, Outcome: MetricPass, Estimate: 2, Lower: -1, Upper: 5},
		{Key: result.LatencyP95, Gated: true, Outcome: Undecided, Estimate: 3, Lower: math.Inf(-1), Upper: 9},
	}}
	l := LinkOf(v, Policy{})
	cpu, tput := l[result.CPUPerIteration], l[result.IterationsPerSec]
	if math.Abs(cpu.Change-10) > 1e-9 || cpu.Outcome != MetricRegression || !(cpu.Lo < 10 && cpu.Hi > 10) {
		t.Errorf("CPU link %+v, want +10 %% inside its bounds", cpu)
	}
	if math.Abs(tput.Change+2) > 1e-9 || !(tput.Lo < -2 && tput.Hi > -2) {
		t.Errorf("throughput link %+v, want −2 %% (a drop of 2 %% is worse) inside its bounds", tput)
	}
	if _, ok := l[result.LatencyP95]; ok {
		t.Error("a finding without finite bounds became a link")
	}
}

func median(x []float64) float64 {
	s := slices.Sorted(slices.Values(x))
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

// A link's 95 % bounds come from the estimate's fixed-sample standard
// error, not from the sequential bounds the job stopped at: over 300 jobs
// of a true +1.5 % CPU change (cv 3 % a run, fixed seeds) that stop
// early as links do, the bounds hold the truth in about 95 % (90–99 %)
// of them, and are narrower than the sequential bounds imply. Ten such
// links, multiplied, flag their creep (+16 %) in most chains, far more
// often than links with bounds read off the sequential ones.
func TestLinkBoundsAreCalibrated(t *testing.T) {
	t.Parallel()
	const jobs, truth = 300, 1.5
	rng := rand.New(rand.NewPCG(37, 11))
	p := Policy{Metrics: seqMetrics}
	var covered, narrower int
	var links, olds []ChainLink // olds: the bounds read off the sequential ones
	for i := range jobs {
		base, head := cpuPairs(rng, 12, 0.03, 1+truth/100)
		v := judgeLoop(base, head, p, stats.SeqDesign{})
		f, _ := finding(v, cpu)
		lm, ok := LinkOf(v, p)[cpu]
		if !ok || !finite(f.StdErr) || f.DF < 1 {
			t.Fatalf("job %d: link %+v (finding %+v), want one from the standard error", i, lm, f)
		}
		if lm.Lo <= truth && truth <= lm.Hi {
			covered++
		}
		old := LinkOf(Verdict{Findings: []Finding{{Key: cpu, Gated: true, Outcome: f.Outcome, Estimate: f.Estimate, Lower: f.Lower, Upper: f.Upper}}}, p)[cpu]
		if lm.Hi-lm.Lo < old.Hi-old.Lo {
			narrower++
		}
		links = append(links, ChainLink{Commit: fmt.Sprint(i + 1), Parent: fmt.Sprint(i), Metrics: map[string]LinkMetric{cpu: lm}})
		olds = append(olds, ChainLink{Commit: fmt.Sprint(i + 1), Parent: fmt.Sprint(i), Metrics: map[string]LinkMetric{cpu: old}})
	}
	if covered < jobs*90/100 || covered > jobs*99/100 || narrower < jobs*9/10 {
		t.Errorf("bounds held +%.1f %% in %d of %d links (want 90–99 %%), narrower than the sequential bounds' in %d", truth, covered, jobs, narrower)
	}
	flagged, flaggedOld := 0, 0
	for c := 0; c+10 <= jobs; c += 10 {
		if AnalyzeChain(links[c:c+10], nil, 0, "", HistoryPolicy{}).Metrics[0].Creep.Worse {
			flagged++
		}
		if AnalyzeChain(olds[c:c+10], nil, 0, "", HistoryPolicy{}).Metrics[0].Creep.Worse {
			flaggedOld++
		}
	}
	if flagged < 20 || flagged < flaggedOld+10 {
		t.Errorf("creep of ten +1.5 %% links flagged in %d of 30 chains (%d with the sequential bounds), want most, and 10 more", flagged, flaggedOld)
	}
	t.Logf("covered %d/%d, narrower %d/%d, creep flagged %d/30 (%d/30 with the sequential bounds)", covered, jobs, narrower, jobs, flagged, flaggedOld)
}

// SplitChain tells a commit judged against its parent (a link) from one
// judged against an earlier point of the chain (a span: an A/B against a
// tag), and keeps an entry whose base the chain does not hold as a link
// after a gap.
func TestSplitChain(t *testing.T) {
	t.Parallel()
	e := func(commit, parent string) ChainLink { return ChainLink{Commit: commit, Parent: parent} }
	links, spans := SplitChain([]ChainLink{
		e("c1", "c0"), e("c2", "c1"), e("c3", "c2"),
		e("c3", "c0"), // c3 against the tag on c0: a span
		e("c4", "c3"),
		e("c4", "c3"), // c4 judged again against its parent: a span of one link, not a second link
		e("c6", "x5"), // a base the chain does not hold: a gap
		e("c6", "c2"), // c6 against c2: a span
	})
	var got []string
	for _, l := range links {
		got = append(got, l.Parent+"→"+l.Commit)
	}
	if want := []string{"c0→c1", "c1→c2", "c2→c3", "c3→c4", "x5→c6"}; !slices.Equal(got, want) {
		t.Errorf("links %v, want %v", got, want)
	}
	got = nil
	for _, s := range spans {
		got = append(got, s.Parent+"→"+s.Commit)
	}
	if want := []string{"c0→c3", "c3→c4", "c2→c6"}; !slices.Equal(got, want) {
		t.Errorf("spans %v, want %v", got, want)
	}
	if first := []ChainLink{e("c1", "c0"), e("c2", "c1")}; !IsSpan(first, e("c2", "c0")) || IsSpan(first, e("c3", "c2")) || IsSpan(first, e("c3", "x")) || IsSpan(nil, e("c1", "c0")) {
		t.Error("IsSpan disagrees with SplitChain")
	}
}

// Ten commits of +1.5 % each whose A/Bs all lean low by 1 % (as the
// links of real chains on json-server leaned, bench/history): their
// product under-reads the creep and is not flagged, while one A/B of the
// tenth commit against the tag measures it whole (+16.1 %, bounds ±4 %)
// and flags it; the product is kept beside it. Links after the span's
// commit multiply onto it.
func TestChainCreepMeasuredBySpan(t *testing.T) {
	t.Parallel()
	links := chainOf(2, 12, 0.9, func(int) float64 { return 1.5 - 1 })
	span := func(commit string, change, se float64) ChainLink {
		return ChainLink{Commit: commit, Parent: "c00", Job: "span", Metrics: map[string]LinkMetric{
			result.CPUPerIteration: {Change: change, Lo: change - z95*se, Hi: change + z95*se, Outcome: MetricRegression}}}
	}
	chained := AnalyzeChain(links[:10], nil, 0, "v0", HistoryPolicy{})
	if m := chainMetric(t, chained, result.CPUPerIteration); m.Creep.Worse || m.Creep.Span != nil {
		t.Fatalf("the leaning links alone flag the creep (%+.1f %%); the test needs a chain whose product misses it", m.Creep.Change)
	}
	v := AnalyzeChain(links[:10], []ChainLink{span("c10", 16.1, 2)}, 0, "v0", HistoryPolicy{})
	c := chainMetric(t, v, result.CPUPerIteration).Creep
	if !c.Worse || c.Span == nil || c.SpanLinks != 10 || c.Links != 10 || math.Abs(c.Change-16.1) > 0.01 {
		t.Errorf("creep with the span: %+v, want +16.1 %% flagged, measured by the span over 10 links", c)
	}
	if c.Chained == nil || c.Chained.Worse || math.Abs(c.Chained.Change-chainMetric(t, chained, result.CPUPerIteration).Creep.Change) > 1e-9 {
		t.Errorf("the links' product beside the span: %+v", c.Chained)
	}
	// The span reaches c08; c09–c12 multiply onto it.
	later := AnalyzeChain(links, []ChainLink{span("c04", 3, 1), span("c08", 12, 2)}, 0, "v0", HistoryPolicy{})
	lc := chainMetric(t, later, result.CPUPerIteration).Creep
	want := ChainProduct(append([]ChainLink{span("c08", 12, 2)}, links[8:]...), chainMetric(t, later, result.CPUPerIteration).Meta)
	if lc.Span == nil || lc.Span.Commit != "c08" || lc.SpanLinks != 8 || math.Abs(lc.Change-want.Change) > 1e-9 || math.Abs(lc.Lo-want.Lo) > 1e-9 {
		t.Errorf("creep from the furthest span and the links after it: %+v, want the product of span c08 and links c09–c12 (%+.2f %%)", lc, want.Change)
	}
	// A span from another start does not measure this creep.
	if other := AnalyzeChain(links, []ChainLink{span("c08", 12, 2)}, 3, "c03", HistoryPolicy{}); chainMetric(t, other, result.CPUPerIteration).Creep.Span != nil {
		t.Error("a span from c00 measured the creep since c03")
	}
}

// Two changes compose as the chain multiplies them: percentages multiply,
// points add.
func TestCompose(t *testing.T) {
	t.Parallel()
	cpu, _ := result.Lookup(result.CPUPerIteration)
	errs, _ := result.Lookup(result.RequestErrorPct)
	if got := Compose(cpu, 10, 10); math.Abs(got-21) > 1e-9 {
		t.Errorf("+10 %% then +10 %% = %v %%, want +21 %%", got)
	}
	if got := Compose(cpu, 100, -50); math.Abs(got) > 1e-9 {
		t.Errorf("+100 %% then −50 %% = %v %%, want 0", got)
	}
	if got := Compose(errs, 1.5, 0.25); math.Abs(got-1.75) > 1e-9 {
		t.Errorf("+1.5 pp then +0.25 pp = %v pp, want +1.75", got)
	}
}

// AnalyzeChain is AnalyzeChainFrom from link since's parent.
func AnalyzeChain(links, spans []ChainLink, since int, from string, p HistoryPolicy) ChainVerdict {
	return AnalyzeChainFrom(links, spans, since, "", from, p)
}
