package runner

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tailgate-ci/tailgate/internal/result"
)

// StepFailures names a run refused because most of its work failed.
const StepFailures = "failures"

// errorSamples is how many error classes a refused run's message quotes.
const errorSamples = 3

// FailedRunError is a run whose work mostly failed: it measured the error
// path (a broken reset, 500s, a wrong URL), not the service. It is a
// runtime failure, never a verdict: an A/B job of two broken sides stops
// here instead of comparing them.
type FailedRunError struct {
	Phase         string // "" for the whole run
	What          string // "iterations" or "requests", Failed of Total of them failed
	Failed, Total int64
	MaxPercent    float64             // load.max_failed_percent
	Samples       []result.ErrorClass // the commonest, with a sample message each
}

func (e *FailedRunError) Error() string {
	where := "the run"
	if e.Phase != "" {
		where = "phase " + e.Phase
	}
	msg := fmt.Sprintf("%s: %d of %d %s failed (%.1f %%, more than load.max_failed_percent %g %%): this measured the errors, not the service",
		where, e.Failed, e.Total, e.What, 100*float64(e.Failed)/float64(e.Total), e.MaxPercent)
	if len(e.Samples) > 0 {
		parts := make([]string, len(e.Samples))
		for i, s := range e.Samples {
			parts[i] = describeErrorClass(s)
		}
		msg += "; first errors: " + strings.Join(parts, "; ")
	}
	return msg + "; fix the service or the dataset reset, or raise load.max_failed_percent (100 accepts any run)"
}

// describeErrorClass renders one error class for the message: its step,
// its count and its sample, quoted (it comes from the service) and cut to
// a readable length.
func describeErrorClass(c result.ErrorClass) string {
	s := fmt.Sprintf("%d × %s", c.Count, c.Class)
	if c.Step != "" {
		s = c.Step + ": " + s
	}
	if r := []rune(c.Sample); len(r) > 200 {
		c.Sample = string(r[:200]) + "…"
	}
	if c.Sample != "" {
		s += fmt.Sprintf(" %q", c.Sample)
	}
	return s
}

// checkFailures refuses a run where more than maxPercent of the completed
// iterations, or of the requests, failed: each phase first, so that a
// broken phase is named though the other's work dilutes the run's share.
func checkFailures(run *result.Run, maxPercent float64) error {
	if maxPercent >= 100 {
		return nil
	}
	for i := range run.Phases {
		if err := failedShare(&run.Phases[i].Run, run.Phases[i].Name, maxPercent); err != nil {
			return err
		}
	}
	return failedShare(run, "", maxPercent)
}

func failedShare(run *result.Run, phase string, maxPercent float64) error {
	it := run.Iterations
	const both = result.CountCompleted | result.CountSucceeded
	if it.Counted&both == both && it.Completed > 0 && over(it.Completed-it.Succeeded, it.Completed, maxPercent) {
		return &FailedRunError{Phase: phase, What: "iterations", Failed: it.Completed - it.Succeeded, Total: it.Completed, MaxPercent: maxPercent, Samples: commonestErrors(run.Errors)}
	}
	rq := run.Requests
	if rq.Counted&result.CountRequests == result.CountRequests && rq.Total > 0 && over(rq.Failed, rq.Total, maxPercent) {
		return &FailedRunError{Phase: phase, What: "requests", Failed: rq.Failed, Total: rq.Total, MaxPercent: maxPercent, Samples: commonestErrors(run.Errors)}
	}
	return nil
}

func over(failed, total int64, maxPercent float64) bool {
	return 100*float64(failed) > maxPercent*float64(total)
}

// commonestErrors are the errorSamples error classes with the most
// failures (the first met on a tie).
func commonestErrors(errs []result.ErrorClass) []result.ErrorClass {
	out := slices.Clone(errs)
	slices.SortStableFunc(out, func(a, b result.ErrorClass) int { return cmp.Compare(b.Count, a.Count) })
	return out[:min(len(out), errorSamples)]
}
