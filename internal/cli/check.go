package cli

import (
	"context"
	"flag"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func cmdCheck(ctx context.Context, e env, args []string) error {
	fs := newFlagSet("check", "check -c tailgate.yml | --result result.json [--baseline FILE] [--report report.json]", e.stderr)
	var bf benchFlags
	bf.register(fs)
	resultPath := fs.String("result", "", "judge this result `file` instead of running the benchmark")
	blFlag := fs.String("baseline", "", "the baseline `file` (default: gate.baseline, else baselines/<name>.json)")
	out := fs.String("o", "", "also write the result JSON of the runs to `file`")
	var rf reportFlags
	rf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	e = bf.output.apply(e)
	cfg, head, err := benchInput(fs, &bf, *resultPath)
	if err != nil {
		return err
	}
	src := baseline.FileSource{Path: baselinePath(*blFlag, cfg, benchmarkName(cfg, head))}
	j, err := pipeline.Check(ctx, e.pipelineEnv(cfg, bf.quiet), pipeline.CheckOptions{Config: cfg, Head: head, ResultPath: *out, Baseline: src, Tags: workdirTags})
	if err != nil {
		return err
	}
	return conclude(ctx, j, rf.failOn(false), rf.publishers(e)...)
}

// workdirTags are the release tags of the repository tailgate runs in, which gate.creep compares with.
var workdirTags = baseline.GitTags{Dir: ".", Git: baseline.ExecGit{}}

// benchInput is the config and, with --result, that file's runs (the
// config then read only when -c was given, for its gate settings).
func benchInput(fs *flag.FlagSet, bf *benchFlags, resultPath string) (*config.Config, *result.File, error) {
	if resultPath == "" {
		cfg, err := bf.load()
		return cfg, nil, err
	}
	head, err := readResults(resultPath)
	if err != nil {
		return nil, nil, err
	}
	if !flagSet(fs, "c") {
		return nil, head, nil
	}
	cfg, err := bf.load()
	return cfg, head, err
}

func benchmarkName(cfg *config.Config, head *result.File) string {
	if head != nil {
		return head.Benchmark
	}
	return cfg.Name
}

// readResults reads a tailgate result file; a bad file is bad input.
func readResults(path string) (*result.File, error) {
	f, err := result.ReadFile(path)
	return f, pipeline.Usage.Wrap(err)
}

func flagSet(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
