package target

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tailgate-ci/tailgate/internal/clock"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/jsonmatch"
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
	// A service is most often ready within a few tens of milliseconds:
	// the polls start 5 ms apart and double up to interval, so a start
	// does not wait most of an interval it need not (each block starts
	// both sides).
	wait := min(readyFirstPoll, interval)
	tick := time.NewTimer(wait)
	defer tick.Stop()
	var lastSaw string
	var lastErr error
	for {
		a, err := send(ctx, client, baseURL, &probe)
		if err == nil && r != nil { // without a probe any HTTP answer means the target listens
			err = checkStatus(a.Status, cmp.Or(r.Status, http.StatusOK))
		}
		if err == nil {
			return nil
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
		wait = min(2*wait, interval)
		tick.Reset(wait)
	}
}

const readyFirstPoll = 5 * time.Millisecond

func notReady(ctx context.Context, saw string, last error, timeout time.Duration) error {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &StepError{Step: StepReady, Saw: saw, Err: ctx.Err()}
	}
	return &StepError{Step: StepReady, Saw: saw, Err: fmt.Errorf("%w (not ready after %v)", cmp.Or(last, errors.New("no answer")), timeout)}
}

func readyProbe(r *config.Ready) (config.Request, time.Duration, time.Duration) {
	if r == nil {
		r = &config.Ready{}
	}
	return config.Request{Path: cmp.Or(r.Path, "/")}, durationOr(r.Timeout.D(), config.DefaultReadyTimeout.D()), durationOr(r.Interval.D(), config.DefaultReadyInterval.D())
}

// Drain waits until d.Probe answers its status with d.Until's values
// (e.g. {"pending": 0}) for the whole quiet period, failing after the
// timeout with the last answer. A nil drain does nothing.
func Drain(ctx context.Context, client *http.Client, baseURL string, d *config.Drain) error {
	if d == nil {
		return nil
	}
	quiet, timeout := durationOr(d.Quiet.D(), config.DefaultDrainQuiet.D()), durationOr(d.Timeout.D(), config.DefaultDrainTimeout.D())
	interval := durationOr(d.Interval.D(), config.DefaultDrainInterval.D())
	deadline := time.Now().Add(timeout)
	var idleSince time.Time // zero while the target is busy
	var answered *StepError // the last probe the target answered
	for {
		// a hanging probe must not hold the gate past its timeout
		pctx, cancel := context.WithDeadline(ctx, deadline.Add(interval))
		saw, err := probeIdle(pctx, client, baseURL, d)
		cut := pctx.Err() != nil && ctx.Err() == nil
		cancel()
		if !cut {
			answered = &StepError{Step: StepDrain, Saw: saw, Err: err}
		}
		now := time.Now()
		switch {
		case err != nil:
			idleSince = time.Time{}
		case idleSince.IsZero():
			idleSince = now
		}
		if err == nil && now.Sub(idleSince) >= quiet {
			return nil
		}
		if now.After(deadline) {
			if cut && answered != nil {
				// the probe the deadline cut says nothing: the last answer does
				saw, err = answered.Saw, answered.Err
			}
			err = cmp.Or(err, errors.New("idle, but not for the quiet period"))
			return &StepError{Step: StepDrain, Saw: saw, Err: fmt.Errorf("%w (not idle for %v within %v)", err, quiet, timeout)}
		}
		wait := interval
		if err == nil { // the quiet period ends before the next poll: poll as it ends
			wait = min(interval, idleSince.Add(quiet).Sub(now))
		}
		if err := clock.Sleep(ctx, wait); err != nil {
			return &StepError{Step: StepDrain, Saw: saw, Err: err}
		}
	}
}

func probeIdle(ctx context.Context, client *http.Client, baseURL string, d *config.Drain) (string, error) {
	a, err := send(ctx, client, baseURL, &d.Probe)
	if err == nil {
		err = cmp.Or(checkStatus(a.Status, d.Probe.Status), jsonmatch.Match(a.Body, d.Until))
	}
	return a.Saw, err
}
