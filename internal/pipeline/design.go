package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/tailgate-ci/tailgate/internal/report"
	"github.com/tailgate-ci/tailgate/internal/runner"
)

// busyCores is how many cores other processes may keep busy before the
// first block for a closed phase to load both sides at once. Beside a
// neighbour that holds a core (a CPU hog, another job's build) two sides
// loaded at once, each as hard as it can, get unequal shares of what is
// left, which moves their throughput from block to block (Miniflux beside
// a hog: 13 % at once against 4.7 % alternating); a quiet machine's
// daemons keep far less than half a core busy.
const busyCores = 0.5

// watchMachine sets the plan's Shape.Busy from how busy the machine is
// before the first block and returns what it saw. It watches only when
// that decides something (a closed phase whose sides can run at once),
// after the builds and before any side is started, so what it sees is the
// neighbours', not the builds': the choice does not depend on the change
// under test, and the verdict keeps its error rates. Nil: it did not
// watch.
func (e Env) watchMachine(ctx context.Context, b *runner.Benchmark, plan *runner.ABPlan) (*report.MachineWatch, error) {
	if !plan.Shape.BusyDecides(b.Config.Load.RunPhases()) || e.MachineCPU == nil {
		return nil, nil
	}
	fmt.Fprintln(e.log(), "watching how busy the machine is before the first block")
	m, err := e.MachineCPU(ctx)
	switch {
	case ctx.Err() != nil:
		return nil, errors.Join(ctx.Err(), err)
	case err != nil:
		return &report.MachineWatch{Limit: busyCores, Unread: err.Error()}, nil
	}
	plan.Shape.Busy = m.Busy >= busyCores
	return &report.MachineWatch{Busy: m.Busy, Cores: m.Cores, Over: m.Over, Limit: busyCores}, nil
}
