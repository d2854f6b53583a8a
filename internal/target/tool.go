package target

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// StepLoad names a failed run of a load tool command (engine: command).
const StepLoad = "load command"

// RunTool runs a load tool's command for one run (engine: command): with
// extra environment variables, its output to log, in its own process group
// that is killed as a whole on timeout or cancellation. The exit status is
// returned (0 on success) with an error only when the command could not be
// run or was stopped: a load tool may exit non-zero for failed thresholds
// and still have written its results.
func RunTool(ctx context.Context, c *config.Command, env []string, timeout time.Duration, log io.Writer) (exit int, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd, err := newCmd(ctx, c)
	if err != nil {
		return 0, &StepError{Step: StepLoad, Saw: describe(c), Err: err}
	}
	cmd.Env = append(cmd.Environ(), env...)
	lw := newPrefixWriter(log, "[load] ")
	defer lw.Flush()
	cmd.Stdout, cmd.Stderr = lw, lw
	inOwnGroup(cmd)
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	start := time.Now()
	err = cmd.Run()
	if ctx.Err() != nil {
		return 0, &StepError{Step: StepLoad, Saw: describe(c), Err: fmt.Errorf("stopped after %v: %w", time.Since(start).Round(time.Millisecond), ctx.Err())}
	}
	if err != nil && cmd.ProcessState == nil {
		return 0, &StepError{Step: StepLoad, Saw: describe(c), Err: err}
	}
	return cmd.ProcessState.ExitCode(), nil
}
