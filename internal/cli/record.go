package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/tailgate-ci/tailgate/internal/baseline"
)

func init() {
	register("baseline", "baseline record: run (or take --result) and append the runs to the baseline", cmdBaseline)
}

func cmdBaseline(ctx context.Context, e env, args []string) error {
	const usage = "Usage: tailgate baseline record -c tailgate.yml | --result result.json (record -h for the flags)"
	if len(args) == 1 && isHelp(args[0]) {
		fmt.Fprintln(e.stdout, usage)
		return errHelpShown
	}
	if len(args) == 0 || args[0] != "record" {
		return usageErr(usage)
	}
	fs := newFlagSet("baseline record", "baseline record -c tailgate.yml | --result result.json [--baseline FILE]", e.stderr)
	var bf benchFlags
	bf.register(fs)
	resultPath := fs.String("result", "", "record this result `file` instead of running the benchmark")
	blFlag := fs.String("baseline", "", "the baseline `file` (default: gate.baseline, else baselines/<name>.json)")
	var prov provenanceFlags
	prov.register(fs)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	cfg, head, err := headRuns(ctx, e, fs, &bf, *resultPath)
	if err != nil {
		return err
	}
	path := baselinePath(*blFlag, cfg, head.Benchmark)
	bl, err := readBaseline(path) // an unreadable file stops here, untouched
	if err != nil {
		return err
	}
	window := 0
	if cfg != nil {
		window = cfg.Gate.Window
	}
	if bl == nil {
		bl = baseline.New(head.Benchmark, head.DefinitionHash, head.Env, window)
	} else if window > 0 {
		bl.Window = window
	}
	if bl.DefinitionHash != head.DefinitionHash && len(bl.Samples) > 0 {
		fmt.Fprintf(e.stderr, "the benchmark definition changed: the %d old samples and the calibration are dropped\n", len(bl.Samples))
	}
	bl.Append(head, prov.provenance(e.getenv, head.Created))
	if err := baseline.Write(path, bl); err != nil {
		return withCode(ExitRuntime, err)
	}
	fmt.Fprintf(e.stdout, "recorded %d runs in %s (%d samples from %d jobs, window %d)\n", len(head.Runs), path, len(bl.Samples), bl.Jobs(), bl.Window)
	return nil
}

// provenanceFlags say which commit, ref and job recorded runs come from;
// in GitHub Actions they default from the runner's environment.
type provenanceFlags struct{ commit, ref, job string }

func (p *provenanceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.commit, "commit", "", "commit the runs measured (default $GITHUB_SHA)")
	fs.StringVar(&p.ref, "ref", "", "ref the runs measured (default $GITHUB_REF)")
	fs.StringVar(&p.job, "job", "", "id of the job that produced the runs (default $GITHUB_RUN_ID-$GITHUB_RUN_ATTEMPT, else local-<time>)")
}

func (p *provenanceFlags) provenance(getenv func(string) string, at time.Time) baseline.Provenance {
	pr := baseline.Provenance{Commit: p.commit, Ref: p.ref, Job: p.job, Time: at}
	if pr.Commit == "" {
		pr.Commit = getenv("GITHUB_SHA")
	}
	if pr.Ref == "" {
		pr.Ref = getenv("GITHUB_REF")
	}
	if pr.Job == "" {
		if id := getenv("GITHUB_RUN_ID"); id != "" {
			pr.Job = id + "-" + getenv("GITHUB_RUN_ATTEMPT")
		} else {
			pr.Job = "local-" + at.UTC().Format("20060102T150405.000")
		}
	}
	return pr
}
