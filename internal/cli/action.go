package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gh"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/printable"
	"github.com/tailgate-ci/tailgate/internal/publish"
)

// forkNote says once, in the report and as a warning, why a fork PR gets no comment.
const forkNote = "this pull request comes from a fork, whose token cannot comment: the report is in the job summary (docs/github-action.md shows the workflow_run pattern that comments on fork PRs)"

type actionRun struct {
	e   env
	in  ci.Inputs
	job ci.Context
	rt  *ci.Runtime
	cfg *config.Config
}

func cmdAction(ctx context.Context, e env, args []string) error {
	if len(args) == 1 && isHelp(args[0]) {
		fmt.Fprintln(e.stdout, actionUsage)
		return errHelpShown
	}
	a, err := newActionRun(e, args)
	if err == nil {
		err = a.run(ctx)
	}
	return a.end(err)
}

const actionUsage = "Usage: tailgate action (no arguments: it reads the INPUT_* variables that action.yml sets; see docs/github-action.md)"

// newActionRun reads the inputs, the job's context and the benchmark
// file, the token masked before anything could print it.
func newActionRun(e env, args []string) (*actionRun, error) {
	a := &actionRun{e: e, rt: ci.NewRuntime(e.stdout, e.getenv)}
	sealErr := a.rt.Seal() // what a child writes to the runner's command files later is undone (end)
	in, inErr := ci.ReadInputs(e.getenv)
	a.in = in
	if e.mask != nil { // in a runner: the step's one Runtime masks the token and the {{env}} values
		a.e.mask = a.rt.AddMask
		a.rt.AddMask(in.GitHubToken)
	}
	if len(args) > 0 {
		return a, usageErr(actionUsage)
	}
	if sealErr != nil {
		return a, pipeline.Runtime.Wrap(sealErr)
	}
	if inErr != nil {
		return a, pipeline.Usage.Wrap(inErr)
	}
	var err error
	if a.job, err = ci.Detect(e.getenv); err != nil {
		return a, pipeline.Runtime.Wrap(err)
	}
	a.cfg, err = config.LoadFile(in.Config) // nil with an error
	return a, pipeline.Usage.Wrap(err)
}

// end leaves a trace (annotation, job summary, verdict=error) of every failure but a regression, whose report is
// published. A child that wrote the runner's command files fails even a pass (its figures are not to be trusted); a
// regression stays exit 1, the tampering annotated.
func (a *actionRun) end(err error) error {
	if terr := a.rt.Tampered(); terr != nil {
		if exitCode(err) == ExitRegression {
			a.rt.Errorf("runner files changed", "%v", terr)
		} else {
			err = pipeline.Runtime.Wrap(errors.Join(terr, err))
		}
	}
	if code := exitCode(err); err != nil && code != ExitRegression {
		publish.Failure(a.rt, a.name(), code, err)
	}
	if werr := a.rt.Err(); err == nil && werr != nil {
		err = pipeline.Runtime.Wrap(fmt.Errorf("writing to the job log: %w", werr))
	}
	return err
}

func (a *actionRun) name() string {
	if a.cfg != nil {
		return a.cfg.Name
	}
	if base := filepath.Base(a.in.Config); printable.Check(base) == nil && base != "." && len(base) <= 100 {
		return base
	}
	return "tailgate"
}

func (a *actionRun) run(ctx context.Context) error {
	env := a.e.pipelineEnv(a.cfg, false)
	switch a.in.Mode {
	case ci.ModeCheck, ci.ModeAB:
		pol, err := a.policy(ctx)
		if err != nil {
			return err
		}
		var j pipeline.Judged
		if a.in.Mode == ci.ModeCheck {
			j, err = a.check(ctx, env, pol)
		} else { // the sequential verdict judges the pairs alone: no baseline file is read
			j, err = pipeline.AB(ctx, env, a.abOptions(pol))
		}
		if err != nil {
			return err
		}
		return a.publish(ctx, j)
	case ci.ModeRecord:
		o := pipeline.RecordOptions{Config: a.cfg, Path: a.baselinePath(nil), Provenance: provenanceFlags{}.provenance(a.e.getenv)}
		if err := record(ctx, a.e, a.cfg, o, false); err != nil || !a.in.Chain {
			return err
		}
		return a.recordChain(ctx, env)
	case ci.ModeCalibrate:
		o := pipeline.CalibrateOptions{Config: a.cfg, Path: a.baselinePath(nil), Jobs: 1, Append: true, Provenance: provenanceFlags{}.provenance(a.e.getenv)}
		return calibrate(ctx, a.e, a.cfg, o, false)
	}
	return usageErr("unknown mode %q", a.in.Mode)
}

// recordChain appends to the history the pushed commit judged against its parent (the push's previous tip, else
// HEAD~1), a regression recorded, not failed; with creep_since a second A/B measures the creep since that ref in one
// job, which a product of many links under-reads.
func (a *actionRun) recordChain(ctx context.Context, env pipeline.Env) error {
	parent := a.job.Before
	if parent == "" || strings.Trim(parent, "0") == "" {
		parent = "HEAD~1"
	}
	if err := a.recordAgainst(ctx, env, parent, "the pushed commit's parent"); err != nil || a.in.CreepSince == "" {
		return err
	}
	git := baseline.ExecGit{}
	since, err := baseline.ResolveCommit(ctx, ".", a.in.CreepSince, git)
	if err != nil {
		return pipeline.Usage.Wrap(fmt.Errorf("input creep_since: %w", err))
	}
	if p, err := baseline.ResolveCommit(ctx, ".", parent, git); err == nil && p == since {
		fmt.Fprintf(a.e.stdout, "creep_since %q is the pushed commit's parent: the link just appended measured it\n", a.in.CreepSince)
		return nil
	}
	return a.recordAgainst(ctx, env, a.in.CreepSince, "input creep_since")
}

func (a *actionRun) recordAgainst(ctx context.Context, env pipeline.Env, base, from string) error {
	j, err := pipeline.AB(ctx, env, pipeline.ABOptions{Config: a.cfg, BaseRef: base, BaseFrom: from, Git: baseline.ExecGit{}, NoiseDefault: DefaultNoisePath(a.e.getenv)})
	if err != nil {
		return err
	}
	return recordLink(ctx, a.e, a.cfg, j, baseline.HistoryPath(a.baselinePath(nil)), provenanceFlags{})
}

func (a *actionRun) check(ctx context.Context, env pipeline.Env, pol *pipeline.Policy) (pipeline.Judged, error) {
	src, err := a.baselineSource(a.baselinePath(pol))
	if err != nil {
		return pipeline.Judged{}, err
	}
	return pipeline.Check(ctx, env, pipeline.CheckOptions{Config: a.cfg, Baseline: src, Policy: pol, Tags: workdirTags})
}

// abOptions are mode ab's: on a pull request the base build is the PR's
// base commit, built by tailgate in a worktree (it replaces ab.base.ref).
func (a *actionRun) abOptions(pol *pipeline.Policy) pipeline.ABOptions {
	o := pipeline.ABOptions{Config: a.cfg, Policy: pol, Git: baseline.ExecGit{}, NoiseDefault: DefaultNoisePath(a.e.getenv)}
	if a.job.IsPullRequest() {
		o.BaseRef, o.BaseFrom = a.job.BaseSHA, "the pull request's base commit"
	}
	return o
}

// baselinePath is the baseline input, else the trusted policy's (a PR
// cannot point its check at a fresh file), else the benchmark file's.
func (a *actionRun) baselinePath(pol *pipeline.Policy) string {
	if pol != nil && a.in.Baseline == "" {
		return pol.Gate.Baseline
	}
	return baselinePath(a.in.Baseline, a.cfg, a.cfg.Name)
}

// trustsBase reports whether the step reads what it is judged against from the PR's base commit: on a pull request,
// unless baseline_from is workspace (with branch:NAME the policy still comes from the base).
func (a *actionRun) trustsBase() bool {
	from := a.in.BaselineFrom
	_, isBranch := from.Branch()
	return from == ci.BaselineBase || (isBranch || from == ci.BaselineAuto) && a.job.IsPullRequest()
}

// policy is the benchmark file as the PR's base commit has it (with
// benchmark_from: head only its gate), nil when the step trusts no base.
func (a *actionRun) policy(ctx context.Context) (*pipeline.Policy, error) {
	if !a.trustsBase() {
		return nil, nil
	}
	if a.job.BaseSHA == "" {
		return nil, usageErr("baseline_from %s needs a pull request event with a base commit", a.in.BaselineFrom)
	}
	pol, err := pipeline.TrustBase(ctx, a.cfg, a.job.BaseSHA, "the PR's base commit", a.in.BenchmarkFrom != ci.BenchmarkHead, baseline.ExecGit{})
	if err != nil {
		return nil, err
	}
	if a.in.BenchmarkFrom == ci.BenchmarkHead {
		a.rt.Warningf("gate policy", "benchmark_from: head: the benchmark is this pull request's own, so the pull request decides how its own build and the base are built, started and measured")
	}
	if pol.Warning != "" {
		a.rt.Warningf("gate policy", "%s", pol.Warning)
	}
	return pol, nil
}

// baselineSource is where the inputs say the baseline is read from: on a pull request, by default the PR's base commit,
// so that a PR cannot edit the baseline it is judged against.
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

// publish hands the judged comparison to every channel the runner offers; the step ends as the fail_* inputs say.
func (a *actionRun) publish(ctx context.Context, j pipeline.Judged) error {
	if a.job.PR > 0 && a.job.ReadOnlyToken && a.in.Comment != ci.CommentNever {
		j.Notes = append(j.Notes, forkNote)
	}
	j.TrendURL = a.in.TrendURL
	dir := cmp.Or(a.e.getenv("RUNNER_TEMP"), ".")
	reportPath := filepath.Join(dir, "tailgate-"+j.Name+"-report.json")
	htmlPath := filepath.Join(dir, "tailgate-"+j.Name+"-report.html")
	pubs := []publish.Publisher{publish.Files{JSON: reportPath}, publish.HTML{Path: htmlPath}, publish.JobSummary{Runtime: a.rt}}
	comment := a.stickyComment()
	if comment != nil {
		pubs = append(pubs, comment)
	}
	pubs = append(pubs, publish.Terminal{W: a.e.stdout}, publish.Outputs{Runtime: a.rt, ReportPath: reportPath, HTMLPath: htmlPath, Comment: comment})
	fail := pipeline.FailOn{Regression: a.in.FailOnRegression, Inconclusive: a.in.FailOnInconclusive, InconclusiveSetting: "fail_on_inconclusive"}
	return conclude(ctx, j, fail, pubs...)
}

// stickyComment is the comment publisher the inputs ask for, or nil; a
// comment that cannot be posted is a warning, never an exit code.
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
