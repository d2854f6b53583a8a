package cli

import (
	"context"
	_ "embed"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/demo"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
)

//go:embed demo.yml
var demoYAML string

func init() {
	register("demo", "benchmark the embedded demo service and judge it against this machine's baseline", cmdDemo)
}

type demoFlags struct {
	bench     benchFlags
	out       string
	slowdown  string
	async     bool
	rate      int
	baseline  string
	record    bool
	ab        bool
	aa        bool
	calibrate int
	reports   reportFlags
}

func cmdDemo(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("demo", "demo [--slowdown 30%] [--runs N] [--duration D] [-o result.json]", e.stderr)
	var f demoFlags
	fs.Var((*countFlag)(&f.bench.runs), "runs", "number of runs, `N` ≥ 1 (default 5; with --ab 8 a side)")
	fs.Var((*positiveDuration)(&f.bench.duration), "duration", "measure window of each run, a `duration` > 0 (default 4s; with --ab 2.5s)")
	fs.Var(&f.bench.warmup, "warmup", "warm-up of each run (default 1s; with --ab 500ms)")
	fs.BoolVar(&f.bench.quiet, "q", false, "no progress output")
	fs.StringVar(&f.out, "o", "", "also write the result JSON to `file` (with --ab: the head side's runs)")
	fs.StringVar(&f.slowdown, "slowdown", "0%", "make the service do this much more work per request, e.g. `30%`")
	fs.BoolVar(&f.async, "async", false, "assign answers 202 and commits later: a resolve may overtake it (409 INVALID ACTION)")
	fs.IntVar(&f.rate, "rate", 10, "lifecycles offered per second")
	fs.StringVar(&f.baseline, "baseline", "", "this machine's demo baseline `file` (default in the user cache directory)")
	fs.BoolVar(&f.record, "record", false, "record a new baseline for this machine, replacing the old one")
	fs.BoolVar(&f.ab, "ab", false, "run a clean and a slowed service side by side in one job (A/B), instead of checking against the stored baseline")
	fs.BoolVar(&f.aa, "aa", false, "with --ab: the clean service on both sides, to see this job's noise")
	fs.Var((*countFlag)(&f.calibrate), "calibrate", "run this many A/A `jobs` of the clean service and store the measured noise in this machine's demo baseline")
	f.reports.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.bench.check(); err != nil {
		return err
	}
	slow, err := demo.ParseSlowdown(f.slowdown)
	if err != nil {
		return usageErr("--slowdown: %v", err)
	}
	if f.rate <= 0 {
		return usageErr("--rate must be at least 1")
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
	case f.ab || f.aa:
		return demoAB(ctx, e, f, cfg)
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
	return conclude(ctx, *j, f.reports.failOn(), f.reports.publishers(e)...)
}

// demoAB runs a clean demo service (base) against one with the requested
// slowdown (head), interleaved in one job.
func demoAB(ctx context.Context, e env, f demoFlags, head *config.Config) error {
	base, err := demoConfig(demoFlags{bench: f.bench, rate: f.rate}, 0)
	if err != nil {
		return err
	}
	abDefaults(head, f.bench)
	head.AB = &config.AB{Base: base.Target, Head: head.Target, Order: config.OrderABBA}
	// Both sides are processes of their own, also for --aa: then the head
	// is a second clean process, so the A/A shows what two processes of one
	// build differ by, which a real A/B sees too.
	o := pipeline.ABOptions{Config: head, Baseline: baseline.FileSource{Path: f.baseline}, AA: f.aa, TwoProcesses: true, ResultPath: f.out}
	j, err := pipeline.AB(ctx, e.pipelineEnv(head, f.bench.quiet), o)
	if err != nil {
		return err
	}
	return conclude(ctx, j, abFailOn(f.reports, f.aa), f.reports.publishers(e)...)
}

// abDefaults makes A/B runs more and shorter than the check's: the floor is
// measured from the job's own runs, and eight runs a side measure it well
// (16 runs in about a minute). Flags still override.
func abDefaults(cfg *config.Config, b benchFlags) {
	if b.runs == 0 {
		cfg.Load.Runs = 8
	}
	if b.duration == 0 {
		cfg.Load.Duration = config.Duration(2500 * time.Millisecond)
	}
	if !b.warmup.set {
		cfg.Load.Warmup = config.Duration(500 * time.Millisecond)
	}
}

// demoConfig fills the embedded demo benchmark with this executable, a
// free loopback port and the flags.
func demoConfig(f demoFlags, slowdown float64) (*config.Config, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, pipeline.Runtime.Wrap(fmt.Errorf("finding the tailgate executable to start the demo service: %w", err))
	}
	port, err := freePort()
	if err != nil {
		return nil, pipeline.Runtime.Wrap(err)
	}
	async := ""
	if f.async {
		async = ", --async"
	}
	text := strings.NewReplacer(
		"@EXE@", strconv.Quote(exe),
		"@PORT@", strconv.Itoa(port),
		"@SLOWDOWN@", strconv.FormatFloat(100*slowdown, 'f', -1, 64)+"%",
		"@ASYNC@", async,
		"@RATE@", strconv.Itoa(f.rate),
	).Replace(demoYAML)
	cfg, err := config.Parse("demo.yml (embedded)", []byte(text))
	if err != nil {
		return nil, fmt.Errorf("the embedded demo benchmark does not parse (a bug): %w", err)
	}
	f.bench.apply(cfg)
	return cfg, nil
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before the demo service binds it; the service would then fail to
// start with a clear error.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
