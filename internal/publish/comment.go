package publish

import (
	"context"

	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/gh"
	"github.com/tailgate-ci/tailgate/internal/report"
)

// StickyComment keeps the one tailgate comment of the benchmark on a pull
// request up to date, through a gh.Commenter: the Markdown report under
// the benchmark's hidden marker, created once and edited on later pushes.
type StickyComment struct {
	Commenter   gh.Commenter
	Owner, Repo string
	PR          int
	// OnlyRegressions posts a new comment only for a regression (an
	// existing one is still updated, to show the fix).
	OnlyRegressions bool
	Skip            string      // why no comment may be posted, said once as a warning
	Warn            *ci.Runtime // nil: a failure to comment is returned, not warned
	URL             string      // the comment's address once posted
}

func (c *StickyComment) Publish(ctx context.Context, in report.Input) error {
	if c.Skip != "" {
		c.warn("PR comment skipped", "%s", c.Skip)
		return nil
	}
	// The target logs are files on the runner, which a reader of the PR
	// cannot open: the job summary and the log name them, the comment not.
	in.TargetLog = report.TargetLogs{}
	marker, body := report.Marker(in.Name), report.Markdown(in)
	var made gh.Comment
	var err error
	if c.OnlyRegressions && !isRegression(in) {
		made, _, err = c.Commenter.UpdateExisting(ctx, c.Owner, c.Repo, c.PR, marker, body)
	} else {
		made, err = c.Commenter.Upsert(ctx, c.Owner, c.Repo, c.PR, marker, body)
	}
	switch {
	case err != nil && c.Warn == nil:
		return err
	case gh.IsPermission(err):
		c.warn("PR comment skipped", "the token may not comment on this pull request (grant `permissions: pull-requests: write`, or use the workflow_run pattern for fork PRs): %v", err)
	case err != nil:
		c.warn("PR comment failed", "%v", err)
	default:
		c.URL = made.URL
	}
	return nil
}

func (c *StickyComment) warn(title, format string, args ...any) {
	if c.Warn != nil {
		c.Warn.Warningf(title, format, args...)
	}
}
