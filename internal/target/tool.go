package target

import (
	"context"
	"io"
	"syscall"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// StepLoad and StepBuild name a failed load tool command (engine:
// command) and a failed build command.
const (
	StepLoad  = "load command"
	StepBuild = "build"
)

// RunTool runs a load tool's command for one run, its output to log, and
// kills what it left running. It returns the exit status, with an error
// only when the command could not run or was stopped: a tool may exit
// non-zero for failed thresholds and still have written its results.
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

// RunBuild runs a build command in dir, its output to log with each line
// prefixed "[label] "; a failure quotes the end of the output.
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

// dirName names a working directory for messages.
func dirName(dir string) string {
	if dir == "" {
		return "the current directory"
	}
	return dir
}
