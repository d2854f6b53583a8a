package target

import (
	"cmp"
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

const (
	// StopGrace is how long a target may take to end after SIGTERM.
	StopGrace = 5 * time.Second
	killWait  = 3 * time.Second // after SIGKILL
	ioWait    = 2 * time.Second // for output pipes a leftover child keeps open
)

// Process is a running target. A target started elsewhere has no command:
// its Stop does nothing and its PID comes from target.pid_file, if any.
type Process struct {
	pid  int
	pgid int // 0 for a target started elsewhere
	out  *targetOutput

	notMeasured error // why pid's CPU and memory are not the target's

	done    chan struct{} // closed when the leader has exited and been reaped
	waitErr error

	stopOnce sync.Once
	stopErr  error
}

type StartOptions struct {
	Children Children
	// LogPath gets the target's output appended; "": kept only to explain
	// a failure.
	LogPath string
	Live    io.Writer   // also gets the output, each line prefixed "[target] "
	TLS     *tls.Config // of the readiness probe (ClientTLS)
}

// Start starts the target if t.Start is set, in a new process group, and
// waits until it (or a target started elsewhere) is ready. The process
// started must be the one that answers: Start fails when baseURL's port is
// taken before the start, when the process exits before it is ready, or
// when after ready a process that was already running holds the port.
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
	p.notMeasured, err = checkOwner(baseURL, p.pgid, p.pid)
	if err == nil {
		err = p.Exited() // it may have died while the other one answered
	}
	if err != nil {
		p.Stop()
		return nil, &StepError{Step: StepReady, Err: err}
	}
	return p, nil
}

func external(ctx context.Context, client *http.Client, baseURL string, t config.Target) (*Process, error) {
	p := &Process{done: make(chan struct{})}
	if t.PIDFile != "" {
		var err error
		if p.pid, err = PIDFromFile(t.PIDFile); err != nil {
			return nil, &StepError{Step: StepStart, Err: fmt.Errorf("target.pid_file: %w", err)}
		}
	}
	// The pid file's process is measured whoever holds the port (a proxy).
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
	child.cmd.Dir = cmp.Or(s.Dir, child.cmd.Dir)
	out, err := openTargetOutput(o.LogPath, o.Live)
	if err != nil {
		return nil, &StepError{Step: StepStart, Err: err}
	}
	child.cmd.Stdout, child.cmd.Stderr, child.cmd.WaitDelay = out, out, ioWait
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

// PID is the target's (the command's, not the supervisor's) pid, or 0.
func (p *Process) PID() int { return p.pid }

// Measurable is nil when PID's tree's CPU and memory are the target's,
// else why not.
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

// Exited is nil while a started target runs (always for one started
// elsewhere), else why it ended.
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

// ReadyAgain waits for readiness as Start does (after a reset that may
// restart the service); a started target that ended fails it.
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

// ExitReason is how the process ended, with the end of its output.
func (p *Process) ExitReason() string {
	<-p.done
	reason := "exit status 0"
	if p.waitErr != nil {
		reason = p.waitErr.Error()
	}
	return reason + "; last output: " + p.out.lastLines()
}

// Stop ends a started target: SIGTERM to its process group, SIGKILL after
// StopGrace. It may be called again.
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

// waitGone waits until the leader is reaped and its group is empty,
// polling at 1 ms, then twice as long each time up to 20 ms: a service
// most often ends within milliseconds of SIGTERM, and every block stops
// both sides.
func (p *Process) waitGone(within time.Duration) bool {
	deadline := time.Now().Add(within)
	for wait := time.Millisecond; p.running(); wait = min(2*wait, 20*time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
	}
	return true
}
