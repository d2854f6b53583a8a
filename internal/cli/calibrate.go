package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

func init() {
	register("calibrate", "run A/A jobs on one build and store the measured noise in the baseline", cmdCalibrate)
}

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
	if *appendJob {
		*jobs = 1
	}
	if *jobs < 1 {
		return usageErr("--jobs must be at least 1")
	}
	if !*appendJob && *jobs < 2 {
		return usageErr("--jobs must be at least 2 to measure the drift between jobs (10 or more recommended)")
	}
	cfg, err := bf.load()
	if err != nil {
		return err
	}
	cal := calibration{jobs: *jobs, appendJob: *appendJob, pause: *pause, prov: prov, quiet: bf.quiet}
	return cal.run(ctx, bf.output.apply(e), cfg, baselinePath(*blFlag, cfg, cfg.Name))
}

// calibration is a series of A/A jobs on one build.
type calibration struct {
	jobs      int
	appendJob bool // add one job to the stored calibration instead of starting over
	pause     time.Duration
	prov      provenanceFlags
	quiet     bool
}

// run makes the jobs, stores their runs as baseline samples and as
// calibration jobs, and prints the noise and the floors it implies.
func (c calibration) run(ctx context.Context, e env, cfg *config.Config, path string) error {
	bl, err := readBaseline(path) // an unreadable file stops here, untouched
	if err != nil {
		return err
	}
	if bl == nil || bl.DefinitionHash != cfg.DefinitionHash() {
		bl = baseline.New(cfg.Name, cfg.DefinitionHash(), result.Env{}, cfg.Gate.Window)
	}
	if !c.appendJob {
		bl.Calibration = nil // a fresh calibration replaces the old one
	}
	for j := 0; j < c.jobs; j++ {
		if j > 0 && c.pause > 0 {
			if err := sleep(ctx, c.pause); err != nil {
				return withCode(ExitRuntime, err)
			}
		}
		fmt.Fprintf(e.stderr, "calibration job %d of %d\n", j+1, c.jobs)
		res, err := runBenchmark(ctx, e, cfg, c.quiet)
		if err != nil {
			return err
		}
		pr := c.prov.provenance(e.getenv, res.Created)
		if c.jobs > 1 || pr.Job == "" { // one id per job: S_b counts them
			pr.Job = fmt.Sprintf("calibrate-%s-%d", res.Created.Format("20060102T150405"), j+1)
		}
		bl.Append(res, pr)
		bl.AddJob(pr.Job, res.Created, res.Runs)
	}
	warnings := estimateNoise(bl)
	if err := baseline.Write(path, bl); err != nil {
		return withCode(ExitRuntime, err)
	}
	fmt.Fprintf(e.stdout, "calibration of %s: %d jobs stored in %s\n\n", cfg.Name, len(bl.Calibration.Jobs), path)
	writeFloors(e.stdout, cfg, bl)
	for _, w := range warnings {
		fmt.Fprintln(e.stdout, "warning:", w)
	}
	return nil
}

// minCrossCheckJobs is how many jobs the empirical cross-check of the
// noise model needs before its 95th percentile means anything.
const minCrossCheckJobs = 5

// minCrossCheckSigma leaves out metrics that showed no noise at all (an
// open-loop rate that always met its target): there is nothing to compare.
const minCrossCheckSigma = 0.001

// estimateNoise recomputes the per-metric noise from the calibration jobs
// and returns warnings about estimates that are weak or inconsistent.
func estimateNoise(bl *baseline.File) []string {
	c := bl.Calibration
	c.Noise = map[string]stats.Noise{}
	var warnings []string
	if len(c.Jobs) < 2 {
		return []string{fmt.Sprintf("%d job so far: the noise needs at least 2 jobs (10 or more recommended); run calibrate --append in more jobs", len(c.Jobs))}
	}
	var disagree []string
	for _, m := range result.Metrics {
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
			warnings = append(warnings, fmt.Sprintf("%s: %v", m.Key, err))
			continue
		}
		c.Noise[m.Key] = nz
		if m.Scale == result.Ratio && len(jobs) >= minCrossCheckJobs && nz.SigmaW > minCrossCheckSigma {
			if emp, err := stats.EmpiricalFloor(jobs); err == nil && !stats.FloorsAgree(emp, stats.PairFloor(nz, gate.DefaultAlpha)) {
				disagree = append(disagree, fmt.Sprintf("%s (%.1f %% seen, %.1f %% modelled)", m.Key, 100*emp, 100*stats.PairFloor(nz, gate.DefaultAlpha)))
			}
		}
	}
	if len(disagree) > 0 {
		warnings = append(warnings, "job-to-job differences (95th percentile) disagree with the noise model for "+strings.Join(disagree, ", ")+": the noise may not be lognormal or stationary; more jobs spread over time make the estimate firmer")
	}
	if len(c.Jobs) < 10 {
		warnings = append(warnings, fmt.Sprintf("only %d jobs: the between-job noise is a rough estimate (10 or more recommended)", len(c.Jobs)))
	}
	return warnings
}

// writeFloors prints, per calibrated metric, the noise and what it implies
// for a check of load.runs runs against the baseline window.
func writeFloors(w io.Writer, cfg *config.Config, bl *baseline.File) {
	n := cfg.Load.Runs
	m := min(len(bl.Samples), bl.Window)
	k := len(cfg.Gate.Metrics)
	alpha := cfg.Gate.Alpha
	fmt.Fprintf(w, "for a check of %d runs against %d baseline samples from %d jobs (α = %g, %d gated metrics):\n", n, m, bl.Jobs(), alpha, k)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tσ within job\tσ between jobs\tfloor\tdetects (80 % power)\tgated")
	gated := map[string]bool{}
	for _, key := range cfg.Gate.Metrics {
		gated[key] = true
	}
	for _, meta := range result.Metrics {
		nz, ok := bl.Calibration.Noise[meta.Key]
		if !ok {
			continue
		}
		se := stats.SE(nz, n, m, bl.Jobs(), false)
		floor := math.Max(stats.Floor(nz, n, m, bl.Jobs(), false, alpha, k), resolutionFloor(meta))
		mde := stats.MDE(stats.MDEInput{SigmaW: nz.SigmaW, SE: se, Floor: floor, N: n, M: m, Alpha: alpha})
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\n", meta.Label, sigma(meta, nz.SigmaW), sigma(meta, nz.SigmaB),
			effect(meta, floor), effect(meta, mde), gated[meta.Key])
	}
	tw.Flush()
}

// resolutionFloor is the gate's least calibrated floor on the log (or
// percentage-point) scale, so that the table shows the floor the gate uses.
func resolutionFloor(m result.Metric) float64 {
	switch {
	case m.Scale == result.Percent:
		return gate.MinCalibratedFloorPoints
	case m.Better == result.HigherIsBetter:
		return stats.DropFloor(gate.MinCalibratedFloorPercent / 100)
	default:
		return stats.RiseFloor(gate.MinCalibratedFloorPercent / 100)
	}
}

func sigma(m result.Metric, s float64) string {
	if m.Scale == result.Percent {
		return fmt.Sprintf("%.2f pp", s)
	}
	return fmt.Sprintf("%.1f %%", 100*s)
}

// effect shows a log-scale effect as the percent change in the bad
// direction (a drop for higher-is-better metrics).
func effect(m result.Metric, l float64) string {
	switch {
	case math.IsNaN(l):
		return "–"
	case m.Scale == result.Percent:
		return fmt.Sprintf("%.2f pp", l)
	case m.Better == result.HigherIsBetter:
		return fmt.Sprintf("−%.1f %%", 100*(1-math.Exp(-l)))
	default:
		return fmt.Sprintf("+%.1f %%", 100*(math.Exp(l)-1))
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
