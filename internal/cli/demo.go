package cli

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/demo"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
)

//go:embed demo.yml
var demoYAML string

type demoFlags struct {
	bench                 benchFlags
	out, slowdown, mode   string
	baseline              string
	async, record, ab, aa bool
	rate, calibrate       int
	budget                abFlags
	reports               reportFlags
}

const (
	demoModeAB    = "ab"
	demoModeCheck = "check"
)

func cmdDemo(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("demo", "demo [--slowdown 30%] [--mode ab|check] [--aa] [--calibrate N] [-o result.json]", e.stderr)
	var f demoFlags
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	slow, err := demo.ParseSlowdown(f.slowdown)
	if err != nil {
		return usageErr("--slowdown: %v", err)
	}
	if f.aa {
		slow = 0 // A/A: both sides clean
	}
	cfg, err := demoConfig(f, slow)
	if err != nil {
		return err
	}
	if f.baseline == "" {
		f.baseline = demoBaselinePath(e.getenv, cfg.DefinitionHash())
	}
	switch {
	case f.calibrate > 0:
		if slow != 0 || f.async {
			return usageErr("--calibrate measures the clean service: leave out --slowdown and --async")
		}
		if f.out != "" {
			return usageErr("--calibrate stores noise in the baseline and writes no result: leave out -o")
		}
		o := pipeline.CalibrateOptions{Config: cfg, Path: f.baseline, Jobs: f.calibrate, Append: true,
			Provenance: provenanceFlags{}.provenance(e.getenv)}
		return calibrate(ctx, e, cfg, o, f.bench.quiet)
	case f.mode == demoModeAB:
		return demoAB(ctx, e, f, cfg)
	}
	o := pipeline.DemoOptions{Service: cfg, BaselinePath: f.baseline, Rerecord: f.record, ResultPath: f.out}
	if slow != 0 || f.async {
		if o.Clean, err = demoConfig(demoFlags{bench: f.bench, rate: f.rate}, 0); err != nil {
			return err
		}
	}
	j, err := pipeline.Demo(ctx, e.pipelineEnv(cfg, f.bench.quiet), o)
	if err != nil || j == nil {
		return err
	}
	return conclude(ctx, *j, f.reports.failOn(false), f.reports.publishers(e)...)
}

func (f *demoFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "mode", demoModeAB, "`ab`: the clean service against the one with --slowdown, side by side in one job, blocks until the verdict is clear; check: judged against this machine's stored baseline (recorded the first time)")
	fs.Var((*countFlag)(&f.bench.runs), "runs", "--mode check: number of runs, `N` ≥ 1 (default 5)")
	fs.Var((*positiveDuration)(&f.bench.duration), "duration", "measure window of each phase of a run, a `duration` > 0 (default 2s)")
	fs.Var(&f.bench.warmup, "warmup", "warm-up of each phase of a run, a `duration` ≥ 0 (default 500ms)")
	fs.BoolVar(&f.bench.quiet, "q", false, "no progress output")
	fs.StringVar(&f.out, "o", "", "also write the result JSON to `file` (in A/B the head side's runs)")
	fs.StringVar(&f.slowdown, "slowdown", "0%", "make the service do this much more work per request, e.g. `30%`")
	fs.BoolVar(&f.async, "async", false, "assign answers 202 and commits later: a resolve may overtake it (409 INVALID ACTION)")
	fs.IntVar(&f.rate, "rate", 10, "lifecycles offered per second in the latency phase")
	fs.StringVar(&f.baseline, "baseline", "", "--mode check: this machine's demo baseline `file` (default in the user cache directory)")
	fs.BoolVar(&f.record, "record", false, "--mode check: record a new baseline for this machine, replacing the old one")
	fs.BoolVar(&f.ab, "ab", false, "the same as --mode ab (the default)")
	fs.BoolVar(&f.aa, "aa", false, "A/B with the clean service on both sides, to see this job's noise")
	fs.Var((*countFlag)(&f.calibrate), "calibrate", "run this many A/A `jobs` of the clean service and store the measured noise in this machine's demo baseline (for --mode check)")
	f.budget.register(fs, false)
	f.reports.register(fs)
}

// check refuses flags that do not go together, and settles the mode:
// --record and --calibrate are about the stored baseline, --ab and --aa
// about A/B.
func (f *demoFlags) check() error {
	if err := f.bench.check(); err != nil {
		return err
	}
	if f.rate <= 0 {
		return usageErr("--rate must be at least 1")
	}
	if f.mode != demoModeAB && f.mode != demoModeCheck {
		return usageErr("--mode: want %s or %s, got %q", demoModeAB, demoModeCheck, f.mode)
	}
	stored := f.record || f.calibrate > 0
	switch {
	case (f.ab || f.aa) && (f.mode == demoModeCheck || stored):
		return usageErr("--ab and --aa are A/B: leave out --mode check, --record and --calibrate")
	case stored:
		f.mode = demoModeCheck // only the stored-baseline demo has a baseline to record or calibrate
	case f.mode == demoModeAB && f.bench.runs > 0:
		return usageErr("--runs is for --mode check: A/B adds blocks until the verdict is clear; set its budget with --max-blocks")
	}
	return nil
}

func demoAB(ctx context.Context, e env, f demoFlags, head *config.Config) error {
	base, err := demoConfig(demoFlags{bench: f.bench, rate: f.rate}, 0)
	if err != nil {
		return err
	}
	ab := *head.AB
	ab.Base, ab.Head = config.ABSide{Target: base.Target}, config.ABSide{Target: head.Target}
	head.AB = &ab
	if err := f.budget.apply(head); err != nil {
		return err
	}
	// With --aa both sides are the clean build, each its own process, as a real A/B's two builds are.
	o := pipeline.ABOptions{Config: head, AA: f.aa, TwoProcesses: true, ResultPath: f.out, NoisePath: f.budget.noise, NoiseDefault: DefaultNoisePath(e.getenv)}
	j, err := pipeline.AB(ctx, e.pipelineEnv(head, f.bench.quiet), o)
	if err != nil {
		return err
	}
	return conclude(ctx, j, f.reports.failOn(f.aa), f.reports.publishers(e)...)
}

// demoConfig fills the embedded demo benchmark with this executable and
// the flags (tailgate fills {{port}} at every start).
func demoConfig(f demoFlags, slowdown float64) (*config.Config, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, pipeline.Runtime.Wrap(fmt.Errorf("finding the tailgate executable to start the demo service: %w", err))
	}
	async := map[bool]string{true: ", --async"}[f.async]
	text := strings.NewReplacer("@EXE@", strconv.Quote(exe), "@SLOWDOWN@", strconv.FormatFloat(100*slowdown, 'f', -1, 64)+"%",
		"@ASYNC@", async, "@RATE@", strconv.Itoa(f.rate)).Replace(demoYAML)
	cfg, err := config.Parse("demo.yml (embedded)", []byte(text))
	if err != nil {
		return nil, fmt.Errorf("the embedded demo benchmark does not parse (a bug): %w", err)
	}
	f.bench.apply(cfg)
	return cfg, nil
}
