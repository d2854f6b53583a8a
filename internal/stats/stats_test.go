package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	moremath "github.com/aclements/go-moremath/stats"
)

func TestMedian(t *testing.T) {
	t.Parallel()
	x := []float64{5, 1, 3}
	if got := Median(x); got != 3 {
		t.Errorf("Median odd = %v, want 3", got)
	}
	if x[0] != 5 {
		t.Errorf("Median modified its input: %v", x)
	}
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("Median even = %v, want 2.5", got)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) should be NaN")
	}
}

func TestMinPMatchesResearchTable(t *testing.T) {
	t.Parallel()
	// stats.md §1: minimum attainable one-sided exact p.
	cases := []struct {
		n, m int
		want float64
	}{{1, 1, .5}, {1, 19, .05}, {1, 30, 1.0 / 31}, {2, 5, 1.0 / 21}, {3, 3, .05}, {5, 2, 1.0 / 21}, {5, 5, 1.0 / 252}}
	for _, c := range cases {
		if got := MinP(c.n, c.m); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("MinP(%d,%d) = %v, want %v", c.n, c.m, got, c.want)
		}
	}
	// The boundary cases must be reachable at exactly α = 0.05.
	needs := map[int]int{1: 19, 2: 5, 3: 3, 4: 3, 5: 2, 18: 2, 19: 1, 30: 1, 0: 0}
	for m, want := range needs {
		if got := RunsNeeded(m, 0.05); got != want {
			t.Errorf("RunsNeeded(%d) = %d, want %d", m, got, want)
		}
	}
}

func TestUTestEqualsGoMoremath(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	maxDiff := 0.0
	for i := range 300 {
		n, m := 1+rng.IntN(10), 1+rng.IntN(30)
		head, base := lognormal(rng, n, 0.07, 0.02*float64(i%3)), lognormal(rng, m, 0.07, 0)
		for _, d := range []Direction{HigherIsWorse, LowerIsWorse} {
			got, err := UTest(head, base, d)
			if err != nil {
				t.Fatal(err)
			}
			alt := moremath.LocationGreater
			if d == LowerIsWorse {
				alt = moremath.LocationLess
			}
			want, err := moremath.MannWhitneyUTest(head, base, alt)
			if err != nil {
				t.Fatal(err)
			}
			maxDiff = math.Max(maxDiff, math.Abs(got.P-want.P))
			if !got.Exact {
				t.Errorf("%d vs %d without ties should use the exact distribution", n, m)
			}
		}
	}
	if maxDiff != 0 {
		t.Errorf("p differs from go-moremath by up to %g", maxDiff)
	}
	t.Logf("UTest p equals go-moremath MannWhitneyUTest on 600 one-sided cases (max |Δp| = %g)", maxDiff)
}

func TestUTestAllEqualIsNoChange(t *testing.T) {
	t.Parallel()
	r, err := UTest([]float64{0, 0, 0}, []float64{0, 0, 0, 0}, HigherIsWorse)
	if err != nil || r.P != 1 || !r.AllEqual {
		t.Errorf("all-equal samples: got %+v, %v; want P=1, AllEqual", r, err)
	}
	if _, err := UTest(nil, []float64{1}, HigherIsWorse); err == nil {
		t.Error("empty head should be an error")
	}
	if _, err := UTest([]float64{math.NaN()}, []float64{1}, HigherIsWorse); err == nil {
		t.Error("NaN should be an error")
	}
	// 30 base values with ties exceed go-moremath's exact limit for ties.
	base := make([]float64, 30)
	r, err = UTest([]float64{0, 1, 0}, base, HigherIsWorse)
	if err != nil || r.Exact {
		t.Errorf("ties with m=30: got %+v, %v; want the normal approximation", r, err)
	}
}

func TestZTest(t *testing.T) {
	t.Parallel()
	nz := Noise{SigmaW: 0.1, SigmaB: 0}
	// One head and one base value 0.1·√2 apart: z = 1, p = 1−Φ(1).
	p, err := ZTest([]float64{0.1 * math.Sqrt2}, []float64{0}, HigherIsWorse, nz, 1, false)
	if err != nil || math.Abs(p-0.15865525393145707) > 1e-12 {
		t.Errorf("ZTest p = %v, %v; want 0.158655", p, err)
	}
	// The same shift is an improvement for a lower-is-worse metric.
	p, _ = ZTest([]float64{0.1 * math.Sqrt2}, []float64{0}, LowerIsWorse, nz, 1, false)
	if math.Abs(p-(1-0.15865525393145707)) > 1e-12 {
		t.Errorf("ZTest lower-is-worse p = %v", p)
	}
	// σ_b widens the test unless both sides ran in the same job.
	nz.SigmaB = 0.1
	pDrift, _ := ZTest([]float64{0.3}, []float64{0}, HigherIsWorse, nz, 1, false)
	pSame, _ := ZTest([]float64{0.3}, []float64{0}, HigherIsWorse, nz, 1, true)
	if !(pSame < pDrift) {
		t.Errorf("same-job p %v should be below the drift-aware p %v", pSame, pDrift)
	}
	if _, err := ZTest([]float64{1}, []float64{1}, HigherIsWorse, Noise{SigmaW: math.NaN()}, 1, false); err == nil {
		t.Error("NaN noise should be an error")
	}
}

func TestTPredictionFallback(t *testing.T) {
	t.Parallel()
	base := []float64{0, 0.1, 0.2}
	head := []float64{0.4}
	// s_base = 0.1, t = (0.4−0.1)/(0.1·sqrt(1+1/3)) with 2 df.
	p, err := TPrediction(head, base, HigherIsWorse)
	tv := 0.3 / (0.1 * math.Sqrt(1+1.0/3))
	want := 0.5 * (1 - tv/math.Sqrt(2+tv*tv)) // survival of t with 2 df in closed form
	if err != nil || math.Abs(p-want) > 1e-9 {
		t.Errorf("TPrediction p = %v, %v; want %v", p, err, want)
	}
	// One base value: the head spread is used, with n−1 df.
	if _, err := TPrediction([]float64{1, 2}, []float64{1}, HigherIsWorse); err != nil {
		t.Errorf("2 vs 1 should be testable: %v", err)
	}
	if _, err := TPrediction([]float64{1}, []float64{1}, HigherIsWorse); err == nil {
		t.Error("1 vs 1 should be an error")
	}
}

func TestCalibrateRecoversVarianceComponents(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	const sw, sb = 0.05, 0.04
	jobs := make([][]float64, 200)
	for i := range jobs {
		off := sb * rng.NormFloat64()
		jobs[i] = make([]float64, 10)
		for j := range jobs[i] {
			jobs[i][j] = 1000 * math.Exp(off+sw*rng.NormFloat64())
		}
	}
	nz, err := Calibrate(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(nz.SigmaW/sw-1) > 0.05 || math.Abs(nz.SigmaB/sb-1) > 0.15 || nz.Jobs != 200 || nz.Runs != 10 {
		t.Errorf("Calibrate = %+v, want σ_w≈%v (±5 %%), σ_b≈%v (±15 %%)", nz, sw, sb)
	}
	t.Logf("ANOVA on 200×10 jobs: σ_w %.4f (true %.2f), σ_b %.4f (true %.2f)", nz.SigmaW, sw, nz.SigmaB, sb)

	emp, err := EmpiricalFloor(jobs)
	if err != nil {
		t.Fatal(err)
	}
	par := JobToJobFloor(nz, 0.05)
	if !FloorsAgree(emp, par) {
		t.Errorf("empirical floor %.4f and parametric floor %.4f should agree", emp, par)
	}
	t.Logf("cross-check: empirical pair floor %.2f %%, parametric %.2f %%", 100*emp, 100*par)
}

func TestCalibrateRejectsBadInput(t *testing.T) {
	t.Parallel()
	for name, jobs := range map[string][][]float64{
		"one job":      {{1, 2, 3}},
		"one run":      {{1, 2}, {3}},
		"zero value":   {{1, 2}, {0, 3}},
		"negative":     {{1, 2}, {-1, 3}},
		"no jobs":      nil,
		"infinite run": {{1, math.Inf(1)}, {1, 2}},
	} {
		if _, err := Calibrate(jobs); err == nil {
			t.Errorf("%s: Calibrate should fail", name)
		}
	}
	// Rates in percent may be zero.
	nz, err := CalibrateAbsolute([][]float64{{0, 0, 1}, {0, 1, 0}})
	if err != nil || nz.SigmaW <= 0 {
		t.Errorf("CalibrateAbsolute = %+v, %v", nz, err)
	}
	var ve *ValueError
	if _, err := Calibrate([][]float64{{1, 2}, {0, 3}}); !errors.As(err, &ve) || ve.Index != 0 {
		t.Errorf("error should name the bad value: %v", err)
	}
}

func TestMedianFactorMatchesResearchTable(t *testing.T) {
	t.Parallel()
	// stats.md §6.5, measured with 200k Monte Carlo repetitions.
	table := map[int]float64{1: 1.00, 2: 1.00, 3: 1.34, 4: 1.19, 5: 1.44, 6: 1.29, 8: 1.35, 10: 1.39, 15: 1.52, 20: 1.47, 30: 1.50}
	for k, want := range table {
		if got := MedianFactor(k); math.Abs(got-want) > 0.012 {
			t.Errorf("c_%d = %.4f, research table says %.2f", k, got, want)
		}
	}
	if MedianFactor(1000) != math.Pi/2 || !math.IsNaN(MedianFactor(0)) {
		t.Error("MedianFactor limits wrong")
	}
}

func TestFloorAndMDEMatchResearch(t *testing.T) {
	t.Parallel()
	// stats.md §5 S7, row "CV 7 %, σ_b 0, n 5, baseline 6×5": Fcal 10.2 %,
	// MDE80 formula 14.0 %.
	sw := math.Sqrt(math.Log(1 + 0.07*0.07))
	nz := Noise{SigmaW: sw}
	l := Floor(nz, 5, 30, 6, false, 0.05, 6)
	if got := 100 * (math.Exp(l) - 1); math.Abs(got-10.2) > 0.1 {
		t.Errorf("calibrated floor = %.2f %%, want 10.2 %%", got)
	}
	x := MDE(MDEInput{SigmaW: sw, SE: SE(nz, 5, 30, 6, false), Floor: l, N: 5, M: 30, Alpha: 0.05})
	if got := 100 * (math.Exp(x) - 1); math.Abs(got-14.0) > 0.1 {
		t.Errorf("MDE = %.2f %%, want 14.0 %%", got)
	}
	// Row "CV 7 %, σ_b = σ_w": Fcal 22.8 %, MDE 32.0 %.
	nz.SigmaB = sw
	l = Floor(nz, 5, 30, 6, false, 0.05, 6)
	x = MDE(MDEInput{SigmaW: sw, SE: SE(nz, 5, 30, 6, false), Floor: l, N: 5, M: 30, Alpha: 0.05})
	if f, m := 100*(math.Exp(l)-1), 100*(math.Exp(x)-1); math.Abs(f-22.8) > 0.3 || math.Abs(m-32.0) > 0.4 {
		t.Errorf("with drift: floor %.2f %% (want 22.8), MDE %.2f %% (want 32.0)", f, m)
	}
	if !(Floor(nz, 5, 30, 6, true, 0.05, 6) < l) {
		t.Error("same-job floor should drop the between-job term")
	}
}

// TestFloorWidensWithFewerCalibrationJobs: the calibrated floor takes t
// on the degrees of freedom the calibration measured SE² on, so that a
// floor from few jobs stands wider; a noise without jobs and runs keeps z.
func TestFloorWidensWithFewerCalibrationJobs(t *testing.T) {
	t.Parallel()
	sw := math.Sqrt(math.Log(1 + 0.07*0.07))
	floor := func(jobs int) float64 {
		return Floor(Noise{SigmaW: sw, SigmaB: sw, Jobs: jobs, Runs: 5}, 5, 30, 6, false, 0.05, 2)
	}
	if f10, f40, fz := floor(10), floor(40), floor(0); !(f10 > f40 && f40 > fz) {
		t.Errorf("floors from 10, 40 and unknown jobs: %.4f, %.4f, %.4f; want each wider than the next", f10, f40, fz)
	}
	// Satterthwaite's df: within a job only σ_w², on Jobs·(Runs−1) df; the
	// floors above (5 runs against 6 jobs' 30, σ_b = σ_w) 10.37, computed
	// by hand from MS_b = 5σ_b² + σ_w² and MS_w = σ_w², above the least 9
	nz := Noise{SigmaW: sw, SigmaB: sw, Jobs: 10, Runs: 5}
	if got := nz.df(0, 0.3); math.Abs(got-40) > 1e-9 {
		t.Errorf("same-job df = %.3f, want 10·(5−1) = 40", got)
	}
	if got := nz.df(seCoefficients(5, 30, 6, false)); math.Abs(got-10.37) > 0.01 {
		t.Errorf("df of 5 against 30 from 6 jobs = %.3f, want 10.37", got)
	}
	// many head runs against a drift estimated at 0: MS_w's coefficient
	// below 0 would take Satterthwaite's df under 1; never below Jobs−1
	if got := (Noise{SigmaW: sw, Jobs: 2, Runs: 5}).df(1.2, 0.1); got != 1 {
		t.Errorf("df with a negative coefficient = %.3f, want Jobs−1 = 1 at the least", got)
	}
	if got := (Noise{SigmaW: sw}).df(1.2, 0.3); !math.IsInf(got, 1) {
		t.Errorf("df of a noise without jobs = %v, want +Inf (z)", got)
	}
}

func TestMonteCarloMDEMatchesSimulation(t *testing.T) {
	t.Parallel()
	// stats.md §5 S2: CV 7 %, floor 6.7 %, 5 vs 5, U-test + floor: 14.3 %.
	sw := math.Sqrt(math.Log(1 + 0.07*0.07))
	l := RiseFloor(0.067)
	decide := func(head, base []float64) bool {
		r, err := UTest(head, base, HigherIsWorse)
		return err == nil && r.P <= 0.05 && Median(head)-Median(base) > l
	}
	sim := Simulation{Noise: Noise{SigmaW: sw}, N: 5, M: 5, BaseJobs: 1, Seed: 7, Trials: 2000}
	x, ok := MonteCarloMDE(sim, 1, decide)
	got := 100 * (math.Exp(x) - 1)
	if !ok || math.Abs(got-14.3) > 1.5 {
		t.Errorf("Monte Carlo MDE = %.2f %% (ok %v), research simulation 14.3 %%", got, ok)
	}
	again, _ := MonteCarloMDE(sim, 1, decide)
	if again != x {
		t.Errorf("Monte Carlo MDE not deterministic: %v vs %v", x, again)
	}
	if _, ok := MonteCarloMDE(sim, 1, func(_, _ []float64) bool { return false }); ok {
		t.Error("a decider that never fires has no MDE")
	}
	t.Logf("Monte Carlo MDE at 5 vs 5, CV 7 %%, floor 6.7 %%: %.1f %% (research: 14.3 %%)", got)
}

func lognormal(rng *rand.Rand, n int, cv, shift float64) []float64 {
	s := math.Sqrt(math.Log(1 + cv*cv))
	out := make([]float64, n)
	for i := range out {
		out[i] = 100 * math.Exp(shift+s*rng.NormFloat64())
	}
	return out
}
