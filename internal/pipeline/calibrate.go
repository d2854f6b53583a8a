package pipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/clock"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
)

type CalibrateOptions struct {
	Config     *config.Config
	Path       string              // the baseline file the calibration is stored in
	Jobs       int                 // A/A jobs, each of load.runs runs
	Append     bool                // to the stored calibration (one job per CI job measures the drift between jobs)
	Pause      time.Duration       // between jobs, to spread them over time
	Provenance baseline.Provenance // of a single appended job (as Record's)
}

// Calibrate runs A/A jobs on one build, stores their runs as baseline
// samples and calibration jobs, and estimates the noise. An unreadable
// baseline stops it before anything runs.
func Calibrate(ctx context.Context, env Env, o CalibrateOptions) (report.Calibration, error) {
	cfg := o.Config
	if o.Jobs < 1 {
		return report.Calibration{}, Usage.Errorf("calibration needs at least 1 job, got %d", o.Jobs)
	}
	bl, err := readBaseline(ctx, baseline.FileSource{Path: o.Path})
	if err != nil {
		return report.Calibration{}, err
	}
	if bl == nil || bl.DefinitionHash != cfg.DefinitionHash() {
		bl = baseline.New(cfg.Name, cfg.DefinitionHash(), result.Env{}, cfg.Gate.Window)
	}
	if !o.Append {
		bl.Calibration = nil // a fresh calibration replaces the old one
	}
	var setByLoad []string
	for j := range o.Jobs {
		if j > 0 && o.Pause > 0 {
			if err := clock.Sleep(ctx, o.Pause); err != nil {
				return report.Calibration{}, Runtime.Wrap(err)
			}
		}
		fmt.Fprintf(env.log(), "calibration job %d of %d\n", j+1, o.Jobs)
		res, err := runBenchmark(ctx, env.benchmark(cfg))
		if err != nil {
			return report.Calibration{}, err
		}
		pr := stamped(o.Provenance, res.Created)
		if o.Jobs > 1 { // one id per job: S_b counts them
			pr.Job = fmt.Sprintf("calibrate-%s-%d", res.Created.Format("20060102T150405"), j+1)
		}
		bl.Append(res, pr)
		bl.AddJob(pr.Job, res.Created, res.Runs)
		for _, r := range res.Runs {
			for _, key := range r.SetByLoad {
				if !slices.Contains(setByLoad, key) {
					setByLoad = append(setByLoad, key)
				}
			}
		}
	}
	alpha := gate.Policy{Alpha: cfg.Gate.Alpha}.Level()
	warnings := bl.Calibration.EstimateNoise(alpha)
	if err := Runtime.Wrap(baseline.Write(o.Path, bl)); err != nil {
		return report.Calibration{}, err
	}
	return report.Calibration{
		Name: cfg.Name, Path: o.Path, Jobs: len(bl.Calibration.Jobs), Noise: bl.Calibration.Noise,
		Runs: cfg.Load.Runs, Samples: min(len(bl.Samples), bl.Window), BaselineJobs: bl.Jobs(),
		Alpha: alpha, Gated: gateOf(cfg).Metrics, SetByLoad: setByLoad, Warnings: warnings,
	}, nil
}
