package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/stats"
)

// ABOptions are the options of AB.
type ABOptions struct {
	// Config is the benchmark; its ab: section names the two targets.
	Config *config.Config
	// Baseline lends its calibrated noise, when it has one.
	Baseline baseline.Source
	// Policy, when set, is the gate section to judge by instead of
	// Config's (TrustedPolicy); its notes go into the report.
	Policy *Policy
	// AA runs the base build on both sides: the noise this job sees, and
	// whether the gate would cry wolf on it.
	AA bool
	// TwoProcesses: with AA, the head side is a second process of the base
	// build (the demo starts one), not the same process, so that the A/A
	// noise includes what two processes of one build differ by.
	TwoProcesses bool
	// ResultPath, when set, receives the head side's runs as soon as they
	// are measured (the base side's are the comparison's, not the result).
	ResultPath string
}

// abNoiseMetrics are the metrics whose A/A noise an A/A run reports.
var abNoiseMetrics = []string{result.IterationsPerSec, result.RequestsPerSec, result.LatencyP95, result.CPUPerIteration}

// AB measures the base and the head target in one job, their runs
// interleaved in pairs, and judges head against base with the between-job
// noise left out of the floor (both sides share the job) and on the pairs'
// differences (each pair shares the machine's moment).
func AB(ctx context.Context, env Env, o ABOptions) (Judged, error) {
	cfg := o.Config
	if cfg.AB == nil {
		return Judged{}, Usage.Errorf("%s has no ab: section naming the base and head targets (see docs/config.md)", cfg.Path)
	}
	bl, err := readBaseline(ctx, o.Baseline)
	if err != nil {
		return Judged{}, err
	}
	res, err := env.benchmark(cfg).RunAB(ctx, *cfg.AB, o.AA && !o.TwoProcesses)
	if err != nil {
		return Judged{}, runFailure(err)
	}
	if err := writeResult(o.ResultPath, res.Head); err != nil {
		return Judged{}, err
	}
	fmt.Fprintln(env.out(), "base:")
	showRuns(env, res.Base)
	fmt.Fprintln(env.out(), "head:")
	showRuns(env, res.Head)
	p := policyFor(cfg, o.Policy, bl)
	p.SameJob = true
	p.Paired = true // every pair of the order holds one run of each side
	v := judgeRuns(res.Base, res.Head, p)
	in := report.Input{Name: cfg.Name, Mode: "ab", BaselineSource: o.source(bl), Verdict: v, Head: res.Head.Runs,
		Base: res.Base.Runs, Notes: append(o.Policy.notes(), abNotes(res, v, o.AA)...)}
	return Judged{Input: in, Head: res.Head, Base: res.Base}, nil
}

// source says what the head was judged against.
func (o ABOptions) source(bl *baseline.File) string {
	s := "the base target, measured in this job"
	switch {
	case o.AA && o.TwoProcesses:
		s = "a second process of the base build (A/A), measured in this job"
	case o.AA:
		s = "the base target against itself (A/A), measured in this job"
	}
	if bl != nil && bl.Calibration != nil {
		s += "; noise calibrated in " + o.Baseline.String()
	}
	return s
}

// abNotes shows the order of runs and, for an A/A run, the noise seen and
// whether the gate would have cried wolf.
func abNotes(res *runner.ABResult, v gate.Verdict, aa bool) []string {
	var order []string
	for _, s := range res.Order {
		order = append(order, map[runner.Side]string{runner.Base: "A", runner.Head: "B"}[s])
	}
	notes := []string{"order of runs (A = base, B = head): " + strings.Join(order, " ")}
	if !aa {
		return notes
	}
	for _, key := range abNoiseMetrics {
		a := slices.Sorted(slices.Values(result.Values(res.Base.Runs, key)))
		b := slices.Sorted(slices.Values(result.Values(res.Head.Runs, key)))
		if len(a) > 1 && len(b) > 1 {
			notes = append(notes, fmt.Sprintf("A/A noise of %s: run-to-run CV %.1f %% and %.1f %%, medians differ by %+.1f %%",
				key, 100*stats.CV(a), 100*stats.CV(b), 100*(stats.Median(b)/stats.Median(a)-1)))
		}
	}
	if v.Outcome == gate.Regression {
		notes = append(notes, fmt.Sprintf("A/A: this would have been a FALSE ALARM (%v): widen the floors or calibrate", v.Regressions))
	} else {
		notes = append(notes, "A/A: no false alarm")
	}
	return notes
}
