package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// watchMachine sets plan.Busy from how busy the machine is before the
// first block and says what it saw and what the closed phases do. It
// watches only when that decides something (a closed phase whose sides
// can run at once), after the builds and before any side is started, so
// what it sees is the neighbours', not the builds': the choice does not
// depend on the change under test, and the verdict keeps its error rates.
func (e Env) watchMachine(ctx context.Context, b *runner.Benchmark, plan *runner.ABPlan) (string, error) {
	if !b.CanAtOnce(*plan) || e.MachineCPU == nil {
		return "", nil
	}
	fmt.Fprintln(e.log(), "watching how busy the machine is before the first block")
	m, err := e.MachineCPU(ctx)
	switch {
	case ctx.Err() != nil:
		return "", errors.Join(ctx.Err(), err)
	case err != nil:
		return fmt.Sprintf("closed phases loaded both sides at once, as how busy the machine is could not be read (%v)", err), nil
	case m.Busy >= busyCores:
		plan.Busy = true
		return fmt.Sprintf("closed phases alternated between the sides, as other processes kept %.2f of the machine's %d cores busy before the first block (over %s; from %.1f on, two sides loaded at once as hard as they can would share what is left unequally)",
			m.Busy, m.Cores, m.Over.Round(100*time.Millisecond), busyCores), nil
	default:
		return fmt.Sprintf("closed phases loaded both sides at once, as the machine was quiet before the first block (%.2f of %d cores busy over %s; from %.1f on, they alternate)",
			m.Busy, m.Cores, m.Over.Round(100*time.Millisecond), busyCores), nil
	}
}
