package baseline

import (
	"time"

	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// Calibration holds A/A jobs run on one build and the noise measured from them.
type Calibration struct {
	Updated time.Time `json:"updated"`
	// Jobs are the A/A jobs: each holds the per-run metrics of one job.
	Jobs []CalibrationJob `json:"jobs"`
	// Noise is the per-metric estimate computed from Jobs: the within-job
	// and between-job standard deviations (of logs for ratio metrics, of
	// percentage points for percent metrics).
	Noise map[string]stats.Noise `json:"noise"`
}

// CalibrationJob is one A/A job.
type CalibrationJob struct {
	Job  string               `json:"job"`
	Time time.Time            `json:"time"`
	Runs []map[string]float64 `json:"runs"`
}

// AddJob appends one A/A job's runs to the calibration.
func (f *File) AddJob(job string, at time.Time, runs []result.Run) {
	if f.Calibration == nil {
		f.Calibration = &Calibration{}
	}
	cj := CalibrationJob{Job: job, Time: at}
	for _, r := range runs {
		cj.Runs = append(cj.Runs, copyMetrics(r.Metrics))
	}
	f.Calibration.Jobs = append(f.Calibration.Jobs, cj)
	f.Calibration.Updated = at
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
