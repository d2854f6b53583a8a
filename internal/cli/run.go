package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() {
	register("run", "run the benchmark and write the result JSON", cmdRun)
}

// benchFlags are the flags of every command that runs a benchmark.
type benchFlags struct {
	config   string
	runs     int
	duration time.Duration
	warmup   optionalDuration
	quiet    bool
	output   targetOutput
}

func (b *benchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&b.config, "c", "tailgate.yml", "the benchmark `file`")
	fs.IntVar(&b.runs, "runs", 0, "number of runs (overrides load.runs)")
	fs.DurationVar(&b.duration, "duration", 0, "measure window of each run (overrides load.duration)")
	fs.Var(&b.warmup, "warmup", "warm-up of each run (overrides load.warmup; 0s for none)")
	fs.BoolVar(&b.quiet, "q", false, "no progress output")
	b.output = targetOutputFile
	fs.Var(&b.output, "target-output", "a started target's output: `file` (a log file in $RUNNER_TEMP or the temp directory; its last lines are shown if it fails) or live (also on stderr)")
}

// load reads the benchmark file and applies the overrides.
func (b *benchFlags) load() (*config.Config, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	cfg, err := config.LoadFile(b.config)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	b.apply(cfg)
	return cfg, nil
}

// check refuses override values no benchmark can have.
func (b *benchFlags) check() error {
	switch {
	case b.runs < 0:
		return usageErr("--runs must be at least 1")
	case b.duration < 0:
		return usageErr("--duration must be positive")
	case b.warmup.set && b.warmup.d < 0:
		return usageErr("--warmup must not be negative")
	}
	return nil
}

func (b *benchFlags) apply(cfg *config.Config) {
	if b.runs > 0 {
		cfg.Load.Runs = b.runs
	}
	if b.duration > 0 {
		cfg.Load.Duration = config.Duration(b.duration)
	}
	if b.warmup.set {
		cfg.Load.Warmup = config.Duration(b.warmup.d)
	}
}

// optionalDuration is a duration flag that knows whether it was given, so
// that 0s can override the config and an absent flag leaves it alone.
type optionalDuration struct {
	d   time.Duration
	set bool
}

func (o *optionalDuration) String() string {
	if o == nil || !o.set {
		return ""
	}
	return o.d.String()
}

func (o *optionalDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	o.d, o.set = d, true
	return nil
}

func cmdRun(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("run", "run -c tailgate.yml [-o result.json]", e.stderr)
	var bf benchFlags
	bf.register(fs)
	out := fs.String("o", "result.json", "write the result JSON to `file`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := bf.load()
	if err != nil {
		return err
	}
	res, err := runBenchmark(ctx, bf.output.apply(e), cfg, bf.quiet)
	if err != nil {
		return err
	}
	if err := result.WriteFile(*out, res); err != nil {
		return withCode(ExitRuntime, err)
	}
	writeRunTable(e.stdout, res)
	fmt.Fprintf(e.stdout, "\nresult written to %s\n", *out)
	return nil
}

// runBenchmark runs cfg with progress on stderr and maps failures to exit
// codes: a broken target or dataset is a runtime failure (3), never a
// result.
func runBenchmark(ctx context.Context, e env, cfg *config.Config, quiet bool) (*result.File, error) {
	res, err := newRunner(e, cfg, quiet).Run(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, withCode(ExitRuntime, errors.New("interrupted: no result was written"))
		}
		return nil, withCode(ExitRuntime, err)
	}
	return res, nil
}
