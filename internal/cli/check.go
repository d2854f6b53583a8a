package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
)

func init() {
	register("check", "run the benchmark (or take --result) and judge it against the baseline", cmdCheck)
}

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
	cfg, head, err := headRuns(ctx, e, fs, &bf, *resultPath)
	if err != nil {
		return err
	}
	if err := writeResultIfAsked(*out, head); err != nil {
		return err
	}
	path := baselinePath(*blFlag, cfg, head.Benchmark)
	bl, err := readBaseline(path)
	if err != nil {
		return err
	}
	v := judgeAgainstBaseline(head, bl, policyFor(cfg, bl))
	src := "none yet (" + path + ")"
	if bl != nil {
		src = fmt.Sprintf("%s (%d samples from %d jobs)", path, len(bl.Samples), bl.Jobs())
	}
	if err := present(e, rf, judged{name: head.Benchmark, mode: "check", baselineSource: src, verdict: v, head: head}); err != nil {
		return err
	}
	return verdictExit(v, rf.failOnInconclusive)
}

// headRuns runs the benchmark, or reads --result. With --result the config
// is read only when -c was given, for its gate settings.
func headRuns(ctx context.Context, e env, fs *flag.FlagSet, bf *benchFlags, resultPath string) (*config.Config, *result.File, error) {
	if resultPath == "" {
		cfg, err := bf.load()
		if err != nil {
			return nil, nil, err
		}
		head, err := runBenchmark(ctx, bf.output.apply(e), cfg, bf.quiet)
		if err != nil {
			return nil, nil, err
		}
		writeRunTable(e.stdout, head)
		fmt.Fprintln(e.stdout)
		return cfg, head, nil
	}
	head, err := readResults(resultPath)
	if err != nil {
		return nil, nil, err
	}
	if !flagSet(fs, "c") {
		return nil, head, nil
	}
	cfg, err := bf.load()
	if err != nil {
		return nil, nil, err
	}
	return cfg, head, nil
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
