package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gh"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/publish"
)

func init() {
	register("action", "run as the GitHub Action step (inputs from INPUT_* variables)", cmdAction)
}

// forkNote says once, in the report and as a warning, why a fork PR gets
// no comment.
const forkNote = "this pull request comes from a fork, whose token cannot comment: the report is in the job summary (docs/github-action.md shows the workflow_run pattern that comments on fork PRs)"

// actionRun is one step of the Action: its inputs, the job's context and
// the runtime that speaks to the runner.
type actionRun struct {
	e   env
	in  ci.Inputs
	job ci.Context
	rt  *ci.Runtime
	cfg *config.Config
}

func cmdAction(ctx context.Context, e env, args []string) error {
	const usage = "Usage: tailgate action (no arguments: it reads the INPUT_* variables that action.yml sets; see docs/github-action.md)"
	if len(args) == 1 && isHelp(args[0]) {
		fmt.Fprintln(e.stdout, usage)
		return errHelpShown
	}
	if len(args) > 0 {
		return usageErr(usage)
	}
	in, err := ci.ReadInputs(e.getenv)
	if err != nil {
		return pipeline.Usage.Wrap(err)
	}
	rt := ci.NewRuntime(e.stdout, e.getenv)
	job, err := ci.Detect(e.getenv)
	if err != nil {
		return pipeline.Runtime.Wrap(err)
	}
	if job.IsActions { // outside a runner, ::add-mask:: would print the token
		rt.AddMask(in.GitHubToken)
	}
	cfg, err := config.LoadFile(in.Config)
	if err != nil {
		return pipeline.Usage.Wrap(err)
	}
	a := &actionRun{e: e, in: in, job: job, rt: rt, cfg: cfg}
	err = a.run(ctx)
	if code := exitCode(err); err != nil && code != ExitRegression {
		publish.Failure(rt, cfg.Name, code, err)
	}
	if werr := rt.Err(); err == nil && werr != nil {
		err = pipeline.Runtime.Wrap(fmt.Errorf("writing to the job log: %w", werr))
	}
	return err
}

// run does what the mode says, with the same use cases as the commands.
func (a *actionRun) run(ctx context.Context) error {
	env, path := a.e.pipelineEnv(a.cfg, false), a.baselinePath()
	switch a.in.Mode {
	case ci.ModeCheck:
		src, err := a.baselineSource(path)
		if err != nil {
			return err
		}
		j, err := pipeline.Check(ctx, env, pipeline.CheckOptions{Config: a.cfg, Baseline: src})
		if err != nil {
			return err
		}
		return a.publish(ctx, j)
	case ci.ModeRecord:
		return record(ctx, a.e, a.cfg, pipeline.RecordOptions{Config: a.cfg, Path: path, Provenance: provenanceFlags{}.provenance(a.e.getenv)}, false)
	case ci.ModeCalibrate:
		o := pipeline.CalibrateOptions{Config: a.cfg, Path: path, Jobs: 1, Append: true, Provenance: provenanceFlags{}.provenance(a.e.getenv)}
		return calibrate(ctx, a.e, a.cfg, o, false)
	case ci.ModeAB:
		// The baseline file, when there is one, only lends its calibrated
		// noise. On a pull request the base build is the PR's base commit,
		// unless the config names another.
		o := pipeline.ABOptions{Config: a.cfg, Baseline: baseline.FileSource{Path: path}, Git: baseline.ExecGit{}}
		if a.job.IsPullRequest() {
			o.BaseRef = a.job.BaseSHA
		}
		j, err := pipeline.AB(ctx, env, o)
		if err != nil {
			return err
		}
		return a.publish(ctx, j)
	}
	return usageErr("unknown mode %q", a.in.Mode)
}

func (a *actionRun) baselinePath() string { return baselinePath(a.in.Baseline, a.cfg, a.cfg.Name) }

// baselineSource is where the inputs say the baseline is read from: on a
// pull request, by default the PR's base commit, so that a PR cannot edit
// the baseline it is judged against.
func (a *actionRun) baselineSource(path string) (baseline.Source, error) {
	from := a.in.BaselineFrom
	switch branch, isBranch := from.Branch(); {
	case isBranch:
		return baseline.BranchSource{Dir: ".", Branch: branch, Path: path, Git: baseline.ExecGit{}}, nil
	case from == ci.BaselineBase || (from == ci.BaselineAuto && a.job.IsPullRequest()):
		if a.job.BaseSHA == "" {
			return nil, usageErr("baseline_from %s needs a pull request event with a base commit", from)
		}
		return baseline.BaseCommitSource{Dir: ".", Commit: a.job.BaseSHA, Path: path, Git: baseline.ExecGit{}}, nil
	}
	return baseline.FileSource{Path: path, Name: path + " in the checkout"}, nil
}

// publish hands the judged comparison to every channel the runner offers:
// report.json beside the runner's temp files, the job summary and
// annotations, the sticky comment, the terminal report and the outputs;
// then the step ends as the fail_* inputs say.
func (a *actionRun) publish(ctx context.Context, j pipeline.Judged) error {
	if a.job.PR > 0 && a.job.ReadOnlyToken && a.in.Comment != ci.CommentNever {
		j.Notes = append(j.Notes, forkNote)
	}
	dir := a.e.getenv("RUNNER_TEMP")
	if dir == "" {
		dir = "."
	}
	reportPath := filepath.Join(dir, "tailgate-"+j.Name+"-report.json")
	pubs := []publish.Publisher{publish.Files{JSON: reportPath}, publish.JobSummary{Runtime: a.rt}}
	comment := a.stickyComment()
	if comment != nil {
		pubs = append(pubs, comment)
	}
	pubs = append(pubs, publish.Terminal{W: a.e.stdout}, publish.Outputs{Runtime: a.rt, ReportPath: reportPath, Comment: comment})
	fail := pipeline.FailOn{Regression: a.in.FailOnRegression, Inconclusive: a.in.FailOnInconclusive, InconclusiveSetting: "fail_on_inconclusive"}
	return conclude(ctx, j, fail, pubs...)
}

// stickyComment is the comment publisher the inputs ask for, or nil. A
// comment that cannot be posted is one warning and never changes the exit
// code.
func (a *actionRun) stickyComment() *publish.StickyComment {
	if a.job.PR == 0 || a.in.Comment == ci.CommentNever {
		return nil
	}
	c := &publish.StickyComment{Owner: a.job.Owner, Repo: a.job.Repo, PR: a.job.PR,
		OnlyRegressions: a.in.Comment == ci.CommentOnRegression, Warn: a.rt}
	if a.job.ReadOnlyToken {
		c.Skip = forkNote
		return c
	}
	client, err := gh.New(a.in.GitHubToken, a.job.APIURL)
	if err != nil {
		c.Skip = err.Error()
		return c
	}
	c.Commenter = client
	return c
}
