package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Noise is one metric's noise on the comparison scale: SigmaW run to run
// within a job, SigmaB job to job, from Jobs A/A jobs of about Runs runs.
type Noise struct {
	SigmaW float64 `json:"sigma_w"`
	SigmaB float64 `json:"sigma_b"`
	Jobs   int     `json:"jobs"`
	Runs   int     `json:"runs"`
}

// Check reports a noise value that cannot be used.
func (nz Noise) Check() error {
	for i, v := range []float64{nz.SigmaW, nz.SigmaB} {
		if !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("calibrated noise %s = %g is not a finite value ≥ 0; re-run calibrate", [2]string{"sigma_w", "sigma_b"}[i], v)
		}
	}
	return nil
}

// The least data a between-job and a within-job variance need.
const (
	minCalibrationJobs = 2
	minCalibrationRuns = 2
)

// Calibrate estimates σ_w and σ_b of a ratio metric from A/A jobs (each
// job's per-run values, one build) by a one-way random-effects ANOVA on
// logs (stats.md §6.5); run counts may differ.
func Calibrate(jobs [][]float64) (Noise, error) { return Ratio.calibrate(jobs) }

// CalibrateAbsolute is Calibrate for rate metrics in percent: the same
// ANOVA on the raw values, so σ's are in percentage points (stats.md §6.7).
func CalibrateAbsolute(jobs [][]float64) (Noise, error) { return Points.calibrate(jobs) }

func (s Scale) calibrate(jobs [][]float64) (Noise, error) {
	y := make([][]float64, len(jobs))
	for i, job := range jobs {
		v, err := s.Values(job)
		if err != nil {
			return Noise{}, fmt.Errorf("job %d: %w", i+1, err)
		}
		y[i] = v
	}
	return varianceComponents(y)
}

// varianceComponents is the one-way random-effects ANOVA, with the usual
// n₀ for unbalanced jobs: σ_w² = MS_w, σ_b² = max(0, (MS_b − MS_w)/n₀).
func varianceComponents(y [][]float64) (Noise, error) {
	k := len(y)
	if k < minCalibrationJobs {
		return Noise{}, fmt.Errorf("calibration needs at least %d jobs, got %d", minCalibrationJobs, k)
	}
	var total, sumSq int
	var grand float64
	means := make([]float64, k)
	for i, job := range y {
		if len(job) < minCalibrationRuns {
			return Noise{}, fmt.Errorf("calibration job %d has %d runs; each job needs at least %d", i+1, len(job), minCalibrationRuns)
		}
		means[i] = Mean(job)
		total += len(job)
		sumSq += len(job) * len(job)
		for _, v := range job {
			grand += v
		}
	}
	grand /= float64(total)
	var ssw, ssb float64
	for i, job := range y {
		ssw += sumSquares(job)
		ssb += float64(len(job)) * (means[i] - grand) * (means[i] - grand)
	}
	msw := ssw / float64(total-k)
	msb := ssb / float64(k-1)
	n0 := (float64(total) - float64(sumSq)/float64(total)) / float64(k-1)
	return Noise{
		SigmaW: math.Sqrt(msw),
		SigmaB: math.Sqrt(math.Max(0, (msb-msw)/n0)),
		Jobs:   k,
		Runs:   int(math.Round(float64(total) / float64(k))),
	}, nil
}

// EmpiricalFloor is the cross-check of a calibration (stats.md §6.5 step
// 4): the 95th percentile of median(job j)/median(job i) − 1 over all
// ordered pairs of distinct jobs, as a fraction (0.08 = 8 %).
func EmpiricalFloor(jobs [][]float64) (float64, error) {
	if len(jobs) < minCalibrationJobs {
		return math.NaN(), fmt.Errorf("empirical floor needs at least %d jobs, got %d", minCalibrationJobs, len(jobs))
	}
	meds := make([]float64, len(jobs))
	for i, job := range jobs {
		if _, err := Logs(job); err != nil || len(job) == 0 {
			return math.NaN(), fmt.Errorf("job %d: needs positive finite values", i+1)
		}
		meds[i] = Median(job)
	}
	var ratios []float64
	for i := range meds {
		for j := range meds {
			if i != j {
				ratios = append(ratios, meds[j]/meds[i]-1)
			}
		}
	}
	slices.Sort(ratios)
	return stat.Quantile(0.95, stat.Empirical, ratios, nil), nil
}

// JobToJobFloor is the parametric counterpart of EmpiricalFloor: the
// relative floor for one job of nz.Runs runs against another (n = m = Runs,
// S_b = 1) at level alpha, as a fraction.
func JobToJobFloor(nz Noise, alpha float64) float64 {
	runs := max(nz.Runs, 1)
	se := SE(nz, runs, runs, 1, false)
	return math.Exp(zUpper(alpha)*se) - 1
}

// crossCheckTolerance is how far (as a factor) the empirical and the
// parametric floor may differ before calibrate warns (stats.md §6.5).
const crossCheckTolerance = 1.5

// FloorsAgree reports whether the empirical and parametric pair floors are
// within crossCheckTolerance of each other.
func FloorsAgree(empirical, parametric float64) bool {
	if empirical <= 0 || parametric <= 0 {
		return empirical <= 0 && parametric <= 0
	}
	r := empirical / parametric
	return r <= crossCheckTolerance && r >= 1/crossCheckTolerance
}
