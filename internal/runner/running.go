package runner

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/result"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// running is a target while the benchmark runs.
type running struct {
	label  string
	url    string
	proc   *target.Process // nil when the target was started elsewhere
	pid    int             // process to sample; 0 when unknown
	client *http.Client    // for reset, verify and drain (not the load)
}

// start starts the target when it has a start command, else waits until the
// target started elsewhere answers.
func (b *Benchmark) start(ctx context.Context, t config.Target, label string) (*running, error) {
	tgt := &running{
		label:  label,
		url:    t.URL,
		client: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil}},
	}
	if t.Start != nil {
		p, err := target.Start(ctx, t.URL, t, b.log())
		if err != nil {
			return nil, withLabel(label, err)
		}
		tgt.proc, tgt.pid = p, p.PID()
		return tgt, nil
	}
	if err := target.WaitReady(ctx, tgt.client, t.URL, t.Ready); err != nil {
		return nil, withLabel(label, err)
	}
	if t.PIDFile != "" {
		pid, err := target.PIDFromFile(t.PIDFile)
		if err != nil {
			return nil, withLabel(label, fmt.Errorf("target pid_file: %w", err))
		}
		tgt.pid = pid
	}
	return tgt, nil
}

func withLabel(label string, err error) error {
	if label == "" {
		return err
	}
	return fmt.Errorf("%s target: %w", label, err)
}

func (t *running) stop() {
	if t.proc != nil {
		t.proc.Stop()
	}
	t.client.CloseIdleConnections()
}

// sampling measures the target's CPU and memory over a measure window. It
// is started from the load engine's timer goroutine and stopped by the
// runner, hence the lock.
type sampling struct {
	mu      sync.Mutex
	s       *target.Sampler
	stopped bool // a start that comes after stop (a cancelled run) does nothing
}

func (s *sampling) start(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pid == 0 || s.stopped {
		return
	}
	s.s = target.StartSampler(pid, 100*time.Millisecond)
}

func (s *sampling) stop() *result.Resources {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	if s.s == nil {
		return nil
	}
	res := s.s.Stop()
	return &res
}
