package cli

import (
	"context"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/report"
)

func cmdCalibrate(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("calibrate", "calibrate -c tailgate.yml [--jobs 10 | --append] [--pause 0s]", e.stderr)
	var bf benchFlags
	bf.register(fs)
	jobs := fs.Int("jobs", 10, "number of A/A jobs to run here, each of load.runs runs")
	appendJob := fs.Bool("append", false, "run one job and add it to the stored calibration (run this in separate CI jobs to measure the drift between jobs)")
	pause := fs.Duration("pause", 0, "wait this long between jobs, to spread them over time")
	blFlag := fs.String("baseline", "", "the baseline `file` (default: gate.baseline, else baselines/<name>.json)")
	var prov provenanceFlags
	prov.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	e = bf.output.apply(e)
	if *appendJob {
		*jobs = 1
	}
	if *pause < 0 {
		return usageErr("--pause must not be negative, got %s", *pause)
	}
	if !*appendJob && *jobs < 2 {
		return usageErr("--jobs must be at least 2 to measure the drift between jobs (10 or more recommended)")
	}
	cfg, err := bf.load()
	if err != nil {
		return err
	}
	o := pipeline.CalibrateOptions{Config: cfg, Path: baselinePath(*blFlag, cfg, cfg.Name), Jobs: *jobs, Append: *appendJob,
		Pause: *pause, Provenance: prov.provenance(e.getenv)}
	return calibrate(ctx, e, cfg, o, bf.quiet)
}

func calibrate(ctx context.Context, e env, cfg *config.Config, o pipeline.CalibrateOptions, quiet bool) error {
	cal, err := pipeline.Calibrate(ctx, e.pipelineEnv(cfg, quiet), o)
	if err != nil {
		return err
	}
	return pipeline.Runtime.Wrap(report.WriteCalibration(e.stdout, cal))
}
