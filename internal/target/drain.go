package target

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tailgate-ci/tailgate/internal/clock"
	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/jsonmatch"
)

// Drain defaults (config.Drain documents them).
const (
	DefaultDrainQuiet    = 500 * time.Millisecond
	DefaultDrainTimeout  = 30 * time.Second
	DefaultDrainInterval = 100 * time.Millisecond
)

// Drain waits until d.Probe answers its status with d.Until's values
// (e.g. {"pending": 0}) for the whole quiet period, failing after the
// timeout with the last answer. A nil drain does nothing.
func Drain(ctx context.Context, client *http.Client, baseURL string, d *config.Drain) error {
	if d == nil {
		return nil
	}
	quiet := durationOr(d.Quiet.D(), DefaultDrainQuiet)
	timeout := durationOr(d.Timeout.D(), DefaultDrainTimeout)
	interval := durationOr(d.Interval.D(), DefaultDrainInterval)
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
			if err == nil {
				err = errors.New("idle, but not for the quiet period")
			}
			return &StepError{Step: StepDrain, Saw: saw, Err: fmt.Errorf("%w (not idle for %v within %v)", err, quiet, timeout)}
		}
		if err := clock.Sleep(ctx, interval); err != nil {
			return &StepError{Step: StepDrain, Saw: saw, Err: err}
		}
	}
}

func probeIdle(ctx context.Context, client *http.Client, baseURL string, d *config.Drain) (string, error) {
	a, err := send(ctx, client, baseURL, &d.Probe)
	if err != nil {
		return a.Saw, err
	}
	if err := checkStatus(a.Status, d.Probe.Status); err != nil {
		return a.Saw, err
	}
	return a.Saw, jsonmatch.Match(a.Body, d.Until)
}
