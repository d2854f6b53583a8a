// Package pipeline owns the use cases of tailgate, each written once: Run,
// Record, Check, Compare, Calibrate, AB, History, Merge, Validate and Demo.
//
// A use case takes an options struct and the Env it may use, and returns
// what it judged or stored with an error that carries its Kind; it reads
// nothing from the process (no flags, no environment variables) and
// publishes nothing: the CLI and the GitHub Action call the same functions
// and hand the result to their publishers. FailOn maps a verdict to the
// Regression kind, in one place.
package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
	"github.com/tailgate-ci/tailgate/internal/scenario"
)

// Env is the world a use case runs in.
type Env struct {
	// Out shows what a use case does as it goes: the table of the runs it
	// measured, and what the demo recorded. Reports are the publishers'.
	Out       io.Writer
	Log       io.Writer       // notices and the target's and load tools' output
	Progress  runner.Observer // nil for none
	Machine   result.Env      // this machine and build, for the result files
	Now       func() time.Time
	Processes Processes
	TempDir   string // for A/B worktrees; "" for the system's
	// Getenv and Mask are runner.Benchmark's: the values read stay out of
	// the definition hash, the results and every message.
	Getenv func(string) string
	Mask   func(value string)
}

// Processes describes a benchmark's child processes (as runner.Benchmark's fields).
type Processes struct {
	Environ, Supervisor []string
	TargetLogDir        string
	TargetLive          io.Writer
	Hidden              []string // the runner's files, which no child of a sealed A/B job may see
}

func (e Env) benchmark(cfg *config.Config) *runner.Benchmark {
	return &runner.Benchmark{Config: cfg, Env: e.Machine, Observer: e.Progress, Log: e.log(), Now: e.Now,
		Environ: e.Processes.Environ, Supervisor: e.Processes.Supervisor,
		TargetLogDir: e.Processes.TargetLogDir, TargetLive: e.Processes.TargetLive, Getenv: e.Getenv, Mask: e.Mask}
}

func (e Env) out() io.Writer { return cmp.Or(e.Out, io.Discard) }
func (e Env) log() io.Writer { return cmp.Or(e.Log, io.Discard) }

func (e Env) now() time.Time {
	if e.Now == nil {
		return time.Now().UTC()
	}
	return e.Now().UTC()
}

// Judged is a judged comparison: what its reports show, and the runs
// behind it.
type Judged struct {
	report.Input
	Head *result.File
	// Base is the base side of compare and A/B; nil for a stored
	// baseline. Like Head, it shadows the Input field of the same name:
	// j.Input.Base are the runs the reports show.
	Base       *result.File
	BaseCommit string // the commit an A/B's base was built from, if any
}

// runBenchmark runs b; a broken target or dataset is a runtime failure.
func runBenchmark(ctx context.Context, b *runner.Benchmark) (*result.File, error) {
	if err := b.Config.NoTopTarget(); err != nil {
		return nil, Usage.Wrap(err)
	}
	res, err := b.Run(ctx)
	return res, runFailure(err) // nil stays nil
}

func runFailure(err error) error {
	var plan *scenario.PlanError
	switch {
	case errors.Is(err, context.Canceled):
		return Runtime.Wrap(errors.New("interrupted: no result was written"))
	case errors.As(err, &plan):
		return Usage.Wrap(err) // the definition cannot run as written, or lacks a variable
	}
	return Runtime.Wrap(err)
}

// headRuns are the given runs, else the benchmark's, measured and shown.
func headRuns(ctx context.Context, env Env, cfg *config.Config, given *result.File) (*result.File, error) {
	if given != nil {
		return given, nil
	}
	head, err := runBenchmark(ctx, env.benchmark(cfg))
	if err != nil {
		return nil, err
	}
	showRuns(env, "", head)
	return head, nil
}

func showRuns(env Env, title string, f *result.File) {
	if title != "" {
		fmt.Fprintln(env.out(), title)
	}
	report.WriteRunTable(env.out(), f)
	fmt.Fprintln(env.out())
}

func writeResult(path string, f *result.File) error {
	if path == "" {
		return nil
	}
	return Runtime.Wrap(result.WriteFile(path, f))
}

// readBaseline reads the baseline from src (nil when there is none yet);
// an unreadable one is a runtime failure that leaves the file as it is.
func readBaseline(ctx context.Context, src baseline.Source) (*baseline.File, error) {
	bl, err := src.Read(ctx)
	return bl, Runtime.Wrap(err)
}

// policyFor builds the gate policy from the gate section (pol's, else the
// config's) and the noise calibrated into the baseline.
func policyFor(cfg *config.Config, pol *Policy, bl *baseline.File) gate.Policy {
	var p gate.Policy
	if cfg != nil {
		p.Context.RemoteTarget = cfg.RemoteTarget()
	}
	if g, ok := pol.gate(cfg); ok {
		p.Alpha, p.Metrics, p.Floors, p.MinEffect = g.Alpha, g.Metrics, g.Floors, g.MinEffect
	}
	if bl != nil {
		p.BaselineJobs = bl.Jobs()
		if c := bl.Calibration; c != nil {
			p.Noise = c.Noise
			p.Context.CalibrationJobs, p.Context.CalibrationSpan = len(c.Jobs), c.Span()
		}
	}
	return p
}

// baselineRuns are a stored baseline's samples as runs, for the reports,
// and where each was recorded.
func baselineRuns(bl *baseline.File) ([]result.Run, []report.Origin) {
	if bl == nil {
		return nil, nil
	}
	origins := make([]report.Origin, len(bl.Samples))
	for i, s := range bl.Samples {
		origins[i] = report.Origin{Commit: s.Commit, Ref: s.Ref, Job: s.Job, Time: s.Time}
	}
	return bl.Runs(), origins
}

// judgeRuns judges head against base, telling the gate when the two were
// measured by different benchmark definitions or on different machines.
func judgeRuns(base, head *result.File, p gate.Policy) gate.Verdict {
	if base.DefinitionHash != "" && head.DefinitionHash != "" && base.DefinitionHash != head.DefinitionHash {
		p.Context.DefinitionChanged = true
	}
	if a, b := base.Env.Fingerprint(), head.Env.Fingerprint(); base.Env.Cores != 0 && head.Env.Cores != 0 && a != b {
		p.Context.EnvDiffers = true
		p.Context.EnvDiff = fmt.Sprintf("%s → %s", a, b)
	}
	return gate.Judge(base.Runs, head.Runs, p)
}
