package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
)

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
	fs.Var((*countFlag)(&b.runs), "runs", "number of runs, `N` ≥ 1 (overrides load.runs)")
	fs.Var((*positiveDuration)(&b.duration), "duration", "measure window of each run (of each phase with load.phases), a `duration` > 0 (overrides load.duration)")
	fs.Var(&b.warmup, "warmup", "warm-up of each run, a `duration` ≥ 0 (of each phase with load.phases; overrides load.warmup; 0s for none; ab warms up at least this long, longer in its first block while the sides still get faster)")
	fs.BoolVar(&b.quiet, "q", false, "no progress output")
	b.output = targetOutputFile
	fs.Var(&b.output, "target-output", "a started target's output: `file` (a log file in $RUNNER_TEMP or the temp directory; its last lines are shown if it fails) or live (also on stderr)")
}

func (b *benchFlags) load() (*config.Config, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	cfg, err := config.LoadFile(b.config)
	if err != nil {
		return nil, pipeline.Usage.Wrap(err)
	}
	b.apply(cfg)
	return cfg, nil
}

// check refuses a negative --warmup (--runs and --duration refuse theirs as they are parsed).
func (b *benchFlags) check() error {
	if b.warmup.set && b.warmup.d < 0 {
		return usageErr("--warmup must not be negative")
	}
	return nil
}

func (b *benchFlags) apply(cfg *config.Config) {
	if b.runs > 0 {
		cfg.Load.Runs = b.runs
	}
	if b.duration > 0 {
		cfg.Load.SetDuration(config.Duration(b.duration))
	}
	if b.warmup.set {
		cfg.Load.SetWarmup(config.Duration(b.warmup.d))
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
	fs := newFlagSet("run", "run -c tailgate.yml [-o result.json] [--shard I/N --start-at TIME]", e.stderr)
	var bf benchFlags
	bf.register(fs)
	var sf shardFlags
	sf.register(fs)
	out := fs.String("o", "result.json", "write the result JSON to `file`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	e = bf.output.apply(e)
	sharding, err := sf.sharding()
	if err != nil {
		return err
	}
	cfg, err := bf.load()
	if err != nil {
		return err
	}
	if _, err := pipeline.Run(ctx, e.pipelineEnv(cfg, bf.quiet), pipeline.RunOptions{Config: cfg, ResultPath: *out, Sharding: sharding}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "result written to %s\n", *out)
	return nil
}
