package target

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

const (
	CommandTimeout = 2 * time.Minute // bounds a reset or verify command
	outputTail     = 1000            // bytes of output an error quotes
)

func describe(c *config.Command) string {
	if len(c.Args) > 0 {
		q := make([]string, len(c.Args))
		for i, a := range c.Args {
			q[i] = a
			if a == "" || strings.ContainsAny(a, " \t\"'") {
				q[i] = strconv.Quote(a)
			}
		}
		return strings.Join(q, " ")
	}
	return "sh -c " + strconv.Quote(c.Shell)
}

// runCommand runs c within CommandTimeout and returns stdout; an error
// quotes the end of the output.
func runCommand(ctx context.Context, c *config.Command, ch Children) (stdout []byte, saw string, err error) {
	saw = describe(c)
	var out bytes.Buffer
	combined := &lockedBuffer{}
	if _, err = ch.runFor(ctx, c, CommandTimeout, io.MultiWriter(&out, combined), combined); err != nil {
		if tail := lastBytes(combined.Bytes(), outputTail); tail != "" {
			saw += " → output: " + tail
		}
	}
	return out.Bytes(), saw, err
}

// runFor runs c as a child of ch within timeout, in its own process group
// that is killed as a whole on timeout or cancellation; an end of ctx is
// the error, saying how long the command ran. p is nil when c could not
// be prepared.
func (ch Children) runFor(ctx context.Context, c *config.Command, timeout time.Duration, stdout, stderr io.Writer) (p *proc, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if p, err = ch.newProc(ctx, c); err != nil {
		return nil, err
	}
	p.cmd.Stdout, p.cmd.Stderr, p.cmd.WaitDelay = stdout, stderr, time.Second
	start := time.Now()
	if err = p.start(); err == nil {
		err = p.wait()
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("stopped after %v: %w", time.Since(start).Round(time.Millisecond), ctx.Err())
	}
	return p, err
}

// CheckSeal runs `sh -c :` as ch runs its children: with ch.Seal, whether
// this machine can seal a side, before a real command depends on it.
func CheckSeal(ctx context.Context, ch Children) error {
	_, _, err := runCommand(ctx, &config.Command{Args: []string{"sh", "-c", ":"}}, ch)
	return err
}

// lockedBuffer is written by the stdout and stderr copiers at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// lastBytes is the end of b on one line, escaped, marked when cut.
func lastBytes(b []byte, n int) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > n {
		s = "…" + strings.ToValidUTF8(s[len(s)-n:], "")
	}
	return EscapeControls(s)
}

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
	var ec interface{ ExitCode() int } // -1 for a signal
	if errors.As(err, &ec) {
		return ec.ExitCode(), nil
	}
	return 0, &StepError{Step: StepLoad, Saw: describe(c), Err: err}
}

// RunBuild runs a build command in dir, its output to log with each line
// prefixed "[label] "; a failure quotes the end of the output.
func RunBuild(ctx context.Context, c *config.Command, ch Children, dir string, timeout time.Duration, log io.Writer, label string) error {
	saw := describe(c) + " in " + cmp.Or(dir, "the current directory")
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
