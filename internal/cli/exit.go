package cli

import (
	"errors"

	"github.com/tailgate-ci/tailgate/internal/pipeline"
)

// Exit codes (DESIGN.md §3).
const (
	ExitPass       = 0 // pass, or inconclusive unless asked to fail on it
	ExitRegression = 1 // the gate found a regression
	ExitUsage      = 2 // usage, config or bad input
	ExitRuntime    = 3 // the environment broke: target, dataset, baseline, GitHub
)

// usageErr is a usage error (exit 2).
func usageErr(format string, a ...any) error { return pipeline.Usage.Errorf(format, a...) }

// exitCode maps an error to the process exit code by its kind: an error
// never exits 0, and an error without a kind is a runtime failure.
func exitCode(err error) int {
	if err == nil {
		return ExitPass
	}
	var status statusError
	if errors.As(err, &status) {
		return int(status)
	}
	switch pipeline.KindOf(err) {
	case pipeline.Usage:
		return ExitUsage
	case pipeline.Regression:
		return ExitRegression
	}
	return ExitRuntime
}
