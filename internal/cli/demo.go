package cli

import (
	"context"
	_ "embed"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/demo"
	"github.com/tailgate-ci/tailgate/internal/result"
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
	fs.IntVar(&f.bench.runs, "runs", 0, "number of runs (default 5; with --ab 8 a side)")
	fs.DurationVar(&f.bench.duration, "duration", 0, "measure window of each run (default 4s; with --ab 2.5s)")
	fs.Var(&f.bench.warmup, "warmup", "warm-up of each run (default 1s; with --ab 500ms)")
	fs.BoolVar(&f.bench.quiet, "q", false, "no progress output")
	fs.StringVar(&f.out, "o", "", "also write the result JSON to `file`")
	fs.StringVar(&f.slowdown, "slowdown", "0%", "make the service do this much more work per request, e.g. `30%`")
	fs.BoolVar(&f.async, "async", false, "assign answers 202 and commits later: a resolve may overtake it (409 INVALID ACTION)")
	fs.IntVar(&f.rate, "rate", 10, "lifecycles offered per second")
	fs.StringVar(&f.baseline, "baseline", "", "this machine's demo baseline `file` (default in the user cache directory)")
	fs.BoolVar(&f.record, "record", false, "record a new baseline for this machine, replacing the old one")
	fs.BoolVar(&f.ab, "ab", false, "run a clean and a slowed service side by side in one job (A/B), instead of checking against the stored baseline")
	fs.BoolVar(&f.aa, "aa", false, "with --ab: the clean service on both sides, to see this job's noise")
	fs.IntVar(&f.calibrate, "calibrate", 0, "run this many A/A `jobs` of the clean service and store the measured noise in this machine's demo baseline")
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
	if f.baseline == "" {
		f.baseline = demoBaselinePath(e.getenv)
	}
	if f.aa {
		slow = 0 // A/A: both sides clean
	}
	cfg, err := demoConfig(f, slow)
	if err != nil {
		return err
	}
	if f.ab || f.aa {
		return demoAB(ctx, e, f, cfg)
	}
	if f.calibrate > 0 {
		if slow != 0 || f.async {
			return usageErr("--calibrate measures the clean service: leave out --slowdown and --async")
		}
		cal := calibration{jobs: f.calibrate, appendJob: true, quiet: f.bench.quiet}
		return cal.run(ctx, e, cfg, f.baseline)
	}
	bl, err := readBaseline(f.baseline)
	if err != nil {
		return err
	}
	if bl == nil || f.record || bl.DefinitionHash != cfg.DefinitionHash() {
		if slow == 0 && !f.async {
			return demoRecordFirst(ctx, e, f, cfg)
		}
		fmt.Fprintf(e.stderr, "no demo baseline for this machine yet: recording one with the clean service first\n")
		clean, err := demoConfig(demoFlags{bench: f.bench, rate: f.rate}, 0)
		if err != nil {
			return err
		}
		if err := recordDemoBaseline(ctx, e, f, clean); err != nil {
			return err
		}
		if bl, err = readBaseline(f.baseline); err != nil {
			return err
		}
	}
	head, err := runBenchmark(ctx, e, cfg, f.bench.quiet)
	if err != nil {
		return err
	}
	if err := writeResultIfAsked(f.out, head); err != nil {
		return err
	}
	writeRunTable(e.stdout, head)
	fmt.Fprintln(e.stdout)
	v := judgeAgainstBaseline(head, bl, policyFor(cfg, bl))
	src := fmt.Sprintf("this machine's demo baseline (%s, %d samples from %d jobs)", f.baseline, len(bl.Samples), bl.Jobs())
	if err := present(e, f.reports, judged{name: cfg.Name, mode: "check", baselineSource: src, verdict: v, head: head}); err != nil {
		return err
	}
	return verdictExit(v, f.reports.failOnInconclusive)
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
	return runAndJudgeAB(ctx, e, head, abFlags{aa: f.aa, twoProcesses: true, baseline: f.baseline, reports: f.reports}, f.bench.quiet)
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

// demoRecordFirst is the first use on a machine: run the clean service,
// record the runs as the baseline, and say so.
func demoRecordFirst(ctx context.Context, e env, f demoFlags, cfg *config.Config) error {
	fmt.Fprintf(e.stderr, "no demo baseline for this machine yet: this run records one\n")
	return recordDemoBaseline(ctx, e, f, cfg)
}

func recordDemoBaseline(ctx context.Context, e env, f demoFlags, cfg *config.Config) error {
	res, err := runBenchmark(ctx, e, cfg, f.bench.quiet)
	if err != nil {
		return err
	}
	writeRunTable(e.stdout, res)
	bl := baseline.New(cfg.Name, res.DefinitionHash, res.Env, cfg.Gate.Window)
	bl.Append(res, baseline.Provenance{Job: "demo-" + res.Created.Format("20060102T150405"), Ref: "demo", Time: res.Created})
	if err := baseline.Write(f.baseline, bl); err != nil {
		return withCode(ExitRuntime, err)
	}
	fmt.Fprintf(e.stdout, "\nrecorded a baseline for this machine: %s (%d runs)\nrun `tailgate demo` again to check against it; `tailgate demo --slowdown 30%%` to see a regression caught\n", f.baseline, len(res.Runs))
	return nil
}

// demoConfig fills the embedded demo benchmark with this executable, a
// free loopback port and the flags.
func demoConfig(f demoFlags, slowdown float64) (*config.Config, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, withCode(ExitRuntime, fmt.Errorf("finding the tailgate executable to start the demo service: %w", err))
	}
	port, err := freePort()
	if err != nil {
		return nil, withCode(ExitRuntime, err)
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

// demoBaselinePath is the per-user, per-machine place of the demo baseline.
func demoBaselinePath(getenv func(string) string) string {
	dir := getenv("XDG_CACHE_HOME")
	if dir == "" {
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".cache")
		}
	}
	if dir == "" {
		return filepath.Join("baselines", "demo.json")
	}
	return filepath.Join(dir, "tailgate", "demo-baseline.json")
}

func writeResultIfAsked(path string, f *result.File) error {
	if path == "" {
		return nil
	}
	if err := result.WriteFile(path, f); err != nil {
		return withCode(ExitRuntime, err)
	}
	return nil
}
