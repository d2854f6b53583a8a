package cli

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/plural"
)

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
	o := pipeline.RecordOptions{Config: cfg, Head: head, Path: path, Provenance: prov.fromGit(ctx, e, baseline.ExecGit{}), History: *historyFlag, Runner: *runnerFlag}
	return record(ctx, e, cfg, o, bf.quiet)
}

func record(ctx context.Context, e env, cfg *config.Config, o pipeline.RecordOptions, quiet bool) error {
	o.Runner = cmp.Or(o.Runner, runnerImage(e.getenv))
	rec, err := pipeline.Record(ctx, e.pipelineEnv(cfg, quiet), o)
	if err != nil {
		return err
	}
	bl := rec.Baseline
	fmt.Fprintf(e.stdout, "recorded %d %s in %s (%d %s from %d %s, window %d)\n", len(rec.Head.Runs), plural.Of(len(rec.Head.Runs), "run", "runs"), o.Path,
		len(bl.Samples), plural.Of(len(bl.Samples), "sample", "samples"), bl.Jobs(), plural.Of(bl.Jobs(), "job", "jobs"), bl.Window)
	n := len(rec.History.Jobs)
	fmt.Fprintf(e.stdout, "appended the job to the history %s (%d %s)\n", rec.HistoryPath, n, plural.Of(n, "job", "jobs"))
	return nil
}

// runnerImage names a GitHub-hosted runner's image ("ubuntu24/20251110.1",
// from ImageOS and ImageVersion); "" elsewhere.
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
	fs.StringVar(&p.commit, "commit", "", "commit the runs measured (default $GITHUB_SHA, else the git checkout's HEAD)")
	fs.StringVar(&p.ref, "ref", "", "ref the runs measured (default $GITHUB_REF, else the git checkout's branch)")
	fs.StringVar(&p.job, "job", "", "id of the job that produced the runs (default $GITHUB_RUN_ID-$GITHUB_RUN_ATTEMPT, else local-<time>)")
}

// provenance is what the flags say, else the runner's environment.
func (p provenanceFlags) provenance(getenv func(string) string) baseline.Provenance {
	pr := baseline.Provenance{Commit: cmp.Or(p.commit, getenv("GITHUB_SHA")), Ref: cmp.Or(p.ref, getenv("GITHUB_REF")), Job: p.job}
	if id := getenv("GITHUB_RUN_ID"); pr.Job == "" && id != "" {
		pr.Job = id + "-" + getenv("GITHUB_RUN_ATTEMPT")
	}
	return pr
}

// fromGit is provenance with the commit and ref left empty filled from the git checkout; it says what it took
// (uncommitted changes included), or why nothing.
func (p provenanceFlags) fromGit(ctx context.Context, e env, git baseline.Git) baseline.Provenance {
	pr := p.provenance(e.getenv)
	if pr.Commit != "" && pr.Ref != "" {
		return pr
	}
	var took []string
	if pr.Commit == "" {
		sha, err := baseline.ResolveCommit(ctx, ".", "HEAD", git)
		if err != nil {
			fmt.Fprintln(e.stdout, "no commit recorded: the working directory is not a git checkout (--commit and --ref name them)")
			return pr
		}
		pr.Commit = sha
		took = append(took, "commit "+sha)
		if out, err := git.Run(ctx, ".", "status", "--porcelain", "--untracked-files=no"); err == nil && len(bytes.TrimSpace(out)) > 0 {
			took = append(took, "with uncommitted changes in the working tree")
		}
	}
	if pr.Ref == "" {
		if out, err := git.Run(ctx, ".", "symbolic-ref", "--quiet", "HEAD"); err == nil {
			pr.Ref = strings.TrimSpace(string(out))
			took = append(took, "ref "+pr.Ref)
		} else {
			took = append(took, "no ref (detached HEAD; --ref names it)")
		}
	}
	fmt.Fprintln(e.stdout, "from git: "+strings.Join(took, ", ")+" (--commit and --ref name others)")
	return pr
}

// recordLink appends a finished A/B to main's history: the head commit
// (the flags', the runner's, else git's HEAD) against the base it built.
func recordLink(ctx context.Context, e env, cfg *config.Config, j pipeline.Judged, path string, prov provenanceFlags) error {
	pr := prov.fromGit(ctx, e, baseline.ExecGit{})
	hist, err := pipeline.RecordLink(pipeline.LinkOptions{Config: cfg, Judged: j, Path: path, Provenance: pr, Runner: runnerImage(e.getenv)})
	if err != nil {
		return err
	}
	n := len(hist.Jobs)
	span := n > 0 && strings.HasSuffix(hist.Jobs[n-1].Job, "/ab"+pipeline.SpanJobSuffix)
	against := map[bool]string{false: "its parent", true: "an earlier point of main's chain than its last link (a span: tailgate history reads the creep since it from this one job),"}[span]
	fmt.Fprintf(e.stdout, "appended the A/B of %.12s against %s %.12s to the history %s (%d %s)\n", pr.Commit, against, j.BaseCommit, path, n, plural.Of(n, "line", "lines"))
	return nil
}
