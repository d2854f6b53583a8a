package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/gate"
	"github.com/tailgate-ci/tailgate/internal/report"
)

// Kind is what a failure means for the process; the CLI maps each kind to
// its exit code (DESIGN.md §3).
type Kind int

const (
	Runtime    Kind = iota // the environment broke (target, dataset, a baseline file, GitHub); an error without a kind
	Usage                  // usage, config or bad input
	Regression             // the verdict fails the gate
)

type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Wrap gives err kind k, unless it already has a kind; nil stays nil. An
// error that a lower package marks as bad input (a BadInput method, such
// as worktree.RefError's) is a Usage error whatever k is: the package that
// found it knows the input was wrong, the caller wrapping it may not.
func (k Kind) Wrap(err error) error {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	if KindOf(err) == Usage { // marked bad input below
		k = Usage
	}
	return &Error{Kind: k, Err: err}
}

func (k Kind) Errorf(format string, a ...any) error {
	return &Error{Kind: k, Err: fmt.Errorf(format, a...)}
}

// KindOf is the kind of err: Runtime for an error without one, unless a
// lower package marked it as bad input (see Wrap).
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	var bad interface{ BadInput() bool }
	if errors.As(err, &bad) && bad.BadInput() {
		return Usage
	}
	return Runtime
}

// FailOn says which verdicts fail the process.
type FailOn struct {
	Regression   bool
	Inconclusive bool
	// InconclusiveSetting names how the user asked to fail on an
	// inconclusive verdict, for the message ("--fail-on-inconclusive").
	InconclusiveSetting string
}

// Err is the error a verdict ends with: a Regression one, a Runtime one for
// an incomplete comparison (a figure one side lost is a failure of the
// job, never a pass; a regression stays one), or nil.
func (f FailOn) Err(v gate.Verdict) error {
	switch {
	case v.Outcome == gate.Regression && f.Regression:
		return Regression.Errorf("regression in %s", strings.Join(regressedLabels(v), ", "))
	case len(v.Incomplete) > 0 && v.Outcome != gate.Regression:
		return Runtime.Errorf("incomplete comparison, not a pass: one side measured and the other lost %s; "+
			"set ab.allow_missing: true to accept such a job as inconclusive", strings.Join(report.Cut(v, v.Incomplete), "; "))
	case v.Outcome == gate.Inconclusive && f.Inconclusive:
		return Regression.Errorf("inconclusive, and %s is set", f.InconclusiveSetting)
	}
	return nil
}

// regressedLabels name the metrics that regressed, for the final line.
func regressedLabels(v gate.Verdict) []string {
	var out []string
	for _, f := range v.Findings {
		if f.Gated && f.Outcome == gate.MetricRegression {
			out = append(out, f.Label)
		}
	}
	if len(out) == 0 {
		return v.Regressions
	}
	return out
}
