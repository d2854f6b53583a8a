package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
)

func init() {
	register("ab", "measure a base and a head build in one job, pair after pair, until the verdict is clear", cmdAB)
}

// abFlags are the flags of the A/B job's budget and base.
type abFlags struct {
	baseRef  string
	maxPairs int
	maxTime  time.Duration
}

// register adds the budget flags, and --base-ref when withBase is set.
func (f *abFlags) register(fs *flag.FlagSet, withBase bool) {
	if withBase {
		fs.StringVar(&f.baseRef, "base-ref", "", "build the base from this git `ref` (e.g. origin/main) when the config names no base")
	}
	fs.IntVar(&f.maxPairs, "max-pairs", 0, "the budget of pairs (overrides ab.max_pairs)")
	fs.DurationVar(&f.maxTime, "max-time", 0, "the budget of time for the pairs, e.g. 5m (overrides ab.max_time)")
}

// apply puts the budget flags into the config's ab section.
func (f abFlags) apply(cfg *config.Config) error {
	if f.maxPairs < 0 || f.maxTime < 0 {
		return usageErr("--max-pairs and --max-time must not be negative")
	}
	if f.maxPairs == 0 && f.maxTime == 0 {
		return nil
	}
	if cfg.AB == nil {
		cfg.AB = config.DefaultAB()
	}
	if f.maxPairs > 0 {
		if f.maxPairs < cfg.AB.MinPairs {
			return usageErr("--max-pairs %d is below ab.min_pairs (%d)", f.maxPairs, cfg.AB.MinPairs)
		}
		cfg.AB.MaxPairs = f.maxPairs
	}
	if f.maxTime > 0 {
		cfg.AB.MaxTime = config.Duration(f.maxTime)
	}
	return nil
}

func cmdAB(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("ab", "ab -c tailgate.yml [--base-ref origin/main] [--max-pairs N] [--aa] [--record-base] [-o head.json] [--report report.json]", e.stderr)
	var bf benchFlags
	bf.register(fs)
	// --runs stays parsed so that it is refused with advice, not as unknown.
	fs.Lookup("runs").Usage = "not for ab, which adds pairs until the verdict is clear: set the budget with --max-pairs (`N`)"
	var af abFlags
	af.register(fs, true)
	aa := fs.Bool("aa", false, "run the base build on both sides: show the noise this job sees and whether it would raise a false alarm")
	recordBase := fs.Bool("record-base", false, "also append the base side's runs to the stored baseline")
	out := fs.String("o", "", "also write the head side's runs to this result JSON `file` (as tailgate run -o does)")
	blFlag := fs.String("baseline", "", "the baseline `file` --record-base appends to (default: gate.baseline, else baselines/<name>.json); the A/B verdict reads no baseline")
	var prov provenanceFlags
	prov.register(fs)
	var rf reportFlags
	rf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if bf.runs > 0 {
		return usageErr("--runs: tailgate ab adds pairs until the verdict is clear; set its budget with --max-pairs (ab.max_pairs)")
	}
	e = bf.output.apply(e)
	cfg, err := bf.load()
	if err != nil {
		return err
	}
	if err := af.apply(cfg); err != nil {
		return err
	}
	path := baselinePath(*blFlag, cfg, cfg.Name)
	o := pipeline.ABOptions{Config: cfg, AA: *aa, BaseRef: af.baseRef, Git: baseline.ExecGit{}, ResultPath: *out}
	j, err := pipeline.AB(ctx, e.pipelineEnv(cfg, bf.quiet), o)
	if err != nil {
		return err
	}
	if *recordBase {
		rec, err := pipeline.Record(ctx, e.pipelineEnv(cfg, bf.quiet), pipeline.RecordOptions{Config: cfg, Head: j.Base, Path: path, Provenance: prov.provenance(e.getenv)})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "appended %d base runs to %s\n", len(rec.Head.Runs), path)
	}
	return conclude(ctx, j, abFailOn(rf, *aa), rf.publishers(e)...)
}

// abFailOn: an A/A run measures noise; it has nothing to fail.
func abFailOn(rf reportFlags, aa bool) pipeline.FailOn {
	if aa {
		return pipeline.FailOn{}
	}
	return rf.failOn()
}
