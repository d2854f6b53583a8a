package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/result"
)

type abFlags struct {
	baseRef       string
	benchmarkFrom string
	maxBlocks     int
	maxTime       time.Duration
	noise         string
	windows       int
	window        time.Duration
}

func (f *abFlags) register(fs *flag.FlagSet, withBase bool) {
	if withBase {
		fs.StringVar(&f.baseRef, "base-ref", "", "build the base from this git `ref` (e.g. origin/main); it replaces ab.base.ref")
		fs.StringVar(&f.benchmarkFrom, "benchmark-from", string(ci.BenchmarkHead), "`whose` benchmark file runs on both builds: head (the working tree's) or base "+
			"(the file as the base ref has it, with its gate's policy: what the Action does on a pull request, for CI systems where the change under test is untrusted)")
	}
	fs.IntVar(&f.maxBlocks, "max-blocks", 0, "the budget of blocks (where blocks cannot run, each block is a pair of whole runs; overrides ab.max_blocks)")
	fs.DurationVar(&f.maxTime, "max-time", 0, "the budget of time for the blocks, e.g. 5m (overrides ab.max_time)")
	fs.IntVar(&f.windows, "windows", 0, "windows of each side per phase in a block (overrides ab.windows; default: as many as fill load.duration, up to twice that where they would hold under 8 lifecycles of a virtual user)")
	fs.DurationVar(&f.window, "window", 0, "the measured length of each window of a block, e.g. 2s (overrides ab.window; default: 500ms, or longer where the first block's warm-up finds slow lifecycles)")
	fs.StringVar(&f.noise, "noise", "", "a noise `file`: the spread of earlier A/B jobs' units, pooled where it agrees with this job's and counted only as far as those jobs agree with each other; this job's is added (overrides ab.noise)")
}

// apply puts the budget flags into the config's ab section (not --noise,
// a cache beside the job whichever benchmark runs).
func (f abFlags) apply(cfg *config.Config) error {
	if f.maxBlocks < 0 || f.maxTime < 0 || f.windows < 0 || f.window < 0 {
		return usageErr("--max-blocks, --max-time, --windows and --window must not be negative")
	}
	if f.windows > config.MaxWindows {
		return usageErr("--windows %d: at most %d windows of each side per phase in a block", f.windows, config.MaxWindows)
	}
	if f.maxBlocks == 0 && f.maxTime == 0 && f.windows == 0 && f.window == 0 {
		return nil
	}
	cfg.AB = cmp.Or(cfg.AB, config.DefaultAB())
	if f.maxBlocks > 0 && f.maxBlocks < cfg.AB.MinBlocks {
		return usageErr("--max-blocks %d is below ab.min_blocks (%d)", f.maxBlocks, cfg.AB.MinBlocks)
	}
	cfg.AB.Windows, cfg.AB.MaxBlocks = cmp.Or(f.windows, cfg.AB.Windows), cmp.Or(f.maxBlocks, cfg.AB.MaxBlocks)
	cfg.AB.Window, cfg.AB.MaxTime = cmp.Or(config.Duration(f.window), cfg.AB.Window), cmp.Or(config.Duration(f.maxTime), cfg.AB.MaxTime)
	return nil
}

func cmdAB(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("ab", "ab -c tailgate.yml [--base-ref origin/main] [--max-blocks N] [--aa] [--record-base] [-o head.json] [--report report.json]", e.stderr)
	var bf benchFlags
	bf.register(fs)
	// --runs stays parsed so that it is refused with advice, not as unknown.
	fs.Lookup("runs").Usage = "not for ab, which adds blocks (or pairs) until the verdict is clear: set the budget with --max-blocks (`N`)"
	var af abFlags
	af.register(fs, true)
	aa := fs.Bool("aa", false, "run the base build on both sides: show the noise this job sees and whether it would raise a false alarm")
	recordBase := fs.Bool("record-base", false, "also append the base side's runs to the stored baseline: the job then measures pairs of whole runs, as a baseline holds whole runs of one side alone")
	out := fs.String("o", "", "also write the head side's runs to this result JSON `file` (as tailgate run -o does)")
	blFlag := fs.String("baseline", "", "the baseline `file` --record-base appends to (default: gate.baseline, else baselines/<name>.json); the A/B verdict reads no baseline")
	historyFlag := fs.String("history", "", "append the verdict to main's history `file`: a link of its chain when the base (--base-ref) is the head commit's parent, a span (the creep since it, measured in one job) when it is an earlier commit of the chain such as a tag")
	var prov provenanceFlags
	prov.register(fs)
	var rf reportFlags
	rf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if bf.runs > 0 {
		return usageErr("--runs: tailgate ab adds blocks (or pairs) until the verdict is clear; set its budget with --max-blocks (ab.max_blocks)")
	}
	e = bf.output.apply(e)
	cfg, err := bf.load()
	if err != nil {
		return err
	}
	if err := af.apply(cfg); err != nil {
		return err
	}
	o := pipeline.ABOptions{Config: cfg, AA: *aa, BaseRef: af.baseRef, BaseFrom: "--base-ref " + af.baseRef, Git: baseline.ExecGit{}, ResultPath: *out, NoisePath: af.noise, NoiseDefault: DefaultNoisePath(e.getenv)}
	if *recordBase { // a block's short windows, each side started for the block, are no baseline samples
		o.WholeRuns = result.Apart{Why: result.RecordBase}
	}
	if err := af.fromBase(ctx, e, &o); err != nil {
		return err
	}
	j, err := pipeline.AB(ctx, e.pipelineEnv(cfg, bf.quiet), o)
	if err != nil {
		return err
	}
	if *recordBase {
		if err := recordABBase(ctx, e.pipelineEnv(cfg, bf.quiet), e, cfg, j, baselinePath(*blFlag, cfg, cfg.Name), prov); err != nil {
			return err
		}
	}
	if *historyFlag != "" {
		if err := recordLink(ctx, e, cfg, j, *historyFlag, prov); err != nil {
			return err
		}
	}
	return conclude(ctx, j, rf.failOn(*aa), rf.publishers(e)...)
}

func recordABBase(ctx context.Context, penv pipeline.Env, e env, cfg *config.Config, j pipeline.Judged, path string, prov provenanceFlags) error {
	rec, err := pipeline.Record(ctx, penv, pipeline.RecordOptions{Config: cfg, Head: j.Base, Path: path, Provenance: prov.provenance(e.getenv)})
	if err == nil {
		fmt.Fprintf(e.stdout, "appended %d base runs to %s\n", len(rec.Head.Runs), path)
	}
	return err
}

// fromBase, with --benchmark-from base, makes o run the benchmark file as
// the base ref has it on both builds, judged by its policy (TrustBase).
func (f abFlags) fromBase(ctx context.Context, e env, o *pipeline.ABOptions) error {
	switch ci.BenchmarkFrom(f.benchmarkFrom) {
	case ci.BenchmarkHead:
		return nil
	case ci.BenchmarkBase:
	default:
		return usageErr("--benchmark-from %q: want head or base", f.benchmarkFrom)
	}
	pol, err := pipeline.TrustBase(ctx, o.Config, f.baseRef, "", true, baseline.ExecGit{})
	if err != nil {
		return err
	}
	o.Policy, o.BaseRef = pol, pol.Commit
	if f.baseRef == "" {
		o.BaseFrom = "" // the file's own ab.base.ref, pinned to its commit: nothing replaced it
	}
	if w := pol.Warning; w != "" {
		fmt.Fprintf(e.stderr, "warning: %s\n", w)
	}
	return nil
}
