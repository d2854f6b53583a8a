// Package clock owns waiting on the wall clock: a sleep that ends early,
// with the context's error, when the context is done. Everything that
// waits (retries, drain probes, pauses between calibration jobs) waits
// through it, so that Ctrl-C never has to outlast a timer.
package clock

import (
	"context"
	"time"
)

// Sleep waits for d, or until ctx is done; it returns ctx.Err() then.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
