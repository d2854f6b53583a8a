package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/atomicfile"
	"github.com/tailgate-ci/tailgate/internal/baseline"
	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/gh"
	"github.com/tailgate-ci/tailgate/internal/report"
)

func init() {
	register("action", "run as the GitHub Action step (inputs from INPUT_* variables)", cmdAction)
}

// forkNote says once, in the report and as a warning, why a fork PR gets
// no comment.
const forkNote = "this pull request comes from a fork, whose token cannot comment: the report is in the job summary (docs/github-action.md shows the workflow_run pattern that comments on fork PRs)"

// maxAnnotations bounds the ::error lines: the summary has the rest.
const maxAnnotations = 10

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
		return withCode(ExitUsage, err)
	}
	rt := ci.NewRuntime(e.stdout, e.getenv)
	job, err := ci.Detect(e.getenv)
	if err != nil {
		return withCode(ExitRuntime, err)
	}
	if job.IsActions { // outside a runner, ::add-mask:: would print the token
		rt.AddMask(in.GitHubToken)
	}
	cfg, err := config.LoadFile(in.Config)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	a := &actionRun{e: e, in: in, job: job, rt: rt, cfg: cfg}
	switch in.Mode {
	case ci.ModeCheck:
		err = a.check(ctx)
	case ci.ModeRecord:
		err = cmdBaseline(ctx, e, []string{"record", "-c", in.Config, "--baseline", a.baselinePath()})
	case ci.ModeCalibrate:
		err = cmdCalibrate(ctx, e, []string{"-c", in.Config, "--append", "--baseline", a.baselinePath()})
	case ci.ModeAB:
		err = a.ab(ctx)
	default:
		err = usageErr("unknown mode %q", in.Mode)
	}
	if err != nil && exitCode(err) != ExitRegression {
		a.reportFailure(err)
	}
	if werr := rt.Err(); err == nil && werr != nil {
		err = withCode(ExitRuntime, fmt.Errorf("writing to the job log: %w", werr))
	}
	return err
}

// reportFailure tells the job that tailgate could not judge: one error
// annotation, a job summary that says why, and verdict=error, so that a
// broken environment is never mistaken for a pass or a regression.
func (a *actionRun) reportFailure(err error) {
	a.rt.Errorf("tailgate could not judge", "%v", err)
	md := fmt.Sprintf("%s\n### ⚠️ tailgate · %s: no verdict\n\ntailgate stopped before it could judge (exit code %d):\n\n```\n%v\n```\n", report.Marker(a.cfg.Name), a.cfg.Name, exitCode(err), err)
	if _, serr := a.rt.AddStepSummary(md); serr != nil && !errors.Is(serr, ci.ErrNotInStep) {
		a.rt.Warningf("job summary", "could not write the job summary: %v", serr)
	}
	if oerr := a.rt.WriteOutputs(ci.Outputs{Verdict: "error"}); oerr != nil && !errors.Is(oerr, ci.ErrNotInStep) {
		a.rt.Warningf("outputs", "could not write the outputs: %v", oerr)
	}
}

func (a *actionRun) baselinePath() string { return baselinePath(a.in.Baseline, a.cfg, a.cfg.Name) }

// check runs the benchmark, judges it against the trusted baseline and
// reports through every channel the runner offers.
func (a *actionRun) check(ctx context.Context) error {
	bl, src, err := a.trustedBaseline(ctx)
	if err != nil {
		return err
	}
	head, err := runBenchmark(ctx, a.e, a.cfg, false)
	if err != nil {
		return err
	}
	v := judgeAgainstBaseline(head, bl, policyFor(a.cfg, bl))
	return a.report(ctx, judged{name: a.cfg.Name, mode: "check", baselineSource: src, verdict: v, head: head})
}

// ab measures the base and head targets of the config's ab: section in this
// job and reports like check. The baseline file, when there is one, only
// lends its calibrated noise.
func (a *actionRun) ab(ctx context.Context) error {
	if a.cfg.AB == nil {
		return usageErr("mode ab needs an ab: section in %s naming the base and head targets (see docs/config.md)", a.in.Config)
	}
	j, err := measureAB(ctx, a.e, a.cfg, abFlags{baseline: a.baselinePath()}, false)
	if err != nil {
		return err
	}
	return a.report(ctx, j)
}

// report writes the JSON report, the job summary, annotations, the sticky
// comment, the terminal report and the outputs, then exits as the inputs
// say.
func (a *actionRun) report(ctx context.Context, j judged) error {
	v := j.verdict
	if a.job.PR > 0 && a.job.ReadOnlyToken && a.in.Comment != ci.CommentNever {
		j.notes = append(j.notes, forkNote)
	}
	out := ci.Outputs{Verdict: string(v.Outcome), Regressions: len(v.Regressions)}
	var err error
	out.ReportPath, err = a.writeJSONReport(j)
	if err != nil {
		return err
	}
	out.CommentURL = a.publish(ctx, j)
	if err := report.WriteText(a.e.stdout, j.input()); err != nil {
		return withCode(ExitRuntime, err)
	}
	if err := a.rt.WriteOutputs(out); err != nil && !errors.Is(err, ci.ErrNotInStep) {
		return withCode(ExitRuntime, err)
	}
	return a.exit(v)
}

// trustedBaseline reads the baseline from where the inputs say: on a pull
// request, by default from the PR's base commit, so that a PR cannot edit
// the baseline it is judged against.
func (a *actionRun) trustedBaseline(ctx context.Context) (*baseline.File, string, error) {
	path := a.baselinePath()
	from := a.in.BaselineFrom
	var data []byte
	var src string
	var err error
	switch branch, isBranch := from.Branch(); {
	case isBranch:
		src = fmt.Sprintf("%s on branch %s", path, branch)
		data, err = ci.BaselineFromBranch(ctx, ".", branch, path, ci.ExecGit{})
	case from == ci.BaselineBase || (from == ci.BaselineAuto && a.job.IsPullRequest()):
		if a.job.BaseSHA == "" {
			return nil, "", usageErr("baseline_from %s needs a pull request event with a base commit", from)
		}
		src = fmt.Sprintf("%s at the PR's base commit %.12s", path, a.job.BaseSHA)
		data, err = ci.BaselineFromBase(ctx, ".", a.job.BaseSHA, path, ci.ExecGit{})
	default:
		bl, err := readBaseline(path)
		return bl, path + " in the checkout", err
	}
	if errors.Is(err, ci.ErrBaselineNotAtCommit) {
		return nil, src + ": none yet", nil
	}
	if err != nil {
		return nil, "", withCode(ExitRuntime, fmt.Errorf("reading the baseline: %w", err))
	}
	bl, err := baseline.Decode(src, data)
	if err != nil {
		return nil, "", withCode(ExitRuntime, err)
	}
	return bl, src, nil
}

// writeJSONReport writes report.json beside the runner's temp files (or in
// the working directory outside a runner) and returns its path.
func (a *actionRun) writeJSONReport(j judged) (string, error) {
	dir := a.e.getenv("RUNNER_TEMP")
	if dir == "" {
		dir = "."
	}
	path := filepath.Join(dir, "tailgate-"+j.name+"-report.json")
	in := j.input()
	if err := atomicfile.Write(path, func(w io.Writer) error { return report.WriteJSON(w, in) }); err != nil {
		return "", withCode(ExitRuntime, err)
	}
	return path, nil
}

// publish writes the job summary, the annotations and the sticky comment.
// None of them can change the exit code: a failure is one warning.
func (a *actionRun) publish(ctx context.Context, j judged) (commentURL string) {
	v := j.verdict
	for i, key := range v.Regressions {
		if i == maxAnnotations {
			break
		}
		a.rt.Errorf("performance regression", "%s: %s regressed beyond the noise floor (see the job summary)", j.name, key)
	}
	for _, w := range v.Warnings {
		a.rt.Warningf("tailgate", "%s", w)
	}
	md := report.Markdown(j.input())
	if _, err := a.rt.AddStepSummary(md); err != nil && !errors.Is(err, ci.ErrNotInStep) {
		a.rt.Warningf("job summary", "could not write the job summary: %v", err)
	}
	return a.comment(ctx, j, md)
}

// comment upserts the sticky PR comment when the inputs ask for it.
func (a *actionRun) comment(ctx context.Context, j judged, md string) string {
	if a.job.PR == 0 || a.in.Comment == ci.CommentNever {
		return ""
	}
	if a.job.ReadOnlyToken {
		a.rt.Warningf("PR comment skipped", "%s", forkNote)
		return ""
	}
	client, err := gh.New(a.in.GitHubToken, a.job.APIURL)
	if err != nil {
		a.rt.Warningf("PR comment skipped", "%v", err)
		return ""
	}
	marker := report.Marker(j.name)
	var c gh.Comment
	if a.in.Comment == ci.CommentOnRegression && j.verdict.Outcome != gate.Regression {
		c, _, err = client.UpdateExisting(ctx, a.job.Owner, a.job.Repo, a.job.PR, marker, md)
	} else {
		c, err = client.Upsert(ctx, a.job.Owner, a.job.Repo, a.job.PR, marker, md)
	}
	switch {
	case gh.IsPermission(err):
		a.rt.Warningf("PR comment skipped", "the token may not comment on this pull request (grant `permissions: pull-requests: write`, or use the workflow_run pattern for fork PRs): %v", err)
		return ""
	case err != nil:
		a.rt.Warningf("PR comment failed", "%v", err)
		return ""
	}
	return c.URL
}

// exit maps the verdict to the step's exit code under the fail_* inputs.
func (a *actionRun) exit(v gate.Verdict) error {
	switch {
	case v.Outcome == gate.Regression && a.in.FailOnRegression:
		return &exitError{ExitRegression, fmt.Errorf("regression in %s", strings.Join(v.Regressions, ", "))}
	case v.Outcome == gate.Inconclusive && a.in.FailOnInconclusive:
		return &exitError{ExitRegression, errors.New("inconclusive, and fail_on_inconclusive is set")}
	}
	return nil
}
