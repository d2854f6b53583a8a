package runner

import (
	"context"
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/config"
	"github.com/tailgate-ci/tailgate/internal/target"
)

// resetBeforeFirstStart runs the dataset's reset command for an A/B side
// once, before tailgate first starts that side's target: a service that
// needs its database at start finds the one its side's reset creates
// (issue 36). Only a command can run before the service is up, and only
// a target tailgate starts has a start to precede; the runs still reset
// before each measurement. A reset command that needs the running
// service may fail here: that is not the job's failure, only the reason
// to give if the start then fails.
func (b *Benchmark) resetBeforeFirstStart(ctx context.Context, t config.Target, side string, ch target.Children) error {
	reset := b.Config.Dataset.Reset
	if side == "" || t.Start == nil || reset == nil || reset.Command == nil || !b.Sharding.resetsDataset() {
		return nil
	}
	b.mu.Lock()
	done := b.resetSides[side]
	if b.resetSides == nil {
		b.resetSides = map[string]bool{}
	}
	b.resetSides[side] = true
	b.mu.Unlock()
	if done {
		return nil
	}
	err := target.Reset(ctx, nil, t.URL, reset, ch)
	if err != nil {
		fmt.Fprintf(b.log(), "%s: the dataset reset before the first start failed (the reset after the start runs anyway): %v\n", side, err)
	}
	return err
}

// startFailure is a start's error with the reason the dataset may have
// been missing: the reset before the first start that failed.
func startFailure(err, resetErr error) error {
	if resetErr == nil {
		return err
	}
	return fmt.Errorf("%w (the dataset reset before this first start had failed: %v)", err, resetErr)
}
