package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
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
	historyFlag := fs.String("history", "", "the history `file` the job is appended to (default: beside the baseline, <baseline>.history.jsonl)")
	runnerFlag := fs.String("runner", "", "name of the machine image the job ran on, for the history (default $ImageOS/$ImageVersion)")
	var prov provenanceFlags
	prov.register(fs)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	e = bf.output.apply(e)
	cfg, head, err := benchInput(fs, &bf, *resultPath)
	if err != nil {
		return err
	}
	path := baselinePath(*blFlag, cfg, benchmarkName(cfg, head))
	o := pipeline.RecordOptions{Config: cfg, Head: head, Path: path, Provenance: prov.provenance(e.getenv), History: *historyFlag, Runner: *runnerFlag}
	return record(ctx, e, cfg, o, bf.quiet)
}

// record records and says what it stored.
func record(ctx context.Context, e env, cfg *config.Config, o pipeline.RecordOptions, quiet bool) error {
	if o.Runner == "" {
		o.Runner = runnerImage(e.getenv)
	}
	rec, err := pipeline.Record(ctx, e.pipelineEnv(cfg, quiet), o)
	if err != nil {
		return err
	}
	bl := rec.Baseline
	fmt.Fprintf(e.stdout, "recorded %d %s in %s (%d %s from %d %s, window %d)\n", len(rec.Head.Runs), pluralWord(len(rec.Head.Runs), "run", "runs"), o.Path,
		len(bl.Samples), pluralWord(len(bl.Samples), "sample", "samples"), bl.Jobs(), pluralWord(bl.Jobs(), "job", "jobs"), bl.Window)
	fmt.Fprintf(e.stdout, "appended the job to the history %s (%d jobs)\n", rec.HistoryPath, len(rec.History.Jobs))
	return nil
}

// runnerImage names the machine image of a GitHub-hosted runner
// ("ubuntu24/20251110.1"), which the runner sets in ImageOS and
// ImageVersion; "" elsewhere.
func runnerImage(getenv func(string) string) string {
	osName, version := getenv("ImageOS"), getenv("ImageVersion")
	if osName == "" && version == "" {
		return ""
	}
	return osName + "/" + version
}

// provenanceFlags say which commit, ref and job recorded runs come from;
// in GitHub Actions they default from the runner's environment.
type provenanceFlags struct{ commit, ref, job string }

func (p *provenanceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.commit, "commit", "", "commit the runs measured (default $GITHUB_SHA)")
	fs.StringVar(&p.ref, "ref", "", "ref the runs measured (default $GITHUB_REF)")
	fs.StringVar(&p.job, "job", "", "id of the job that produced the runs (default $GITHUB_RUN_ID-$GITHUB_RUN_ATTEMPT, else local-<time>)")
}

// provenance is what the flags say, else what the runner's environment
// does; a job left unnamed gets a local id from the runs' time.
func (p provenanceFlags) provenance(getenv func(string) string) baseline.Provenance {
	pr := baseline.Provenance{Commit: p.commit, Ref: p.ref, Job: p.job}
	if pr.Commit == "" {
		pr.Commit = getenv("GITHUB_SHA")
	}
	if pr.Ref == "" {
		pr.Ref = getenv("GITHUB_REF")
	}
	if id := getenv("GITHUB_RUN_ID"); pr.Job == "" && id != "" {
		pr.Job = id + "-" + getenv("GITHUB_RUN_ATTEMPT")
	}
	return pr
}
