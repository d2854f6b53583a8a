package publish

import (
	"context"
	"errors"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/ci"
	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
)

// MaxAnnotations bounds the ::error lines of one step: the job summary has
// the rest.
const MaxAnnotations = 10

// JobSummary annotates the step (an ::error per regressed metric, a
// ::warning per verdict warning) and appends the Markdown report to the job
// summary; a summary that cannot be written is a warning.
type JobSummary struct{ Runtime *ci.Runtime }

func (s JobSummary) Publish(_ context.Context, in report.Input) error {
	v := in.Verdict
	for i, key := range v.Regressions {
		if i == MaxAnnotations {
			break
		}
		s.Runtime.Errorf("performance regression", "%s: %s regressed beyond the noise floor (see the job summary)", in.Name, labelOf(v, key))
	}
	for _, w := range report.Warnings(v) {
		s.Runtime.Warningf("tailgate", "%s", w)
	}
	if _, err := s.Runtime.AddStepSummary(report.Markdown(in)); err != nil && !errors.Is(err, ci.ErrNotInStep) {
		s.Runtime.Warningf("job summary", "could not write the job summary: %v", err)
	}
	return nil
}

// Outputs sets the step's outputs (the verdict, the regressions, the
// reports' and target logs' paths, the comment's URL); it fails only when
// it cannot write them in a step.
type Outputs struct {
	Runtime              *ci.Runtime
	ReportPath, HTMLPath string
	Comment              *StickyComment // nil when no comment is posted
}

func (o Outputs) Publish(_ context.Context, in report.Input) error {
	out := ci.Outputs{Verdict: string(in.Verdict.Outcome), Regressions: len(in.Verdict.Regressions),
		ReportPath: o.ReportPath, HTMLPath: o.HTMLPath, TargetLog: strings.Join(in.TargetLog.Paths(), "\n")}
	if o.Comment != nil {
		out.CommentURL = o.Comment.URL
	}
	if err := o.Runtime.WriteOutputs(out); err != nil && !errors.Is(err, ci.ErrNotInStep) {
		return err
	}
	return nil
}

// Failure tells the step that tailgate could not judge (exit code): an
// error annotation, a job summary that says why, and verdict=error.
func Failure(rt *ci.Runtime, name string, code int, err error) {
	rt.Errorf("tailgate could not judge", "%v", err)
	if _, serr := rt.AddStepSummary(report.NoVerdictMarkdown(name, code, err)); serr != nil && !errors.Is(serr, ci.ErrNotInStep) {
		rt.Warningf("job summary", "could not write the job summary: %v", serr)
	}
	if oerr := rt.WriteOutputs(ci.Outputs{Verdict: "error"}); oerr != nil && !errors.Is(oerr, ci.ErrNotInStep) {
		rt.Warningf("outputs", "could not write the outputs: %v", oerr)
	}
}

// isRegression reports whether the verdict is a regression.
func isRegression(in report.Input) bool { return in.Verdict.Outcome == gate.Regression }

// labelOf is the human name of metric key in v (the key itself when no
// finding names it).
func labelOf(v gate.Verdict, key string) string {
	for _, f := range v.Findings {
		if f.Key == key && f.Label != "" {
			return f.Label
		}
	}
	return key
}
