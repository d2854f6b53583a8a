package target

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
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
	out  *targetOutput

	// notMeasured says why the CPU and memory of pid are not the target's
	// although pid is known (another process answers on its port).
	notMeasured error

	done    chan struct{} // closed when the leader has exited and been reaped
	waitErr error

	stopOnce sync.Once
	stopErr  error
}

// StartOptions say how a target is started.
type StartOptions struct {
	// Children gives the target its environment and ends it when tailgate
	// ends.
	Children Children
	// LogPath is the file the target's stdout and stderr are appended to;
	// empty: the output is only kept to explain a failure.
	LogPath string
	// Live, when set, also gets the output, each line prefixed "[target] ".
	Live io.Writer
	// TLS configures the readiness probe's connections to an https
	// target (ClientTLS); nil: the system's roots.
	TLS *tls.Config
}

// Start starts the target if t.Start is set (a list runs directly, a string
// by `sh -c`, in a new process group, output as o says) and waits until it
// is ready; a target started elsewhere is waited for. The process tailgate
// started must be the one that answers: Start fails when the port of
// baseURL is taken before the start, when the process exits before it is
// ready (with its exit status and last lines of output), or when after
// ready a process that was already running holds the port.
func Start(ctx context.Context, baseURL string, t config.Target, o StartOptions) (*Process, error) {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil, TLSClientConfig: o.TLS}}
	defer client.CloseIdleConnections()
	if t.Start == nil {
		return external(ctx, client, baseURL, t)
	}
	if err := checkPortFree(baseURL); err != nil {
		return nil, err
	}
	p, err := launch(t.Start, o)
	if err != nil {
		return nil, err
	}
	if err := waitReady(ctx, client, baseURL, t.Ready, p); err != nil {
		p.Stop()
		return nil, err
	}
	notMeasured, err := checkOwner(baseURL, p.pgid, p.pid)
	if err == nil {
		err = p.Exited() // it may have died while the other one answered
	}
	if err != nil {
		p.Stop()
		return nil, &StepError{Step: StepReady, Err: err}
	}
	p.notMeasured = notMeasured
	return p, nil
}

func external(ctx context.Context, client *http.Client, baseURL string, t config.Target) (*Process, error) {
	p := &Process{done: make(chan struct{})}
	if t.PIDFile != "" {
		pid, err := PIDFromFile(t.PIDFile)
		if err != nil {
			return nil, &StepError{Step: StepStart, Err: fmt.Errorf("target.pid_file: %w", err)}
		}
		p.pid = pid
	}
	// The process the pid file names is measured as named, whoever holds
	// the port: it may well sit behind a proxy that does.
	if err := WaitReady(ctx, client, baseURL, t.Ready); err != nil {
		return nil, err
	}
	return p, nil
}

func launch(s *config.Start, o StartOptions) (*Process, error) {
	ch := o.Children
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		ch = ch.With(k + "=" + s.Env[k])
	}
	// The target outlives Start's context: it ends only through Stop.
	child, err := ch.newProc(context.Background(), &s.Command)
	if err != nil {
		return nil, &StepError{Step: StepStart, Err: fmt.Errorf("target.start: %w", err)}
	}
	if s.Dir != "" {
		child.cmd.Dir = s.Dir
	}
	out, err := openTargetOutput(o.LogPath, o.Live)
	if err != nil {
		return nil, &StepError{Step: StepStart, Err: err}
	}
	child.cmd.Stdout, child.cmd.Stderr = out, out
	child.cmd.WaitDelay = ioWait
	if err := child.start(); err != nil {
		out.close()
		return nil, &StepError{Step: StepStart, Saw: describe(&s.Command), Err: err}
	}
	p := &Process{pid: child.pid, pgid: child.group(), out: out, done: make(chan struct{})}
	go func() {
		p.waitErr = child.wait()
		out.close()
		close(p.done)
	}()
	return p, nil
}

// PID is the target's process id, or 0 when it is not known. For a
// target tailgate started it is the command's own, not the supervisor's.
func (p *Process) PID() int { return p.pid }

// Measurable is nil when the CPU and memory of PID's process tree are the
// target's, else why they are not (another process holds its port).
func (p *Process) Measurable() error {
	if p.pid == 0 {
		return errors.New("the target's process is not known (set target.pid_file for a target started elsewhere)")
	}
	return p.notMeasured
}

// LogPath is the file holding the started target's output, or "".
func (p *Process) LogPath() string {
	if p.out == nil {
		return ""
	}
	return p.out.path
}

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

// ReadyAgain polls the readiness probe r until it passes, as Start does
// (after a reset command that may restart the service): a started target
// that has ended fails it with why it ended.
func (p *Process) ReadyAgain(ctx context.Context, client *http.Client, baseURL string, r *config.Ready) error {
	if err := p.Exited(); err != nil {
		return err
	}
	var watch exitWatch
	if p.pgid != 0 {
		watch = p
	}
	return waitReady(ctx, client, baseURL, r, watch)
}

// ExitReason describes how the process ended, with the last lines of its
// output and where all of it is.
func (p *Process) ExitReason() string {
	<-p.done
	reason := "exit status 0"
	if p.waitErr != nil {
		reason = p.waitErr.Error()
	}
	return reason + "; last output: " + p.out.lastLines()
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
