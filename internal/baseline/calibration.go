package baseline

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Calibration holds A/A jobs run on one build and the noise measured from them.
type Calibration struct {
	Updated time.Time `json:"updated"`
	// Jobs are the A/A jobs: each holds the per-run metrics of one job.
	Jobs  []CalibrationJob       `json:"jobs"`
	Noise map[string]stats.Noise `json:"noise"` // per metric, estimated from Jobs
}

type CalibrationJob struct {
	Job  string               `json:"job"`
	Time time.Time            `json:"time"`
	Runs []map[string]float64 `json:"runs"`
}

func (f *File) AddJob(job string, at time.Time, runs []result.Run) {
	f.Calibration = cmp.Or(f.Calibration, &Calibration{})
	cj := CalibrationJob{Job: job, Time: at}
	for _, r := range runs {
		cj.Runs = append(cj.Runs, copyMetrics(r.Metrics))
	}
	f.Calibration.Jobs = append(f.Calibration.Jobs, cj)
	f.Calibration.Updated = at
}

func (c *Calibration) Span() time.Duration {
	if len(c.Jobs) == 0 {
		return 0
	}
	byTime := func(a, b CalibrationJob) int { return a.Time.Compare(b.Time) }
	return slices.MaxFunc(c.Jobs, byTime).Time.Sub(slices.MinFunc(c.Jobs, byTime).Time)
}

// MetricJobs returns, for one metric, its values grouped by job, leaving
// out runs that lack it and jobs left with fewer than two runs.
func (c *Calibration) MetricJobs(key string) [][]float64 {
	var jobs [][]float64
	for _, j := range c.Jobs {
		var vals []float64
		for _, r := range j.Runs {
			if v, ok := r[key]; ok {
				vals = append(vals, v)
			}
		}
		if len(vals) >= 2 {
			jobs = append(jobs, vals)
		}
	}
	return jobs
}

func (c *Calibration) keys() []string {
	var out []string
	for _, j := range c.Jobs {
		for _, r := range j.Runs {
			out = result.AppendNew(out, slices.Collect(maps.Keys(r))...)
		}
	}
	return out
}

// The warnings EstimateNoise raises.
const (
	WarnTooFewJobs         stats.WarningCode = "too_few_jobs"
	WarnMetricNotEstimated stats.WarningCode = "metric_not_estimated"
	WarnNoiseModel         stats.WarningCode = "noise_model_disagrees"
	WarnRoughEstimate      stats.WarningCode = "rough_estimate"
)

const (
	minCrossCheckJobs  = 5     // before the cross-check's 95th percentile means anything
	minCrossCheckSigma = 0.001 // below it a metric showed no noise to compare (a met open-loop rate)
	recommendedJobs    = 10    // for a firm between-job noise (stats.md §6.5)
)

// EstimateNoise recomputes the per-metric noise from the calibration jobs
// and cross-checks it at level alpha against the job-to-job differences
// seen, warning of estimates that are weak or inconsistent.
func (c *Calibration) EstimateNoise(alpha float64) []stats.Warning {
	c.Noise = map[string]stats.Noise{}
	if len(c.Jobs) < 2 {
		return []stats.Warning{stats.Warn(WarnTooFewJobs, fmt.Sprintf("%d job so far: the noise needs at least 2 jobs (10 or more recommended); run calibrate --append in more jobs", len(c.Jobs)))}
	}
	var warnings []stats.Warning
	var disagree []string
	for _, m := range result.Catalogue(c.keys()...) {
		jobs := c.MetricJobs(m.Key)
		if len(jobs) < 2 {
			continue
		}
		calibrate := stats.Calibrate
		if m.Scale == result.Percent {
			calibrate = stats.CalibrateAbsolute
		}
		nz, err := calibrate(jobs)
		if err != nil {
			warnings = append(warnings, stats.Warn(WarnMetricNotEstimated, fmt.Sprintf("%s: %v", m.Key, err)))
			continue
		}
		c.Noise[m.Key] = nz
		if m.Scale == result.Ratio && len(jobs) >= minCrossCheckJobs && nz.SigmaW > minCrossCheckSigma {
			if seen, err := stats.EmpiricalFloor(jobs); err == nil && !stats.FloorsAgree(seen, stats.JobToJobFloor(nz, alpha)) {
				disagree = append(disagree, fmt.Sprintf("%s (%.1f %% seen, %.1f %% modelled)", m.Key, 100*seen, 100*stats.JobToJobFloor(nz, alpha)))
			}
		}
	}
	if len(disagree) > 0 {
		warnings = append(warnings, stats.Warn(WarnNoiseModel, "job-to-job differences (95th percentile) disagree with the noise model for "+strings.Join(disagree, ", ")+": the noise may not be lognormal or stationary; more jobs spread over time make the estimate firmer"))
	}
	if len(c.Jobs) < recommendedJobs {
		warnings = append(warnings, stats.Warn(WarnRoughEstimate, fmt.Sprintf("only %d jobs: the between-job noise is a rough estimate (10 or more recommended)", len(c.Jobs))))
	}
	return warnings
}
