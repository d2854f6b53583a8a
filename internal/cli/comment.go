package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/bounded"
	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/gh"
	"github.com/tailgate-ci/tailgate/internal/pipeline"
	"github.com/tailgate-ci/tailgate/internal/printable"
	"github.com/tailgate-ci/tailgate/internal/publish"
	"github.com/tailgate-ci/tailgate/internal/report"
)

// maxPRFileBytes bounds the PR number file of an artifact; maxPRNumber is the largest number --pr and --pr-file accept.
const (
	maxPRFileBytes = 32
	maxPRNumber    = 1<<31 - 1
)

var prNumberPattern = regexp.MustCompile(`^[1-9][0-9]{0,9}$`)

type commentFlags struct {
	report string
	prFile string
	pr     int
}

// cmdComment upserts the sticky PR comment of a report.json in a workflow_run job: the report and PR number a fork
// uploaded are untrusted, validated and never executed, the Markdown rendered here.
func cmdComment(ctx context.Context, e env, args []string) error {
	f, err := parseCommentFlags(e, args)
	if err != nil {
		return err
	}
	job, err := ci.Detect(e.getenv)
	if err != nil {
		return pipeline.Runtime.Wrap(err)
	}
	token := cmp.Or(strings.TrimSpace(e.getenv(ci.InputEnv("github_token"))), strings.TrimSpace(e.getenv("GITHUB_TOKEN")))
	rt := ci.NewRuntime(e.stdout, e.getenv)
	if job.IsActions {
		rt.AddMask(token) // outside Actions the mask command would print it
	}
	if token == "" {
		return usageErr("no GitHub token: set GITHUB_TOKEN (or INPUT_GITHUB_TOKEN) to a token with pull-requests: write")
	}
	pr, err := f.prNumber()
	if err != nil {
		return pipeline.Usage.Wrap(err)
	}
	if err := checkTriggerPR(job, pr); err != nil {
		return pipeline.Usage.Wrap(err)
	}
	if job.Owner == "" {
		return usageErr("GITHUB_REPOSITORY is unset: cannot tell which repository to comment on")
	}
	file, err := openRegular(f.report) // never through a link an artifact might carry
	if err != nil {
		return pipeline.Usage.Wrap(fmt.Errorf("--report: %w", err))
	}
	defer file.Close()
	in, err := report.ReadJSON(file)
	if err != nil {
		return pipeline.Usage.Wrap(fmt.Errorf("--report %s: %w", f.report, err))
	}
	in.TriggerRun = job.TriggerRunURL()
	client, err := gh.New(token, job.APIURL)
	if err != nil {
		return pipeline.Usage.Wrap(err)
	}
	// the comment publisher, with failures returned rather than warned about
	c := &publish.StickyComment{Commenter: client, Owner: job.Owner, Repo: job.Repo, PR: pr}
	if err := c.Publish(ctx, in); err != nil {
		if gh.IsPermission(err) {
			rt.Warningf("PR comment failed", "the token may not comment on %s/%s#%d: give this workflow `permissions: pull-requests: write`", job.Owner, job.Repo, pr)
		}
		return pipeline.Runtime.Wrap(err)
	}
	fmt.Fprintf(e.stdout, "tailgate: sticky comment for %s on #%d: %s\n", in.Name, pr, c.URL)
	if err := rt.SetOutput(ci.OutputCommentURL, c.URL); err != nil && !errors.Is(err, ci.ErrNotInStep) {
		return pipeline.Runtime.Wrap(err)
	}
	if err := rt.Err(); err != nil {
		return pipeline.Runtime.Wrap(fmt.Errorf("writing to the job log: %w", err))
	}
	return nil
}

func parseCommentFlags(e env, args []string) (commentFlags, error) {
	var f commentFlags
	fs := newFlagSet("comment", "comment --report report.json (--pr-file pr.txt | --pr N)\n\n"+
		"Environment: GITHUB_REPOSITORY, INPUT_GITHUB_TOKEN or GITHUB_TOKEN, GITHUB_API_URL.", e.stderr)
	fs.StringVar(&f.report, "report", "", "the report.json `file` to render (untrusted: validated, never executed)")
	fs.StringVar(&f.prFile, "pr-file", "", "read the pull request number from this `file` (at most 32 bytes)")
	fs.IntVar(&f.pr, "pr", 0, "the pull request `number`")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	switch {
	case fs.NArg() > 0:
		return f, usageErr("unexpected argument %q: comment takes only flags", fs.Arg(0))
	case f.report == "":
		return f, usageErr("--report is required: the report.json that tailgate action wrote")
	case (f.prFile == "") == (f.pr == 0):
		return f, usageErr("give the pull request as exactly one of --pr-file FILE or --pr N")
	}
	return f, nil
}

// prNumber is the validated pull request number from --pr or --pr-file.
func (f commentFlags) prNumber() (int, error) {
	if f.prFile == "" {
		if f.pr <= 0 || f.pr > maxPRNumber {
			return 0, fmt.Errorf("--pr %d is not a pull request number (a positive integer of at most %d)", f.pr, maxPRNumber)
		}
		return f.pr, nil
	}
	file, err := openRegular(f.prFile)
	if err != nil {
		return 0, fmt.Errorf("--pr-file: %w", err)
	}
	defer file.Close()
	data, err := bounded.Read(file, f.prFile, "pull request number file", maxPRFileBytes)
	if err != nil {
		return 0, fmt.Errorf("--pr-file: %w", err)
	}
	s := strings.TrimSpace(string(data))
	if n, err := strconv.Atoi(s); prNumberPattern.MatchString(s) && err == nil && n <= maxPRNumber {
		return n, nil
	}
	return 0, fmt.Errorf("--pr-file %s: %q is not a pull request number (a positive integer of at most %d)", f.prFile, printable.Clip(s, 21), maxPRNumber)
}

// checkTriggerPR refuses a PR number that contradicts the triggering run
// (its payload lists same-repository PRs; a fork's list is empty).
func checkTriggerPR(job ci.Context, pr int) error {
	if job.EventName != "workflow_run" || len(job.PRs) == 0 || slices.Contains(job.PRs, pr) {
		return nil
	}
	return fmt.Errorf("the artifact names PR #%d, but the triggering run was for %v: refusing to comment elsewhere", pr, job.PRs)
}

// openRegular opens path when it is a regular file, not a link, and the
// one looked at (a link swapped in between is not followed).
func openRegular(path string) (*os.File, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if opened, err := f.Stat(); err != nil || !os.SameFile(st, opened) {
		f.Close()
		return nil, fmt.Errorf("%s changed while it was opened", path)
	}
	return f, nil
}
