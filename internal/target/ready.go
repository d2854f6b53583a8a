package target

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tailgate-ci/tailgate/internal/config"
)

// Readiness defaults (config.Ready documents them).
const (
	DefaultReadyTimeout  = 30 * time.Second
	DefaultReadyInterval = 100 * time.Millisecond
)

// WaitReady polls the readiness probe until it passes: r's path and status,
// or, with r nil, any HTTP answer on "/".
func WaitReady(ctx context.Context, client *http.Client, baseURL string, r *config.Ready) error {
	return waitReady(ctx, client, baseURL, r, nil)
}

// exitWatch tells the readiness loop that a started process has ended.
type exitWatch interface {
	Done() <-chan struct{}
	ExitReason() string
}

func waitReady(ctx context.Context, client *http.Client, baseURL string, r *config.Ready, proc exitWatch) error {
	probe, timeout, interval := readyProbe(r)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var exited <-chan struct{}
	if proc != nil {
		exited = proc.Done()
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var lastSaw string
	var lastErr error
	for {
		a, err := send(ctx, client, baseURL, &probe)
		if err == nil {
			if err = checkReady(a.Status, r); err == nil {
				return nil
			}
		}
		if ctx.Err() == nil { // an attempt cut short by the deadline says nothing
			lastSaw, lastErr = a.Saw, err
		}
		select {
		case <-exited:
			return &StepError{Step: StepReady, Err: errors.New("target exited before it was ready: " + proc.ExitReason())}
		case <-ctx.Done():
			return notReady(ctx, lastSaw, lastErr, timeout)
		case <-tick.C:
		}
	}
}

func notReady(ctx context.Context, saw string, last error, timeout time.Duration) error {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &StepError{Step: StepReady, Saw: saw, Err: ctx.Err()}
	}
	if last == nil {
		last = errors.New("no answer")
	}
	return &StepError{Step: StepReady, Saw: saw, Err: fmt.Errorf("%w (not ready after %v)", last, timeout)}
}

func readyProbe(r *config.Ready) (config.Request, time.Duration, time.Duration) {
	if r == nil {
		r = &config.Ready{}
	}
	return config.Request{Path: cmp.Or(r.Path, "/")},
		durationOr(r.Timeout.D(), DefaultReadyTimeout),
		durationOr(r.Interval.D(), DefaultReadyInterval)
}

// checkReady: without a probe any HTTP answer means the target listens.
func checkReady(status int, r *config.Ready) error {
	if r == nil {
		return nil
	}
	return checkStatus(status, cmp.Or(r.Status, http.StatusOK))
}
