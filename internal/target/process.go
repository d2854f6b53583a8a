package target

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// Stop timing.
const (
	// StopGrace is how long a target may take to end after SIGTERM before
	// its process group is killed.
	StopGrace = 5 * time.Second
	// killWait bounds the wait after SIGKILL.
	killWait = 3 * time.Second
	// ioWait bounds the wait for output pipes that a leftover child keeps open.
	ioWait = 2 * time.Second
)

// Process is a running target. A target started elsewhere has no command:
// its Stop does nothing and its PID comes from target.pid_file, if any.
type Process struct {
	pid  int
	pgid int // 0 for a target started elsewhere
	out  *prefixWriter

	done    chan struct{} // closed when the leader has exited and been reaped
	waitErr error

	stopOnce sync.Once
	stopErr  error
}

// Start starts the target if t.Start is set (a list runs directly, a string
// by `sh -c`, in a new process group, output to log with a "[target] "
// prefix) and waits until it is ready. A process that exits before it is
// ready fails at once, with its exit status and last output.
func Start(ctx context.Context, baseURL string, t config.Target, log io.Writer) (*Process, error) {
	client := &http.Client{Timeout: 2 * time.Second}
	if t.Start == nil {
		return external(ctx, client, baseURL, t)
	}
	p, err := launch(t.Start, log)
	if err != nil {
		return nil, err
	}
	if err := waitReady(ctx, client, baseURL, t.Ready, p); err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

func external(ctx context.Context, client *http.Client, baseURL string, t config.Target) (*Process, error) {
	p := &Process{done: make(chan struct{})}
	if t.PIDFile != "" {
		pid, err := PIDFromFile(t.PIDFile)
		if err != nil {
			return nil, &StepError{Step: StepStart, Err: err}
		}
		p.pid = pid
	}
	if err := WaitReady(ctx, client, baseURL, t.Ready); err != nil {
		return nil, err
	}
	return p, nil
}

func launch(s *config.Start, log io.Writer) (*Process, error) {
	// The target outlives Start's context: it ends only through Stop.
	cmd, err := newCmd(context.Background(), &s.Command)
	if err != nil {
		return nil, &StepError{Step: StepStart, Err: fmt.Errorf("target.start: %w", err)}
	}
	cmd.Dir = s.Dir
	if len(s.Env) > 0 {
		cmd.Env = cmd.Environ()
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	out := newPrefixWriter(log, "[target] ")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = ioWait
	inOwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, &StepError{Step: StepStart, Saw: describe(&s.Command), Err: err}
	}
	p := &Process{pid: cmd.Process.Pid, pgid: cmd.Process.Pid, out: out, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		out.Flush()
		close(p.done)
	}()
	return p, nil
}

// PID is the target's process id, or 0 when it is not known.
func (p *Process) PID() int { return p.pid }

// Done is closed when a started target has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited returns nil while a started target runs (and always for a target
// started elsewhere), else why it ended.
func (p *Process) Exited() error {
	if p.pgid == 0 {
		return nil
	}
	select {
	case <-p.done:
		return fmt.Errorf("target exited: %s", p.ExitReason())
	default:
		return nil
	}
}

// ExitReason describes how the process ended, with its last output.
func (p *Process) ExitReason() string {
	<-p.done
	reason := "exit status 0"
	if p.waitErr != nil {
		reason = p.waitErr.Error()
	}
	if tail := lastBytes(p.out.Tail(), outputTail); tail != "" {
		reason += "; last output: " + tail
	}
	return reason
}

// Stop ends a started target: SIGTERM to its process group, then SIGKILL
// to whatever still runs after StopGrace. It is safe to call more than once.
func (p *Process) Stop() error {
	if p == nil {
		return nil
	}
	p.stopOnce.Do(func() { p.stopErr = p.stop() })
	return p.stopErr
}

func (p *Process) stop() error {
	if p.pgid == 0 {
		return nil
	}
	if p.running() {
		if err := signalGroup(p.pgid, syscall.SIGTERM); err != nil {
			return fmt.Errorf("stopping the target (process group %d): %w", p.pgid, err)
		}
		if p.waitGone(StopGrace) {
			return nil
		}
		if err := signalGroup(p.pgid, syscall.SIGKILL); err != nil {
			return fmt.Errorf("killing the target (process group %d): %w", p.pgid, err)
		}
	}
	if !p.waitGone(killWait) {
		return fmt.Errorf("target process group %d still runs after SIGKILL", p.pgid)
	}
	return nil
}

// running reports whether the leader or any process of its group runs.
func (p *Process) running() bool {
	select {
	case <-p.done:
		return groupRunning(p.pgid)
	default:
		return true
	}
}

// waitGone waits until the leader is reaped and its group is empty.
func (p *Process) waitGone(within time.Duration) bool {
	deadline := time.Now().Add(within)
	for p.running() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
