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
		v := AnalyzeChain(chainOf(seed, 10, 0.9, func(int) float64 { return 1.5 }), 0, "c00", HistoryPolicy{})
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
		flat := AnalyzeChain(chainOf(seed, 10, 0.9, func(int) float64 { return 0 }), 0, "c00", HistoryPolicy{})
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
		v := AnalyzeChain(chainOf(seed, 12, 1.0, step), 0, "c00", HistoryPolicy{})
		cpu := chainMetric(t, v, result.CPUPerIteration)
		if len(cpu.Culprits) != 1 || v.Links[cpu.Culprits[0]].Commit != "c07" || len(v.Current()) != 1 {
			t.Errorf("seed %d: culprits %v current %d, want c07 and main at the regressed level", seed, cpu.Culprits, len(v.Current()))
		}
		if late := AnalyzeChain(v.Links, 7, "c07", HistoryPolicy{}); len(late.Crept()) != 0 {
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
		fv := AnalyzeChain(fixed, 0, "c00", HistoryPolicy{})
		if len(chainMetric(t, fv, result.CPUPerIteration).Culprits) != 1 || len(fv.Current()) != 0 {
			t.Errorf("seed %d: after the fix current %d, want 0 (culprit still named)", seed, len(fv.Current()))
		}
		noisy := chainOf(seed, 12, 3.0, step)
		noisy[6].Metrics[result.CPUPerIteration] = LinkMetric{Change: 10.1, Lo: 4.4, Hi: 16.1, Outcome: MetricRegression}
		for i := range noisy {
			if lm := noisy[i].Metrics[result.CPUPerIteration]; i != 6 && lm.Outcome == MetricRegression {
				lm.Outcome = MetricPass // one culprit, as in the chain.sh run
				noisy[i].Metrics[result.CPUPerIteration] = lm
			}
		}
		nv := AnalyzeChain(noisy, 0, "c00", HistoryPolicy{})
		ncpu := chainMetric(t, nv, result.CPUPerIteration)
		if ncpu.Undone || len(nv.Current()) != 1 {
			t.Errorf("seed %d: noisy unchanged commits after the step: undone %v, current %d, level %+v; want main still at the regressed level",
				seed, ncpu.Undone, len(nv.Current()), ncpu.Level)
		}
	}
}

// A link whose parent is not the previous link's commit is a gap: the
// commits between were not judged, and the chain says where.
func TestChainGaps(t *testing.T) {
	t.Parallel()
	links := chainOf(1, 5, 1, func(int) float64 { return 0 })
	links[3].Parent = "elsewhere"
	if v := AnalyzeChain(links, 0, "", HistoryPolicy{}); len(v.Gaps) != 1 || v.Gaps[0] != 3 {
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
		if AnalyzeChain(links[c:c+10], 0, "", HistoryPolicy{}).Metrics[0].Creep.Worse {
			flagged++
		}
		if AnalyzeChain(olds[c:c+10], 0, "", HistoryPolicy{}).Metrics[0].Creep.Worse {
			flaggedOld++
		}
	}
	if flagged < 20 || flagged < flaggedOld+10 {
		t.Errorf("creep of ten +1.5 %% links flagged in %d of 30 chains (%d with the sequential bounds), want most, and 10 more", flagged, flaggedOld)
	}
	t.Logf("covered %d/%d, narrower %d/%d, creep flagged %d/30 (%d/30 with the sequential bounds)", covered, jobs, narrower, jobs, flagged, flaggedOld)
}
