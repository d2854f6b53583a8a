package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/runner"
)

func init() {
	register("run", "run the benchmark and write the result JSON", cmdRun)
}

// benchFlags are the flags of every command that runs a benchmark.
type benchFlags struct {
	config   string
	runs     int
	duration time.Duration
	warmup   time.Duration
	quiet    bool
}

func (b *benchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&b.config, "c", "tailgate.yml", "the benchmark `file`")
	fs.IntVar(&b.runs, "runs", 0, "number of runs (overrides load.runs)")
	fs.DurationVar(&b.duration, "duration", 0, "measure window of each run (overrides load.duration)")
	fs.DurationVar(&b.warmup, "warmup", -1, "warm-up of each run (overrides load.warmup)")
	fs.BoolVar(&b.quiet, "q", false, "no progress output")
}

// load reads the benchmark file and applies the overrides.
func (b *benchFlags) load() (*config.Config, error) {
	cfg, err := config.LoadFile(b.config)
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	b.apply(cfg)
	return cfg, nil
}

func (b *benchFlags) apply(cfg *config.Config) {
	if b.runs > 0 {
		cfg.Load.Runs = b.runs
	}
	if b.duration > 0 {
		cfg.Load.Duration = config.Duration(b.duration)
	}
	if b.warmup >= 0 {
		cfg.Load.Warmup = config.Duration(b.warmup)
	}
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
	res, err := runBenchmark(ctx, e, cfg, bf.quiet)
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
	r := &runner.Runner{
		Config:   cfg,
		Env:      runner.DetectEnv(Version),
		Observer: newProgress(e, cfg, quiet),
		Log:      e.stderr,
	}
	res, err := r.Run(ctx)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, withCode(ExitRuntime, errors.New("interrupted: no result was written"))
		}
		return nil, withCode(ExitRuntime, err)
	}
	return res, nil
}
