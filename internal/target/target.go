// Package target owns the service under test around the measurement:
// starting and stopping it (with its whole process group), waiting until it
// is ready, putting it into the fixed dataset (reset, then verify), waiting
// until it is idle (the drain gate), and sampling the CPU time and memory
// of its process tree from /proc. Every failure names the step and what the
// target answered, so a broken environment is never mistaken for a slow one.
package target

import (
	"net/http"
	"strings"
	"time"
)

// Step names used in StepError.
const (
	StepStart  = "start"
	StepReady  = "ready"
	StepReset  = "dataset reset"
	StepVerify = "dataset verify"
	StepDrain  = "drain"
)

// StepError is a failure of one preparation step: the CLI maps it to a
// runtime failure (exit 3) and prints it as "step: saw: err".
type StepError struct {
	Step string // one of the Step* constants
	Saw  string // what the target answered, e.g. `GET /count → 200 {"count":5}`
	Err  error  // why that is wrong
}

func (e *StepError) Error() string {
	parts := []string{e.Step}
	if e.Saw != "" {
		parts = append(parts, e.Saw)
	}
	if e.Err != nil {
		parts = append(parts, e.Err.Error())
	}
	return strings.Join(parts, ": ")
}

func (e *StepError) Unwrap() error { return e.Err }

// defaultClient is used when a caller passes a nil client.
var defaultClient = &http.Client{Timeout: 10 * time.Second}

func durationOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
