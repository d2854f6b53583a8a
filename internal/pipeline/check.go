package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/target"
)

type RunOptions struct {
	Config     *config.Config
	ResultPath string
	Sharding   runner.Sharding
}

// Run measures the benchmark, writes the result file and shows the runs.
func Run(ctx context.Context, env Env, o RunOptions) (*result.File, error) {
	if o.Config.HeadAlone() { // README's smoke step on a file written for tailgate ab
		fmt.Fprintf(env.log(), "tailgate run: no top-level target: running ab.head's (%s) from the working tree, as tailgate ab starts that side (TAILGATE_SIDE=head)\n", o.Config.Target.URL)
		env.Processes.Environ = append(slices.Clip(env.Processes.Environ), target.SideEnv+"=head")
	}
	if err := o.Sharding.Check(o.Config); err != nil {
		return nil, Usage.Wrap(err)
	}
	b := env.benchmark(o.Config)
	b.Sharding = o.Sharding
	res, err := runBenchmark(ctx, b)
	if err != nil {
		return nil, err
	}
	if err := Runtime.Wrap(result.WriteFile(o.ResultPath, res)); err != nil {
		return nil, err
	}
	showRuns(env, "", res)
	return res, nil
}

type CheckOptions struct {
	Config     *config.Config // its gate section is the policy; nil when Head is given
	Head       *result.File   // the runs to judge; nil to run the benchmark
	ResultPath string         // receives the measured runs at once, so that nothing later can lose them
	Baseline   baseline.Source
	Policy     *Policy            // the gate section to judge by instead of Config's (TrustBase)
	Tags       baseline.TagLister // the release tags gate.creep compares with; nil for none
	// CalibrateCommand is the command the report advises for measuring the
	// noise instead of `tailgate calibrate` (the demo's).
	CalibrateCommand string
}

// Check judges the head runs (measured now, unless given) against the
// stored baseline, read first: an unreadable one stops the check before a
// benchmark is spent on it.
func Check(ctx context.Context, env Env, o CheckOptions) (Judged, error) {
	bl, err := readBaseline(ctx, o.Baseline)
	if err != nil {
		return Judged{}, err
	}
	cfg := o.Policy.benchmark(o.Config)
	head, err := headRuns(ctx, env, cfg, o.Head)
	if err != nil {
		return Judged{}, o.Policy.headFailure(err)
	}
	if err := writeResult(o.ResultPath, head); err != nil {
		return Judged{}, err
	}
	p := policyFor(cfg, o.Policy, bl)
	p.Context.CalibrateCommand = o.CalibrateCommand
	var v gate.Verdict
	if bl == nil {
		p.Context.NoBaseline = true
		v = gate.Judge(nil, head.Runs, p)
	} else {
		v = judgeRuns(&result.File{DefinitionHash: bl.DefinitionHash, Env: bl.Env, Runs: bl.Runs()}, head, p)
	}
	creepWarnings, creepNotes := creep(ctx, o, bl, head, p)
	v.Warnings = append(v.Warnings, creepWarnings...)
	source := report.StoredBaseline(o.Baseline.String(), false, 0, 0)
	if bl != nil {
		source = report.StoredBaseline(o.Baseline.String(), true, len(bl.Samples), bl.Jobs())
	}
	in := report.Input{Name: head.Benchmark, Mode: "check", BaselineSource: source, Verdict: v, Head: head.Runs, Notes: append(o.Policy.notes(), creepNotes...),
		TargetLog: report.TargetLogs{Head: head.TargetLog}}
	in.Base, in.BaseOrigins = baselineRuns(bl)
	return Judged{Input: in, Head: head}, nil
}
