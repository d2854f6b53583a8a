package cli

import (
	"errors"
	"fmt"
)

// Exit codes (DESIGN.md §3).
const (
	ExitPass       = 0 // pass, or inconclusive unless asked to fail on it
	ExitRegression = 1 // the gate found a regression
	ExitUsage      = 2 // usage, config or bad input
	ExitRuntime    = 3 // the environment broke: target, dataset, baseline, GitHub
)

// exitError carries the exit code an error should end the process with.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{ExitUsage, fmt.Errorf(format, a...)}
}

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code, err}
}

// exitCode maps an error to the process exit code: an error never exits 0,
// and an error without a code is a runtime failure.
func exitCode(err error) int {
	if err == nil {
		return ExitPass
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitRuntime
}
