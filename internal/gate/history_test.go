package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// historyOf builds n jobs of 5 runs: CPU per iteration at cpu(j) × 2 ms
// with 3 % noise in a job and 1 % between jobs, iterations/s at 100/s
// with 5 % and 4 %, and p95 at 20 ms with 10 %, on one machine.
func historyOf(seed uint64, n int, cpu func(j int) float64) []HistoryJob {
	rng := rand.New(rand.NewPCG(seed, 9))
	jobs := make([]HistoryJob, n)
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for j := range jobs {
		dCPU, dTput := rng.NormFloat64()*0.01, rng.NormFloat64()*0.04
		job := HistoryJob{Commit: fmt.Sprintf("%040x", j+1), Job: fmt.Sprint(j), Time: t0.Add(time.Duration(j) * time.Hour),
			Machine: "cpu; 2 cores; linux/amd64", Runner: "ubuntu24/1", Tool: "go1.26 tailgate v1", Definition: "d1"}
		for r := 0; r < 5; r++ {
			job.Runs = append(job.Runs, result.Run{Index: r, Metrics: map[string]float64{
				result.CPUPerIteration:  2 * cpu(j) * math.Exp(dCPU+rng.NormFloat64()*0.03),
				result.IterationsPerSec: 100 * math.Exp(dTput+rng.NormFloat64()*0.05),
				result.LatencyP95:       20 * math.Exp(rng.NormFloat64()*0.10),
			}})
		}
		jobs[j] = job
	}
	return jobs
}

func stepped(j int) float64 {
	level := 1.0
	if j >= 15 {
		level *= 1.04
	}
	if j >= 30 {
		level *= 1.08
	}
	if j >= 45 {
		level *= 0.95
	}
	return level
}

func metricOf(t *testing.T, v HistoryVerdict, key string) HistoryMetric {
	t.Helper()
	for _, m := range v.Metrics {
		if m.Meta.Key == key {
			return m
		}
	}
	t.Fatalf("no metric %s in %+v", key, v.Metrics)
	return HistoryMetric{}
}

func TestAnalyzeHistorySteps(t *testing.T) {
	t.Parallel()
	v, err := AnalyzeHistory(historyOf(1, 60, stepped), HistoryPolicy{Seed: 1, MinEffect: map[string]float64{result.CPUPerIteration: 2}})
	if err != nil {
		t.Fatal(err)
	}
	cpu := metricOf(t, v, result.CPUPerIteration)
	if len(cpu.Changes) != 3 {
		t.Fatalf("CPU changes %+v, want 3", cpu.Changes)
	}
	for i, want := range []struct {
		at     int
		change float64
		worse  bool
	}{{15, 4, true}, {30, 8, true}, {45, -5, false}} {
		c := cpu.Changes[i]
		if c.First > want.at || c.Last < want.at || math.Abs(c.Change-want.change) > 2.5 || c.Worse != want.worse || !(c.Lo <= c.Change && c.Change <= c.Hi) {
			t.Errorf("change %d: %+v, want %+.0f %% at job %d", i, c, want.change, want.at)
		}
		if c.ByEnvironment || len(c.Environment) > 0 {
			t.Errorf("change %d: environment %v on one machine", i, c.Environment)
		}
	}
	// The last step is an improvement: main is not at a regressed level.
	if cur := Level(v, ChainVerdict{}).Changed; len(cur) != 0 {
		t.Errorf("current regressions %+v, want none after the −5 %% step", cur[0].Changes)
	}
	if k := len(v.Metrics); k != 3 || cpu.Alpha != DefaultAlpha/3 {
		t.Errorf("%d metrics at α %v per metric, want 3 at %v", k, cpu.Alpha, DefaultAlpha/3)
	}
	for _, key := range []string{result.IterationsPerSec, result.LatencyP95} {
		if m := metricOf(t, v, key); len(m.Changes) != 0 {
			t.Errorf("%s: changes %+v on a clean series", key, m.Changes)
		}
	}
}

// A step that comes with a new runner image is the environment's, not a
// regression of the code.
func TestAnalyzeHistoryEnvironmentStep(t *testing.T) {
	t.Parallel()
	jobs := historyOf(2, 40, func(j int) float64 {
		if j >= 20 {
			return 1.10
		}
		return 1
	})
	for j := 20; j < 40; j++ {
		jobs[j].Runner = "ubuntu24/2"
	}
	v, err := AnalyzeHistory(jobs, HistoryPolicy{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	cpu := metricOf(t, v, result.CPUPerIteration)
	if len(cpu.Changes) != 1 {
		t.Fatalf("changes %+v, want 1", cpu.Changes)
	}
	c := cpu.Changes[0]
	if !c.Worse || !c.ByEnvironment || c.Regression() || len(c.Environment) != 1 {
		t.Errorf("change %+v: want a worse step by the environment, not a regression", c)
	}
	if len(Level(v, ChainVerdict{}).Changed) != 0 {
		t.Error("a runner change counted as a current regression")
	}
	// The same step on one runner is a regression main sits at.
	for j := range jobs {
		jobs[j].Runner = "ubuntu24/1"
	}
	v, _ = AnalyzeHistory(jobs, HistoryPolicy{Seed: 2})
	if cur := Level(v, ChainVerdict{}).Changed; len(cur) != 1 || cur[0].Meta.Key != result.CPUPerIteration {
		t.Errorf("current regressions %+v, want CPU per iteration", cur)
	}
}

// Ten steps of +1.5 % add up to +16 %: the history shows main rising.
func TestAnalyzeHistoryCreep(t *testing.T) {
	t.Parallel()
	creep := func(j int) float64 { return math.Pow(1.015, float64(min(j/5, 10))) }
	v, err := AnalyzeHistory(historyOf(3, 60, creep), HistoryPolicy{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cpu := metricOf(t, v, result.CPUPerIteration)
	if len(cpu.Changes) == 0 || len(Level(v, ChainVerdict{}).Changed) == 0 {
		t.Fatalf("creep: changes %+v, current %+v; want main at a regressed level", cpu.Changes, Level(v, ChainVerdict{}).Changed)
	}
	total := 1.0
	for _, c := range cpu.Changes {
		total *= 1 + c.Change/100
	}
	if total < 1.10 {
		t.Errorf("the steps add up to %+.1f %%, want about +16 %%", 100*(total-1))
	}
}

// min_effect merges steps smaller than itself; a short history has too few
// jobs to hold two levels and says so.
func TestAnalyzeHistoryFloorAndShortHistory(t *testing.T) {
	t.Parallel()
	jobs := historyOf(4, 60, stepped)
	v, _ := AnalyzeHistory(jobs, HistoryPolicy{Seed: 4, MinEffect: map[string]float64{result.CPUPerIteration: 9}})
	if cpu := metricOf(t, v, result.CPUPerIteration); len(cpu.Changes) != 0 {
		t.Errorf("min_effect 9 %%: changes %+v, want none (the steps are 4, 8, −5 %%)", cpu.Changes)
	}
	v, _ = AnalyzeHistory(jobs[:5], HistoryPolicy{})
	if cpu := metricOf(t, v, result.CPUPerIteration); cpu.Note == "" || len(cpu.Changes) != 0 {
		t.Errorf("5 jobs: %+v, want a note and no change", cpu)
	}
}

// stepAt is a +55 % step of CPU per iteration at job k (the N+1
// query: levels that never overlap).
func stepAt(k int) func(int) float64 {
	return func(j int) float64 {
		if j >= k {
			return 1.55
		}
		return 1
	}
}

// A step at job k is located at k, from 3 jobs before it on; once found it
// stays found as jobs are added (more jobs never lose it); wherever the
// jobs can show it (at least Side on each side) it is found; and where
// they cannot, the metric says too few jobs and still names job k as the
// step its values show.
func TestAnalyzeHistoryShortStepAtK(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 5; seed++ {
		for before := 3; before <= 6; before++ {
			found := false
			for after := 1; after <= 9; after++ {
				jobs := historyOf(seed, before+after, stepAt(before))
				v, err := AnalyzeHistory(jobs, HistoryPolicy{Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				cpu := metricOf(t, v, result.CPUPerIteration)
				name := fmt.Sprintf("seed %d, %d+%d jobs", seed, before, after)
				switch {
				case len(cpu.Changes) > 0:
					if len(cpu.Changes) != 1 || cpu.Changes[0].At != before || !cpu.Changes[0].Regression() {
						t.Errorf("%s: changes %+v, want one regression at job %d", name, cpu.Changes, before)
					}
					found = true
				case found:
					t.Errorf("%s: the step found with fewer jobs is lost", name)
				case cpu.Side > 0 && min(before, after) >= cpu.Side:
					t.Errorf("%s: not found, though the jobs can show a step with %d on each side", name, cpu.Side)
				case !cpu.TooFew():
					t.Errorf("%s: not found and not said to be too few jobs (side %d, seen %+v)", name, cpu.Side, cpu.Seen)
				case after >= 2 && (cpu.Seen == nil || cpu.Seen.At != before || !cpu.Seen.Worse):
					t.Errorf("%s: the step the values show is %+v, want it at job %d, worse", name, cpu.Seen, before)
				}
			}
			if !found {
				t.Errorf("seed %d: a step after %d jobs never found with up to 9 after it", seed, before)
			}
		}
	}
}

// Level is the one answer to "has main got slower?": a metric regressed by
// both views counts once; an undone culprit and a better step do not
// count; creep and an unconfirmed worse step are said apart.
func TestLevelReadsBothViewsOnce(t *testing.T) {
	t.Parallel()
	cpu, _ := result.Lookup(result.CPUPerIteration)
	p95, _ := result.Lookup(result.LatencyP95)
	rps, _ := result.Lookup(result.IterationsPerSec)
	v := HistoryVerdict{Metrics: []HistoryMetric{
		{Meta: cpu, Changes: []HistoryChange{{Worse: true}}},
		{Meta: p95, Seen: &HistoryChange{Worse: true}},
		{Meta: rps, Seen: &HistoryChange{}},
	}}
	c := ChainVerdict{Metrics: []ChainMetric{
		{Meta: cpu, Culprits: []int{2}},
		{Meta: p95, Culprits: []int{1}, Undone: true, Creep: Creep{Worse: true}},
	}}
	l := Level(v, c)
	if len(l.Regressed) != 1 || l.Regressed[0] != result.CPUPerIteration || len(l.Changed) != 1 || len(l.Culprit) != 1 {
		t.Errorf("regressed %v (changed %d, culprit %d), want cpu once by each view", l.Regressed, len(l.Changed), len(l.Culprit))
	}
	if len(l.Crept) != 1 || l.Crept[0].Meta.Key != result.LatencyP95 || len(l.Unconfirmed) != 1 || l.Unconfirmed[0].Meta.Key != result.LatencyP95 {
		t.Errorf("crept %v, unconfirmed %v; want p95 in each", l.Crept, l.Unconfirmed)
	}
}
