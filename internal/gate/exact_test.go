package gate

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

var calls = result.CounterKey("pg", "calls")

// withCalls adds a statement count per iteration to each run: perIter
// plus a jitter below a two-hundredth of a statement (the counter read
// itself, divided by a varying number of iterations).
func withCalls(rng *rand.Rand, runs []result.Run, perIter float64) {
	for i := range runs {
		runs[i].Metrics[calls] = perIter + 0.004*rng.Float64()
	}
}

// A statement count identical in every block on both sides passes at the
// first look while CPU is still judged by its bounds; one that grew from
// 53.01 to 72.01 per iteration (+35.8 %) fails the job at the first look, and the
// finding says it as counts.
func TestExactCountsDecideAtTheFirstLook(t *testing.T) {
	t.Parallel()
	p := Policy{Metrics: []string{cpu, calls}}
	rng := rand.New(rand.NewPCG(36, 1))
	base, head := cpuPairs(rng, 20, 0.05, 1)
	withCalls(rng, base, 53)
	withCalls(rng, head, 53)
	v := judgeLoop(base, head, p, stats.SeqDesign{})
	f := findingOf(t, v, calls)
	if f.Outcome != MetricPass || f.DecidedAt != v.Sequential.MinBlocks || f.Test != stats.TestExactCount ||
		f.Look == nil || !f.Look.Exact || math.Abs(f.BaseCenter-53) > 0.005 || math.Abs(f.HeadCenter-53) > 0.005 || math.Abs(f.Look.Change) >= 0.05 {
		t.Fatalf("53 = 53: %s at %d by %q (%+v); want a pass at the first look (%d) by the exact rule", f.Outcome, f.DecidedAt, f.Test, f.Look, v.Sequential.MinBlocks)
	}
	if c := findingOf(t, v, cpu); c.Test != stats.TestSequential {
		t.Errorf("noisy CPU judged by %q; want the sequential t rule", c.Test)
	}

	base, head = cpuPairs(rng, 20, 0.05, 1)
	withCalls(rng, base, 53.01)
	withCalls(rng, head, 72.01)
	v = judgeLoop(base, head, p, stats.SeqDesign{})
	f = findingOf(t, v, calls)
	if v.Outcome != Regression || v.Sequential.Blocks != v.Sequential.MinBlocks || f.Outcome != MetricRegression ||
		math.Abs(f.BaseCenter-53.01) > 0.005 || math.Abs(f.HeadCenter-72.01) > 0.005 || math.Abs(f.Look.Change-35.8) > 0.05 || math.Abs(f.Lower-f.Upper) > 0.1 {
		t.Fatalf("53 → 72: job %s after %d blocks, calls %s [%.2f … %.2f] (%+v); want a regression at the first look with the counts",
			v.Outcome, v.Sequential.Blocks, f.Outcome, f.Lower, f.Upper, f.Look)
	}
	if w := v.Sequential.Why; w.Stop != StopRegression || !strings.Contains(strings.Join(w.Labels, ", "), "pg calls") {
		t.Errorf("why %+v does not name the count", w)
	}
	for _, d := range v.Detect {
		if d.Key == calls && (!d.Possible || math.Abs(d.Effect-100*(math.Sqrt(1.05)-1)) > 1e-9) {
			t.Errorf("detectable change of an exact count: %+v; want half of min_effect (+2.47 %%, half of ln 1.05)", d)
		}
	}
}

// Noisy metrics keep their error rates: 200 A/A jobs of CPU and a count
// that both vary by 3 % per pair never take the exact rule, and false
// alarms stay below the design's α with headroom; the same jobs with an
// exact count beside them never fail on it. Fixed seed.
func TestExactRuleKeepsNoisyErrorRates(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(36, 2))
	p := Policy{Metrics: []string{cpu, calls}}
	const jobs = 200
	alarms, exact := 0, 0
	for range jobs {
		base, head := cpuPairs(rng, 20, 0.03, 1)
		for i := range base {
			base[i].Metrics[calls] = 53 * math.Exp(0.03*rng.NormFloat64())
			head[i].Metrics[calls] = 53 * math.Exp(0.03*rng.NormFloat64())
		}
		v := judgeLoop(base, head, p, stats.SeqDesign{})
		if v.Outcome == Regression {
			alarms++
		}
		for _, f := range v.Findings {
			if f.Test == stats.TestExactCount {
				exact++
			}
		}
	}
	t.Logf("A/A at 3 %% noise: %d of %d jobs false alarms, exact rule taken %d times", alarms, jobs, exact)
	if exact != 0 || float64(alarms)/jobs > stats.DefaultSeqAlpha {
		t.Fatalf("A/A at 3 %% noise: %d of %d jobs false alarms (want ≤ %.0f %%), exact rule taken %d times (want 0)", alarms, jobs, 100*stats.DefaultSeqAlpha, exact)
	}
	alarms = 0
	for range jobs {
		base, head := cpuPairs(rng, 20, 0.03, 1)
		withCalls(rng, base, 53)
		withCalls(rng, head, 53)
		if v := judgeLoop(base, head, p, stats.SeqDesign{}); findingOf(t, v, calls).Outcome == MetricRegression {
			alarms++
		}
	}
	if alarms != 0 {
		t.Fatalf("an exact count that did not change failed %d of %d jobs", alarms, jobs)
	}
}

func findingOf(t *testing.T, v Verdict, key string) Finding {
	t.Helper()
	for _, f := range v.Findings {
		if f.Key == key {
			return f
		}
	}
	t.Fatalf("no finding for %s in %+v", key, v.Findings)
	return Finding{}
}
