package target

import (
	"context"
	"io"
	"syscall"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// StepLoad names a failed run of a load tool command (engine: command).
const StepLoad = "load command"

// RunTool runs a load tool's command for one run (engine: command): as a
// child of ch (whose With adds the run's variables), its output to log, in
// its own process group that is killed as a whole on timeout or
// cancellation, and once the command has ended. The exit status is
// returned (0 on success) with an error only when the command could not
// be run or was stopped: a load tool may exit non-zero for failed
// thresholds and still have written its results.
func RunTool(ctx context.Context, c *config.Command, ch Children, timeout time.Duration, log io.Writer) (exit int, err error) {
	lw := newPrefixWriter(log, "[load] ")
	defer lw.Flush()
	p, err := ch.runFor(ctx, c, timeout, lw, lw)
	if p != nil && p.cmd.Process != nil {
		// What the command leaves running ends with it (a worker whose
		// master is gone would retry for minutes): a run leaves nothing.
		signalGroup(p.group(), syscall.SIGKILL)
	}
	if err == nil {
		return 0, nil
	}
	if code, ok := exitCodeOf(err); ok {
		return code, nil
	}
	return 0, &StepError{Step: StepLoad, Saw: describe(c), Err: err}
}

// StepBuild names a failed build command (config build).
const StepBuild = "build"

// RunBuild runs a build command in dir, as a child of ch (no credentials,
// ends with tailgate), in its own process group that is killed as a whole
// on timeout or cancellation, its output to log as it comes, each line
// prefixed "[label] ". A non-zero exit is an error that quotes the end of
// the output.
func RunBuild(ctx context.Context, c *config.Command, ch Children, dir string, timeout time.Duration, log io.Writer, label string) error {
	saw := describe(c) + " in " + dirName(dir)
	out := newPrefixWriter(log, "["+label+"] ")
	defer out.Flush()
	ch.Dir = dir
	_, err := ch.runFor(ctx, c, timeout, out, out)
	if err == nil {
		return nil
	}
	if t := lastBytes(out.Tail(), outputTail); t != "" {
		saw += " → output: " + t
	}
	return &StepError{Step: StepBuild, Saw: saw, Err: err}
}

// dirName names a child's working directory for messages: the empty one
// is tailgate's own.
func dirName(dir string) string {
	if dir == "" {
		return "the current directory"
	}
	return dir
}
