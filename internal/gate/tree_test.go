package gate

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

var tput = result.IterationsPerSec

func TestOneVsOneIsInconclusive(t *testing.T) {
	t.Parallel()
	v := Judge(runsOf(tput, 100), runsOf(tput, 50), Policy{Metrics: []string{tput}})
	f, _ := finding(v, tput)
	if v.Outcome != Inconclusive || f.Outcome != MetricInconclusive {
		t.Fatalf("1 vs 1: verdict %s, finding %s; want inconclusive", v.Outcome, f.Outcome)
	}
	if !strings.Contains(f.Note, "need ≥ 19 head runs") {
		t.Errorf("note %q should say how many runs are needed", f.Note)
	}
	if len(v.Detect) != 1 || v.Detect[0].Possible || !strings.Contains(v.Detect[0].Note, "need ≥ 19") {
		t.Errorf("detectable effect at 1 vs 1 should be impossible with advice: %+v", v.Detect)
	}
}

func TestOneVsNineteenUsesExactTest(t *testing.T) {
	t.Parallel()
	base := make([]float64, 19)
	for i := range base {
		base[i] = 100 + float64(i)
	}
	v := Judge(runsOf(tput, base...), runsOf(tput, 80), Policy{Metrics: []string{tput}})
	f, _ := finding(v, tput)
	if f.Test != stats.TestExact || f.P != 0.05 || v.Outcome != Regression {
		t.Errorf("1 vs 19, head below all: test %q p %v verdict %s; want exact, p = 0.05, regression", f.Test, f.P, v.Outcome)
	}
	// One baseline sample fewer and the exact test can no longer reach α:
	// the t prediction test takes over.
	v = Judge(runsOf(tput, base[:18]...), runsOf(tput, 80), Policy{Metrics: []string{tput}})
	if f, _ := finding(v, tput); f.Test != stats.TestTPrediction {
		t.Errorf("1 vs 18: test %q, want %q", f.Test, stats.TestTPrediction)
	}
}

func TestCalibratedZPath(t *testing.T) {
	t.Parallel()
	noise := map[string]stats.Noise{tput: {SigmaW: 0.03, SigmaB: 0.01, Jobs: 10, Runs: 5}}
	p := Policy{Metrics: []string{tput}, Noise: noise, BaselineJobs: 1}
	v := Judge(runsOf(tput, 100), runsOf(tput, 70), p)
	f, _ := finding(v, tput)
	if f.Test != stats.TestZ || f.FloorSource != FromCalibration || v.Outcome != Regression {
		t.Errorf("calibrated 1 vs 1, −30 %%: test %q source %s verdict %s; want z-test, calibrated, regression", f.Test, f.FloorSource, v.Outcome)
	}
	v = Judge(runsOf(tput, 100), runsOf(tput, 99), p)
	if f, _ := finding(v, tput); v.Outcome != Pass || f.Outcome != MetricPass {
		t.Errorf("calibrated 1 vs 1, −1 %%: %s/%s, want pass", v.Outcome, f.Outcome)
	}
}

func TestTPredictionPath(t *testing.T) {
	t.Parallel()
	v := Judge(runsOf(tput, 100), runsOf(tput, 60, 61, 59), Policy{Metrics: []string{tput}})
	f, _ := finding(v, tput)
	if f.Test != stats.TestTPrediction || v.Outcome != Regression || !strings.Contains(f.Note, "low confidence") {
		t.Errorf("3 vs 1, −40 %%: test %q verdict %s note %q; want t prediction, regression, low confidence", f.Test, v.Outcome, f.Note)
	}
	if v.Detect[0].Method != "monte carlo" || !v.Detect[0].Possible {
		t.Errorf("3 vs 1 should simulate a detectable effect: %+v", v.Detect[0])
	}
}

func TestImprovementsNeverFail(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 1))
	w := world{cv: 0.05}
	for i := range 84 { // every (n, jobs) pair twice
		n, jobs := 1+i%7, 1+i%6
		base, head := w.jobs(rng, jobs, 5), w.job(rng, n, 1.5, 0.5)
		v := Judge(base, head, Policy{BaselineJobs: jobs})
		if v.Outcome == Regression {
			t.Fatalf("%d vs %d: an improvement failed the gate: %v", n, len(base), v.Regressions)
		}
	}
	v := Judge(w.jobs(rng, 6, 5), w.job(rng, 5, 1.5, 0.5), Policy{})
	for _, key := range []string{tput, result.LatencyP95} {
		if f, _ := finding(v, key); f.Outcome != Improvement || f.Worse >= 0 {
			t.Errorf("%s: outcome %s worse %.1f, want improvement", key, f.Outcome, f.Worse)
		}
	}
}

func TestChangedWithinNoisePasses(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(22, 1))
	w := world{cv: 0.01}
	v := Judge(w.jobs(rng, 6, 5), w.job(rng, 5, 0.96, 1), Policy{})
	f, _ := finding(v, tput)
	if f.Outcome != WithinNoise || v.Outcome != Pass || !(f.P <= 0.05) {
		t.Errorf("4 %% drop at CV 1 %%: %s p %.3g verdict %s; want within_noise and pass", f.Outcome, f.P, v.Outcome)
	}
}

func TestErrorRateRule(t *testing.T) {
	t.Parallel()
	key := result.RequestErrorPct
	zeros := func(n int) []float64 { return make([]float64, n) }
	v := Judge(runsOf(key, zeros(30)...), runsOf(key, zeros(5)...), Policy{Metrics: []string{key}})
	f, _ := finding(v, key)
	if v.Outcome != Pass || f.Outcome != MetricPass || f.P != 1 || f.FloorSource != FromDefault {
		t.Errorf("all zeros: verdict %s finding %+v; want pass with p = 1", v.Outcome, f)
	}
	v = Judge(runsOf(key, zeros(30)...), runsOf(key, 5, 5, 5, 5, 5), Policy{Metrics: []string{key}})
	f, _ = finding(v, key)
	if v.Outcome != Regression || !slices.Equal(v.Regressions, []string{key}) || f.Change != 5 || f.Floor != 1 {
		t.Errorf("0 %% → 5 %%: verdict %s %v, change %v pp floor %v; want regression of %s", v.Outcome, v.Regressions, f.Change, f.Floor, key)
	}
	// A rise below the floor in percentage points is within noise.
	v = Judge(runsOf(key, zeros(30)...), runsOf(key, 0.5, 0.5, 0.5, 0.5, 0.5), Policy{Metrics: []string{key}})
	if f, _ := finding(v, key); f.Outcome != WithinNoise || v.Outcome != Pass {
		t.Errorf("0 %% → 0.5 %%: %s / %s, want within_noise / pass", f.Outcome, v.Outcome)
	}
	// Lifecycle success falls: lower is worse.
	ls := result.LifecycleSuccess
	v = Judge(runsOf(ls, 100, 100, 100, 100, 100), runsOf(ls, 90, 91, 89, 92, 90), Policy{Metrics: []string{ls}})
	if f, _ := finding(v, ls); v.Outcome != Regression || f.Worse < 8 {
		t.Errorf("lifecycle success 100 → 90: %s worse %v pp; want regression", v.Outcome, f.Worse)
	}
}

func TestDefinitionChangedComparesNothing(t *testing.T) {
	t.Parallel()
	v := Judge(runsOf(tput, 100, 100), runsOf(tput, 1, 1), Policy{Context: Context{DefinitionChanged: true}})
	if v.Outcome != Inconclusive || len(v.Findings) != 0 || len(v.Detect) != 0 || !v.HasWarning(WarnDefinitionChanged) {
		t.Errorf("definition changed: %+v; want inconclusive, no findings, the warning", v)
	}
}

func TestNoBaselinePasses(t *testing.T) {
	t.Parallel()
	v := Judge(nil, runsOf(tput, 100, 101), Policy{})
	f, ok := finding(v, tput)
	if v.Outcome != Pass || !v.HasWarning(WarnNoBaseline) || !ok || f.HeadMedian != 100.5 || !math.IsNaN(f.BaseMedian) {
		t.Errorf("no baseline: %+v", v)
	}
	if v := Judge(runsOf(tput, 1), nil, Policy{}); v.Outcome != Inconclusive {
		t.Errorf("no head runs: %s, want inconclusive", v.Outcome)
	}
}

func TestMissingMetricIsNotAvailable(t *testing.T) {
	t.Parallel()
	base := runsOf(tput, 100, 100, 100, 100, 100)
	for i := range base {
		base[i].Metrics[result.LatencyP95] = 10
	}
	v := Judge(base, runsOf(tput, 99, 100, 101, 100, 99), Policy{})
	f, _ := finding(v, result.LatencyP95)
	if f.Outcome != NotAvailable || !math.IsNaN(f.HeadMedian) || !math.IsNaN(f.Change) || f.Note != "not in the head runs" {
		t.Errorf("p95 missing from head: %+v", f)
	}
	// p95 is gated by default: a head that no longer measures it cannot pass.
	if v.Outcome != Inconclusive || !slices.ContainsFunc(stats.Messages(v.Warnings), func(w string) bool { return strings.Contains(w, "one side only") }) {
		t.Errorf("gated p95 missing from head: verdict %s warnings %q; want inconclusive with the one-side warning", v.Outcome, v.Warnings)
	}
	// A gated metric only the head has (a baseline that predates it) is
	// told, and the rest decides.
	v = Judge(runsOf(tput, 100, 100, 100, 100, 100), base, Policy{})
	if f, _ := finding(v, result.LatencyP95); v.Outcome != Pass || f.Outcome != NotAvailable || f.Note != "not in the baseline" {
		t.Errorf("gated p95 missing from the baseline: verdict %s, p95 %+v; want pass, p95 not available", v.Outcome, f)
	}
}

// A gated metric some runs lack is judged on the runs that have it (a
// missing value is never a 0): a regression there stands, but a head run
// without it makes the metric inconclusive, never a pass; the finding and
// a warning say so. Baseline runs that lack it only reduce the sample.
func TestMetricMissingFromSomeRuns(t *testing.T) {
	t.Parallel()
	base := runsOf(tput, 100, 101, 99, 100, 100, 99)
	head := runsOf(tput, 80, 81, 79, 80, 80)
	delete(head[1].Metrics, tput)
	v := Judge(base, head, Policy{})
	f, _ := finding(v, tput)
	if v.Outcome != Regression || f.N != 4 || f.M != 6 {
		t.Fatalf("-20 %% on 4 of 5 head runs: verdict %s, %+v; want a regression on 4 runs", v.Outcome, f)
	}
	if !strings.Contains(f.Note, "in 4 of 5 head runs and 6 of 6 baseline runs") || !v.HasWarning(WarnMissingInRuns) {
		t.Errorf("note %q, warnings %v: want the partial measurement told", f.Note, v.Warnings)
	}

	same := runsOf(tput, 100, 100, 101, 99, 100)
	delete(same[3].Metrics, tput)
	v = Judge(base, same, Policy{})
	if f, _ := finding(v, tput); v.Outcome != Inconclusive || f.Outcome != MetricInconclusive {
		t.Errorf("unchanged on 4 of 5 head runs: verdict %s, %+v; want inconclusive, never a pass", v.Outcome, f)
	}

	short := runsOf(tput, 100, 101, 99, 100, 100, 99)
	delete(short[0].Metrics, tput)
	v = Judge(short, runsOf(tput, 100, 100, 101, 99, 100), Policy{})
	if f, _ := finding(v, tput); v.Outcome != Pass || f.M != 5 || !strings.Contains(f.Note, "5 of 6 baseline runs") {
		t.Errorf("baseline lacking one run: verdict %s, %+v; want a pass on the 5 it has, told", v.Outcome, f)
	}
	if f, _ := finding(Judge(base, runsOf(tput, 80, 81, 79, 80, 80), Policy{}), tput); strings.Contains(f.Note, "head runs and") {
		t.Errorf("every run measured, yet the note %q speaks of missing runs", f.Note)
	}
}

func TestRequestsPerSecondStandsInForThroughput(t *testing.T) {
	t.Parallel()
	rps := result.RequestsPerSec
	v := Judge(runsOf(rps, 100, 101, 99, 100, 102, 98), runsOf(rps, 80, 81, 79, 80, 80), Policy{})
	f, _ := finding(v, rps)
	if !f.Gated || f.FloorSource != FromDefault || math.Abs(f.Floor-6.7) > 1e-9 || !slices.Equal(v.Regressions, []string{rps}) {
		t.Errorf("requests/s as throughput: %+v, regressions %v", f, v.Regressions)
	}
	if f, _ := finding(v, tput); f.Gated || f.Outcome != NotAvailable {
		t.Errorf("iterations/s should be listed as not available: %+v", f)
	}
}

func TestFloorSources(t *testing.T) {
	t.Parallel()
	p99 := result.LatencyP99
	rng := rand.New(rand.NewPCG(23, 1))
	w := world{cv: 0.03}
	base, head := w.jobs(rng, 6, 5), w.job(rng, 5, 1, 1.3)
	metrics := []string{tput, result.LatencyP95, p99}

	v := Judge(base, head, Policy{Metrics: metrics})
	if f, _ := finding(v, p99); f.Gated || f.Outcome != NotGated || !strings.Contains(f.Note, "gate.floors.latency_p99_ms") {
		t.Errorf("uncalibrated p99 without a config floor should be report-only: %+v", f)
	}
	v = Judge(base, head, Policy{Metrics: metrics, Floors: map[string]float64{p99: 10}})
	if f, _ := finding(v, p99); !f.Gated || f.FloorSource != FromConfig || f.Floor != 10 || f.Outcome != MetricRegression {
		t.Errorf("config floor 10 %% on p99 with a 30 %% rise: %+v", f)
	}
	nz := map[string]stats.Noise{p99: {SigmaW: 0.03, Jobs: 10, Runs: 5}}
	v = Judge(base, head, Policy{Metrics: metrics, Noise: nz, BaselineJobs: 6})
	if f, _ := finding(v, p99); !f.Gated || f.FloorSource != FromCalibration || f.Outcome != MetricRegression {
		t.Errorf("calibrated p99: %+v", f)
	}
	// Calibrated noise of a metric that is not in gate.metrics does not gate it.
	v = Judge(base, head, Policy{Noise: nz})
	if f, _ := finding(v, p99); f.Gated {
		t.Errorf("p99 is not in gate.metrics and must stay report-only: %+v", f)
	}
}

func TestSameJobDropsBetweenJobNoise(t *testing.T) {
	t.Parallel()
	nz := map[string]stats.Noise{tput: {SigmaW: 0.02, SigmaB: 0.05, Jobs: 10, Runs: 5}}
	base, head := runsOf(tput, 100, 101, 99, 100, 102), runsOf(tput, 90, 91, 89, 90, 90)
	stored := Judge(base, head, Policy{Metrics: []string{tput}, Noise: nz})
	ab := Judge(base, head, Policy{Metrics: []string{tput}, Noise: nz, SameJob: true})
	fs, _ := finding(stored, tput)
	fa, _ := finding(ab, tput)
	if !(fa.Floor < fs.Floor) || stored.Outcome != Pass || ab.Outcome != Regression {
		t.Errorf("a 10 %% drop: stored floor %.1f %% (%s), A/B floor %.1f %% (%s); want the A/B floor smaller and only A/B to fail",
			fs.Floor, stored.Outcome, fa.Floor, ab.Outcome)
	}
}

func TestWarnings(t *testing.T) {
	t.Parallel()
	v := Judge(runsOf(tput, 100, 100, 100), runsOf(tput, 100, 100, 100),
		Policy{Metrics: []string{tput, "nope"}, Context: Context{EnvDiffers: true, EnvDiff: "cores: 4 → 2"}})
	want := []string{"environment fingerprint differs", "cores: 4 → 2", `unknown metric "nope"`, "floors not calibrated", "iterations/s 6.7 %"}
	all := strings.Join(stats.Messages(v.Warnings), "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("warnings %q lack %q", v.Warnings, w)
		}
	}
}

func TestDetectShrinksWithMoreRuns(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(24, 1))
	w := world{cv: 0.07}
	nz := w.calibrate(rng, 20, 5)
	base := w.jobs(rng, 6, 5)
	prev := math.Inf(1)
	for _, n := range []int{3, 5, 10, 20} {
		v := Judge(base, w.job(rng, n, 1, 1), Policy{Noise: nz, BaselineJobs: 6})
		d := v.Detect[0]
		if d.Key != tput || !d.Possible || d.Direction != "drop" || !(d.Effect < prev) {
			t.Errorf("n = %d: %+v (previous %.1f %%)", n, d, prev)
		}
		t.Logf("CV 7 %%, calibrated, %d vs 30: detects a throughput drop of ≥ %.1f %% (%s)", n, d.Effect, d.Method)
		prev = d.Effect
	}
}

func TestBadValuesAreInconclusive(t *testing.T) {
	t.Parallel()
	v := Judge(runsOf(tput, 100, 0, 100), runsOf(tput, 100, 100, 100), Policy{Metrics: []string{tput}})
	f, _ := finding(v, tput)
	if f.Outcome != MetricInconclusive || !strings.Contains(f.Note, "cannot compare") || v.Outcome != Inconclusive {
		t.Errorf("a zero throughput: %+v", f)
	}
}

// A calibration that saw no noise at all still leaves a floor at the
// resolution of a short benchmark: one cut iteration must not fail the gate.
func TestCalibratedFloorHasAMinimum(t *testing.T) {
	t.Parallel()
	base := make([]result.Run, 20)
	for i := range base {
		base[i] = result.Run{Metrics: map[string]float64{result.IterationsPerSec: 100}}
	}
	head := make([]result.Run, 5)
	for i := range head {
		head[i] = result.Run{Metrics: map[string]float64{result.IterationsPerSec: 99.75}}
	}
	p := Policy{Metrics: []string{result.IterationsPerSec}, Noise: map[string]stats.Noise{result.IterationsPerSec: {Jobs: 4, Runs: 5}}, BaselineJobs: 4}
	v := Judge(base, head, p)
	f := v.Findings[0]
	if v.Outcome == Regression || f.Floor < MinCalibratedFloorPercent {
		t.Fatalf("outcome %s, floor %.2f %%: a 0.25 %% dip must stay within the %.0f %% resolution floor", v.Outcome, f.Floor, MinCalibratedFloorPercent)
	}
	head[0].Metrics[result.IterationsPerSec] = 90
	for i := range head {
		head[i].Metrics[result.IterationsPerSec] = 90
	}
	if v := Judge(base, head, p); v.Outcome != Regression {
		t.Fatalf("a 10 %% drop against a noiseless calibration: outcome %s, want regression", v.Outcome)
	}
}

// In A/B (same job) without calibration, the floor is measured from both
// sides' runs: quiet runs give a narrow floor that catches a small shift,
// noisy runs a wide one that does not cry wolf.
func TestSameJobFloorComesFromTheJob(t *testing.T) {
	t.Parallel()
	mk := func(vals ...float64) []result.Run {
		runs := make([]result.Run, len(vals))
		for i, v := range vals {
			runs[i] = result.Run{Metrics: map[string]float64{result.CPUPerIteration: v}}
		}
		return runs
	}
	p := Policy{Metrics: []string{result.CPUPerIteration}, SameJob: true}
	quietBase := mk(5.00, 5.05, 4.95, 5.02, 4.98, 5.01, 4.99, 5.03)
	quietHead := mk(5.40, 5.45, 5.35, 5.42, 5.38, 5.41, 5.39, 5.43) // +8 %
	v := Judge(quietBase, quietHead, p)
	f := v.Findings[0]
	if f.FloorSource != FromJob || v.Outcome != Regression || f.Floor > 3 {
		t.Fatalf("quiet runs: source %s, floor %.2f %%, outcome %s; want a narrow job floor and a regression", f.FloorSource, f.Floor, v.Outcome)
	}
	noisyBase := mk(5.0, 6.1, 4.4, 5.6, 4.7, 6.3, 4.9, 5.5)
	noisyHead := mk(5.4, 6.6, 4.8, 6.0, 5.1, 6.8, 5.3, 5.9) // +8 % again, inside ±15 % noise
	v = Judge(noisyBase, noisyHead, p)
	f = v.Findings[0]
	if v.Outcome == Regression || f.Floor < 8 {
		t.Fatalf("noisy runs: floor %.2f %%, outcome %s; want a floor wider than the shift and no regression", f.Floor, v.Outcome)
	}
}

// A config floor stands in until the noise is measured; a calibration
// replaces it; min_effect applies on top of any floor.
func TestFloorPrecedence(t *testing.T) {
	t.Parallel()
	base := runsOf(result.CPUPerIteration, 5, 5.05, 4.95, 5.02, 4.98, 5.01, 4.99, 5.03, 5.0, 5.0)
	head := runsOf(result.CPUPerIteration, 5.4, 5.45, 5.35, 5.42, 5.38) // +8 %
	metrics := []string{result.CPUPerIteration}
	cfgOnly := Policy{Metrics: metrics, Floors: map[string]float64{result.CPUPerIteration: 10}}
	f, _ := finding(Judge(base, head, cfgOnly), result.CPUPerIteration)
	if f.FloorSource != FromConfig || f.Floor != 10 || f.Outcome == MetricRegression {
		t.Errorf("config floor alone: source %s, floor %.1f, outcome %s; want config, 10, no regression", f.FloorSource, f.Floor, f.Outcome)
	}
	calibrated := cfgOnly
	calibrated.Noise = map[string]stats.Noise{result.CPUPerIteration: {SigmaW: 0.01, SigmaB: 0.005, Jobs: 10, Runs: 5}}
	calibrated.BaselineJobs = 2
	f, _ = finding(Judge(base, head, calibrated), result.CPUPerIteration)
	if f.FloorSource != FromCalibration || f.Floor >= 8 || f.Outcome != MetricRegression {
		t.Errorf("calibrated: source %s, floor %.1f, outcome %s; want the calibrated floor below 8 %% and a regression", f.FloorSource, f.Floor, f.Outcome)
	}
	calibrated.MinEffect = map[string]float64{result.CPUPerIteration: 12}
	f, _ = finding(Judge(base, head, calibrated), result.CPUPerIteration)
	if f.Floor != 12 || f.Outcome == MetricRegression {
		t.Errorf("min_effect 12 %%: floor %.1f, outcome %s; want 12 and no regression", f.Floor, f.Outcome)
	}
}

// A calibration of few jobs, or of jobs close in time, is named in every
// verdict whose floors it sets, and only there.
func TestWeakCalibrationIsTold(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(25, 1))
	w := world{cv: 0.03}
	nz := w.calibrate(rng, 3, 5)
	base, head := w.jobs(rng, 3, 5), w.job(rng, 5, 1, 1)
	p := Policy{Noise: nz, BaselineJobs: 3, Context: Context{CalibrationJobs: 3, CalibrationSpan: 90 * time.Second}}
	v := Judge(base, head, p)
	if !v.HasWarning(WarnFewCalibrationJobs) || !v.HasWarning(WarnCalibrationBunched) ||
		!strings.Contains(strings.Join(stats.Messages(v.Warnings), "\n"), "within 2 minutes") {
		t.Errorf("3 jobs in 90 s: %q", stats.Messages(v.Warnings))
	}
	p.Noise = nil // the floors are defaults: the calibration sets none
	if v := Judge(base, head, p); v.HasWarning(WarnFewCalibrationJobs) || v.HasWarning(WarnCalibrationBunched) {
		t.Errorf("uncalibrated floors warned about the calibration: %q", stats.Messages(v.Warnings))
	}
}
