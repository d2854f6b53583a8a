package target

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// StepLoad names a failed run of a load tool command (engine: command).
const StepLoad = "load command"

// RunTool runs a load tool's command for one run (engine: command): as a
// child of ch (whose With adds the run's variables), its output to log, in
// its own process group that is killed as a whole on timeout or
// cancellation. The exit status is returned (0 on success) with an error
// only when the command could not be run or was stopped: a load tool may
// exit non-zero for failed thresholds and still have written its results.
func RunTool(ctx context.Context, c *config.Command, ch Children, timeout time.Duration, log io.Writer) (exit int, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	p, err := ch.newProc(ctx, c)
	if err != nil {
		return 0, &StepError{Step: StepLoad, Saw: describe(c), Err: err}
	}
	lw := newPrefixWriter(log, "[load] ")
	defer lw.Flush()
	p.cmd.Stdout, p.cmd.Stderr = lw, lw
	p.cmd.WaitDelay = time.Second
	start := time.Now()
	err = p.run()
	if ctx.Err() != nil {
		return 0, &StepError{Step: StepLoad, Saw: describe(c), Err: fmt.Errorf("stopped after %v: %w", time.Since(start).Round(time.Millisecond), ctx.Err())}
	}
	if err == nil {
		return 0, nil
	}
	if code, ok := exitCodeOf(err); ok {
		return code, nil
	}
	return 0, &StepError{Step: StepLoad, Saw: describe(c), Err: err}
}
